"""``memex doctor``'s look at the pgvector table: an HNSW index still to build.

The doctor's own ``vectors.*`` checks (ids, counts, the recorded embedder) cover this
store as they cover chroma. What only pgvector has is a table without its HNSW index: a
bulk write (a backfill, ``memex rebuild --vectors``) builds it at the end, in ``settle``,
so one that was cut off leaves searches scanning every vector. They stay exact, only
slower, so this is a note, with the command that builds it.
"""

from __future__ import annotations

from pathlib import Path

from memex_core.config import load_config
from memex_core.domain import PluginContext
from memex_core.services.doctor import NOTE, Finding


def index_findings(home: Path) -> list[Finding]:
    config = load_config(home)
    if config.component("vector_store") != "pgvector":
        return []
    from memex_pgvector.store import PgvectorStore

    context = PluginContext(home=home, settings=config.component_settings("vector_store"))
    with PgvectorStore.from_context(context) as store:
        rows = store.unindexed_rows()
    if rows is None:
        return []
    return [
        Finding(
            "vectors.pgvector_index",
            NOTE,
            f"The pgvector table {store.table!r} has no HNSW index yet (the bulk write that "
            f"filled it stopped before the end): searches scan all {rows:,} vectors, exact "
            "but slower.",
            "Run `memex backfill`: it builds the index when it finishes.",
            count=1,
        )
    ]
