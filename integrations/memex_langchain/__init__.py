"""memex for LangChain: a retriever, an embeddings adapter and a LangGraph memory store.

``MemexStore`` needs ``langgraph-checkpoint`` (``pip install 'memex[langgraph]'``)
and is imported from :mod:`memex_langchain.store` on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memex_langchain.embeddings import LangChainEmbedder, register_embeddings, with_embedder
from memex_langchain.retriever import MemexRetriever
from memex_langchain.scope import ScopeError

if TYPE_CHECKING:
    from memex_langchain.store import MemexStore


def __getattr__(name: str) -> Any:
    if name == "MemexStore":
        from memex_langchain.store import MemexStore

        return MemexStore
    raise AttributeError(f"module 'memex_langchain' has no attribute {name!r}")


__all__ = [
    "LangChainEmbedder",
    "MemexRetriever",
    "MemexStore",
    "ScopeError",
    "register_embeddings",
    "with_embedder",
]
