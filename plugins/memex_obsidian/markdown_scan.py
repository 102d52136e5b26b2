"""Find the code in a note, so links, tags and headings inside code are not taken as real.

Obsidian shows ``[[Note]]`` or ``#tag`` inside code literally: they are examples,
not links. Every other scanner works on a *masked* copy of the note where code
is blanked out (spaces, newlines kept), so offsets in the masked text are
offsets in the original and what a match covers can be read from the original.

Code is:

- fenced blocks (````` ``` ````` or ``~~~``, three or more), also when indented
  (fences inside list items) or inside a blockquote/callout (``> ```css``); a
  fence opened inside a blockquote ends with it; an unclosed fence runs to the
  end of the note, as in CommonMark;
- inline code spans: a run of N backticks up to the next run of exactly N
  backticks within the same paragraph (an unmatched run is literal text).

Indented (4-space) code blocks are NOT treated as code: in notes they are far
more often nested list content than code, and telling them apart needs a full
Markdown parser.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

# Blockquote markers in front of a line ("> ", "> > "): callouts are blockquotes.
_QUOTE_PREFIX = re.compile(r"^(?:[ \t]{0,3}>[ ]?)*")
_FENCE_OPEN = re.compile(r"^[ \t]*(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_BACKTICK_RUN = re.compile(r"`+")
# A blank line (possibly inside a blockquote) ends a paragraph, and with it any open code span.
_PARAGRAPH_BREAK = re.compile(r"\n[ \t>]*\n")


@dataclass(frozen=True)
class _Fence:
    char: str
    length: int
    quote_depth: int


def _quote_depth(line: str) -> tuple[int, str]:
    """How many blockquote levels open the line, and the line without them."""
    prefix = _QUOTE_PREFIX.match(line)
    marker = prefix.group(0) if prefix else ""
    return marker.count(">"), line[len(marker) :]


def _opens_fence(rest: str, depth: int) -> _Fence | None:
    match = _FENCE_OPEN.match(rest)
    if not match:
        return None
    fence = match.group("fence")
    if fence[0] == "`" and "`" in match.group("info"):
        return None  # CommonMark: a backtick fence's info string has no backticks
    return _Fence(fence[0], len(fence), depth)


def _closes_fence(rest: str, fence: _Fence) -> bool:
    # Indentation is not checked: openers are accepted indented too (fences in list items).
    stripped = rest.strip()
    return len(stripped) >= fence.length and set(stripped) == {fence.char}


def fenced_lines(lines: list[str]) -> list[bool]:
    """For each line, whether it belongs to a fenced code block (fence lines included)."""
    inside: list[bool] = []
    fence: _Fence | None = None
    for line in lines:
        depth, rest = _quote_depth(line)
        if fence is not None:
            if depth < fence.quote_depth:
                fence = None  # the blockquote holding the fence ended, so did the fence
            else:
                inside.append(True)
                if _closes_fence(rest, fence):
                    fence = None
                continue
        fence = _opens_fence(rest, depth)
        inside.append(fence is not None)
    return inside


def _blank(text: str) -> str:
    """``text`` with every character but newlines replaced by a space (same length)."""
    return re.sub(r"[^\n]", " ", text)


def _mask_code_spans(text: str) -> str:
    # Paragraph ends, found once: looking for the next one per backtick would be quadratic.
    breaks = [match.start() for match in _PARAGRAPH_BREAK.finditer(text)] + [len(text)]
    out: list[str] = []
    position = 0
    search_from = 0
    while True:
        opener = _BACKTICK_RUN.search(text, search_from)
        if opener is None:
            break
        if opener.start() > 0 and text[opener.start() - 1] == "\\":
            search_from = opener.start() + 1  # an escaped backtick opens nothing
            continue
        length = len(opener.group(0))
        limit = breaks[bisect.bisect_left(breaks, opener.end())]
        closer = None
        for candidate in _BACKTICK_RUN.finditer(text, opener.end(), limit):
            if len(candidate.group(0)) == length:
                closer = candidate
                break
        if closer is None:
            search_from = opener.end()  # literal backticks
            continue
        out.append(text[position : opener.start()])
        out.append(_blank(text[opener.start() : closer.end()]))
        position = search_from = closer.end()
    out.append(text[position:])
    return "".join(out)


def mask_code(text: str) -> str:
    """``text`` with fenced code blocks and inline code spans blanked out.

    The result has the same length and the same line breaks as ``text``, so a
    match found in it at ``[start, end)`` is ``text[start:end]`` in the note.
    """
    lines = text.split("\n")
    fenced = fenced_lines(lines)
    blanked = "\n".join(
        " " * len(line) if in_fence else line for line, in_fence in zip(lines, fenced, strict=True)
    )
    return _mask_code_spans(blanked)
