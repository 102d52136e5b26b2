"""Keeping the derived indexes in step with the catalog.

The catalog commits first; indexes follow. If a process dies in between, the
next writer notices the gap (counts differ, fragments lack vectors) and closes
it, so a rerun always finishes the job.
"""

from __future__ import annotations

from memex_core.domain import Embedder, KeywordStore, VectorStore
from memex_core.errors import EmbedderMismatchError
from memex_core.services.ports import CatalogPort, NoProgress, Progress

EMBEDDER_SETTING = "embedder"


def sync_keyword_index(catalog: CatalogPort, keyword: KeywordStore) -> tuple[int, int]:
    """Add what the catalog has and the index lacks; drop what the catalog no longer has.

    Cheap when they agree (a count comparison). Returns (added, removed).
    """
    if keyword.count() == catalog.count_fragments():
        return 0, 0
    catalog_ids = catalog.all_ids()
    index_ids = keyword.ids()
    stale = index_ids - catalog_ids
    removed = keyword.delete(stale) if stale else 0
    missing = list(catalog_ids - index_ids)
    added = 0
    for start in range(0, len(missing), 2000):
        found = catalog.get_many(missing[start : start + 2000])
        added += keyword.add(list(found.values()))
    return added, removed


def embedder_signature(embedder: Embedder) -> str:
    return f"{embedder.name}:{embedder.dimension}"


class VectorIndexer:
    """Embeds fragments that lack vectors and stores them; guards against mixing embedders."""

    def __init__(self, catalog: CatalogPort, store: VectorStore, embedder: Embedder) -> None:
        self.catalog = catalog
        self.store = store
        self.embedder = embedder

    def check_compatible(self) -> None:
        recorded = self.catalog.get_setting(EMBEDDER_SETTING)
        current = embedder_signature(self.embedder)
        if recorded and recorded != current:
            name, _, dim = recorded.partition(":")
            raise EmbedderMismatchError(
                f"The stored vectors were built by embedder {name!r} ({dim} dimensions), but "
                f"the configured embedder is {self.embedder.name!r} "
                f"({self.embedder.dimension} dimensions). Run `memex rebuild --vectors` to "
                f"re-embed everything with {self.embedder.name!r}, or set "
                f'embedder = "{name}" in config.toml.'
            )

    def pending(self) -> int:
        return self.catalog.count_fragments() - self.catalog.count_embedded(self.embedder.name)

    def backfill(self, batch_size: int = 256, progress: Progress | None = None) -> int:
        """Embed every fragment without a vector from this embedder. Resumable: each
        batch is recorded as done only after its vectors are stored."""
        self.check_compatible()
        progress = progress or NoProgress()
        total = self.pending()
        if total <= 0:
            return 0
        self.catalog.set_setting(EMBEDDER_SETTING, embedder_signature(self.embedder))
        progress.start("Embedding", total)
        done = 0
        try:
            for batch in self.catalog.iter_unembedded(self.embedder.name, batch_size):
                vectors = self.embedder.embed_documents([f.searchable_text for f in batch])
                self.store.upsert(batch, vectors)
                self.catalog.mark_embedded([f.id for f in batch], self.embedder.name)
                done += len(batch)
                progress.advance(len(batch))
        finally:
            progress.finish()
        return done

    def reset(self) -> None:
        """Forget every vector (for ``rebuild --vectors`` or an embedder switch)."""
        self.store.clear()
        self.catalog.clear_embedded()
        self.catalog.delete_setting(EMBEDDER_SETTING)
