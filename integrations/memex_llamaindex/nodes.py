"""A memex search result as a LlamaIndex ``NodeWithScore``.

The node's id is the fragment id (``view.get`` and ``memex show`` take it back),
its text the fragment's full content and its score the fused score. Metadata is
flat (vector-store style) so LlamaIndex postprocessors and ``MetadataFilters``
can use it: provenance, the conversation, role and title, the memory owner and
collection, and per retrieval signal its rank and raw score (``keyword_rank``,
``semantic_rank``, ...; ``None`` when that signal did not find the fragment).
Only title, role, source and time are shown to the LLM and the embedder; ids,
locators and ranks are bookkeeping and would only cost tokens.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from llama_index.core.schema import NodeRelationship, NodeWithScore, RelatedNodeInfo, TextNode

from memex_core.domain import SearchResult
from memex_core.domain.memory.records import MEMORY_SOURCE

#: Metadata an LLM reading the node benefits from; every other key is hidden from it.
SHOWN_KEYS = ("title", "role", "source_kind", "date")


def result_metadata(result: SearchResult) -> dict[str, Any]:
    """Flat metadata for one search result."""
    fragment = result.fragment
    provenance = fragment.provenance
    metadata: dict[str, Any] = {
        "fragment_id": fragment.id,
        "conversation_id": fragment.conversation_id,
        "title": fragment.title,
        "role": fragment.role,
        "source_kind": provenance.source_kind,
        "source_path": provenance.source_path,
        "source_id": provenance.source_id,
        "locator": provenance.locator,
        "timestamp": fragment.timestamp,
        "date": _date(fragment.timestamp),
        "owner": fragment.owner,
        "collection": fragment.collection,
        "score": result.score,
    }
    for signal, rank in result.ranks.items():
        metadata[f"{signal}_rank"] = rank
        metadata[f"{signal}_score"] = result.scores.get(signal)
    if provenance.source_kind == MEMORY_SOURCE:  # which memory, and what kind of memory
        metadata["memory_id"] = fragment.metadata.get("memory_id")
        metadata["memory_kind"] = fragment.metadata.get("kind")
    return metadata


def to_node(result: SearchResult) -> NodeWithScore:
    """``result`` as a scored ``TextNode`` whose SOURCE is its conversation (or note)."""
    metadata = result_metadata(result)
    hidden = [key for key in metadata if key not in SHOWN_KEYS]
    node = TextNode(
        id_=result.fragment.id,
        text=result.fragment.content,
        metadata=metadata,
        excluded_llm_metadata_keys=hidden,
        excluded_embed_metadata_keys=hidden,
        relationships={
            NodeRelationship.SOURCE: RelatedNodeInfo(node_id=result.fragment.conversation_id)
        },
    )
    return NodeWithScore(node=node, score=result.score)


def _date(timestamp: float | None) -> str | None:
    if timestamp is None:
        return None
    return datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%d %H:%M UTC")


__all__ = ["SHOWN_KEYS", "result_metadata", "to_node"]
