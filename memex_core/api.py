"""The Python API: one object that wires the catalog, plugins and services together.

>>> from memex_core import Memex
>>> mx = Memex(home="/tmp/memex-demo")                       # doctest: +SKIP
>>> report = mx.ingest("examples/exports")                   # doctest: +SKIP
>>> for hit in mx.search("sqlite database is locked", limit=3):  # doctest: +SKIP
...     print(hit.score, hit.ranks, hit.fragment.content[:60])

The CLI is a thin layer over this class. Components are built lazily, so a
keyword search never imports the embedder or the vector store.
"""

from __future__ import annotations

import contextlib
import hashlib
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memex_core.catalog import Catalog, SqlCatalog, WriteLock
from memex_core.catalog.faults import storage_error
from memex_core.config import Config, load_config
from memex_core.crashpoints import crash_point
from memex_core.domain import (
    Consolidator,
    CorpusStats,
    Embedder,
    Extractor,
    FactType,
    Fragment,
    IngestReport,
    KeywordStore,
    PluginContext,
    Ranker,
    Redactor,
    SearchFilters,
    Source,
    VectorStore,
)
from memex_core.domain.disclosure import (
    CompactHit,
    ContextPack,
    Timeline,
    compact_hit,
    label_of,
    query_terms,
)
from memex_core.domain.relevance import (
    SETTING as FLOOR_SETTING_NAME,
)
from memex_core.domain.relevance import (
    RelevanceFloorSettingError,
    parse_floor_setting,
)
from memex_core.domain.search_options import MODES, SearchOptions, TimeBound, make_filters
from memex_core.domain.search_results import SearchResults
from memex_core.domain.turn_context import (
    IndexContext,
    TurnContextSettingError,
    parse_index_table,
)
from memex_core.errors import AmbiguousIdError, MemexError, UnknownIdError, require_query
from memex_core.operator_reader import memory_collection_filters
from memex_core.plugins import PluginRegistry, PluginUnavailable, load_registry
from memex_core.rwlock import ReadWriteLock
from memex_core.services.context import ContextBuilder, ContextSettings
from memex_core.services.explore import Exploration, Explorer
from memex_core.services.index_text import (
    ContextualKeywordStore,
    IndexTexts,
    pending_changes,
    record_keyword_context,
    record_vector_context,
    recorded_context,
    settle_context,
)
from memex_core.services.indexing import (
    EMBEDDER_SETTING,
    CatalogWatermark,
    KeywordSync,
    KeywordWatermark,
    MemoryIndexUpdater,
    VectorIndexer,
)
from memex_core.services.ingest import IngestService
from memex_core.services.memory import MemoryService, MemorySettings
from memex_core.services.ports import NoProgress, Progress
from memex_core.services.search import (
    DEFAULT_CANDIDATE_DEPTH,
    DEFAULT_SEMANTIC_WEIGHT,
    SearchService,
    VectorStoreUnavailableError,
)
from memex_core.threads import reads

if TYPE_CHECKING:
    from memex_core.agent_view import AgentView
    from memex_core.handles import AgentMemory, OperatorMemory
    from memex_core.services.agent_keys import AgentKeys
    from memex_core.services.ask import AskResult
    from memex_core.services.calibration import Calibration
    from memex_core.services.doctor import DoctorReport
    from memex_core.services.guidance import Reach
    from memex_core.services.scrubbing import FragmentScrubber

#: The shortest id prefix :meth:`Memex.resolve_ids` takes (git's own minimum).
MIN_ID_PREFIX = 4
#: How many candidates an ambiguous prefix's error names.
AMBIGUOUS_SHOWN = 5


def _cores() -> int:
    """Cores this process may run on (its affinity mask where there is one)."""
    import os

    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


