"""The ``pgvector`` vector store plugin.

Keeps memex's embeddings in a PostgreSQL table with the pgvector extension: by default
in the catalog's own PostgreSQL database, so several ``memex serve`` replicas share one
memory with no vector server beside it. Settings in ``config.toml``::

    [vector]
    use = "pgvector"
    [vector.pgvector]
    url = "postgresql://memex@db:5432/memex"  # default: the catalog's PostgreSQL URL
    table = "memex_vectors"                   # one table per index
    ef_search = 200                           # HNSW search breadth (1-1000), per query
    m = 16                                    # HNSW graph, fixed when the table is made
    ef_construction = 64
    connect_timeout = 2                       # seconds
    timeout = 10                              # seconds for any one statement

psycopg is imported only when the store is first used, so loading this plugin is cheap.
"""

from __future__ import annotations

from typing import Any

from memex_core.domain import PluginContext
from memex_core.hookspecs import hookimpl


def _build_store(context: PluginContext) -> Any:
    from memex_pgvector.store import PgvectorStore

    return PgvectorStore.from_context(context)


@hookimpl
def register_vector_stores(register: Any) -> None:
    register(
        "pgvector",
        _build_store,
        requires=("psycopg", "pgvector"),
        extra="postgres",
        description="PostgreSQL table with pgvector (default: the catalog's database).",
    )


@hookimpl
def register_doctor_checks(register: Any) -> None:
    from memex_pgvector.doctor import index_findings

    register("pgvector", index_findings)
