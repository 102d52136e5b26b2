"""The hybrid-search peers, built the way their documentation shows, on memex's embedder.

* LangChain: ``EnsembleRetriever`` (langchain-classic) over ``BM25Retriever``
  (langchain-community, rank_bm25 on whitespace tokens) and a ``Chroma`` vector store
  (langchain-chroma, persisted to a folder like memex's), weights 0.5/0.5, RRF c=60.
* LlamaIndex: ``QueryFusionRetriever(mode="reciprocal_rerank", num_queries=1)`` over
  its ``BM25Retriever`` (llama-index-retrievers-bm25: bm25s, PyStemmer english) and a
  default ``VectorStoreIndex`` (its in-memory ``SimpleVectorStore``).

Both embed through memex's own MiniLM embedder (wrapped as a LangChain
``Embeddings`` / a LlamaIndex ``BaseEmbedding``): documents come from the run's
vector cache, so every system stores the very same vectors; queries are embedded
for real, at query time, exactly as memex does. Each retriever hands its fusion
10 candidates, as memex's signals do (``candidate_depth`` 10). Nothing here is
imported unless the peers are installed (the bench session installs them).
"""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from memex_core.domain import Fragment

LANGCHAIN = "LangChain EnsembleRetriever (BM25Retriever + Chroma)"
LLAMAINDEX = "LlamaIndex QueryFusionRetriever (BM25Retriever + VectorStoreIndex)"
DEPTH = 10
#: Records per Chroma call (chroma's own limit on this build is a little above 5,000).
CHROMA_BATCH = 5_000

_REQUIRES = {
    LANGCHAIN: ("langchain_classic", "langchain_community", "langchain_chroma", "rank_bm25"),
    LLAMAINDEX: ("llama_index.core", "llama_index.retrievers.bm25", "Stemmer"),
}

Lookup = Callable[[Sequence[str]], np.ndarray]
EmbedQuery = Callable[[str], np.ndarray]


def unavailable(peer: str) -> str | None:
    """Why ``peer`` cannot run here (a module missing), or None."""
    for module in _REQUIRES[peer]:
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            return (
                f"not installed ({module}); the peers are installed by `nox -s bench` "
                "(pip install -r benchmarks/requirements.txt)"
            )
    return None


@dataclass
class Peer:
    name: str
    search: Callable[[str], list[str]]  # query -> texts of the top 10, best first
    build_seconds: float
    close: Callable[[], None] = lambda: None


def langchain_peer(
    corpus: Sequence[Fragment], lookup: Lookup, embed_query: EmbedQuery, folder: Path
) -> Peer:
    from langchain_chroma import Chroma
    from langchain_classic.retrievers import EnsembleRetriever
    from langchain_community.retrievers import BM25Retriever
    from langchain_core.embeddings import Embeddings

    class SharedEmbeddings(Embeddings):
        """memex's embedder as LangChain Embeddings (documents from the run's cache)."""

        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return lookup(texts).tolist()

        def embed_query(self, text: str) -> list[float]:
            return embed_query(text).tolist()

    texts = [f.content for f in corpus]
    ids = [f.id for f in corpus]
    started = time.perf_counter()
    bm25 = BM25Retriever.from_texts(texts, ids=ids, k=DEPTH)
    store = Chroma(
        collection_name="langchain_bench",
        embedding_function=SharedEmbeddings(),
        persist_directory=str(folder),
    )
    for start in range(0, len(texts), CHROMA_BATCH):
        store.add_texts(texts[start : start + CHROMA_BATCH], ids=ids[start : start + CHROMA_BATCH])
    ensemble = EnsembleRetriever(
        retrievers=[bm25, store.as_retriever(search_kwargs={"k": DEPTH})], weights=[0.5, 0.5]
    )
    build = time.perf_counter() - started

    def search(query: str) -> list[str]:
        return [doc.page_content for doc in ensemble.invoke(query)[:10]]

    return Peer(LANGCHAIN, search, build)


def llamaindex_peer(corpus: Sequence[Fragment], lookup: Lookup, embed_query: EmbedQuery) -> Peer:
    import Stemmer
    from llama_index.core import VectorStoreIndex
    from llama_index.core.embeddings import BaseEmbedding
    from llama_index.core.llms import MockLLM
    from llama_index.core.retrievers import QueryFusionRetriever
    from llama_index.core.retrievers.fusion_retriever import FUSION_MODES
    from llama_index.core.schema import TextNode
    from llama_index.retrievers.bm25 import BM25Retriever

    class SharedEmbedding(BaseEmbedding):
        """memex's embedder as a LlamaIndex embedding (documents from the run's cache)."""

        def _get_query_embedding(self, query: str) -> list[float]:
            return embed_query(query).tolist()

        async def _aget_query_embedding(self, query: str) -> list[float]:
            return self._get_query_embedding(query)

        def _get_text_embedding(self, text: str) -> list[float]:
            return lookup([text])[0].tolist()

        def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
            return lookup(texts).tolist()

    started = time.perf_counter()
    nodes = [TextNode(text=f.content, id_=f.id) for f in corpus]
    model = SharedEmbedding(model_name="memex-minilm", embed_batch_size=256)
    index = VectorStoreIndex(nodes, embed_model=model)
    bm25 = BM25Retriever.from_defaults(
        nodes=nodes,
        similarity_top_k=DEPTH,
        stemmer=Stemmer.Stemmer("english"),
        language="english",
    )
    fusion = QueryFusionRetriever(
        [index.as_retriever(similarity_top_k=DEPTH), bm25],
        similarity_top_k=10,
        num_queries=1,  # no query rewriting: no LLM is called
        mode=FUSION_MODES.RECIPROCAL_RANK,  # "reciprocal_rerank"
        use_async=False,
        llm=MockLLM(),
    )
    build = time.perf_counter() - started

    def search(query: str) -> list[str]:
        return [hit.node.get_content() for hit in fusion.retrieve(query)[:10]]

    return Peer(LLAMAINDEX, search, build)


def build(
    name: str, corpus: Sequence[Fragment], lookup: Lookup, embed_query: EmbedQuery, folder: Path
) -> Peer:
    if name == LANGCHAIN:
        return langchain_peer(corpus, lookup, embed_query, folder)
    return llamaindex_peer(corpus, lookup, embed_query)


def quiet_logs() -> Any:
    """Silence the peers' per-query logging (bm25s progress bars, LlamaIndex info)."""
    import logging

    for name in ("bm25s", "llama_index", "langchain", "chromadb"):
        logging.getLogger(name).setLevel(logging.WARNING)
