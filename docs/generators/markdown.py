"""Docstrings (reStructuredText-flavoured, as Python writes them) to Markdown."""

from __future__ import annotations

import re
from collections.abc import Callable

_ROLE = re.compile(r":(?:class|meth|func|mod|attr|data|exc):`~?([^`]+)`")
_LITERAL = re.compile(r"``([^`]+)``")


def code(text: str, link: Callable[[str], str | None]) -> str:
    """An inline code span, linked when ``link`` knows a page anchor for it."""
    anchor = link(text)
    return f"[`{text}`]({anchor})" if anchor else f"`{text}`"


def inline(text: str, link: Callable[[str], str | None]) -> str:
    """``x`` and :class:`x` become code spans (links where possible)."""
    text = _ROLE.sub(lambda m: code(m[1], link), text)
    return _LITERAL.sub(lambda m: code(m[1], link), text)


def docstring(text: str, link: Callable[[str], str | None] = lambda _: None) -> str:
    """A dedented docstring as Markdown: ``::`` literal blocks become fenced code."""
    out: list[str] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if not line.rstrip().endswith("::"):
            out.append(inline(line, link))
            continue
        lead = line.rstrip()[:-2].rstrip()
        if lead:
            out.append(inline(lead + ":", link))
        block: list[str] = []
        while index < len(lines) and (not lines[index].strip() or lines[index].startswith(" ")):
            block.append(lines[index])
            index += 1
        body = list(block)
        while body and not body[-1].strip():
            body.pop()
        while body and not body[0].strip():
            body.pop(0)
        indent = min(len(b) - len(b.lstrip()) for b in body if b.strip()) if body else 0
        out += ["", "```", *(b[indent:] for b in body), "```", ""]
    return "\n".join(out).strip()
