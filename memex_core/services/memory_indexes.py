"""Keeping the keyword and vector indexes in step with memory writes, and the nearest
facts to a new one (the supersession judge's candidates, the consolidator's similar
memories).

A nearest search over a filter the catalog can list in full (one owner's facts in one
collection: a few hundred fragments among a home's thousands) ranks the listed fragments'
vectors here (:mod:`memex_core.services.listed_vectors`) instead of asking the vector store
for a filtered search, which costs chroma far more (issue 30: ~12-25 ms a call at 10,000
facts, against well under a millisecond once the owner's vectors are held).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from memex_core.domain import Fragment, SearchFilters
from memex_core.errors import VectorStoreUnavailableError
from memex_core.services.indexing import (
    REPLAY_CHUNK,
    KeywordSync,
    VectorIndexer,
    embedder_signature,
)
from memex_core.services.listed_vectors import LISTED_MAX, ListedVectors

#: The ids of at most ``limit`` fragments passing a filter, as the catalog holds them
#: (``fragment_ids_matching`` of :class:`memex_core.catalog.graph.LinkGraph`).
Listing = Callable[[SearchFilters, int], list[str]]


class MemoryIndexUpdater:
    """Keeps the keyword and vector indexes in step with memory writes.

    Components come from callables so that nothing loads until a memory is
    written. Inside ``held()`` changes are collected and applied once at the end
    (one keyword flush, one embedding batch for a whole conversation or batch).

    Where ``defer_flush()`` says so (a ``memex serve`` whose follower flushes the keyword
    index now and then), a write applies its changes in memory only: searchable at once
    through this process, on disk at the follower's next flush, and replayed from the
    catalog's journal by any process that opens the index meanwhile. A flush costs a
    new index generation on disk (fsyncs) at every write otherwise.
    """

    def __init__(
        self,
        keyword: Callable[[], KeywordSync],
        vectors: Callable[[], VectorIndexer | None],
        pending_deletes: Callable[[], int],
        defer_flush: Callable[[], bool] = lambda: False,
        listing: Listing | None = None,
    ) -> None:
        self._keyword = keyword
        self._vectors = vectors
        self._pending_deletes = pending_deletes
        self._defer_flush = defer_flush
        self._depth = 0
        self._new: list[Fragment] = []
        self._removed: list[str] = []
        self._unembedded: list[Fragment] = []
        #: Query vectors of :meth:`nearest` (``symmetric`` embedder) reused for the same text.
        self._queried: dict[str, Sequence[float]] = {}
        #: The catalog's list of fragments passing a filter (None: always ask the store).
        self._listing = listing
        self._listed = ListedVectors()

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
            sync = self._keyword()
            if removed:
                sync.keyword.delete(removed)
            sync.keyword.add([f for f in new if f.id not in gone])
            if self._defer_flush():
                # In step with the journal (what others wrote too), one chunk at most: the
                # server's follower replays the rest of a backlog between searches, and
                # this write is searchable already (added above).
                sync.catch_up(REPLAY_CHUNK)
            else:
                sync.flush()
        self._flush_vectors(set(removed))

    def _flush_vectors(self, gone: set[str] | None = None) -> None:
        pending, self._unembedded = self._unembedded, []
        known, self._queried = self._queried, {}
        indexer = self._vectors()
        if indexer is None:
            return
        gone = gone or set()
        try:
            self._pending_deletes()
            # What this process stored, the listed vectors hold without reading it back.
            self._listed.held_for(indexer.store, embedder_signature(indexer.embedder))
            indexer.embed([f for f in pending if f.id not in gone], known, self._listed.hold)
        except VectorStoreUnavailableError:
            # The memory is committed and keyword-searchable; its fragments stay without
            # vectors in the catalog, so the next ingest or `memex backfill` embeds them.
            pass

    def nearest(
        self, text: str, filters: SearchFilters, limit: int
    ) -> list[tuple[str, float]] | None:
        indexer = self._vectors()
        if indexer is None:
            return None
        self._flush_vectors()  # a dream compares with memories written a moment ago
        vector = indexer.embedder.embed_query(text)
        if getattr(indexer.embedder, "symmetric", False):
            self._queried[text] = vector
        try:
            listed = self._listed_nearest(indexer, vector, filters, limit)
            if listed is not None:
                return listed
            hits = indexer.store.search(vector, limit, filters)
        except VectorStoreUnavailableError:
            return None  # compare by words instead, as a home without vectors does
        return [(hit.id, hit.score) for hit in hits]

    def _listed_nearest(
        self, indexer: VectorIndexer, vector: Sequence[float], filters: SearchFilters, limit: int
    ) -> list[tuple[str, float]] | None:
        """The store's filtered search answered from the fragments the catalog lists for
        ``filters`` (:mod:`memex_core.services.listed_vectors`), or None when there is no
        listing, it lists too many, or the store hands no vectors out."""
        if self._listing is None or not filters.owners:
            return None  # only an owner's facts are few enough to list
        ids = self._listing(filters, LISTED_MAX + 1)
        if len(ids) > LISTED_MAX:
            return None
        self._listed.held_for(indexer.store, embedder_signature(indexer.embedder))
        return self._listed.nearest(indexer.store, vector, ids, limit)
