"""Fragments and documents the catalog contract and the rerank tests store: a session's turn
with the folder it ran in, and a parsed note of a source."""

from __future__ import annotations

from typing import Any

from memex_core.domain import Fragment, ParsedDocument, Provenance


def fragment(fid: str, conversation: str, cwd: str | None, **fields: Any) -> Fragment:
    """Turn ``fid`` of ``conversation`` (a Claude Code session by default), run in ``cwd``
    (None: no folder recorded); ``fields`` override the fragment's own."""
    metadata: dict[str, Any] = dict(fields.pop("metadata", {}))
    if cwd is not None:
        metadata["cwd"] = cwd
    return Fragment(
        id=fid,
        conversation_id=conversation,
        role=fields.pop("role", "user"),
        content=f"text of {fid}",
        provenance=Provenance(
            source_kind=fields.pop("kind", "claude_code"),
            source_path=fields.pop("path", f"/t/{conversation}.jsonl"),
            source_id=conversation,
            locator=fid,
            timestamp=fields.get("timestamp"),
        ),
        timestamp=fields.pop("timestamp", 1_700_000_000.0),
        metadata=metadata,
        **fields,
    )


def document(kind: str, root: str, path: str, texts: list[str]) -> ParsedDocument:
    """Note ``path`` under ``root`` of source ``kind``, one fragment per text."""
    doc_id = f"{kind}-{root}-{path}"
    fragments = [
        Fragment(
            id=f"{doc_id}#{n}",
            conversation_id=doc_id,
            role="note",
            content=text,
            provenance=Provenance(kind, f"{root}/{path}", path, f"{path}#{n}"),
            title=path,
        )
        for n, text in enumerate(texts)
    ]
    return ParsedDocument(id=doc_id, path=path, title=path, fragments=fragments)


def text_fragment(doc_id: str, text: str) -> Fragment:
    """A ChatGPT user turn ``doc_id`` of conversation ``c1`` saying ``text``."""
    return Fragment(
        id=doc_id,
        conversation_id="c1",
        role="user",
        content=text,
        provenance=Provenance("chatgpt", "conversations.json", doc_id, doc_id),
    )
