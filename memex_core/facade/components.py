"""The parts of a memex home and the locks around them: what ``Memex`` is built on.

:class:`HomeComponents` opens each configured component (catalog, keyword index, vector
store, embedder, ranker, redactor, extractor, consolidator, supersession judge) lazily,
once, even when concurrent searches first need it together, and holds the locks that keep
writers apart: the home's write lock, the call lock threads share (see
:mod:`memex_core.threads`) and, on a shared catalog, the job locks every host honours.
Building lazily is why a keyword
search never imports the embedder or the vector store.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from memex_core.catalog import Catalog, SqlCatalog, WriteLock
from memex_core.catalog.faults import storage_error
from memex_core.closing import ClosesOnExit
from memex_core.config import DEFAULT_COMPONENTS, FALLBACK_RANKER, Config, load_config
from memex_core.crashpoints import crash_point
from memex_core.domain import (
    Consolidator,
    Embedder,
    Extractor,
    FactType,
    KeywordStore,
    PluginContext,
    Ranker,
    Redactor,
    Source,
    VectorStore,
)
from memex_core.domain.memory.validity import SupersessionJudge
from memex_core.domain.turn_context import IndexContext
from memex_core.errors import MemexError
from memex_core.facade import turn_context
from memex_core.plugins import PluginRegistry, PluginUnavailable, load_registry
from memex_core.rwlock import ReadWriteLock
from memex_core.services.agent_memory import MemoryService, MemorySettings
from memex_core.services.index_text import ContextualKeywordStore, IndexTexts, settle_context
from memex_core.services.indexing import (
    CatalogWatermark,
    KeywordSync,
    KeywordWatermark,
    VectorIndexer,
)
from memex_core.services.memory_indexes import MemoryIndexUpdater
from memex_core.services.search import VectorStoreUnavailableError

if TYPE_CHECKING:
    from memex_core.services.scrubbing import FragmentScrubber


T = TypeVar("T")


def _cores() -> int:
    """Cores this process may run on (its affinity mask where there is one)."""
    import os

    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


class HomeComponents(ClosesOnExit):
    """A memex home's components, opened on first use, and its locks.

    ``home`` defaults to ``MEMEX_HOME`` or ``~/.memex``. ``registry`` lets an
    application pass plugins registered from code.
    """

    def __init__(
        self,
        home: str | Path | None = None,
        *,
        registry: PluginRegistry | None = None,
        config: Config | None = None,
    ) -> None:
        self.config = config or load_config(home)
        self.home = self.config.home
        self.registry = registry or load_registry()
        self.lock = WriteLock(self.home)
        # Searches together (as many at once as there are cores), anything else alone, from
        # threads: see memex_core.threads.
        self.call_lock = ReadWriteLock(max_readers=_cores())
        # Opening a component once, when concurrent searches first need it.
        self._building = threading.RLock()
        self._preparing: Future[None] | None = None
        self._catalog: SqlCatalog | None = None
        self._keyword: KeywordStore | None = None
        self._keyword_sync: KeywordSync | None = None
        self._vectors: VectorStore | None = None
        self._embedder: Embedder | None = None
        self._ranker: Ranker | None = None
        self._ranker_fallback: str | None = None
        self._memory_indexes: MemoryIndexUpdater | None = None
        self._memory_service: MemoryService | None = None
        self._judge: tuple[SupersessionJudge | None, str | None] | None = None
        self._job_locks: dict[str, Any] = {}
        #: Set by a process that flushes the keyword index itself now and then (``memex
        #: serve``'s follower): memory writes then leave their keyword changes in memory.
        self.keyword_flush_deferred = False
        self._assemble()

    def _assemble(self) -> None:
        """What a subclass builds over these components once they are set up (``Memex``:
        the facade's reader, writer, relevance floor and disclosure), so that it need not
        restate this constructor's arguments."""

    # -- components -------------------------------------------------------------

    @property
    def catalog(self) -> SqlCatalog:
        """The configured catalog (``[catalog] use``), its schema migrated."""
        return self._built_once("_catalog", self._migrated_catalog)

    def _built_once(self, name: str, build: Callable[[], T]) -> T:
        """The component in attribute ``name``, built by ``build`` on first use: once,
        however many threads ask for it at the same time."""
        component: T | None = getattr(self, name)
        if component is None:
            with self._building:
                component = getattr(self, name)
                if component is None:
                    component = build()
                    setattr(self, name, component)
        return component

    def _migrated_catalog(self) -> SqlCatalog:
        catalog = self._open_catalog()
        try:
            if catalog.needs_migration():
                with self.lock:
                    if catalog.needs_migration():
                        catalog.migrate()
        except BaseException:
            catalog.close()
            raise
        return catalog

    def _open_catalog(self) -> SqlCatalog:
        name = self.config.component("catalog")
        try:
            catalog: SqlCatalog = self._build("catalog")
        except PluginUnavailable:
            if name != "sqlite":
                raise
            # SQLite is built in: a registry without its plugin (MEMEX_LOAD_PLUGINS naming
            # others, an application's own registry) still opens the home's catalog.
            catalog = Catalog(self.config.catalog_path)
        return catalog

    def _context(self, role: str) -> PluginContext:
        return PluginContext(home=self.home, settings=self.config.component_settings(role))

    def _build(self, role: str) -> Any:
        return self.registry.build(role, self.config.component(role), self._context(role))

    @property
    def keyword_store(self) -> KeywordStore:
        sync = self.keyword_sync
        sync.refresh()  # another process may have flushed a newer index since
        return sync.keyword

    @property
    def keyword_sync(self) -> KeywordSync:
        """The keyword store with its place in the catalog's change journal."""
        return self._built_once("_keyword_sync", self._opened_keyword_sync)

    def _opened_keyword_sync(self) -> KeywordSync:
        if self._keyword is None:
            self._keyword = self.keyword_store_as_recorded()
        sync = KeywordSync(self.catalog, self._keyword, self.keyword_watermark())
        # Close any gap left by an interrupted writer (in memory for readers;
        # writers flush it with their own changes).
        sync.catch_up()
        if not sync.watermark.exclusive and sync.unflushed:
            # Shared catalog: other hosts' writes, which no writer of this home will
            # flush; the next process here should not replay them all again.
            self._flush_if_free(sync)
        return sync

    def _flush_if_free(self, sync: KeywordSync) -> None:
        """Flush a caught-up keyword index if the home's write lock is free (never waits;
        a home this process may not write to stays as it is)."""
        if not self.lock.try_acquire():
            return
        try:
            sync.keyword.flush()
            sync.flushed()
        except (OSError, MemexError):
            pass  # a reader's courtesy only: the next process replays what this one did
        finally:
            self.lock.release()

    def replica_timeout(self) -> float:
        from memex_core.replicas import replica_timeout

        return replica_timeout(self.config.table("catalog"), self.config.config_path)

    def keyword_watermark(self, store: KeywordStore | None = None) -> KeywordWatermark:
        """Where this home's keyword index (``store``, default the one in use) keeps its
        place in the catalog's change journal: the catalog, when the catalog is this home's
        alone; a file beside the index when homes share it (a PostgreSQL catalog: see
        :mod:`memex_core.replicas`)."""
        catalog = self.catalog
        if not getattr(catalog, "shared", False):
            return CatalogWatermark(catalog)
        from memex_core.replicas import HomeWatermark, replica_name

        def index_empty() -> bool:
            index = store or self._keyword
            return index is None or index.count() == 0

        return HomeWatermark(
            catalog,
            self.home / "index",
            replica_name(self.home),
            self.replica_timeout(),
            index_empty=index_empty,
        )

    # -- what the indexes see (turn context: memex_core.facade.turn_context) ------------

    def index_context(self) -> IndexContext:
        """The ``[index]`` table of config.toml: the turn context each index should have."""
        return turn_context.index_context(self.config)

    def indexed_context(self) -> IndexContext:
        """The turn context the indexes of this home were built with (new fragments get
        the same until ``memex rebuild``)."""
        return turn_context.indexed_context(self.catalog, self.config)

    def index_setting_notes(self, mode: str = "hybrid") -> list[str]:
        """Sentences saying which index was built with another turn context than configured
        (and which rebuild applies it); empty when they agree."""
        return turn_context.index_setting_notes(self.catalog, self.config, mode)

    def index_texts(self, context: IndexContext | None = None) -> IndexTexts:
        """Turn context as recorded for this home (read at each use: another process may
        rebuild), or ``context`` fixed (a rebuild applying the configured one)."""
        return turn_context.index_texts(self.catalog, self.config, context)

    def keyword_store_as_recorded(
        self, context: IndexContext | None = None
    ) -> ContextualKeywordStore:
        """A new keyword store of the configured kind, reading fragments with the turn
        context as recorded (or ``context``)."""
        return ContextualKeywordStore(self._build("keyword_store"), self.index_texts(context))

    def job_lock(self, name: str) -> Any:
        """The lock that lets one process at a time run job ``name`` (``"ingest"``,
        ``"vectors"``, ``"dream"``...): on a shared catalog, a lock in its database that
        holds across every host; otherwise the home's write lock, which already keeps out
        every other writer. Waits and notifies as :attr:`lock` is set to."""
        lock = self._job_locks.get(name)
        if lock is None:
            lock = self.catalog.job_lock(name, self.lock.timeout, self.lock.notify) or self.lock
            self._job_locks[name] = lock
        elif lock is not self.lock and not lock.held:
            lock.timeout, lock.notify = self.lock.timeout, self.lock.notify
        return lock

    @contextmanager
    def writing(self, *jobs: str) -> Iterator[None]:
        """Hold the write lock (and, on a shared catalog, the database locks of ``jobs``,
        taken after it, always in the order given); a home that cannot be written says so
        in words (which folder, and what to do) instead of a traceback.

        Before anything is written, the turn context the indexes are built with is
        recorded if it is not yet (an empty home takes the configured one)."""
        try:
            with self.lock, contextlib.ExitStack() as held:
                for job in jobs:
                    held.enter_context(self.job_lock(job))
                settle_context(self.catalog, self.index_context())
                yield
        except MemexError:
            raise
        except Exception as exc:
            translated = storage_error(exc, self.home)
            if translated is None:
                raise
            raise translated from exc

    @property
    def embedder(self) -> Embedder:
        return self._built_once("_embedder", lambda: self._build("embedder"))

    def use_embedder(self, embedder: Embedder) -> None:
        """Embed with ``embedder`` from now on instead of the configured one (built or not).

        ``memex serve`` embeds the queries of concurrent requests in one batch, outside the
        call lock, and installs a wrapper of the configured embedder here that answers
        ``embed_query`` from those vectors, so that every search this home runs finds them.
        The embedder must produce the vectors the stored ones were made with (the same
        name and dimension): a wrapper of :attr:`embedder` does."""
        with self._building:
            self._embedder = embedder

    def use_keyword_index(self, store: KeywordStore | None, sync: KeywordSync | None) -> None:
        """Search and write through ``store`` (with its place in the change journal,
        ``sync``) from now on: a rebuild's new index. None for both drops the open index,
        so the next use opens it again from disk (after a repair)."""
        with self._building:
            self._keyword, self._keyword_sync = store, sync

    @property
    def vector_store(self) -> VectorStore:
        if self._vectors is None:
            with self._building:
                preparing = self._preparing
                if preparing is not None:  # being opened on another thread: that one
                    with contextlib.suppress(Exception):
                        preparing.result()
                if self._vectors is None:
                    self._vectors = self._build("vector_store")
        return self._vectors

    @property
    def ranker(self) -> Ranker:
        return self._built_once("_ranker", self._bound_ranker)

    def ranker_fallback(self) -> str | None:
        """Why hybrid search ranks with ``rrf`` instead of the default ranker (its plugin
        is not loaded and config.toml does not name it), or None when it does not."""
        self._built_once("_ranker", self._bound_ranker)  # the reason is known once built
        return self._ranker_fallback

    def _bound_ranker(self) -> Ranker:
        try:
            ranker: Ranker = self._build("ranker")
        except PluginUnavailable as exc:
            if self.config.component("ranker") != DEFAULT_COMPONENTS["ranker"] or (
                self.config.table("ranker").get("use")
            ):
                raise  # named in config.toml (or in code): the user asked for that one
            # The default (rerank) is not loaded (MEMEX_LOAD_PLUGINS, an install without
            # it): search ranks as before it was the default, and `memex doctor` says so.
            rrf = self.config.table("ranker").get(FALLBACK_RANKER, {})
            context = PluginContext(self.home, rrf if isinstance(rrf, dict) else {})
            ranker = self.registry.build("ranker", FALLBACK_RANKER, context)
            self._ranker_fallback = str(exc)
        bind_graph = getattr(ranker, "bind_graph", None)
        if callable(bind_graph):  # a link-aware ranker (GraphAwareRanker)
            bind_graph(self.catalog)
        return ranker

    def reads_may_share(self) -> bool:
        """Whether searches may run at the same time as each other (see
        :mod:`memex_core.threads`): once the components a search uses are open, and when
        every one of them says it can be read from several threads at once (its
        ``concurrent_reads`` attribute). Until then searches take turns, as everything
        else does; the first one opens the components."""
        sync = self._keyword_sync
        parts: list[object] = [self._catalog, self._ranker, sync and sync.keyword]
        if self.semantic_unavailable_reason() is None:
            parts += [self._embedder, self._vectors]
        return all(getattr(part, "concurrent_reads", False) for part in parts)

    def sources(self) -> list[Source]:
        """Every available source, built with its ``[source.<name>]`` settings."""
        return [
            reg.factory(PluginContext(self.home, self.config.source_settings(reg.name)))
            for reg in self.registry.registrations("source")
            if reg.available
        ]

    def semantic_unavailable_reason(self) -> str | None:
        """Why semantic search cannot run here, or None if it can."""
        for role in ("embedder", "vector_store"):
            try:
                reg = self.registry.get(role, self.config.component(role))
            except PluginUnavailable as exc:
                return str(exc)
            if not reg.available:
                return (
                    f"semantic search needs the {reg.name} {role.replace('_', ' ')}: "
                    f"{reg.install_hint}"
                )
        return None

    def indexer(self, context: IndexContext | None = None) -> VectorIndexer:
        texts = self.index_texts(context)
        return VectorIndexer(self.catalog, self.vector_store, self.embedder, texts.for_vectors)

    def apply_vector_deletes(self) -> int:
        """Delete vectors of fragments the catalog no longer holds (changed or deleted notes,
        replaced transcript turns). Called with the write lock held; on a shared catalog
        only by the holder of the ``vectors`` job lock (a memory write skips it while
        another host holds it: that host deletes them)."""
        lock = self.job_lock("vectors")
        if not lock.try_acquire():
            return 0
        try:
            pending = self.catalog.pending_vector_deletes()
            if pending:
                self.vector_store.delete(pending)
                crash_point("vectors.deleted")
                self.catalog.clear_pending_vector_deletes(pending)
            return len(pending)
        finally:
            lock.release()

    def start_preparing_vectors(self) -> Future[None] | None:
        """Build the vector store and let it load its index on a background thread.

        Opening Chroma costs most of a cold ``memex dig``: importing chromadb takes
        ~0.6 s and loading 100,000 vectors ~0.2 s. Started before the keyword index
        loads and the query is embedded, the loading (Rust) and the embedding (numpy)
        overlap with each other and with the rest. None when the store is already
        open. The embedder is built first, on this thread, so that shared libraries
        such as numpy are imported by one thread only.
        """
        if self._vectors is not None:
            return None
        with self._building:
            if self._vectors is not None:
                return None
            if self._preparing is None:  # else another search started it: wait for it too
                self.embedder  # noqa: B018 - see above
                pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memex-open")
                try:
                    self._preparing = pool.submit(self._prepared_vector_store)
                finally:
                    pool.shutdown(wait=False)  # the thread ends with its one task
            return self._preparing

    def _prepared_vector_store(self) -> None:
        try:
            store = self._build("vector_store")
            prepare = getattr(store, "prepare", None)
            if callable(prepare):
                # Only a head start: whatever went wrong, the search itself meets and reports.
                with contextlib.suppress(Exception):
                    prepare()
            self._vectors = store
        finally:
            self._preparing = None  # a failure is met again (and reported) by the next search

    def settle_vectors(self) -> None:
        """After a bulk write, let the vector store make its files ready for the next reader
        (see the optional ``settle`` of :class:`~memex_core.domain.VectorStore`)."""
        settle = getattr(self._vectors, "settle", None)
        if callable(settle):
            # Everything is stored either way; without it only the next start-up is slower.
            with contextlib.suppress(VectorStoreUnavailableError):
                settle()

    def memory_indexes(self) -> MemoryIndexUpdater:
        if self._memory_indexes is None:

            def vectors() -> VectorIndexer | None:
                if self.semantic_unavailable_reason() is not None:
                    return None
                return self.indexer()

            self._memory_indexes = MemoryIndexUpdater(
                lambda: self.keyword_sync,
                vectors,
                self.apply_vector_deletes,
                defer_flush=lambda: self.keyword_flush_deferred,
                listing=getattr(self.catalog, "fragment_ids_matching", None),
            )
        return self._memory_indexes

    def memory_service(self) -> MemoryService:
        if self._memory_service is None:
            table = self.config.table("memory")
            defaults = MemorySettings()
            settings = MemorySettings(
                similarity_threshold=float(
                    table.get("similarity_threshold", defaults.similarity_threshold)
                ),
                similar_limit=int(table.get("similar_limit", defaults.similar_limit)),
                dream_similar_limit=int(
                    table.get("dream_similar_limit", defaults.dream_similar_limit)
                ),
                fragment_chars=int(table.get("fragment_chars", defaults.fragment_chars)),
            )
            self._memory_service = MemoryService(
                self.catalog,
                self.memory_indexes(),
                self.redactor(),
                settings,
                judge=self.supersession_judge(),
            )
        return self._memory_service

    def redactor(self) -> Redactor:
        return self._build("redactor")

    def ingest_scrubber(self) -> FragmentScrubber:
        """What ingest passes every source's fragments through: ``<private>`` spans
        dropped, secrets redacted unless ``[ingest] redact_secrets = false``."""
        from memex_core.services.scrubbing import FragmentScrubber

        redact = self.config.table("ingest").get("redact_secrets", True)
        if not isinstance(redact, bool):
            raise MemexError(
                f"{self.config.config_path}: [ingest] redact_secrets = {redact!r} is not "
                "true or false. Write `redact_secrets = true` (the default: secrets in "
                "ingested text are replaced by [REDACTED:<kind>]) or `false`."
            )
        if not redact:
            return FragmentScrubber(None)
        try:
            return FragmentScrubber(self.redactor())
        except PluginUnavailable as exc:
            if self.config.table("redactor").get("use") is not None:
                raise  # named in config.toml: the user asked for that one
            # The default redactor's plugin is not loaded (MEMEX_LOAD_PLUGINS, an install
            # without it): ingest goes on, private spans still dropped, and says so.
            return FragmentScrubber(None, skipped_reason=str(exc))

    def extractor(self) -> Extractor:
        return self._build("extractor")

    def consolidator(self) -> Consolidator:
        return self._build("consolidator")

    def supersession_judge(self) -> SupersessionJudge | None:
        """The judge that decides which earlier facts a new one closes (``[supersession]
        use``, default ``rules``); None when supersession is off (``use = "none"``) or when
        the default judge's plugin is not loaded, so remembering never fails for want of it
        (``memex doctor`` says so). A judge named in config.toml that cannot be built is an
        error."""
        return self.supersession_state()[0]

    def supersession_state(self) -> tuple[SupersessionJudge | None, str | None]:
        """The judge, and why there is none when the default could not be built."""
        if self._judge is None:
            self._judge = self._opened_judge()
        return self._judge

    def _opened_judge(self) -> tuple[SupersessionJudge | None, str | None]:
        if self.config.component("supersession_judge") == "none":
            return None, None
        try:
            return self._build("supersession_judge"), None
        except PluginUnavailable as exc:
            asked = self.config.component("supersession_judge")
            if asked != DEFAULT_COMPONENTS["supersession_judge"] or self.config.table(
                "supersession"
            ).get("use"):
                raise  # named in config.toml (or in code): the user asked for that one
            return None, str(exc)

    def fact_types(self) -> tuple[FactType, ...]:
        """The fact types extractors look for: ``[memory] fact_types = "path.yaml"`` or
        mem0's seven."""
        from memex_core.domain.memory.facts import DEFAULT_FACT_TYPES

        path = self.config.table("memory").get("fact_types")
        if not path:
            return DEFAULT_FACT_TYPES
        from memex_core.services.fact_types import load_fact_types

        return load_fact_types(Path(str(path)).expanduser())

    def close(self) -> None:
        locks, self._job_locks = self._job_locks, {}
        for lock in locks.values():
            if lock is not self.lock:
                lock.close()  # a database lock's own connection
        vectors, self._vectors = self._vectors, None
        close_vectors = getattr(vectors, "close", None)
        if callable(close_vectors):  # a server connection (pgvector), chroma's hold on files
            close_vectors()
        if self._catalog is not None:
            self._catalog.close()
            self._catalog = None
