"""A chat and the helpers the turn-context tests share (``test_turn_context``,
``test_turn_context_rebuilds``): a ferry question, its answer and thanks; what keyword
search finds; a fragment by its content; a fragment's stored vector."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from memex_core.api import Memex
from memex_core.domain import Fragment, Provenance
from tests.support.component_doubles import HashingEmbedder
from tests.support.export_builders import T0, chatgpt_conversation, write_chatgpt_export

QUESTION = "Which ferry goes to Zanzibar from the harbour?"
ANSWER = "The Kilimanjaro fast ferry leaves twice a day."
THANKS = "Thanks, booked it."
OFFICE = "At the conservation office in Arusha."
PERMITS = [
    ("user", "Where do I buy Ngorongoro crater permits?", T0),
    ("assistant", OFFICE, T0 + 60),
]


def keyword_ids(mx: Memex, query: str) -> list[str]:
    return [r.id for r in mx.search(query, mode="keyword", limit=20)]


def by_content(mx: Memex, content: str) -> Fragment:
    found = [f for f in mx.catalog.iter_fragments() if f.content == content]
    assert len(found) == 1, content
    return found[0]


def turn_fragment(fid: str, role: str, content: str, kind: str = "chatgpt") -> Fragment:
    return Fragment(
        id=fid,
        conversation_id="c",
        role=role,
        content=content,
        provenance=Provenance(kind, "p", fid, f"c/{fid}"),
        metadata={"message_id": fid},
    )


def ferry_chat(folder: Path) -> Path:
    """A ChatGPT export of one conversation: the question, its answer, thanks."""
    turns = [("user", QUESTION, T0), ("assistant", ANSWER, T0 + 60), ("user", THANKS, T0 + 120)]
    return write_chatgpt_export(
        folder / "conversations.json", [chatgpt_conversation("conv-ferry", "Ferry", turns)]
    )


def vector_of(mx: Memex, fragment_id: str) -> np.ndarray:
    return np.asarray(mx.vector_store.vectors[fragment_id])  # type: ignore[attr-defined]


def hashing_embedding(text_: str) -> np.ndarray:
    return np.asarray(HashingEmbedder().embed_documents([text_])[0])
