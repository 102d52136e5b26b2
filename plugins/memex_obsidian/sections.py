"""Split a note's body into heading sections, the unit a note is searched and linked by.

A section runs from an ATX heading line (``#`` to ``######`` then a space, at
most 3 spaces indented, outside fenced code and outside blockquotes) to the
next one, whatever its level; the text before the first heading is section 0
(even when empty, so numbering does not shift when someone adds an intro).
Setext headings (a line underlined with ``===``/``---``) are not read: in notes
``---`` is almost always a horizontal rule.

Each section knows its heading path (``("H1", "H2")`` for an H2 under an H1),
which is what ``[[Note#H1#H2]]`` and search results name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memex_obsidian.markdown_scan import fenced_lines

_ATX_HEADING = re.compile(r"^ {0,3}(?P<marks>#{1,6})(?:[ \t]+(?P<text>.*?))?[ \t]*$")
_CLOSING_MARKS = re.compile(r"(?:^|[ \t]+)#+[ \t]*$")


@dataclass(frozen=True)
class Section:
    """One section: its number, heading path and text; ``start``/``end`` are body offsets."""

    index: int
    heading_path: tuple[str, ...]
    start: int
    end: int
    text: str

    @property
    def heading(self) -> str:
        """The heading path for people: ``"H1 > H2"`` (``""`` before the first heading)."""
        return " > ".join(self.heading_path)


def heading_of(line: str) -> tuple[int, str] | None:
    """``(level, text)`` if ``line`` is an ATX heading, else ``None``."""
    match = _ATX_HEADING.match(line)
    if not match:
        return None
    text = _CLOSING_MARKS.sub("", match.group("text") or "").strip()
    return len(match.group("marks")), text


def split_sections(body: str) -> list[Section]:
    """The body's sections in order; section 0 is the text before the first heading."""
    lines = body.split("\n")
    in_fence = fenced_lines(lines)
    # (line number, level, text) of every heading that starts a section.
    headings: list[tuple[int, int, str]] = []
    for number, line in enumerate(lines):
        if in_fence[number]:
            continue
        found = heading_of(line)
        if found is not None:
            headings.append((number, *found))
    line_starts = [0]
    for line in lines:
        line_starts.append(line_starts[-1] + len(line) + 1)

    def offset(line_number: int) -> int:
        return min(line_starts[line_number], len(body))

    sections: list[Section] = []
    first_heading = headings[0][0] if headings else len(lines)
    sections.append(Section(0, (), 0, offset(first_heading), body[: offset(first_heading)]))
    stack: list[tuple[int, str]] = []
    for position, (number, level, text) in enumerate(headings):
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, text))
        end_line = headings[position + 1][0] if position + 1 < len(headings) else len(lines)
        start, end = offset(number), offset(end_line)
        path = tuple(name for _, name in stack)
        sections.append(Section(position + 1, path, start, end, body[start:end]))
    return sections
