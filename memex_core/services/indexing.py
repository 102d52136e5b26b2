"""Keeping the derived indexes in step with the catalog.

The catalog commits first; indexes follow. If a process dies in between, the
next writer notices the gap (counts differ, fragments lack vectors) and closes
it, so a rerun always finishes the job.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from memex_core.domain import Embedder, Fragment, KeywordStore, SearchFilters, VectorStore
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

    def embed(self, fragments: list[Fragment]) -> int:
        """Embed and store these fragments now (memory writes; ingest uses ``backfill``)."""
        if not fragments:
            return 0
        self.check_compatible()
        if not self.catalog.get_setting(EMBEDDER_SETTING):
            self.catalog.set_setting(EMBEDDER_SETTING, embedder_signature(self.embedder))
        vectors = self.embedder.embed_documents([f.searchable_text for f in fragments])
        self.store.upsert(fragments, vectors)
        self.catalog.mark_embedded([f.id for f in fragments], self.embedder.name)
        return len(fragments)

    def reset(self) -> None:
        """Forget every vector (for ``rebuild --vectors`` or an embedder switch)."""
        self.store.clear()
        self.catalog.clear_embedded()
        self.catalog.delete_setting(EMBEDDER_SETTING)


class MemoryIndexUpdater:
    """Keeps the keyword and vector indexes in step with memory writes.

    Components come from callables so that nothing loads until a memory is
    written. Inside ``held()`` changes are collected and applied once at the end
    (one keyword flush, one embedding batch for a whole conversation or batch).
    """

    def __init__(
        self,
        keyword: Callable[[], KeywordStore],
        vectors: Callable[[], VectorIndexer | None],
        pending_deletes: Callable[[], int],
    ) -> None:
        self._keyword = keyword
        self._vectors = vectors
        self._pending_deletes = pending_deletes
        self._depth = 0
        self._new: list[Fragment] = []
        self._removed: list[str] = []
        self._unembedded: list[Fragment] = []

    @contextmanager
    def held(self) -> Iterator[None]:
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1
            if self._depth == 0:
                self._flush()

    def apply(self, new: Sequence[Fragment], removed: Sequence[str]) -> None:
        self._new.extend(new)
        self._removed.extend(removed)
        self._unembedded.extend(new)
        if self._depth == 0:
            self._flush()

    def _flush(self) -> None:
        new, removed = self._new, self._removed
        self._new, self._removed = [], []
        if new or removed:
            gone = set(removed)
            keyword = self._keyword()
            if removed:
                keyword.delete(removed)
            keyword.add([f for f in new if f.id not in gone])
            keyword.flush()
        self._flush_vectors(set(removed))

    def _flush_vectors(self, gone: set[str] | None = None) -> None:
        pending, self._unembedded = self._unembedded, []
        indexer = self._vectors()
        if indexer is None:
            return
        self._pending_deletes()
        gone = gone or set()
        indexer.embed([f for f in pending if f.id not in gone])

    def nearest(
        self, text: str, filters: SearchFilters, limit: int
    ) -> list[tuple[str, float]] | None:
        indexer = self._vectors()
        if indexer is None:
            return None
        self._flush_vectors()  # a dream compares with memories written a moment ago
        vector = indexer.embedder.embed_query(text)
        return [(hit.id, hit.score) for hit in indexer.store.search(vector, limit, filters)]
