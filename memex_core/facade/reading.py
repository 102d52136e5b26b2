"""Reading a home: search, fragments by id, counts, and guidance when a search found nothing.

:meth:`Reader.search_with` is where every search ends, whichever surface it came through
(``Memex.search``, a view, the operator reader, a memory handle): it checks the options,
reads a time phrase in the query as a filter, embeds the query while the vector store
opens, runs the search service and adds the notes a user should see.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any

from memex_core.domain import CorpusStats, Fragment, SearchFilters
from memex_core.domain.filters import NAMED_ONLY_SOURCES
from memex_core.domain.memory.answer_kind import answer_kind
from memex_core.domain.memory.change_words import (
    announces_change,
    asks_how_things_stand,
    echoes_change,
    names_change,
)
from memex_core.domain.memory.namespaces import covers, validate_collection
from memex_core.domain.memory.quantity_series import same_series
from memex_core.domain.memory.question_cover import adds_asked_word, drops_asked_word
from memex_core.domain.memory.records import MEMORY_SOURCE, OPERATOR, Actor, Scope
from memex_core.domain.memory.timestamps import HeldAt
from memex_core.domain.relevance import SETTING as FLOOR_SETTING_NAME
from memex_core.domain.relevance import near_floor
from memex_core.domain.search_options import MODES, SearchOptions, make_filters
from memex_core.domain.search_results import SearchResults
from memex_core.errors import AmbiguousIdError, MemexError, UnknownIdError, require_query
from memex_core.services.beside_kept import BesideKept
from memex_core.services.chain_successor import with_successors
from memex_core.services.indexing import EMBEDDER_SETTING
from memex_core.services.newer_first import AS_OF_KIN_SIMILARITY, MUTUAL_SIMILARITY, newer_first
from memex_core.services.search import (
    DEFAULT_CANDIDATE_DEPTH,
    DEFAULT_SEMANTIC_WEIGHT,
    SearchService,
)
from memex_core.services.slot_signal import Answers

if TYPE_CHECKING:
    from memex_core.facade.components import HomeComponents
    from memex_core.facade.floor import RelevanceFloor
    from memex_core.facade.protocols import CollectionCatalog
    from memex_core.services.guidance import Reach

#: The shortest id prefix :meth:`Reader.resolve_ids` takes (git's own minimum).
MIN_ID_PREFIX = 4
#: How many candidates an ambiguous prefix's error names.
AMBIGUOUS_SHOWN = 5
#: What a search says when its collection names no memory collection.
NO_SUCH_COLLECTION = "no memory collection matches that collection"

#: What a search says when no note carries the tags it asked for.
NO_TAGGED_NOTE = "no note carries the tag(s) {tags} (nor a tag nested under them)"

_OPERATOR_SCOPE = Scope(Actor(OPERATOR, "operator"), None, None)

#: The most candidates a search reading memory by time asks the stores for while it
#: leaves out facts not valid then.
MAX_DEPTH = 1000


def is_memory(fragment: Fragment) -> bool:
    return fragment.source_kind == MEMORY_SOURCE


def memory_collection_filters(
    catalog: CollectionCatalog, filters: SearchFilters, collection: str | None
) -> SearchFilters | None:
    """``filters`` narrowed to the memory collections ``collection`` covers (itself and the
    ones below it), as the operator sees them; None when it covers none (a prefix that
    matches nothing finds nothing: it never widens). No ``collection``: ``filters``."""
    if not collection:
        return filters
    prefix = validate_collection(collection)
    known = catalog.memory_collections(_OPERATOR_SCOPE, ())
    names = tuple(n for n in known if covers(prefix, n))
    return replace(filters, collections=names) if names else None


class Reader:
    """The reads of one home, over its components and its relevance floor."""

    def __init__(self, parts: HomeComponents, floor: RelevanceFloor) -> None:
        self._parts = parts
        self._floor = floor
        #: (journal number, sources asked, those held) of the last named-only probe.
        self._held: tuple[int, tuple[str, ...], tuple[str, ...]] | None = None

    def search_service(self, mode: str) -> SearchService:
        semantic_reason = self._parts.semantic_unavailable_reason() if mode != "keyword" else None
        semantic_ok = mode != "keyword" and semantic_reason is None
        if semantic_ok:
            self._parts.indexer().check_compatible()
        return SearchService(
            catalog=self._parts.catalog,
            keyword=self._parts.keyword_store if mode != "semantic" else None,
            vectors=self._parts.vector_store if semantic_ok else None,
            embedder=self._parts.embedder if semantic_ok else None,
            ranker=self._parts.ranker,
            candidate_depth=int(
                self._parts.config.search_setting("candidate_depth", DEFAULT_CANDIDATE_DEPTH)
            ),
            semantic_unavailable_reason=semantic_reason,
            keyword_fallback=lambda: self._parts.keyword_store,
        )

    def search_with(
        self,
        options: SearchOptions,
        filters: SearchFilters | None,
        semantic_weight: float | None,
        min_score: float | None,
    ) -> SearchResults:
        """A search with its options built (``Memex.search`` and every view end here):
        see :meth:`memex_core.api.Memex.search` for what the options do."""
        query, mode, limit = options.query, options.mode, options.limit
        require_query(query)
        if filters is None and options.collection:
            filters = memory_collection_filters(
                self._parts.catalog, options.filters(), options.collection
            )
            if filters is None:
                return SearchResults(mode, [], [NO_SUCH_COLLECTION])
        if mode not in MODES:
            raise MemexError(f"Unknown search mode {mode!r}: use one of {', '.join(MODES)}.")
        floor_value = self._floor.relevance_floor(options.floor) if mode != "keyword" else None
        if limit < 1:
            raise MemexError("limit must be at least 1")
        if filters is None:
            filters = make_filters(
                include_private=options.include_private, **options.filter_options()
            )
        if filters.tags:
            asked_tags = ", ".join(filters.tags)
            resolved = self._parts.catalog.resolve_tags(filters)
            if resolved is None:
                return SearchResults(mode, [], [NO_TAGGED_NOTE.format(tags=asked_tags)])
            filters = resolved
        if mode != "keyword":  # bm25 drops the clause itself when it never held code
            filters = self._named_only_held(filters)
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
        held = HeldAt.of(options)

        def searched(words: str, within: SearchFilters) -> SearchResults:
            once = partial(
                self._search_once,
                words,
                mode,
                filters=within,
                semantic_weight=semantic_weight,
                min_score=min_score,
                floor=floor_value,
                answers=self._answering(words, within, mode),
            )
            looser = partial(once, kin_similarity=AS_OF_KIN_SIMILARITY)
            return self._search(once, limit, held, words, looser)

        found = searched(query, filters)
        if time_note is not None and not found.results:
            # A phrase read as a time filter that leaves nothing (say, notes or chats
            # without dates) must not hide what the words find: search them as written.
            words, plain_filters = unfiltered
            found = searched(words, plain_filters)
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
        found.notes.extend(self._parts.index_setting_notes(mode))
        return found

    def _named_only_held(self, filters: SearchFilters) -> SearchFilters:
        """``filters`` leaving out only those of the sources searched when named (code) that
        this home holds: a home without code then asks its stores for no extra clause
        (a chroma query with any ``where`` is far slower)."""
        hidden = filters.hidden_source_kinds()
        if not hidden:
            return filters
        # The probe reads the documents table (~10 ms at 50,000 notes): asked again only
        # once fragments were added or removed since (the change journal's number moved).
        catalog = self._parts.catalog
        change = catalog.last_fragment_change()
        known = self._held
        if known is not None and known[:2] == (change, hidden):
            held = known[2]
        else:
            held = catalog.held_source_kinds(hidden)
            self._held = (change, hidden, held)
        return filters if held == hidden else replace(filters, named_only=held)

    def _answering(self, query: str, filters: SearchFilters, mode: str) -> Answers | None:
        """For a hybrid search of memory only, the supersession judge's test of the facts
        that set what ``query`` asks about (:mod:`memex_core.services.slot_signal`); None
        for other searches, a question it cannot read, or no judge that reads questions
        (``[supersession] use = "none"``)."""
        if mode != "hybrid" or filters.source_kinds != (MEMORY_SOURCE,):
            return None
        try:
            judge = self._parts.supersession_judge()
        except MemexError:
            return None  # a judge named in config.toml that cannot be built: writes say so
        answering = getattr(judge, "answering", None)
        return answering(query) if callable(answering) else None

    def _search(
        self,
        once: Callable[[int], SearchResults],
        limit: int,
        held: HeldAt | None,
        query: str = "",
        looser: Callable[[int], SearchResults] | None = None,
    ) -> SearchResults:
        """One search (``once(depth)`` asks the stores for ``depth`` hits); memory facts
        not valid at the time asked (superseded ones, by default) are left out inside it:
        the stores are asked for more until ``limit`` valid hits are found or they have
        no more. When an ``as_of`` search kept facts and none was valid then, it is asked
        again as ``looser`` (kin at :data:`AS_OF_KIN_SIMILARITY`): the question is about
        something the owner told, and what held then is often further from its words
        ("Which linter do we use?" as of last year: "flake8 + isort + black")."""
        found = once(limit)
        if held is None or held.everything:
            return found
        if held.moment is None and not self._parts.catalog.superseded_memories():
            return self._newer_first(found, query)  # nothing was ever closed: all current
        depth = limit
        while True:
            valid = self._valid(found, held)
            if held.moment is None:
                valid = self._successors(found.results, valid)
            if len(valid) >= limit or len(found.results) < depth or depth >= MAX_DEPTH:
                if not valid and found.results and held.moment is not None and looser:
                    return self._search(looser, limit, held, query)
                found.results = valid[:limit]
                return self._newer_first(found, query)
            depth = min(depth * 4, MAX_DEPTH)
            found = once(depth)

    def _newer_first(self, found: SearchResults, query: str) -> SearchResults:
        """The memory hits about the same thing newest first, among those kept
        (:mod:`memex_core.services.newer_first`; ``[search] newer_first = false`` turns
        it off, ``newer_first_change = false`` its looser test of a fact worded as a change,
        ``newer_first_standing = false`` the same test for every later fact when the question
        asks how things stand now, ``newer_first_typed = true`` the same test for two facts
        that both carry the kind of answer the question asks for, ``newer_first_series =
        false`` the test of a new point of a series of numbers, ``newer_first_asked = false``
        the test of a later fact holding a word of the question the earlier one lacks,
        ``newer_first_slot = false`` the test of two facts the question's slot reading both
        picked)."""
        memory = [r.fragment.conversation_id for r in found.results if is_memory(r.fragment)]
        if len(memory) < 2 or not self._parts.config.search_setting("newer_first", True):
            return found
        times = self._parts.catalog.memory_validity(memory)
        store = (
            self._parts.vector_store if self._parts.semantic_unavailable_reason() is None else None
        )
        handed = getattr(store, "stored_vectors", None)
        setting = self._parts.config.search_setting
        change = setting("newer_first_change", True)
        changed: Callable[[str], bool] | None = announces_change if change else None
        if setting("newer_first_standing", True) and asks_how_things_stand(query):
            changed = _every_fact  # the question asks for the latest: any later fact may say it
        found.results = newer_first(
            found.results,
            {memory_id: held[0] for memory_id, held in times.items()},
            handed if callable(handed) else None,
            changed=changed,
            named=names_change if change else None,
            echoes=partial(echoes_change, query) if change else None,
            series=same_series if setting("newer_first_series", True) else None,
            asked=partial(adds_asked_word, query) if setting("newer_first_asked", True) else None,
            typed=answer_kind(query) if setting("newer_first_typed", False) else None,
            slot_apart=(
                partial(drops_asked_word, query) if setting("newer_first_slot", True) else None
            ),
        )
        return found

    def _successors(self, found: list[Any], valid: list[Any]) -> list[Any]:
        """``valid`` with each closed fact found replaced by the current fact that closed it
        (:mod:`memex_core.services.chain_successor`; ``[search] chain_successor = false``
        turns it off)."""
        if not self._parts.config.search_setting("chain_successor", True):
            return valid
        catalog = self._parts.catalog

        def fragment_of(memory_id: str) -> Fragment | None:
            fragments = catalog.conversation_fragments(memory_id)
            return fragments[0] if fragments else None

        return with_successors(
            found,
            valid,
            lambda f: f.conversation_id if is_memory(f) else "",
            catalog.memory_successors,
            catalog.memory_validity,
            fragment_of,
        )

    def _valid(self, found: SearchResults, held: HeldAt) -> list[Any]:
        ids = [r.fragment.conversation_id for r in found.results if is_memory(r.fragment)]
        times = self._parts.catalog.memory_validity(ids)
        return [
            r
            for r in found.results
            if r.fragment.conversation_id not in times
            or held.keeps(*times[r.fragment.conversation_id])
        ]

    def _search_once(
        self,
        query: str,
        mode: str,
        limit: int,
        filters: SearchFilters,
        semantic_weight: float | None,
        min_score: float | None,
        floor: float | None = None,
        answers: Answers | None = None,
        kin_similarity: float | None = None,
    ) -> SearchResults:
        weight = semantic_weight
        if weight is None:
            weight = float(
                self._parts.config.search_setting("semantic_weight", DEFAULT_SEMANTIC_WEIGHT)
            )
        query_vector = None
        wants_vectors = mode == "semantic" or (mode == "hybrid" and weight > 0.0)
        if wants_vectors and self._parts.semantic_unavailable_reason() is None:
            preparing = self._parts.start_preparing_vectors()
            try:
                if mode == "hybrid":
                    self._parts.keyword_store  # noqa: B018 - loads while the vector store does
                query_vector = self._parts.embedder.embed_query(query)
            finally:
                if preparing is not None:
                    preparing.result()
        service = self.search_service(mode)
        if mode == "keyword":
            return service.keyword(query, limit, filters)
        if mode == "semantic":
            return service.semantic(query, limit, filters, min_score, query_vector, floor)
        beside = None
        if filters.source_kinds == (MEMORY_SOURCE,):
            beside = self._beside_kept(floor, kin_similarity)
        return service.hybrid(query, limit, filters, weight, query_vector, floor, answers, beside)

    def _beside_kept(self, floor: float | None, kin_similarity: float | None) -> BesideKept:
        """How a search of memory keeps a fact under the floor beside a kept fact of its
        owner (:mod:`memex_core.services.beside_kept`), each way by its ``[search]``
        setting: ``floor_kin``, ``floor_kin_change``, ``floor_near``, ``floor_chain``,
        ``floor_series``."""
        setting = self._parts.config.search_setting
        kin = None
        if setting("floor_kin", True):
            kin = MUTUAL_SIMILARITY if kin_similarity is None else kin_similarity
        return BesideKept(
            kin=kin,
            near=near_floor(floor) if floor is not None and setting("floor_near", True) else None,
            chain=bool(setting("floor_chain", True)),
            series=same_series if setting("floor_series", True) else None,
            changed=announces_change if setting("floor_kin_change", True) else None,
        )

    def conversation(self, conversation_id: str) -> list[Fragment]:
        """See ``Memex.conversation``."""
        return self._parts.catalog.conversation_fragments(conversation_id)

    def get(self, ids: Sequence[str]) -> list[Fragment]:
        """See ``Memex.get``."""
        found = self._parts.catalog.get_many(list(ids))
        return [found[i] for i in ids if i in found]

    def resolve_ids(self, refs: Sequence[str]) -> list[str]:
        """See ``Memex.resolve_ids``."""
        exact = self._parts.catalog.get_many(list(refs))
        return [ref if ref in exact else self._resolve_prefix(ref) for ref in refs]

    def _resolve_prefix(self, ref: str) -> str:
        if isinstance(ref, str) and len(ref) < MIN_ID_PREFIX:
            raise UnknownIdError(
                f"No fragment with id {ref!r}, which is too short for a prefix: give the "
                f"whole id or at least its first {MIN_ID_PREFIX} characters (ids come from a "
                "search: `memex dig QUERY --concise`)."
            )
        matches = (
            self._parts.catalog.fragment_ids_with_prefix(ref, AMBIGUOUS_SHOWN + 1)
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

    def stats(self) -> CorpusStats:
        """Counts of what the home holds; code (searched only when named) is counted apart
        from the conversations, notes and roles of memory."""
        catalog = self._parts.catalog
        first, last = catalog.time_span()
        recorded = catalog.get_setting(EMBEDDER_SETTING)
        name, _, dim = (recorded or "").partition(":")
        links, unresolved = catalog.count_links()
        apart = [catalog.source_counts(kind) for kind in NAMED_ONLY_SOURCES]
        by_role = catalog.group_counts("role")
        for counts in apart:
            for role, count in counts["roles"].items():
                by_role[role] = by_role.get(role, 0) - count
        code_fragments = sum(sum(c["roles"].values()) for c in apart)
        return CorpusStats(
            fragments=catalog.count_fragments(),
            conversations=catalog.count_conversations() - sum(c["conversations"] for c in apart),
            embedded=catalog.count_embedded(),
            keyword_indexed=self._parts.keyword_store.count(),
            by_source=catalog.group_counts("source_kind"),
            by_role={role: count for role, count in by_role.items() if count > 0},
            embedder=name or None,
            dimension=int(dim) if dim else None,
            first_timestamp=first,
            last_timestamp=last,
            documents=catalog.count_documents() - sum(c["documents"] for c in apart),
            links=links,
            unresolved_links=unresolved,
            code={
                "repositories": sum(c["roots"] for c in apart),
                "files": sum(c["documents"] for c in apart),
                "fragments": code_fragments,
            },
        )

    def explain_empty(
        self,
        query: str,
        mode: str,
        filters: SearchFilters,
        found: SearchResults | None,
        reach: Reach | None,
    ) -> list[str]:
        """``Memex.explain_empty``: guidance when a search found nothing, counted and probed
        within ``reach`` (default: this whole home)."""
        from memex_core.services import guidance

        chosen = reach or guidance.Reach(home=str(self._parts.home))
        fragments, embedded = self._parts.catalog.count_matching(guidance.scope_of(filters))

        def hits_with(relaxed: SearchFilters) -> int:
            return len(self.search_with(SearchOptions(query, mode, 1), relaxed, None, None))

        lines = guidance.explain_empty(
            chosen,
            mode,
            filters,
            found,
            guidance.Counts(fragments, embedded),
            hits_with,
            FLOOR_SETTING_NAME,
        )
        hidden = self._named_only_held(filters).hidden_source_kinds()
        if hidden and hits_with(replace(filters, source_kinds=hidden)):
            lines.append(
                "A repository's code that `memex ask` indexed matches; code is searched only "
                "when named: add --source code."
            )
        return lines

    def query(self, sql: str, limit: int | None = None) -> tuple[list[str], list[tuple[Any, ...]]]:
        """Run read-only SQL against the catalog."""
        return self._parts.catalog.query(sql, limit)


def _every_fact(text: str) -> bool:
    """Every later fact joins looser (a question that asks for the latest)."""
    return True
