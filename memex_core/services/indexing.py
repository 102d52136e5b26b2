"""Keeping the derived indexes in step with the catalog.

The catalog commits first; indexes follow. If a process dies in between, the
next process notices the gap (the catalog's change journal lists fragments the
keyword index has not seen; fragments lack vectors; vector deletes are queued)
and closes it, so a rerun always finishes the job.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Protocol

from memex_core.crashpoints import crash_point
from memex_core.domain import Embedder, Fragment, KeywordStore, VectorStore
from memex_core.errors import EmbedderMismatchError
from memex_core.services.ports import CatalogPort, NoProgress, Progress

EMBEDDER_SETTING = "embedder"
#: Which build of the embedder wrote the vectors, when it names one (MiniLM's int8 graph:
#: "int8"); absent for the default build. Vectors of two builds never share an index.
EMBEDDER_BUILD_SETTING = "embedder_build"


class JournalCatalog(CatalogPort, Protocol):
    """The catalog with its change journal (see :class:`KeywordSync`)."""

    def last_fragment_change(self) -> int: ...

    def fragment_changes_since(
        self, seq: int, limit: int | None = None
    ) -> tuple[int, list[str]]: ...

    def prune_fragment_changes(self, upto: int) -> None: ...


#: Catalog setting: the change-journal entry the keyword index on disk is flushed up to
#: (a home with a catalog of its own; on a shared catalog each home keeps its own).
KEYWORD_SYNCED_SETTING = "keyword_synced_to"
#: Catalog setting: journal entries up to here have been pruned.
CHANGES_PRUNED_SETTING = "fragment_changes_pruned"
#: Journal entries a follower replays per hold of its server's call lock (see
#: :meth:`KeywordSync.follow`): a backlog of a million changes (another host's big ingest)
#: is replayed between searches, not in front of them.
REPLAY_CHUNK = 2000


def _int_setting(catalog: CatalogPort, key: str) -> int:
    value = catalog.get_setting(key)
    return int(value) if value and value.isdigit() else 0


class KeywordWatermark(Protocol):
    """Where one keyword index keeps its place in the catalog's change journal, and how
    far the journal may be pruned once that place moves.

    A home with a catalog of its own keeps it in the catalog (:class:`CatalogWatermark`);
    homes sharing one catalog (PostgreSQL, several hosts) each keep their own beside their
    keyword index, and prune only what every replica heard from lately has replayed
    (``memex_core.replicas.HomeWatermark``)."""

    #: True when this home's write lock excludes every other writer of the catalog, so
    #: what a writer committed under it is all that changed (see
    #: :meth:`KeywordSync.own_changes_applied`).
    exclusive: bool

    def load(self) -> int:
        """The journal entry the keyword index on disk reflects (0: none)."""
        ...

    def flushed(self, seq: int) -> None:
        """Record that the index on disk reflects the journal up to ``seq``, then prune what
        no index still needs. Called after the flush, holding the home's write lock."""
        ...


class CatalogWatermark:
    """The place of the one keyword index of a home whose catalog is its own."""

    exclusive = True

    def __init__(self, catalog: JournalCatalog) -> None:
        self.catalog = catalog

    def load(self) -> int:
        return _int_setting(self.catalog, KEYWORD_SYNCED_SETTING)

    def flushed(self, seq: int) -> None:
        self.catalog.set_setting(KEYWORD_SYNCED_SETTING, str(seq))
        self.catalog.prune_fragment_changes(seq)


@dataclass(frozen=True)
class KeywordLag:
    """How far a keyword index is behind the catalog. ``entries``: journal entries
    committed and not applied; ``seconds``: at most how old the oldest of them is (0 when
    none); ``head``/``seen``: the catalog's newest entry and the index's."""

    entries: int
    seconds: float
    head: int
    seen: int


def apply_changes(
    catalog: CatalogPort, keyword: KeywordStore, ids: Sequence[str]
) -> tuple[int, int]:
    """Make the index agree with the catalog on ``ids``: add those the catalog holds, drop
    the others. Idempotent (adding a known id or dropping an unknown one does nothing)."""
    added = removed = 0
    for start in range(0, len(ids), 2000):
        chunk = ids[start : start + 2000]
        found = catalog.get_many(chunk)
        gone = [i for i in chunk if i not in found]
        if gone:
            removed += keyword.delete(gone)
        if found:
            added += keyword.add(list(found.values()))
    return added, removed


def full_keyword_diff(catalog: CatalogPort, keyword: KeywordStore) -> tuple[int, int]:
    """Compare every id (slow on a big home; for when the journal cannot say)."""
    catalog_ids = catalog.all_ids()
    index_ids = keyword.ids()
    stale = index_ids - catalog_ids
    removed = keyword.delete(stale) if stale else 0
    missing = sorted(catalog_ids - index_ids)
    added = 0
    for start in range(0, len(missing), 2000):
        found = catalog.get_many(missing[start : start + 2000])
        added += keyword.add(list(found.values()))
    return added, removed


