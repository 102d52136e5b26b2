"""Search results as LangChain ``Document`` objects: content, id and flat metadata.

Metadata is flat and JSON-ready (str, int, float, bool, None and lists of
str), because LangChain users pass it on to vector stores, tracers and prompt
templates that expect exactly that. The keys:

========================  ===========================================================
``source``                where the text came from: the ingested file or folder, or the
                          memory file's path as the agent knows it (``user/notes.md``)
``source_kind``           the memex source: ``chatgpt``, ``claude_code``, ``obsidian``,
                          ``memory``...
``source_id``             the item inside ``source`` (conversation id, note path, memory id)
``locator``               where the fragment sits inside the source
``conversation_id``       the conversation, note or memory the fragment belongs to
``title``                 its title (a note section adds `` > heading``)
``role``                  ``user``, ``assistant``, ``system``, ``tool`` or ``note``
``timestamp``             seconds since the epoch (UTC), or None when the source did not say
``path``                  a note's path in its vault or a memory file's path, else None
``owner_kind``            ``corpus`` (the operator's ingested material), ``user`` (the
                          retriever's user's memory) or ``shared`` (shared memory)
``collection``            the memory collection (``""`` for the corpus)
``memory_id``             the memory the fragment belongs to (memory only, else None)
``score``                 the fused score (the ranker's; higher is better)
``mode``                  the search mode that produced it
``keyword_rank``          1-based rank in the keyword (BM25) list, None if it was not there
``semantic_rank``         1-based rank in the semantic list, None if it was not there
``keyword_score``         the raw BM25 score, None if not ranked by that signal
``semantic_score``        the raw cosine similarity, None if not ranked by that signal
========================  ===========================================================

A ranker that fuses other signals adds ``<signal>_rank`` and ``<signal>_score``
for each of them. Flat keys (rather than a ``ranks`` dict) keep metadata
filterable by stores that only index scalar values.
"""

from __future__ import annotations

from typing import Any

from langchain_core.documents import Document

from memex_core.domain import KEYWORD, SEMANTIC, SearchResult
from memex_core.domain.disclosure import label_of
from memex_core.domain.memory.paths import to_virtual_path
from memex_core.domain.memory.records import MEMORY_SOURCE, SHARED_OWNER
from memex_core.errors import MemexError

#: Signals every document reports, even when a mode leaves one out (as None).
SIGNALS = (KEYWORD, SEMANTIC)


def owner_kind(owner: str) -> str:
    """``corpus``, ``user`` or ``shared``: whose material a fragment is."""
    if owner == "":
        return "corpus"
    if owner == SHARED_OWNER:
        return "shared"
    return "user"


def _shown_path(storage_path: str | None, user_id: str | None) -> str | None:
    """A memory file's path as the retriever's user's agent names it (``user/...``)."""
    if not storage_path or user_id is None:
        return storage_path
    try:
        return to_virtual_path(storage_path, user_id)
    except MemexError:
        return None  # not this user's path: never shown (the view filtered it anyway)


def to_document(result: SearchResult, *, mode: str, user_id: str | None) -> Document:
    """One search result as a ``Document`` whose ``id`` is the fragment id."""
    fragment = result.fragment
    provenance = fragment.provenance
    memory = provenance.source_kind == MEMORY_SOURCE
    if memory:
        path = _shown_path(fragment.metadata.get("path"), user_id)
        source = path or f"memory:{fragment.conversation_id}"
    else:
        note_path = fragment.metadata.get("note_path")
        path = note_path if isinstance(note_path, str) else None
        source = provenance.source_path
    metadata: dict[str, Any] = {
        "source": source,
        "source_kind": provenance.source_kind,
        "source_id": fragment.conversation_id if memory else provenance.source_id,
        "locator": provenance.locator,
        "conversation_id": fragment.conversation_id,
        "title": label_of(fragment),
        "role": fragment.role,
        "timestamp": fragment.timestamp,
        "path": path,
        "owner_kind": owner_kind(fragment.owner),
        "collection": fragment.collection,
        "memory_id": fragment.metadata.get("memory_id") if memory else None,
        "score": result.score,
        "mode": mode,
    }
    for signal in (*SIGNALS, *sorted(set(result.ranks) - set(SIGNALS))):
        metadata[f"{signal}_rank"] = result.ranks.get(signal)
        metadata[f"{signal}_score"] = result.scores.get(signal)
    return Document(id=fragment.id, page_content=fragment.content, metadata=metadata)


__all__ = ["SIGNALS", "owner_kind", "to_document"]
