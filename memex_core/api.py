"""The Python API: one object that wires the catalog, plugins and services together.

>>> from memex_core import Memex
>>> mx = Memex(home="/tmp/memex-demo")                       # doctest: +SKIP
>>> report = mx.ingest("examples/exports")                   # doctest: +SKIP
>>> for hit in mx.search("sqlite database is locked", limit=3):  # doctest: +SKIP
...     print(hit.score, hit.ranks, hit.fragment.content[:60])

The CLI is a thin layer over this class, itself a facade: each concern is a module of
:mod:`memex_core.facade` (components and locks, writing, reading, the relevance floor,
progressive disclosure, the ask workflow) that its methods hand their calls to.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from memex_core.domain import CorpusStats, Fragment, IngestReport, SearchFilters
from memex_core.domain.disclosure import CompactHit, ContextPack, Timeline, compact_hit, query_terms
from memex_core.domain.exploration import Exploration
from memex_core.domain.search_options import MODES, SearchOptions, TimeBound, make_filters
from memex_core.domain.search_results import SearchResults
from memex_core.facade.code_forgetting import ForgottenCode, forget_code
from memex_core.facade.components import HomeComponents
from memex_core.facade.disclosure import Disclosure
from memex_core.facade.doctoring import run_doctor
from memex_core.facade.floor import RelevanceFloor
from memex_core.facade.reading import MIN_ID_PREFIX, Reader
from memex_core.facade.writing import Writer
from memex_core.memex_like import ViewOpener
from memex_core.services.context import ContextSettings
from memex_core.services.ports import Progress
from memex_core.services.search import SearchService
from memex_core.threads import reads

if TYPE_CHECKING:
    from memex_core.agent_view import AgentView
    from memex_core.domain.memory.outcomes import MemoryHit, RememberResult
    from memex_core.domain.memory.records import MemoryRecord
    from memex_core.domain.memory.timestamps import Moment
    from memex_core.handles import AgentMemory, OperatorMemory
    from memex_core.services.agent_keys import AgentKeys
    from memex_core.services.archive_export import ExportReport
    from memex_core.services.archive_import import ImportReport
    from memex_core.services.ask_fusion import AskResult
    from memex_core.services.calibration import Calibration
    from memex_core.services.doctor import DoctorReport
    from memex_core.services.guidance import Reach

__all__ = ["MIN_ID_PREFIX", "MODES", "Memex", "SearchResults", "TimeBound", "make_filters"]


class Memex(HomeComponents, ViewOpener["AgentView"]):
    """A memex home: ingest sources, search them, read fragments back.

    ``home`` defaults to ``MEMEX_HOME`` or ``~/.memex``. ``registry`` lets an
    application pass plugins registered from code (components: ``HomeComponents``).
    """

    def _assemble(self) -> None:
        # The facade's parts, over the components HomeComponents.__init__ has set up.
        self._floor = RelevanceFloor(self)
        self._reader = Reader(self, self._floor)
        self._writer = Writer(self)
        self._disclosure = Disclosure(self, self._reader)

    # -- agent memory (memex_core.handles, memex_core.agent_view) --------------------------

    def agent(self, user_id: str, *, name: str = "agent", collection: str = "") -> AgentMemory:
        """A handle for an agent bound to one user: it sees ``user/...`` and ``shared/...``
        and nothing else (see :mod:`memex_core.handles`)."""
        from memex_core.handles import AgentMemory  # on first use: `memex dig` starts cold

        return AgentMemory(self, user_id, name=name, collection=collection)

    def _view(self, user: str | None, name: str, collection: str, corpus: bool) -> AgentView:
        from memex_core.agent_view import AgentView  # view() is ViewOpener's

        return AgentView(self, user, name=name, collection=collection, corpus=corpus)

    def operator(self, name: str = "operator", *, collection: str = "") -> OperatorMemory:
        """A handle that can read and write all memory, see revisions and the log, purge."""
        from memex_core.handles import OperatorMemory

        return OperatorMemory(self, name=name, collection=collection)

    def _memory(self, user: str | None) -> AgentMemory | OperatorMemory:
        return self.agent(user) if user is not None else self.operator()

    def remember(
        self,
        text: str | None = None,
        *,
        user: str,
        at: Moment | None = None,
        consolidate: bool = False,
        **options: Any,
    ) -> RememberResult:
        """Remember a fact in ``user``'s memory, as said at ``at`` (a datetime, an ISO 8601
        string or epoch seconds; default now). A fact that updates an earlier one (same
        subject and attribute) closes it: the earlier one stays readable by time. Other
        options are those of :meth:`memex_core.handles.AgentMemory.remember`."""
        return self.agent(user).remember(text, at=at, consolidate=consolidate, **options)

    def recall(
        self,
        query: str,
        *,
        user: str | None = None,
        as_of: TimeBound = None,
        include_superseded: bool = False,
        **options: Any,
    ) -> list[MemoryHit]:
        """Search ``user``'s memory (and shared memory; every user's without ``user``):
        current facts, those valid at ``as_of``, or with ``include_superseded`` all of
        them, each hit with its validity. Other options are those of the handles'
        ``search``."""
        return self._memory(user).search(
            query, as_of=as_of, include_superseded=include_superseded, **options
        )

    def history(self, memory_id: str, *, user: str | None = None) -> list[MemoryRecord]:
        """The chain of facts ``memory_id`` belongs to, oldest first (Paris -> Berlin),
        each with ``valid_from``, ``valid_until`` and ``superseded_by``; within ``user``'s
        memory when given. A memory's revisions are ``operator().history(id)``."""
        return self._memory(user).chain(memory_id)

    def agent_keys(self) -> AgentKeys:
        """The API keys with which agents reach this home through ``memex serve``."""
        from memex_core.services.agent_keys import AgentKeys

        return AgentKeys(self.catalog)

    # -- writing (memex_core.facade.writing) -----------------------------------------------

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
        return self._writer.ingest(paths, embed, progress, embed_progress, source)

    def sync(
        self,
        *,
        embed: bool = True,
        progress: Progress | None = None,
        embed_progress: Progress | None = None,
    ) -> IngestReport:
        """Re-read every path in ``[sync] paths`` of config.toml; only changes are ingested.
        Paths that do not exist are reported as failed (the others still sync)."""
        return self._writer.sync(embed, progress, embed_progress)

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
        return self._writer.add_fragments(fragments, origin, embed, progress, replace)

    def forget_code(self, repo: str | Path | None = None) -> ForgottenCode:
        """Remove the code ``memex ask`` (or ``ingest --source code``) indexed from the git
        repository at or around ``repo`` (every repository's when None): its files leave the
        catalog, the keyword index and the vector store. Memory is not touched, and ``ask``
        indexes the repository again when asked. Says what went, per repository."""
        return forget_code(self, repo)

    def backfill(self, batch_size: int = 256, progress: Progress | None = None) -> int:
        """Embed every fragment that lacks a vector. Safe to interrupt and rerun."""
        return self._writer.backfill(batch_size, progress)

    def embed_fragments(self, ids: Sequence[str], progress: Progress | None = None) -> int:
        """Embed those of ``ids`` that lack a vector, now (``ask`` embeds the code its
        question reaches first); how many were embedded. Safe to interrupt and rerun."""
        return self._writer.embed_fragments(ids, progress)

    def rebuild(
        self, *, keyword: bool = True, vectors: bool = False, progress: Progress | None = None
    ) -> dict[str, int]:
        """Recreate indexes from the catalog (the record of truth)."""
        return self._writer.rebuild(keyword=keyword, vectors=vectors, progress=progress)

    # -- archives (memex_core.facade.archiving) ---------------------------------------------

    def export_archive(
        self,
        target: Path | BinaryIO,
        *,
        user: str | None = None,
        collection: str | None = None,
        source: str | None = None,
        since: float | datetime | None = None,
        until: float | datetime | None = None,
        with_vectors: bool = False,
        with_log: bool = True,
        progress: Progress | None = None,
    ) -> ExportReport:
        """Write the home (or the part the filters name: one user's memory, a collection,
        a source, a time span) as one archive, streamed: see docs/archives.md."""
        # Archives load on first use: every CLI command imports this module (~45 ms).
        from memex_core.facade import archiving
        from memex_core.services.archive_format import Filters

        filters = Filters(user, collection, source, _seconds(since), _seconds(until))
        return archiving.export_archive(
            self, target, filters, with_vectors=with_vectors, with_log=with_log, progress=progress
        )

    def import_archive(
        self,
        source: Path | BinaryIO,
        *,
        dry_run: bool = False,
        user: str | None = None,
        embed: bool = True,
        progress: Progress | None = None,
    ) -> ImportReport:
        """Add an archive's rows to this home in one transaction (ids kept; importing twice
        adds nothing; conflicts listed, the home's row kept). ``user``: import as an agent
        bound to that user, refusing any row of another namespace. ``dry_run``: report what
        would change and write nothing."""
        from memex_core.facade import archiving

        return archiving.import_archive(
            self, source, user=user, dry_run=dry_run, embed=embed, progress=progress
        )

    # -- reading (memex_core.facade.reading) -----------------------------------------------

    def search_service(self, mode: str) -> SearchService:
        """The search service over this home's indexes for ``mode``."""
        return self._reader.search_service(mode)

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
        tag: str | Iterable[str] | None = None,
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
        view for its scope) replaces the filters the options would give. ``tag`` keeps
        the notes carrying one of these tags or a tag nested under one (``"project"``
        matches ``#project/memex``).

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
            tag=tag,
        )
        return self._reader.search_with(options, filters, semantic_weight, min_score)

    @reads
    def search_with(
        self,
        options: SearchOptions,
        *,
        filters: SearchFilters | None = None,
        semantic_weight: float | None = None,
        min_score: float | None = None,
    ) -> SearchResults:
        """:meth:`search` with its options built: what every surface's search ends in."""
        return self._reader.search_with(options, filters, semantic_weight, min_score)

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
        embed_all: bool = False,
        announce: Callable[[str], None] | None = None,
    ) -> AskResult:
        """Ask memory and a repository's code at once: one pack of numbered items, each
        labelled ``memory`` or ``code``, within ``budget_chars`` (default ``[ask] budget``).

        With ``repo`` (any folder inside a git work tree) its tracked files are indexed as
        the ``code`` source first, only what changed, for keyword search; then the code the
        question reaches is embedded (all of the repository's with ``embed_all``), so the
        first ask of a big repository answers in a minute, not many. ``announce`` is told
        what will be indexed and roughly how long before it starts. Without ``repo`` only
        memory is searched.
        ``search`` replaces :meth:`search` for both pools (an ``AgentView``'s, to keep a
        scope). With ``[ask] chat_model`` set and ``answer``, the registered chat model
        answers from the items with citations, checked against the item numbers. See
        :mod:`memex_core.facade.ask_workflow`.
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
            embed_all=embed_all,
            announce=announce,
        )

    def conversation(self, conversation_id: str) -> list[Fragment]:
        """Every fragment of a conversation (or note) in its order; empty if unknown."""
        return self._reader.conversation(conversation_id)

    def get(self, ids: Sequence[str]) -> list[Fragment]:
        """Fragments by id, in the order asked; unknown ids are left out
        (:meth:`resolve_ids` first when a person may type a prefix)."""
        return self._reader.get(ids)

    def resolve_ids(self, refs: Sequence[str]) -> list[str]:
        """The whole fragment id each of ``refs`` names, in order: a whole id, or a prefix
        of at least :data:`MIN_ID_PREFIX` characters that only one id starts with (as git
        takes a commit's). Raises :class:`~memex_core.errors.UnknownIdError` for a
        reference that names nothing and :class:`~memex_core.errors.AmbiguousIdError` for
        a prefix several ids share, before anything is returned."""
        return self._reader.resolve_ids(refs)

    def stats(self) -> CorpusStats:
        """Counts that describe what this home holds."""
        return self._reader.stats()

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
        return self._reader.explain_empty(query, mode, filters, found, reach)

    def query(self, sql: str, limit: int | None = None) -> tuple[list[str], list[tuple[Any, ...]]]:
        """Run read-only SQL against the catalog."""
        return self._reader.query(sql, limit)

    def doctor(self, *, repair: bool = False, progress: Progress | None = None) -> DoctorReport:
        """Check the catalog, keyword index and vector store against each other; with
        ``repair``, fix what drifted from the catalog (the record of truth) and check again.
        See :mod:`memex_core.services.doctor`."""
        return run_doctor(self, self._writer, repair=repair, progress=progress)

    # -- the relevance floor (memex_core.facade.floor) -------------------------------------

    def relevance_floor(self, setting: str | float | None = None) -> float | None:
        """The cosine similarity a candidate found by meaning alone must reach, as
        ``setting`` (or else ``[search] min_semantic_similarity``) says: a number, None
        for ``"off"`` or when semantic search is unavailable, or for ``"auto"`` (the
        default) the value calibrated for the embedder that built the vectors, measured
        once and recorded in the catalog (:mod:`memex_core.services.calibration`)."""
        return self._floor.relevance_floor(setting)

    def floor_signature(self) -> str:
        """Which embedder build a calibration belongs to: its signature, and its ``build``
        when the embedder plugin names one (an encoder whose vectors change says so)."""
        return self._floor.floor_signature()

    def calibrated_floor(self, *, recalibrate: bool = False) -> Calibration:
        """The floor calibrated for this home's embedder: read from the catalog, or
        measured (a few seconds, once) and recorded there. ``recalibrate`` measures again."""
        return self._floor.calibrated_floor(recalibrate=recalibrate)

    def recorded_floor(self) -> Calibration | None:
        """The calibration recorded in the catalog, if any (no embedding, no writing)."""
        return self._floor.recorded_floor()

    # -- progressive disclosure (memex_core.facade.disclosure) -----------------------------

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
        return self._disclosure.timeline(fragment_id, before, after)

    def explore(self, note: str, similar: int = 5) -> Exploration:
        """A note's outlinks (unresolved ones with a null path), backlinks, and up to
        ``similar`` semantically similar notes it is not linked with."""
        return self._disclosure.explore(note, similar)

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
        return self._disclosure.context(options, budget_chars)

    def context_settings(self) -> ContextSettings:
        """The ``[context]`` table of the config over the defaults."""
        return self._disclosure.context_settings()


def _seconds(moment: float | datetime | None) -> float | None:
    """A filter's time bound as seconds since the epoch."""
    if isinstance(moment, datetime):
        return moment.timestamp()
    return None if moment is None else float(moment)
