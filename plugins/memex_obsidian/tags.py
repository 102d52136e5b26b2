"""Tags: inline ``#tags`` in the body and the ``tags`` property, merged as Obsidian shows them.

Inline rules (Obsidian's): ``#`` at the start of a line or after whitespace,
followed by letters, digits, ``_``, ``-``, ``/`` (nested tags, ``#inbox/to-read``)
or other Unicode symbols such as emoji; no spaces or ASCII punctuation. A tag
must contain a non-digit (``#1984`` is not a tag, ``#y1984`` is). So a
heading's ``# `` (followed by a space), a URL's ``page#anchor`` and a link's
``[[Note#Heading]]`` are not tags. Tags in code are masked away before this
runs; link destinations must be masked too (see :func:`find_inline_tags`).

Tags are case-insensitive in Obsidian: the merged list keeps the first spelling
seen (frontmatter first, then the body in order) and drops later case variants.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Obsidian excludes general punctuation (U+2000-206F), supplemental punctuation
# (U+2E00-2E7F), ASCII punctuation except "_-/", and whitespace.
_TAG_BODY = r"[^\u2000-\u206F\u2E00-\u2E7F'!\"#$%&()*+,.:;<=>?@^`{|}~\[\]\\\s]+"
INLINE_TAG = re.compile(rf"#(?P<tag>{_TAG_BODY})")


def is_valid_tag(tag: str) -> bool:
    """A tag needs a non-digit character (Obsidian ignores ``#1984``)."""
    return any(not char.isdigit() for char in tag.replace("/", ""))


def find_inline_tags(masked: str, original: str) -> list[str]:
    """Inline tags (without ``#``) in body order.

    ``masked`` has code, wikilinks and Markdown link destinations blanked;
    ``original`` is the unmasked text, used to check what precedes the ``#``
    (a masked code span right before it must not count as whitespace).
    """
    tags: list[str] = []
    for match in INLINE_TAG.finditer(masked):
        start = match.start()
        if start > 0 and not original[start - 1].isspace():
            continue
        tag = match.group("tag").rstrip("/")
        if tag and is_valid_tag(tag):
            tags.append(tag)
    return tags


def tags_from_property(value: object) -> list[str]:
    """The ``tags`` property as a list: a YAML list, or one string of tags split at commas/spaces.

    A leading ``#`` is dropped (``tags: "#a"`` is tag ``a``); empty and
    non-scalar entries are ignored.
    """
    if value is None:
        return []
    items: Iterable[object] = value if isinstance(value, list) else [value]
    tags: list[str] = []
    for item in items:
        if item is None or isinstance(item, dict | list):
            continue
        for word in re.split(r"[,\s]+", str(item)):
            tag = word.strip().lstrip("#")
            if tag:
                tags.append(tag)
    return tags


def merge_tags(*groups: Iterable[str]) -> tuple[str, ...]:
    """Tags of all groups in order, deduplicated case-insensitively (first spelling wins)."""
    seen: set[str] = set()
    merged: list[str] = []
    for group in groups:
        for tag in group:
            key = tag.casefold()
            if key not in seen:
                seen.add(key)
                merged.append(tag)
    return tuple(merged)
