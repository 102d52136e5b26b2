"""Markdown links to vault files: ``[t](Note.md)``, ``[t](Folder/My%20Note.md#H)``, ``![a](i.png)``.

Obsidian resolves a Markdown link's destination like a wikilink's after
URL-decoding it (``%20`` is a space); ``<...>`` wraps a destination with raw
spaces. Destinations with a scheme (``https:``, ``mailto:``, ``obsidian:``,
also inside ``<...>``) or starting with ``//`` are external and ignored;
``(#Heading)`` is a link to a heading of the same note. A title after the
destination (``"title"``) is allowed and ignored. Reference-style links
(``[text][ref]``) are not read: Obsidian does not resolve them to notes either.

Run this on text where wikilinks are already blanked, so ``[[a]](b)`` is not
mistaken for a Markdown link.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

from memex_core.domain.links import EMBED, LINK
from memex_obsidian.wikilinks import FoundLink, split_subpath

_TEXT = r"(?:\\.|[^\[\]\\\n]|\[(?:\\.|[^\[\]\\\n])*\])*"  # one level of nested [brackets]
_PLAIN_DEST = r"(?:\\.|[^\s()\\]|\((?:\\.|[^\s()\\])*\))*"  # balanced (parens), no spaces
_TITLE = r"""(?:[ \t]+(?:"[^"\n]*"|'[^'\n]*'|\([^()\n]*\)))?"""
MARKDOWN_LINK = re.compile(
    rf"(?P<bang>!?)\[(?P<text>{_TEXT})\]\([ \t]*(?P<dest><[^<>\n]*>|{_PLAIN_DEST}){_TITLE}[ \t]*\)"
)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")


def is_external(destination: str) -> bool:
    """Whether a link destination leaves the vault (a URL with a scheme, or ``//host``)."""
    return bool(_SCHEME.match(destination)) or destination.startswith("//")


def parse_destination(destination: str) -> tuple[str, str | None, str | None] | None:
    """``(target, heading, block)`` of a Markdown link destination, ``None`` if not in the vault."""
    dest = destination.strip()
    if dest.startswith("<") and dest.endswith(">"):
        dest = dest[1:-1].strip()
    if not dest or is_external(dest):
        return None
    # Split before decoding: an encoded "%23" is part of a file name, not a heading marker.
    path, _, fragment = dest.partition("#")
    _, heading, block = split_subpath("#" + unquote(fragment))
    target = unquote(path).strip()
    if not (target or heading or block):
        return None
    return target, heading, block


def find_markdown_links(masked: str, original: str) -> list[FoundLink]:
    """Markdown links and images in ``masked`` that point into the vault, read from ``original``."""
    found: list[FoundLink] = []
    for match in MARKDOWN_LINK.finditer(masked):
        dest = original[match.start("dest") : match.end("dest")]
        parsed = parse_destination(dest)
        if parsed is None:
            continue
        target, heading, block = parsed
        text = original[match.start("text") : match.end("text")].strip()
        found.append(
            FoundLink(
                start=match.start(),
                end=match.end(),
                raw=original[match.start() : match.end()],
                target=target,
                kind=EMBED if match.group("bang") else LINK,
                heading=heading,
                block=block,
                display=text or None,
            )
        )
    return found
