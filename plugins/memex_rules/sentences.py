"""Cutting a message into the sentences the statement rules look at.

Code is skipped (fenced blocks, quoted lines, headings), markdown list markers
are removed, and a full stop after a common abbreviation ("Dr.", "e.g.") does
not end a sentence.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_FENCE = re.compile(r"^\s*(```|~~~)")
_LIST_MARKER = re.compile(r"^\s*(?:[-*+\u2022]|\d{1,3}[.)])\s+")
_BOUNDARY = re.compile(r"(?<=[.!?\u2026])[\"')\]]*\s+(?=\S)")
_ABBREVIATION = re.compile(
    r"\b(?:mr|mrs|ms|dr|prof|st|jr|sr|vs|etc|approx|no|e\.g|i\.e|a\.m|p\.m|u\.s)\.$",
    re.IGNORECASE,
)
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u02bc": "'", "\u201c": '"', "\u201d": '"'})


def lines_outside_code(text: str) -> Iterator[str]:
    """The lines of ``text`` that are prose: not in a fenced block, a quote or a heading."""
    in_fence = False
    for line in text.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        stripped = line.strip()
        if in_fence or not stripped or stripped.startswith((">", "#", "|")):
            continue
        yield _LIST_MARKER.sub("", stripped)


def split_sentences(text: str) -> list[str]:
    """The prose sentences of ``text``, with typographic quotes made plain."""
    sentences: list[str] = []
    for line in lines_outside_code(text.translate(_QUOTES)):
        start = 0
        for boundary in _BOUNDARY.finditer(line):
            if _ABBREVIATION.search(line, 0, boundary.start()):
                continue
            sentences.append(line[start : boundary.start()].strip())
            start = boundary.end()
        sentences.append(line[start:].strip())
    return [s for s in sentences if s]
