"""The ``chroma`` vector store plugin.

Stores memex's embeddings in chroma: a folder under ``$MEMEX_HOME/index/chroma``
by default, or a chroma server when ``MEMEX_CHROMA_URL`` is set. Settings in
``config.toml``::

    [vector.chroma]
    url = "http://127.0.0.1:8000"   # use a chroma server (MEMEX_CHROMA_URL wins)
    path = "/data/chroma"           # or another local folder
    collection = "memex_fragments"
    ef_search = 400                 # HNSW search breadth, fixed when the collection is made

chromadb is imported only when the store is first used, so loading this plugin
is cheap; and a local folder's reads go to chroma's Rust engine without the chromadb
package (:mod:`memex_chroma.reader`), which only writes and a server import.
"""

from __future__ import annotations

from typing import Any

from memex_core.domain import PluginContext
from memex_core.hookspecs import hookimpl


def _build_store(context: PluginContext) -> Any:
    from memex_chroma.store import ChromaVectorStore

    return ChromaVectorStore.from_context(context)


@hookimpl
def register_vector_stores(register: Any) -> None:
    register(
        "chroma",
        _build_store,
        requires=("chromadb",),
        extra="chroma",
        description="chroma collection (local folder, or a server via MEMEX_CHROMA_URL).",
    )
