"""Wikilinks and embeds: ``[[Note]]``, ``[[Note#Heading|shown]]``, ``![[img.png|600]]``...

Forms read (all seen in the Obsidian Help vault):

- ``[[Note]]``, ``[[Folder/Note]]``, ``[[Note.md]]``, ``[[img.png]]``;
- ``[[Note|shown]]``: display text after the first ``|``; in tables the pipe is
  escaped, ``[[Note\\|shown]]``, and means the same;
- ``[[Note#Heading]]``, nested ``[[Note#H1#H2]]`` (heading ``"H1#H2"``),
  same-note ``[[#Heading]]`` (target ``""``), blocks ``[[Note#^block-id]]``;
- ``![[...]]``: an embed; for images the "display" is the size (``|600``) and a
  ``#interface``-style heading is a CSS hint, both kept as written.

Scanning runs on the masked note (see :mod:`memex_obsidian.markdown_scan`), so
links in code are skipped, and reads the link itself from the original text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memex_core.domain.links import EMBED, LINK

# No brackets or line breaks inside: "[[a]b]]" is not a link, and a link never spans lines.
WIKILINK = re.compile(r"(?P<bang>!?)\[\[(?P<inner>[^\[\]\n]+?)\]\]")


@dataclass(frozen=True)
class FoundLink:
    """A link found in a note's body: where it is, as written, and what it points at.

    ``start``/``end`` are offsets in the text that was scanned; ``raw`` is the
    link as it appears there (used to find it again in a chunk of a section).
    """

    start: int
    end: int
    raw: str
    target: str
    kind: str
    heading: str | None
    block: str | None
    display: str | None


def split_subpath(link_path: str) -> tuple[str, str | None, str | None]:
    """``"Note#H1#H2"`` -> ``("Note", "H1#H2", None)``; ``"Note#^id"`` -> ``("Note", None, "id")``.

    Empty heading parts are dropped (``[[Note##H]]`` is ``H``); a block id is
    the last part when it starts with ``^``.
    """
    target, *subparts = link_path.split("#")
    parts = [part.strip() for part in subparts if part.strip()]
    block = None
    if parts and parts[-1].startswith("^"):
        block = parts.pop()[1:].strip() or None
    heading = "#".join(parts) or None
    return target.strip(), heading, block


def parse_wikilink_inner(inner: str) -> tuple[str, str | None, str | None, str | None] | None:
    """What is between ``[[`` and ``]]`` as ``(target, heading, block, display)``.

    ``None`` when it points nowhere (``[[|x]]``, ``[[#]]``).
    """
    # In tables "|" must be escaped; Obsidian reads "\|" inside a link as the display separator.
    unescaped = inner.replace("\\|", "|")
    link_path, pipe, display = unescaped.partition("|")
    target, heading, block = split_subpath(link_path)
    if not (target or heading or block):
        return None
    shown = display.strip() if pipe else ""
    return target, heading, block, shown or None


def find_wikilinks(masked: str, original: str) -> list[FoundLink]:
    """Every wikilink and embed in ``masked`` (code blanked), read from ``original``."""
    found: list[FoundLink] = []
    for match in WIKILINK.finditer(masked):
        raw = original[match.start() : match.end()]
        inner = raw[len(match.group("bang")) + 2 : -2]
        parsed = parse_wikilink_inner(inner)
        if parsed is None:
            continue
        target, heading, block, display = parsed
        found.append(
            FoundLink(
                start=match.start(),
                end=match.end(),
                raw=raw,
                target=target,
                kind=EMBED if match.group("bang") else LINK,
                heading=heading,
                block=block,
                display=display,
            )
        )
    return found
