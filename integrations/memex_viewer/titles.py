"""What a page calls a fragment in a list (search hits, activity, live events).

:func:`memex_core.domain.disclosure.label_of` names a fragment by its conversation or
note. A remembered fact has neither: its stored title is only its kind (``preference``,
``misc``), so a list of facts would read "preference, preference, misc". A fact is named
by its own text instead: the first line that has any, cut to :data:`FACT_TITLE_CHARS`.
The title is plain text; templates escape it and the live script sets it as
``textContent``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memex_core.domain.disclosure import label_of
from memex_core.domain.memory.records import MEMORY_SOURCE

if TYPE_CHECKING:
    from memex_core.domain import Fragment

#: Longest fact title, in characters (a heading line; the text itself follows below it).
FACT_TITLE_CHARS = 80


def is_fact(fragment: Fragment) -> bool:
    """A remembered fact: agent memory without a path (a memory file keeps its file name)."""
    return fragment.source_kind == MEMORY_SOURCE and not fragment.metadata.get("path")


def first_line(text: str, limit: int = FACT_TITLE_CHARS) -> str:
    """The first non-blank line of ``text``, whitespace collapsed, at most ``limit``
    characters (cut at a word where one is near, with an ellipsis)."""
    line = next((" ".join(part.split()) for part in text.splitlines() if part.strip()), "")
    if len(line) <= limit:
        return line
    cut = line[: limit - 1]
    space = cut.rfind(" ")
    if space >= limit // 2:
        cut = cut[:space]
    return cut.rstrip() + "…"


def title_of(fragment: Fragment) -> str:
    """A fact's first line, else :func:`label_of` (a fact with no text keeps its kind)."""
    if is_fact(fragment):
        line = first_line(fragment.content)
        if line:
            return line
    return label_of(fragment)