class KeywordSync:
    """Keeps one process's keyword store in step with the catalog, exactly and cheaply.

    The catalog journals every fragment added or removed (``fragment_changes``).
    ``seen`` is the journal entry this store reflects; :meth:`catch_up` replays
    what came after it, so a writer that died between its catalog commit and its
    index flush leaves a gap the next process closes, even when the gap removed
    as many fragments as it added (a count comparison would miss that). Writers
    call :meth:`flushed` after flushing, under the write lock, to record how far
    the index on disk goes (``watermark``) and to prune the journal up to there.

    It also knows how far behind the catalog it is (:meth:`lag`): ``caught_up_at`` is
    when the last catch-up started that reached the catalog's head, so every entry it
    has not applied was committed after that (journal order is commit order). A catch-up
    given a ``limit`` replays at most that many entries; one that stopped short of the
    head leaves ``behind`` set and ``caught_up_at`` as it was, so the lag stays true
    while a long journal is replayed a chunk at a time.

    Concurrent searches may each find the index behind (:meth:`refresh`): one catches up
    while the others wait, and the store is held alone (its optional ``writing()``) for
    the whole reload and replay, so no search sees the index between two of its steps.
    """

    def __init__(
        self,
        catalog: JournalCatalog,
        keyword: KeywordStore,
        watermark: KeywordWatermark | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.catalog = catalog
        self.keyword = keyword
        self.watermark = watermark or CatalogWatermark(catalog)
        self.clock = clock
        self.seen: int | None = None
        #: The journal entry the index on disk reflects, as far as this process knows.
        self.flushed_to: int | None = None
        self.caught_up_at: float | None = None
        #: The last catch-up stopped at its ``limit`` before the catalog's head.
        self.behind = False
        self._lock = threading.RLock()

    def _alone(self) -> AbstractContextManager[object]:
        """The keyword store held alone, when it can be (searches wait meanwhile)."""
        writing = getattr(self.keyword, "writing", None)
        return writing() if callable(writing) else nullcontext()

    def _reloaded(self) -> bool:
        refresh = getattr(self.keyword, "refresh", None)
        return bool(refresh()) if callable(refresh) else False

    def catch_up(self, limit: int | None = None) -> tuple[int, int]:
        """Apply every catalog change the store has not seen, or with ``limit`` at most
        that many journal entries (then :attr:`behind` says whether more are left).
        Returns (added, removed)."""
        with self._lock, self._alone():
            return self._catch_up(limit)

    def _catch_up(self, limit: int | None) -> tuple[int, int]:
        catalog, keyword = self.catalog, self.keyword
        started = self.clock()
        reached = True
        from_disk = self.seen is None or self._reloaded()
        if from_disk:
            # Fresh from disk: the index there reflects the journal up to the recorded point.
            self.seen = self.flushed_to = self.watermark.load()
        assert self.seen is not None
        added = removed = 0
        if self.seen < _int_setting(catalog, CHANGES_PRUNED_SETTING):
            # Pruned past what this store saw: another writer flushed and pruned past a
            # long-lived store, or (shared catalog) this replica was away for longer than
            # the others wait for it.
            self.seen = catalog.last_fragment_change()
            added, removed = full_keyword_diff(catalog, keyword)
        elif limit is None:
            self.seen, ids = catalog.fragment_changes_since(self.seen)
            added, removed = apply_changes(catalog, keyword, ids)
        else:
            # The head first: entries committed after this read are newer than
            # ``started``, so reaching it is being caught up as of ``started``.
            head = catalog.last_fragment_change()
            self.seen, ids = catalog.fragment_changes_since(self.seen, limit)
            added, removed = apply_changes(catalog, keyword, ids)
            reached = self.seen >= head
        if from_disk and self._count_differs():
            # Changed behind the journal's back: an index folder deleted or restored, a
            # catalog older than the journal. Rare, so the slow exact comparison is fine.
            # Checked when the index comes from disk, where such changes happen; counting
            # a big catalog at every catch-up (a follower's, twice a second) would cost.
            more, fewer = full_keyword_diff(catalog, keyword)
            added, removed = added + more, removed + fewer
        self.behind = not reached
        if reached:
            self.caught_up_at = started
        return added, removed

    def _count_differs(self) -> bool:
        count = self.catalog.count_fragments()
        # Only when no commit came in between: then ``count`` is the catalog as of
        # ``seen``, and another writer's commit cannot pass for drift.
        if self.catalog.last_fragment_change() != self.seen:
            return False
        return self.keyword.count() != count

    def follow(self, limit: int | None = None) -> tuple[int, int]:
        """:meth:`catch_up` for a follower that calls it often: nothing but one read of the
        journal's head when nothing changed. ``limit`` as for :meth:`catch_up`. Returns
        (added, removed)."""
        started = self.clock()
        if self.seen is not None and self.catalog.last_fragment_change() <= self.seen:
            self.caught_up_at = started
            self.behind = False
            return 0, 0
        return self.catch_up(limit)

    @property
    def unflushed(self) -> int:
        """Journal entries applied in memory since the index was last flushed (or loaded)."""
        if self.seen is None:
            return 0
        return max(0, self.seen - (self.flushed_to or 0))

    def lag(self) -> KeywordLag:
        """How far behind the catalog's head this store is, now (one cheap catalog read)."""
        head = self.catalog.last_fragment_change()
        seen = self.seen or 0
        if head <= seen:
            return KeywordLag(0, 0.0, head, seen)
        since = self.caught_up_at
        seconds = self.clock() - since if since is not None else float("inf")
        return KeywordLag(head - seen, max(0.0, seconds), head, seen)

    def refresh(self) -> None:
        """For reads: if another process flushed a newer index, load it and catch up again.

        A store that caught up in memory holds unflushed changes, so it would never load
        a newer generation by itself and a long-lived reader would stop seeing new
        writes. Outside a write (which holds the lock, so nobody else flushes) those
        changes are only the catch-up, which the catalog can always replay.
        """
        changed = getattr(self.keyword, "changed_on_disk", None)
        reload = getattr(self.keyword, "reload", None)
        if callable(changed) and callable(reload) and changed():
            with self._lock, self._alone():
                if changed():  # else another thread took it in meanwhile
                    reload()
                    self.seen = None
                    self._catch_up(None)

    def own_changes_applied(self) -> None:
        """Say that every catalog change since :meth:`catch_up` was made by this process and
        applied to the store (the ingest path, under the write lock).

        Where the home's lock does not exclude other writers (a shared catalog: replicas
        on other hosts write meanwhile), it replays the journal instead, which re-applies
        this process's own changes (idempotent) along with the others', and flushes them
        (callers flushed their own before; what the replay brought must be on disk too
        before :meth:`flushed` records it)."""
        with self._lock:
            if self.watermark.exclusive:
                self.seen = self.catalog.last_fragment_change()
            else:
                self.catch_up()
                self.keyword.flush()

    def flushed(self) -> None:
        """Record that the store on disk reflects the journal up to ``seen``; prune it.
        Call after ``keyword.flush()``, holding the write lock."""
        with self._lock:
            if self.seen is None:
                return
            self.watermark.flushed(self.seen)
            self.flushed_to = self.seen

    def flush(self) -> None:
        """Catch up, flush the store, record it: for writers whose changes may not all have
        gone through this store (memory writes)."""
        with self._lock:
            self.catch_up()
            self.keyword.flush()
            self.flushed()

    def compact(self) -> bool:
        """As :meth:`flush`, then leave no deleted document's words in the store's files
        (after a purge), through the store's optional ``compact()``. Returns whether the
        store has one (without it, a flush is all that can be done)."""
        with self._lock:
            self.catch_up()
            compact = getattr(self.keyword, "compact", None)
            if compact is None:
                self.keyword.flush()
            else:
                compact()
            self.flushed()
        return compact is not None


def sync_keyword_index(catalog: JournalCatalog, keyword: KeywordStore) -> tuple[int, int]:
    """Bring ``keyword`` up to the catalog (in memory). Returns (added, removed)."""
    return KeywordSync(catalog, keyword).catch_up()


def embedder_signature(embedder: Embedder) -> str:
    return f"{embedder.name}:{embedder.dimension}"


def embedder_build(embedder: Embedder) -> str:
    """The embedder's ``build`` when its plugin names one (an encoder whose vectors differ
    from the default build's, e.g. "int8"), else "" (the default build)."""
    return str(getattr(embedder, "build", "") or "")


class VectorIndexer:
    """Embeds fragments that lack vectors and stores them; guards against mixing embedders."""

    def __init__(
        self,
        catalog: CatalogPort,
        store: VectorStore,
        embedder: Embedder,
        prepare: Callable[[list[Fragment]], list[Fragment]] | None = None,
    ) -> None:
        self.catalog = catalog
        self.store = store
        self.embedder = embedder
        # What the embedder sees of each fragment (turn context: services/index_text.py).
        self.prepare = prepare or list

    def _texts(self, fragments: list[Fragment]) -> list[str]:
        return [f.searchable_text for f in self.prepare(fragments)]

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
        recorded_build = self.catalog.get_setting(EMBEDDER_BUILD_SETTING) or ""
        build = embedder_build(self.embedder)
        if recorded and recorded_build != build:
            # Refused rather than mixed: int8 and float32 vectors of one model are close
            # (cosine ~0.99) but not equal, and an index should say which it holds.
            raise EmbedderMismatchError(
                f"The stored vectors were built by {self.embedder.name!r} as "
                f"{recorded_build or 'its default build'}, but it is now configured to build "
                f"{build or 'its default build'} vectors, and memex does not mix the two in "
                "one index. Run `memex rebuild --vectors` to re-embed everything, or set the "
                f"embedder's settings in config.toml back (for minilm: [embedder.minilm] "
                f'precision = "{recorded_build or "fp32"}").'
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
        self._record_embedder()
        progress.start("Embedding", total)
        done = 0
        try:
            for batch in self.catalog.iter_unembedded(self.embedder.name, batch_size):
                vectors = self.embedder.embed_documents(self._texts(batch))
                self.store.upsert(batch, vectors)
                crash_point("vectors.upserted")
                self.catalog.mark_embedded([f.id for f in batch], self.embedder.name)
                crash_point("vectors.marked")
                done += len(batch)
                progress.advance(len(batch))
        finally:
            progress.finish()
        return done

    def embed_missing(
        self,
        ids: Sequence[str],
        unembedded: Callable[[Sequence[str], str], list[str]],
        batch_size: int = 64,
        progress: Progress | None = None,
    ) -> int:
        """Embed those of ``ids`` without a vector from this embedder (``unembedded`` says
        which: the catalog's ``unembedded_among``), in the order given. Resumable like
        :meth:`backfill`: each batch is marked only once its vectors are stored."""
        self.check_compatible()
        todo = unembedded(ids, self.embedder.name)
        if not todo:
            return 0
        if not self.catalog.get_setting(EMBEDDER_SETTING):
            self._record_embedder()
        progress = progress or NoProgress()
        progress.start("Embedding", len(todo))
        done = 0
        try:
            for start in range(0, len(todo), batch_size):
                found = self.catalog.get_many(todo[start : start + batch_size])
                batch = list(found.values())
                if batch:
                    vectors = self.embedder.embed_documents(self._texts(batch))
                    self.store.upsert(batch, vectors)
                    self.catalog.mark_embedded([f.id for f in batch], self.embedder.name)
                done += len(batch)
                progress.advance(len(batch))
        finally:
            progress.finish()
        return done

    def embed(
        self,
        fragments: list[Fragment],
        known: Mapping[str, Sequence[float]] | None = None,
        stored: Callable[[Sequence[Fragment], Sequence[Sequence[float]]], None] | None = None,
    ) -> int:
        """Embed and store these fragments now (memory writes; ingest uses ``backfill``).
        A fragment whose text is in ``known`` (text -> vector) takes that vector instead.
        ``stored`` is told the fragments and their vectors once the store holds them."""
        if not fragments:
            return 0
        self.check_compatible()
        if not self.catalog.get_setting(EMBEDDER_SETTING):
            self._record_embedder()
        texts, known = self._texts(fragments), known or {}
        todo = [t for t in texts if t not in known]
        fresh = iter(self.embedder.embed_documents(todo) if todo else ())
        vectors = [known[t] if t in known else next(fresh) for t in texts]
        self.store.upsert(fragments, vectors)
        if stored is not None:
            stored(fragments, vectors)
        self.catalog.mark_embedded([f.id for f in fragments], self.embedder.name)
        return len(fragments)

    def store_built(self, fragments: Sequence[Fragment], vectors: Sequence[Sequence[float]]) -> int:
        """Store vectors this same embedder built elsewhere (an archive's, checked by the
        caller to match) and mark the fragments embedded, as :meth:`embed` would."""
        if not fragments:
            return 0
        self.check_compatible()
        if not self.catalog.get_setting(EMBEDDER_SETTING):
            self._record_embedder()
        self.store.upsert(fragments, vectors)
        self.catalog.mark_embedded([f.id for f in fragments], self.embedder.name)
        return len(fragments)

    def _record_embedder(self) -> None:
        self.catalog.set_setting(EMBEDDER_SETTING, embedder_signature(self.embedder))
        build = embedder_build(self.embedder)
        if build:
            self.catalog.set_setting(EMBEDDER_BUILD_SETTING, build)
        else:
            self.catalog.delete_setting(EMBEDDER_BUILD_SETTING)

    def reset(self) -> None:
        """Forget every vector (for ``rebuild --vectors`` or an embedder switch)."""
        self.store.clear()
        self.catalog.clear_embedded()
        self.catalog.delete_setting(EMBEDDER_SETTING)
        self.catalog.delete_setting(EMBEDDER_BUILD_SETTING)
