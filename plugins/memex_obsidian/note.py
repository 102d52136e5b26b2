"""Turn one note's text into a :class:`ParsedDocument`: fragments per section, links, tags.

Pure: the caller reads the file and passes its text and modification time.

Fragments: one per heading section (see :mod:`memex_obsidian.sections`), or
several linked chunks (``split_text``, 2,000 characters) for a long section.
A fragment's ``content`` is the section's Markdown with its heading line;
``index_text`` puts the note title and heading path first so both are
searchable. Locators read ``Folder/Note.md#s3`` (section 3) or ``#s3.c1``
(its second chunk); ids come from :func:`fragment_id` over the document id,
locator and content, so a section keeps its id while other sections change
(as long as no heading is added or removed before it).

Links: wikilinks and Markdown links outside code, each attributed to the
fragment (chunk) it appears in, in note order.
"""

from __future__ import annotations

import bisect
import hashlib
import posixpath
from collections.abc import Iterable, Sequence
from pathlib import Path

from memex_core.domain import Fragment, Link, ParsedDocument
from memex_core.domain.chunking import DEFAULT_MAX_CHARS, linked_fragments, split_text
from memex_obsidian.frontmatter import (
    aliases_from_property,
    frontmatter_timestamp,
    json_safe,
    read_frontmatter,
)
from memex_obsidian.markdown_links import MARKDOWN_LINK, find_markdown_links
from memex_obsidian.markdown_scan import mask_code
from memex_obsidian.sections import Section, split_sections
from memex_obsidian.tags import find_inline_tags, merge_tags, tags_from_property
from memex_obsidian.wikilinks import FoundLink, find_wikilinks

SOURCE_KIND = "obsidian"
ROLE = "note"

#: Frontmatter keys with a meaning of their own; every other key is kept as a property.
_SPECIAL_KEYS = ("aliases", "tags")


def document_id(vault: Path, rel_path: str) -> str:
    """The id of the note at ``rel_path`` in ``vault``: stable for the same vault folder and path.

    A note moved or renamed is a new document (its links change meaning too).
    """
    key = f"{vault.resolve()}\x1f{rel_path}".encode("utf-8", "surrogatepass")
    return "obsidian-" + hashlib.blake2b(key, digest_size=8).hexdigest()


def note_title(rel_path: str) -> str:
    """A note's title is its file name without ``.md``, as Obsidian shows it."""
    name = posixpath.basename(rel_path)
    return name[:-3] if name.lower().endswith(".md") else name


def _blank_spans(text: str, spans: Iterable[tuple[int, int]]) -> str:
    chars = list(text)
    for start, end in spans:
        for position in range(start, end):
            if chars[position] != "\n":
                chars[position] = " "
    return "".join(chars)


def find_links_and_tags(body: str) -> tuple[list[FoundLink], list[str]]:
    """Links (wikilinks, then Markdown links, sorted by position) and inline tags of a body."""
    masked = mask_code(body)
    wikilinks = find_wikilinks(masked, body)
    without_wikilinks = _blank_spans(masked, ((link.start, link.end) for link in wikilinks))
    markdown = find_markdown_links(without_wikilinks, body)
    # A "#" in any link destination (external ones too) is an anchor, never a tag.
    destinations = [m.span("dest") for m in MARKDOWN_LINK.finditer(without_wikilinks)]
    tags = find_inline_tags(_blank_spans(without_wikilinks, destinations), body)
    return sorted(wikilinks + markdown, key=lambda link: link.start), tags


def _chunk_of_each_link(links: Sequence[FoundLink], pieces: Sequence[str]) -> list[int]:
    """Which piece each link (in order) is in: found again by its text, piece by piece.

    ``split_text`` may re-join whitespace, so offsets do not carry over; a link
    holds no line break, so its text survives unless a hard word cut splits it,
    and then it stays with the piece being searched.
    """
    chunk, cursor = 0, 0
    where: list[int] = []
    for link in links:
        for candidate in range(chunk, len(pieces)):
            found = pieces[candidate].find(link.raw, cursor if candidate == chunk else 0)
            if found >= 0:
                chunk, cursor = candidate, found + len(link.raw)
                break
        where.append(chunk)
    return where


def _section_fragments(
    section: Section,
    links: Sequence[FoundLink],
    *,
    doc_id: str,
    rel_path: str,
    vault_path: str,
    title: str,
    tags: Sequence[str],
    timestamp: float | None,
    max_chars: int,
) -> tuple[list[Fragment], list[Link]]:
    pieces = split_text(section.text, max_chars)
    locators = [
        f"{rel_path}#s{section.index}" + (f".c{i}" if len(pieces) > 1 else "")
        for i in range(len(pieces))
    ]
    fragments = list(
        linked_fragments(
            pieces,
            locators,
            source_kind=SOURCE_KIND,
            source_path=vault_path,
            source_id=rel_path,
            conversation_id=doc_id,
            role=ROLE,
            timestamp=timestamp,
            title=title,
            metadata={
                "note_path": rel_path,
                "heading": section.heading,
                "section_index": section.index,
                "tags": list(tags),
            },
            index_text=lambda piece: "\n".join(
                part for part in (title, section.heading, piece) if part
            ),
        )
    )
    ids = [fragment.id for fragment in fragments]
    found_in = _chunk_of_each_link(links, pieces) if pieces else []
    resolved_links = [
        Link(
            source_fragment_id=ids[chunk],
            target=link.target,
            kind=link.kind,
            heading=link.heading,
            block=link.block,
            display=link.display,
        )
        for link, chunk in zip(links, found_in, strict=True)
    ]
    return fragments, resolved_links


def parse_note(
    text: str,
    *,
    vault: Path,
    rel_path: str,
    mtime: float | None = None,
    max_chars: int = DEFAULT_MAX_CHARS,
) -> ParsedDocument:
    """Parse a note's text (already decoded) found at ``rel_path`` in ``vault``.

    ``mtime`` dates the note when its frontmatter has no readable ``date``,
    ``created`` or ``updated``. Broken frontmatter is warned about, not raised.
    """
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    frontmatter = read_frontmatter(text, vault / rel_path)
    data = frontmatter.data
    aliases = aliases_from_property(data.get("aliases"))
    properties = {key: json_safe(value) for key, value in data.items() if key not in _SPECIAL_KEYS}
    timestamp = frontmatter_timestamp(data)
    if timestamp is None:
        timestamp = mtime

    found_links, inline_tags = find_links_and_tags(frontmatter.body)
    tags = merge_tags(tags_from_property(data.get("tags")), inline_tags)
    doc_id = document_id(vault, rel_path)
    title = note_title(rel_path)
    vault_path = str(vault.resolve())

    fragments: list[Fragment] = []
    links: list[Link] = []
    starts = [link.start for link in found_links]  # sorted: links come in note order
    for section in split_sections(frontmatter.body):
        first = bisect.bisect_left(starts, section.start)
        in_section = found_links[first : bisect.bisect_left(starts, section.end)]
        section_fragments, section_links = _section_fragments(
            section,
            in_section,
            doc_id=doc_id,
            rel_path=rel_path,
            vault_path=vault_path,
            title=title,
            tags=tags,
            timestamp=timestamp,
            max_chars=max_chars,
        )
        fragments.extend(section_fragments)
        links.extend(section_links)
    return ParsedDocument(
        id=doc_id,
        path=rel_path,
        title=title,
        fragments=fragments,
        links=links,
        aliases=aliases,
        tags=tags,
        properties=properties,
        timestamp=timestamp,
    )