class Memex:
    """A memex home: ingest sources, search them, read fragments back.

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
        self._memory_indexes: MemoryIndexUpdater | None = None
        self._memory_service: MemoryService | None = None
        self._calibrated_floor: Calibration | None = None
        self._job_locks: dict[str, Any] = {}
        #: Set by a process that flushes the keyword index itself now and then (``memex
        #: serve``'s follower): memory writes then leave their keyword changes in memory.
        self.keyword_flush_deferred = False

    # -- components -------------------------------------------------------------

    @property
    def catalog(self) -> SqlCatalog:
        """The configured catalog (``[catalog] use``), its schema migrated."""
        if self._catalog is None:
            with self._building:
                if self._catalog is None:
                    self._catalog = self._migrated_catalog()
        return self._catalog

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
        if self._keyword_sync is None:
            with self._building:
                if self._keyword_sync is None:
                    self._keyword_sync = self._opened_keyword_sync()
        return self._keyword_sync

    def _opened_keyword_sync(self) -> KeywordSync:
        if self._keyword is None:
            self._keyword = self._keyword_store_as_recorded()
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

    def _replica_timeout(self) -> float:
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
            self._replica_timeout(),
            index_empty=index_empty,
        )

    # -- what the indexes see (turn context) ---------------------------------------

    def index_context(self) -> IndexContext:
        """The ``[index]`` table of config.toml: the turn context each index should have."""
        try:
            return parse_index_table(self.config.table("index"))
        except TurnContextSettingError as exc:
            raise MemexError(str(exc)) from exc

    def indexed_context(self) -> IndexContext:
        """The turn context the indexes of this home were built with (new fragments get
        the same until ``memex rebuild``)."""
        return recorded_context(self.catalog, self.index_context())

    def index_setting_notes(self, mode: str = "hybrid") -> list[str]:
        """Sentences saying which index was built with another turn context than configured
        (and which rebuild applies it); empty when they agree."""
        changes = pending_changes(self.indexed_context(), self.index_context())
        skip = {"keyword": "vectors", "semantic": "keyword"}.get(mode)
        return [sentence for index, sentence in changes if index != skip]

    def _index_texts(self, context: IndexContext | None = None) -> IndexTexts:
        """Turn context as recorded for this home (read at each use: another process may
        rebuild), or ``context`` fixed (a rebuild applying the configured one)."""
        fixed = context
        return IndexTexts(
            self.catalog, (lambda: fixed) if fixed is not None else self.indexed_context
        )

    def _keyword_store_as_recorded(
        self, context: IndexContext | None = None
    ) -> ContextualKeywordStore:
        return ContextualKeywordStore(self._build("keyword_store"), self._index_texts(context))

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
        if self._embedder is None:
            with self._building:
                if self._embedder is None:
                    self._embedder = self._build("embedder")
        return self._embedder

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
        if self._ranker is None:
            with self._building:
                if self._ranker is None:
                    ranker = self._build("ranker")
                    bind_graph = getattr(ranker, "bind_graph", None)
                    if callable(bind_graph):  # a link-aware ranker (GraphAwareRanker)
                        bind_graph(self.catalog)
                    self._ranker = ranker
        return self._ranker

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

    def _indexer(self, context: IndexContext | None = None) -> VectorIndexer:
        texts = self._index_texts(context)
        return VectorIndexer(self.catalog, self.vector_store, self.embedder, texts.for_vectors)

    # -- agent memory -------------------------------------------------------------

    def agent(self, user_id: str, *, name: str = "agent", collection: str = "") -> AgentMemory:
        """A handle for an agent bound to one user: it sees ``user/...`` and ``shared/...``
        and nothing else (see :mod:`memex_core.handles`)."""
        from memex_core.handles import AgentMemory

        return AgentMemory(self, user_id, name=name, collection=collection)

    def view(
        self,
        user: str | None = None,
        *,
        name: str = "agent",
        collection: str = "",
        corpus: bool = True,
    ) -> AgentView:
        """What an agent may read: the corpus (unless ``corpus=False``) and, with a
        ``user``, that user's and shared memory. Integrations read through this."""
        from memex_core.agent_view import AgentView

        return AgentView(self, user, name=name, collection=collection, corpus=corpus)

    def operator(self, name: str = "operator", *, collection: str = "") -> OperatorMemory:
        """A handle that can read and write all memory, see revisions and the log, purge."""
        from memex_core.handles import OperatorMemory

        return OperatorMemory(self, name=name, collection=collection)

    def agent_keys(self) -> AgentKeys:
        """The API keys with which agents reach this home through ``memex serve``."""
        from memex_core.services.agent_keys import AgentKeys

        return AgentKeys(self.catalog)

    def memory_indexes(self) -> MemoryIndexUpdater:
        if self._memory_indexes is None:

            def vectors() -> VectorIndexer | None:
                if self.semantic_unavailable_reason() is not None:
                    return None
                return self._indexer()

            self._memory_indexes = MemoryIndexUpdater(
                lambda: self.keyword_sync,
                vectors,
                self._apply_vector_deletes,
                defer_flush=lambda: self.keyword_flush_deferred,
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
                self.catalog, self.memory_indexes(), self.redactor(), settings
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

    def fact_types(self) -> tuple[FactType, ...]:
        """The fact types extractors look for: ``[memory] fact_types = "path.yaml"`` or
        mem0's seven."""
        from memex_core.domain.memory.facts import DEFAULT_FACT_TYPES

        path = self.config.table("memory").get("fact_types")
        if not path:
            return DEFAULT_FACT_TYPES
        from memex_core.services.fact_types import load_fact_types

        return load_fact_types(Path(str(path)).expanduser())

    # -- writing ----------------------------------------------------------------

    def ingest(
        self,
        *paths: str | Path,
        embed: bool = True,
        progress: Progress | None = None,
        embed_progress: Progress | None = None,
        source: str | None = None,
    ) -> IngestReport:
        """Ingest files, folders or export zips. Returns per-file outcomes.

        With ``embed`` (default), fragments without vectors are embedded afterwards
        when an embedder and vector store are installed; otherwise the report says
        why not and ``backfill()`` can do it later. ``source`` names the one source to
        read with (``"code"``: the only way to index a git repository as code).
        """
        sources = self.sources()
        if source is not None:
            sources = [s for s in sources if s.source_kind == source]
            if not sources:
                known = ", ".join(sorted(r.name for r in self.registry.registrations("source")))
                raise MemexError(f"Unknown source {source!r} for --source: known are {known}.")
        with self.writing("ingest"):
            # Holding the lock (on a shared catalog, the ingest lock of every host): any
            # run still "running" died.
            self.catalog.close_interrupted_runs()
            sync = self.keyword_sync
            sync.catch_up()  # another process may have written since this one opened
            service = IngestService(
                self.catalog,
                sources,
                sync.keyword,
                progress or NoProgress(),
                scrubber=self.ingest_scrubber(),
                named=source is not None,
            )
            command = " ".join(sys.argv[1:3]) or "ingest"
            resolved = [Path(p).expanduser().absolute() for p in paths]
            report = service.ingest(resolved, command=command)
            sync.own_changes_applied()
            sync.flushed()
            crash_point("ingest.indexed")
            if not embed:
                report.embedding_skipped_reason = "skipped on request (run `memex backfill`)"
            elif (reason := self.semantic_unavailable_reason()) is not None:
                report.embedding_skipped_reason = reason
            elif (busy := self._vectors_busy()) is not None:
                report.embedding_skipped_reason = busy
            else:
                try:
                    self._apply_vector_deletes()
                    report.embedded = self._indexer().backfill(progress=embed_progress)
                    self._settle_vectors()
                except VectorStoreUnavailableError as exc:
                    # The catalog and keyword index hold everything; vectors wait.
                    report.embedding_skipped_reason = self._vectors_pending(exc)
                finally:
                    self.job_lock("vectors").release()
        return report

    def _vectors_busy(self) -> str | None:
        """Take the ``vectors`` job lock without waiting (released by the caller), or say
        why not: on a shared catalog, another host is embedding (and embeds these too)."""
        lock = self.job_lock("vectors")
        if lock.try_acquire():
            return None
        holder = lock.holder() or "holder unknown"
        return (
            f"another memex process is embedding this catalog's fragments ({holder}); it "
            "embeds these too, or run `memex backfill` once it has finished"
        )

    def _vectors_pending(self, failure: VectorStoreUnavailableError) -> str:
        pending = self._indexer().pending()
        return (
            f"{failure} {pending:,} fragment(s) wait for vectors; the next `memex ingest` or "
            "`memex backfill` stores them once the vector store answers (keyword search "
            "finds them meanwhile)."
        )

    def sync(
        self,
        *,
        embed: bool = True,
        progress: Progress | None = None,
        embed_progress: Progress | None = None,
    ) -> IngestReport:
        """Re-read every path in ``[sync] paths`` of config.toml; only changes are ingested.

        Paths that do not exist are reported as failed (the others still sync).
        """
        paths = self.config.sync_paths()
        if not paths:
            raise MemexError(
                f"Nothing to sync: add the folders to re-read to {self.config.config_path}, "
                'for example\n\n[sync]\npaths = ["~/notes", "~/.claude/projects", '
                '"~/.codex/sessions"]'
            )
        return self.ingest(*paths, embed=embed, progress=progress, embed_progress=embed_progress)

    def _apply_vector_deletes(self) -> int:
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

    def add_fragments(
        self,
        fragments: Iterable[Fragment],
        *,
        origin: str,
        embed: bool = True,
        progress: Progress | None = None,
        replace: bool = False,
    ) -> int:
        """Store fragments built in code (not read from a file) as one atomic batch.

        ``origin`` names the batch in ``memex sources`` (e.g. ``"app:support-bot"``).
        Returns how many fragments were new. Embeds them when ``embed`` and possible.
        With ``replace``, the batch is everything ``origin`` holds now: fragments an
        earlier batch of the same ``origin`` stored and this one lacks are removed from
        the catalog and the indexes (as a re-read transcript replaces its old turns).
        """
        batch = list(fragments)
        digest = hashlib.sha256("\n".join(sorted(f.id for f in batch)).encode()).hexdigest()
        kinds = sorted({f.source_kind for f in batch}) or ["api"]
        with self.writing("ingest"):
            sync = self.keyword_sync
            sync.catch_up()
            run_id = self.catalog.start_run(f"add_fragments {origin}")
            new, removed = self.catalog.replace_file(
                run_id=run_id,
                path=origin,
                sha256=digest,
                size=0,
                source_kind=",".join(kinds),
                fragments=batch,
                replace=replace,
            )
            if removed:
                sync.keyword.delete(removed)
            sync.keyword.add(new)
            sync.keyword.flush()
            sync.own_changes_applied()
            sync.flushed()
            self.catalog.finish_run(run_id, "finished", {"fragments_added": len(new)})
            if (
                embed
                and self.semantic_unavailable_reason() is None
                and self._vectors_busy() is None
            ):
                try:
                    self._apply_vector_deletes()
                    self._indexer().backfill(progress=progress)
                except VectorStoreUnavailableError:
                    pass  # stored and keyword-searchable; `memex backfill` adds the vectors
                finally:
                    self.job_lock("vectors").release()
        return len(new)

    def backfill(self, batch_size: int = 256, progress: Progress | None = None) -> int:
        """Embed every fragment that lacks a vector. Safe to interrupt and rerun."""
        reason = self.semantic_unavailable_reason()
        if reason:
            raise MemexError(reason)
        with self.writing("vectors"):
            self._apply_vector_deletes()
            done = self._indexer().backfill(batch_size=batch_size, progress=progress)
            self._settle_vectors()
            return done

    def rebuild(
        self, *, keyword: bool = True, vectors: bool = False, progress: Progress | None = None
    ) -> dict[str, int]:
        """Recreate indexes from the catalog (the record of truth)."""
        done: dict[str, int] = {}
        # The keyword index is this home's own; the vectors are shared by every host.
        with self.writing(*(("vectors",) if vectors else ())):
            configured = self.index_context()
            if keyword:
                # Built with the configured turn context, recorded once it is on disk.
                applied = IndexContext(configured.keyword, self.indexed_context().vectors)
                store = self._keyword_store_as_recorded(applied)
                store.clear()
                watermark = self.keyword_watermark(store)
                sync = KeywordSync(self.catalog, store, watermark)
                # Under the lock, all of it (on a shared catalog, whatever commits from
                # here on is replayed again, which changes nothing).
                sync.caught_up_at = sync.clock()
                sync.seen = self.catalog.last_fragment_change()
                progress = progress or NoProgress()
                progress.start("Keyword index", self.catalog.count_fragments())
                batch: list[Fragment] = []
                for fragment in self.catalog.iter_fragments():
                    batch.append(fragment)
                    if len(batch) >= 2000:
                        store.add(batch)
                        progress.advance(len(batch))
                        batch = []
                store.add(batch)
                progress.advance(len(batch))
                store.flush()
                sync.flushed()
                record_keyword_context(self.catalog, configured.keyword)
                progress.finish()
                self._keyword = ContextualKeywordStore(store.inner, self._index_texts())
                self._keyword_sync = KeywordSync(self.catalog, self._keyword, watermark)
                self._keyword_sync.seen = self._keyword_sync.flushed_to = sync.seen
                self._keyword_sync.caught_up_at = sync.caught_up_at
                done["keyword"] = store.count()
            if vectors:
                indexer = self._indexer()
                indexer.reset()
                # The store is empty now: every vector from here on has the configured
                # context, so an interrupted backfill resumes with the same.
                record_vector_context(self.catalog, configured.vectors)
                done["vectors"] = indexer.backfill(progress=progress)
                self._settle_vectors()
        return done

    # -- reading ----------------------------------------------------------------

    def _start_preparing_vectors(self) -> Future[None] | None:
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

    def _settle_vectors(self) -> None:
        """After a bulk write, let the vector store make its files ready for the next reader
        (see the optional ``settle`` of :class:`~memex_core.domain.VectorStore`)."""
        settle = getattr(self._vectors, "settle", None)
        if callable(settle):
            # Everything is stored either way; without it only the next start-up is slower.
            with contextlib.suppress(VectorStoreUnavailableError):
                settle()

    def search_service(self, mode: str) -> SearchService:
        semantic_reason = self.semantic_unavailable_reason() if mode != "keyword" else None
        semantic_ok = mode != "keyword" and semantic_reason is None
        if semantic_ok:
            self._indexer().check_compatible()
        return SearchService(
            catalog=self.catalog,
            keyword=self.keyword_store if mode != "semantic" else None,
            vectors=self.vector_store if semantic_ok else None,
            embedder=self.embedder if semantic_ok else None,
            ranker=self.ranker,
            candidate_depth=int(
                self.config.search_setting("candidate_depth", DEFAULT_CANDIDATE_DEPTH)
            ),
            semantic_unavailable_reason=semantic_reason,
            keyword_fallback=lambda: self.keyword_store,
        )

    @reads
    def search(
        self,
        query: str | SearchOptions,
        mode: str = "hybrid",
        limit: int = 10,
        *,
        source: str | Iterable[str] | None = None,
        conversation: str | Iterable[str] | None = None,
        role: str | Iterable[str] | None = None,
        since: TimeBound = None,
        until: TimeBound = None,
        collection: str | None = None,
        include_private: bool = False,
        time_phrases: bool = True,
        floor: str | float | None = None,
        semantic_weight: float | None = None,
        min_score: float | None = None,
        filters: SearchFilters | None = None,
    ) -> SearchResults:
        """Search fragments. ``mode`` is ``hybrid`` (default), ``keyword`` or ``semantic``.
        ``query`` may be a whole :class:`~memex_core.domain.search_options.SearchOptions`
        instead (and then no other option is given).

        Filters are pushed into each index before top-k. Each result holds the
        fragment, its score, and per signal its rank and raw score. With
        ``time_phrases`` (default) and no explicit time filter, a phrase such as
        "last week" or "in March" in the query becomes a since/until filter and is
        taken out of the query; the results' notes say how it was read. When that
        filter leaves nothing (say, chats without dates), the query is searched as
        written, with no time filter, and the note says so. An empty or blank
        ``query`` raises :class:`~memex_core.errors.EmptyQueryError`.

        ``collection`` narrows the search to memory in that collection and the ones below
        it; ``include_private`` lets private memories through. ``filters`` (built by a
        view for its scope) replaces the filters the options would give.

        ``floor`` overrides ``[search] min_semantic_similarity`` for this search:
        ``"auto"``, ``"off"`` or a cosine similarity. Hybrid and semantic results must
        carry evidence (:mod:`memex_core.domain.relevance`); when none does, the results
        are empty and ``below_floor`` counts what was left out.
        """
        options = SearchOptions.at_entry(
            query,
            mode,
            limit,
            source=source,
            conversation=conversation,
            role=role,
            since=since,
            until=until,
            collection=collection,
            include_private=include_private,
            time_phrases=time_phrases,
            floor=floor,
        )
        return self.search_with(
            options, filters=filters, semantic_weight=semantic_weight, min_score=min_score
        )

    def search_with(
        self,
        options: SearchOptions,
        *,
        filters: SearchFilters | None = None,
        semantic_weight: float | None = None,
        min_score: float | None = None,
    ) -> SearchResults:
        """:meth:`search` with its options built: what every surface's search ends in."""
        query, mode, limit = options.query, options.mode, options.limit
        require_query(query)
        if filters is None and options.collection:
            filters = memory_collection_filters(self.catalog, options.filters(), options.collection)
            if filters is None:
                return SearchResults(mode, [], ["no memory collection matches that collection"])
        if mode not in MODES:
            raise MemexError(f"Unknown search mode {mode!r}: use one of {', '.join(MODES)}.")
        floor_value = self.relevance_floor(options.floor) if mode != "keyword" else None
        if limit < 1:
            raise MemexError("limit must be at least 1")
        if filters is None:
            filters = make_filters(
                include_private=options.include_private, **options.filter_options()
            )
        time_note = time_reading = None
        unfiltered = (query, filters)
        if options.time_phrases and filters.since is None and filters.until is None:
            from memex_core.query_time_phrases import extract_time_phrase

            phrase = extract_time_phrase(query)
            if phrase is not None and phrase.query.strip():
                query = phrase.query
                filters = replace(
                    filters,
                    since=phrase.since,
                    # the phrase's end is exclusive, the filter's inclusive
                    until=None if phrase.until is None else phrase.until - 1e-6,
                )
                time_reading = phrase.describe()
                time_note = f"time filter: {time_reading} (turn off with --no-time-phrases)"
        found = self._search(query, mode, limit, filters, semantic_weight, min_score, floor_value)
        if time_note is not None and not found.results:
            # A phrase read as a time filter that leaves nothing (say, notes or chats
            # without dates) must not hide what the words find: search them as written.
            words, plain_filters = unfiltered
            found = self._search(
                words, mode, limit, plain_filters, semantic_weight, min_score, floor_value
            )
            time_note = (
                f"time filter: {time_reading} matched nothing, so these results are "
                "from any time (turn off with --no-time-phrases)"
            )
        if time_note is not None:
            found.notes.insert(0, time_note)
        if not found.results and found.below_floor and found.floor is not None:
            found.notes.append(
                f"nothing cleared the relevance floor: {found.below_floor} candidate(s) had a "
                f"similarity under {found.floor:.3f} and too few of the query's words, so "
                "nothing here seems to be about this"
            )
        found.notes.extend(self.index_setting_notes(mode))
        return found

    def _search(
        self,
        query: str,
        mode: str,
        limit: int,
        filters: SearchFilters,
        semantic_weight: float | None,
        min_score: float | None,
        floor: float | None = None,
    ) -> SearchResults:
        weight = semantic_weight
        if weight is None:
            weight = float(self.config.search_setting("semantic_weight", DEFAULT_SEMANTIC_WEIGHT))
        query_vector = None
        wants_vectors = mode == "semantic" or (mode == "hybrid" and weight > 0.0)
        if wants_vectors and self.semantic_unavailable_reason() is None:
            preparing = self._start_preparing_vectors()
            try:
                if mode == "hybrid":
                    self.keyword_store  # noqa: B018 - loads while the vector store does
                query_vector = self.embedder.embed_query(query)
            finally:
                if preparing is not None:
                    preparing.result()
        service = self.search_service(mode)
        if mode == "keyword":
            return service.keyword(query, limit, filters)
        if mode == "semantic":
            return service.semantic(query, limit, filters, min_score, query_vector, floor)
        return service.hybrid(query, limit, filters, weight, query_vector, floor)

    def ask(
        self,
        question: str,
        *,
        repo: str | Path | None = None,
        budget_chars: int | None = None,
        search: Callable[..., SearchResults] | None = None,
        answer: bool = True,
        progress: Progress | None = None,
        embed_progress: Progress | None = None,
    ) -> AskResult:
        """Ask memory and a repository's code at once: one pack of numbered items, each
        labelled ``memory`` or ``code``, within ``budget_chars`` (default ``[ask] budget``).

        With ``repo`` (any folder inside a git work tree) its tracked files are indexed as
        the ``code`` source first, only what changed; without it only memory is searched.
        ``search`` replaces :meth:`search` for both pools (an ``AgentView``'s, to keep a
        scope). With ``[ask] chat_model`` set and ``answer``, the model answers from the
        items with citations, checked against the item numbers. See :mod:`memex_core.facade.ask_workflow`.
        """
        from memex_core.facade.ask_workflow import run_ask

        return run_ask(
            self,
            question,
            repo=repo,
            budget_chars=budget_chars,
            search=search,
            answer=answer,
            progress=progress,
            embed_progress=embed_progress,
        )

    # -- the relevance floor ------------------------------------------------------

    def relevance_floor(self, setting: str | float | None = None) -> float | None:
        """The cosine similarity a candidate found by meaning alone must reach, as
        ``setting`` (or else ``[search] min_semantic_similarity``) says: a number, None
        for ``"off"`` or when semantic search is unavailable, or for ``"auto"`` (the
        default) the value calibrated for the embedder that built the vectors, measured
        once and recorded in the catalog (:mod:`memex_core.services.calibration`)."""
        raw = self.config.search_setting("min_semantic_similarity", None)
        try:
            chosen = parse_floor_setting(raw if setting is None else setting)
        except RelevanceFloorSettingError as exc:
            where = "" if setting is not None else f" (in {self.config.config_path})"
            raise MemexError(f"{exc}{where}") from exc
        if chosen.is_off:
            return None
        if not chosen.is_auto:
            return chosen.value
        if self.semantic_unavailable_reason() is not None:
            return None
        return self.calibrated_floor().value

    def floor_signature(self) -> str:
        """Which embedder build a calibration belongs to: its signature, and its ``build``
        when the embedder plugin names one (an encoder whose vectors change says so)."""
        from memex_core.services.indexing import embedder_signature

        build = getattr(self.embedder, "build", None)
        signature = embedder_signature(self.embedder)
        return f"{signature}:{build}" if build else signature

    def calibrated_floor(self, *, recalibrate: bool = False) -> Calibration:
        """The floor calibrated for this home's embedder: read from the catalog, or
        measured (a few seconds, once) and recorded there. ``recalibrate`` measures again."""
        from memex_core.services.calibration import (
            FLOOR_SETTING,
            METHOD,
            Calibration,
            calibrate,
        )

        signature = self.floor_signature()
        declared = getattr(self.embedder, "similarity_floor", None)
        if isinstance(declared, int | float) and not isinstance(declared, bool):
            # The embedder's author measured it (or, for a bag-of-words test double,
            # knows that no similarity means anything): nothing to calibrate.
            return Calibration(signature, float(declared), method="declared by the embedder")
        if not recalibrate:
            cached = self._calibrated_floor
            if cached is not None and cached.embedder == signature:
                return cached
            recorded = self.recorded_floor()
            if recorded and recorded.embedder == signature and recorded.method == METHOD:
                self._calibrated_floor = recorded
                return recorded
        measured = calibrate(self.embedder, signature)
        with contextlib.suppress(Exception):
            # A home that cannot be written (read-only copy) still searches; it measures
            # again next time.
            self.catalog.set_setting(FLOOR_SETTING, measured.to_json())
        self._calibrated_floor = measured
        return measured

    def recorded_floor(self) -> Calibration | None:
        """The calibration recorded in the catalog, if any (no embedding, no writing)."""
        from memex_core.services.calibration import FLOOR_SETTING, Calibration

        return Calibration.from_json(self.catalog.get_setting(FLOOR_SETTING))

    def conversation(self, conversation_id: str) -> list[Fragment]:
        """Every fragment of a conversation (or note) in its order; empty if unknown."""
        return self.catalog.conversation_fragments(conversation_id)

    def get(self, ids: Sequence[str]) -> list[Fragment]:
        """Fragments by id, in the order asked; unknown ids are left out
        (:meth:`resolve_ids` first when a person may type a prefix)."""
        found = self.catalog.get_many(list(ids))
        return [found[i] for i in ids if i in found]

    def resolve_ids(self, refs: Sequence[str]) -> list[str]:
        """The whole fragment id each of ``refs`` names, in order: a whole id, or a prefix
        of at least :data:`MIN_ID_PREFIX` characters that only one id starts with (as git
        takes a commit's). Raises :class:`~memex_core.errors.UnknownIdError` for a
        reference that names nothing and :class:`~memex_core.errors.AmbiguousIdError` for
        a prefix several ids share, before anything is returned."""
        exact = self.catalog.get_many(list(refs))
        return [ref if ref in exact else self._resolve_prefix(ref) for ref in refs]

    def _resolve_prefix(self, ref: str) -> str:
        matches = (
            self.catalog.fragment_ids_with_prefix(ref, AMBIGUOUS_SHOWN + 1)
            if isinstance(ref, str) and len(ref) >= MIN_ID_PREFIX
            else []
        )
        if len(matches) == 1:
            return matches[0]
        if not matches:
            raise UnknownIdError(
                f"No fragment with id {ref!r}. Ids come from a search "
                f"(`memex dig QUERY --concise`); give the whole id or its first "
                f"{MIN_ID_PREFIX} or more characters."
            )
        shown = ", ".join(matches[:AMBIGUOUS_SHOWN]) + (
            ", ..." if len(matches) > AMBIGUOUS_SHOWN else ""
        )
        raise AmbiguousIdError(
            f"Id prefix {ref!r} is ambiguous: it starts {shown}. Give more characters."
        )

    # -- progressive disclosure ---------------------------------------------------

    @reads
    def compact_search(
        self, query: str, limit: int = 5, *, snippet_chars: int = 200, **options: Any
    ) -> tuple[list[CompactHit], list[str]]:
        """Search, returning small hits (id, title, snippet, score, why it matched) and the
        notes a user should see. Step one of progressive disclosure; ``timeline`` and
        ``get`` follow. ``options`` are those of :meth:`search`."""
        found = self.search(query, limit=limit, **options)
        terms = query_terms(query)
        return [compact_hit(r, terms, snippet_chars) for r in found], found.notes

    def timeline(self, fragment_id: str, before: int = 3, after: int = 3) -> Timeline:
        """The turns (or note sections) around a fragment, in order, the fragment included."""
        if before < 0 or after < 0:
            raise MemexError("before and after must be 0 or more")
        (fragment_id,) = self.resolve_ids([fragment_id])
        fragments = self.catalog.neighbours(fragment_id, before, after)
        anchor = next(i for i, f in enumerate(fragments) if f.id == fragment_id)
        return Timeline(
            anchor_id=fragment_id,
            conversation_id=fragments[anchor].conversation_id,
            title=label_of(fragments[anchor]).split(" > ")[0],
            fragments=fragments,
            offsets=[i - anchor for i in range(len(fragments))],
        )

    def explore(self, note: str, similar: int = 5) -> Exploration:
        """A note's outlinks (unresolved ones with a null path), backlinks, and up to
        ``similar`` semantically similar notes it is not linked with."""
        similar_search = None
        if similar > 0 and self.semantic_unavailable_reason() is None:
            similar_search = self.search_service("semantic").semantic_hits

        return Explorer(self.catalog, similar_search).explore(note, similar)

    @reads
    def context(
        self,
        query: str | SearchOptions,
        budget_chars: int = 4000,
        *,
        mode: str = "hybrid",
        time_phrases: bool = True,
        **filter_options: Any,
    ) -> ContextPack:
        """Context for an agent within ``budget_chars``: search hits, the notes they link
        to, then recent material; every item says why it is there. Deterministic.
        ``query`` may be a :class:`~memex_core.domain.search_options.SearchOptions`.
        An empty or blank ``query`` raises :class:`~memex_core.errors.EmptyQueryError`."""
        options = SearchOptions.at_entry(
            query, mode=mode, time_phrases=time_phrases, **filter_options
        )
        require_query(options.query)
        settings = self.context_settings()
        asked = options.filter_options() or options.include_private
        filters = options.filters() if asked else None

        def search(text: str, limit: int) -> SearchResults:
            # The whole SearchResults: the builder reads whether the floor left all out.
            return self.search_with(options.with_changes(query=text, limit=limit), filters=filters)

        try:
            return ContextBuilder(self.catalog, search, settings).build(
                options.query, budget_chars, filters
            )
        except ValueError as exc:
            raise MemexError(str(exc)) from exc

    def context_settings(self) -> ContextSettings:
        """The ``[context]`` table of the config over the defaults."""
        table = self.config.table("context")
        defaults = ContextSettings()
        return ContextSettings(
            seed_limit=int(table.get("seed_limit", defaults.seed_limit)),
            seed_share=float(table.get("seed_share", defaults.seed_share)),
            recency_share=float(table.get("recency_share", defaults.recency_share)),
            link_limit=int(table.get("link_limit", defaults.link_limit)),
            item_chars=int(table.get("item_chars", defaults.item_chars)),
        )

    def stats(self) -> CorpusStats:
        first, last = self.catalog.time_span()
        recorded = self.catalog.get_setting(EMBEDDER_SETTING)
        name, _, dim = (recorded or "").partition(":")
        links, unresolved = self.catalog.count_links()
        return CorpusStats(
            fragments=self.catalog.count_fragments(),
            conversations=self.catalog.count_conversations(),
            embedded=self.catalog.count_embedded(),
            keyword_indexed=self.keyword_store.count(),
            by_source=self.catalog.group_counts("source_kind"),
            by_role=self.catalog.group_counts("role"),
            embedder=name or None,
            dimension=int(dim) if dim else None,
            first_timestamp=first,
            last_timestamp=last,
            documents=self.catalog.count_documents(),
            links=links,
            unresolved_links=unresolved,
        )

    def doctor(self, *, repair: bool = False, progress: Progress | None = None) -> DoctorReport:
        """Check the catalog, keyword index and vector store against each other; with
        ``repair``, fix what drifted from the catalog (the record of truth) and check again.
        See :mod:`memex_core.services.doctor`."""
        from memex_core.catalog.faults import CatalogUnavailableError
        from memex_core.services.doctor import unreachable_report

        try:
            return self._doctor(repair=repair, progress=progress)
        except CatalogUnavailableError as exc:
            # A finding, not a failure: `memex doctor --format json` still answers, and
            # says which server (never its password) and what to do.
            return unreachable_report(str(self.home), exc.server, exc.reason or str(exc), exc.fix)

    def _doctor(self, *, repair: bool, progress: Progress | None) -> DoctorReport:
        from memex_core.services.doctor import Doctor, DoctorParts

        def rebuild_keyword(progress: Progress) -> int:
            return self.rebuild(keyword=True, progress=progress)["keyword"]

        parts = DoctorParts(
            home=str(self.home),
            catalog=self.catalog,
            open_keyword=self._keyword_store_as_recorded,
            vector_store=lambda: self.vector_store,
            embedder=lambda: self.embedder,
            semantic_reason=self.semantic_unavailable_reason,
            rebuild_keyword=rebuild_keyword,
            apply_vector_deletes=self._apply_vector_deletes,
            prepare_vectors=self._index_texts().for_vectors,
            index_setting_changes=lambda: pending_changes(
                self.indexed_context(), self.index_context()
            ),
            keyword_watermark=self.keyword_watermark,
            replica_timeout=self._replica_timeout(),
        )
        # A write in progress would look like drift; a repair rewrites shared state (runs,
        # memory rows, vectors), so on a shared catalog it also waits for other hosts' jobs.
        with self.writing(*(("ingest", "vectors") if repair else ())):
            report = Doctor(parts).run(repair=repair, progress=progress)
            if repair:  # reopen the keyword index as repaired on next use
                self._keyword = self._keyword_sync = None
        return report

    def explain_empty(
        self,
        query: str,
        mode: str,
        filters: SearchFilters,
        found: SearchResults | None = None,
        *,
        reach: Reach | None = None,
    ) -> list[str]:
        """Guidance when a search found nothing: the fragments searched, their embedding
        coverage, the filter to blame, and (given the empty ``found``) the candidates the
        relevance floor left out. ``reach`` (default: this whole home) names a caller's
        scope, whose owners and collections ``filters`` carry; everything is counted and
        probed within them only (see :mod:`memex_core.services.guidance`)."""
        from memex_core.services import guidance

        chosen = reach or guidance.Reach(home=str(self.home))
        fragments, embedded = self.catalog.count_matching(guidance.scope_of(filters))

        def hits_with(relaxed: SearchFilters) -> int:
            return len(self.search(query, mode=mode, limit=1, filters=relaxed))

        return guidance.explain_empty(
            chosen,
            mode,
            filters,
            found,
            guidance.Counts(fragments, embedded),
            hits_with,
            FLOOR_SETTING_NAME,
        )

    def query(self, sql: str, limit: int | None = None) -> tuple[list[str], list[tuple[Any, ...]]]:
        """Run read-only SQL against the catalog."""
        return self.catalog.query(sql, limit)

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

    def __enter__(self) -> Memex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
