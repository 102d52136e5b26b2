"""Split long messages into chunks at paragraph boundaries.

A message longer than ``max_chars`` becomes several fragments. Each chunk knows
its neighbours through ``prev_id``/``next_id`` in its metadata so that a reader
can walk back to the whole message.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from memex_core.domain.fragment import Fragment, Provenance, fragment_id

DEFAULT_MAX_CHARS = 2000

_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
_LINE_BREAK = re.compile(r"\n")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def split_text(text: str, max_chars: int = DEFAULT_MAX_CHARS) -> list[str]:
    """Split ``text`` into pieces of at most ``max_chars`` characters.

    Prefers paragraph breaks, then line breaks, then sentence ends, then spaces;
    only a single unbroken run longer than ``max_chars`` is cut mid-word.
    Joining the pieces with the separators they were cut at gives the text back
    (modulo whitespace at the cut).
    """
    if max_chars <= 0:
        raise ValueError("max_chars must be positive")
    text = text.strip()
    if len(text) <= max_chars:
        return [text] if text else []
    return [piece for piece in _split(text, max_chars, 0) if piece]


_SPLITTERS = (_PARAGRAPH_BREAK, _LINE_BREAK, _SENTENCE_END, re.compile(r" +"))
_JOINERS = ("\n\n", "\n", " ", " ")


def _split(text: str, max_chars: int, level: int) -> list[str]:
    if len(text) <= max_chars:
        return [text.strip()]
    if level >= len(_SPLITTERS):
        return [text[i : i + max_chars] for i in range(0, len(text), max_chars)]
    parts = [p.strip() for p in _SPLITTERS[level].split(text) if p.strip()]
    if len(parts) <= 1:
        return _split(text, max_chars, level + 1)
    joiner = _JOINERS[level]
    chunks: list[str] = []
    current = ""
    for part in parts:
        if len(part) > max_chars:
            if current:
                chunks.append(current)
                current = ""
            chunks.extend(_split(part, max_chars, level + 1))
            continue
        candidate = f"{current}{joiner}{part}" if current else part
        if len(candidate) <= max_chars:
            current = candidate
        else:
            chunks.append(current)
            current = part
    if current:
        chunks.append(current)
    return chunks


def chunk_links(ids: list[str], index: int) -> dict[str, object]:
    """Metadata linking chunk ``index`` of a split text to its neighbours (empty if unsplit).

    Every source that splits text uses it, so ``timeline`` and readers can walk chunks
    the same way whatever the source.
    """
    if len(ids) <= 1:
        return {}
    return {
        "chunk_index": index,
        "chunk_count": len(ids),
        "prev_id": ids[index - 1] if index > 0 else None,
        "next_id": ids[index + 1] if index + 1 < len(ids) else None,
    }


def message_fragments(
    *,
    source_kind: str,
    source_path: str,
    conversation_id: str,
    message_id: str,
    role: str,
    text: str,
    timestamp: float | None,
    title: str | None,
    metadata: dict[str, object] | None = None,
    max_chars: int | None = DEFAULT_MAX_CHARS,
    source_id: str | None = None,
    index_text: Callable[[str], str] | None = None,
) -> Iterator[Fragment]:
    """Turn one message into one fragment, or several linked chunks if it is long.

    This is the one place sources build fragments, so ids, locators and chunk
    links are the same for every source. ``source_id`` names the item in the
    provenance (default: ``message_id``; transcripts use the session id).
    ``max_chars=None`` keeps the text whole and as written (tool output, whose
    indentation matters and whose index text is compacted instead). ``index_text``
    derives what the indexes see from each piece.
    """
    whole = [text] if text.strip() else []
    pieces = whole if max_chars is None else split_text(text, max_chars)
    base_locator = f"{conversation_id}/{message_id}"
    locators = [
        base_locator if len(pieces) == 1 else f"{base_locator}#chunk-{index}"
        for index in range(len(pieces))
    ]
    yield from linked_fragments(
        pieces,
        locators,
        source_kind=source_kind,
        source_path=source_path,
        source_id=message_id if source_id is None else source_id,
        conversation_id=conversation_id,
        role=role,
        timestamp=timestamp,
        title=title,
        metadata={**(metadata or {}), "message_id": message_id},
        index_text=index_text,
    )


def linked_fragments(
    pieces: list[str],
    locators: list[str],
    *,
    source_kind: str,
    source_path: str,
    source_id: str,
    conversation_id: str,
    role: str,
    timestamp: float | None,
    title: str | None,
    metadata: dict[str, object],
    index_text: Callable[[str], str] | None = None,
) -> Iterator[Fragment]:
    """One fragment per piece of a split text, each at its locator, linked to its
    neighbours (:func:`chunk_links`); ids come from :func:`fragment_id` over the
    conversation, locator and piece. For a source whose locators are its own (notes'
    sections); messages go through :func:`message_fragments`."""
    ids = [
        fragment_id(source_kind, conversation_id, locator, piece)
        for locator, piece in zip(locators, pieces, strict=True)
    ]
    for index, piece in enumerate(pieces):
        yield Fragment(
            id=ids[index],
            conversation_id=conversation_id,
            role=role,
            content=piece,
            provenance=Provenance(
                source_kind=source_kind,
                source_path=source_path,
                source_id=source_id,
                locator=locators[index],
                timestamp=timestamp,
            ),
            timestamp=timestamp,
            title=title,
            metadata={**metadata, **chunk_links(ids, index)},
            index_text=None if index_text is None else index_text(piece),
        )
