"""Tags as a search filter takes them: nested, case-insensitive, as Obsidian reads them.

A note's tags are what its source read (an Obsidian vault's ``tags:`` property and inline
``#tags``). Obsidian treats ``#Project`` and ``#project`` as one tag and nests tags with
``/``, so a filter ``project`` matches a note tagged ``project`` or ``project/memex`` (the
tag and its children), never ``projects`` or ``other/project``.
"""

from __future__ import annotations

from collections.abc import Iterable

from memex_core.domain.time_bounds import FilterValueError


def normalize_tag(tag: str) -> str:
    """``tag`` as compared: without a leading ``#`` or a trailing ``/``, case-folded.
    An empty tag is a :class:`FilterValueError` (it would match every tagged note)."""
    cleaned = tag.strip().lstrip("#").strip("/").strip()
    if not cleaned:
        raise FilterValueError(
            f"the tag filter needs a tag name, not {tag!r:.40} (say --tag project)"
        )
    return cleaned.casefold()


def tag_covers(wanted: str, tag: str) -> bool:
    """Whether the filter tag ``wanted`` (normalized) matches ``tag``: the same tag, or one
    nested under it (``project`` covers ``project/memex``)."""
    folded = tag.lstrip("#").casefold()
    return folded == wanted or folded.startswith(wanted + "/")


def tags_match(wanted: Iterable[str], tags: Iterable[str]) -> bool:
    """Whether any of ``tags`` is covered by any of the filter tags ``wanted`` (normalized)."""
    wanted = tuple(wanted)
    return any(tag_covers(w, tag) for tag in tags if isinstance(tag, str) for w in wanted)
