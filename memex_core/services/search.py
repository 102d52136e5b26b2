"""Keyword, semantic and hybrid search over the indexes, resolved against the catalog."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import cast

from memex_core.domain import (
    KEYWORD,
    SEMANTIC,
    Embedder,
    FusedHit,
    KeywordStore,
    QueryAwareRanker,
    Ranker,
    SearchFilters,
    SearchResult,
    SignalHit,
    VectorStore,
)
from memex_core.domain.relevance import (
    EVIDENCE_KEYWORD,
    EVIDENCE_SEMANTIC,
    EVIDENCE_SLOT,
    select,
)
from memex_core.domain.search_results import SearchResults
from memex_core.errors import VectorStoreUnavailableError
from memex_core.services.beside_kept import BesideKept, kept_beside
from memex_core.services.ports import CatalogPort
from memex_core.services.slot_signal import SLOT, SLOT_WEIGHT, Answers, slot_hits

#: Hits each signal hands to the ranker (at least ``limit``), and the semantic signal's
#: share of the fused score. Chosen with the ranker's k (10, memex_rrf.DEFAULT_K) on both
#: benchmarks (docs/benchmarks.md): BM25 is the stronger signal on conversations and on
#: SciFact, so it weighs 0.6; deep candidate lists let a fragment both signals like rise,
#: and the small k keeps a hit one signal ranks first from being buried by that depth
#: (depth 40 with k 60 lost LoCoMo recall). Against 10 / 0.5 / k 60: LoCoMo evidence
#: recall@10 0.719 -> 0.742 (better on each of the 5 conversations), SciFact nDCG@10
#: 0.714 -> 0.726 (train queries, not used to choose: 0.712 -> 0.719).
DEFAULT_CANDIDATE_DEPTH = 40
DEFAULT_SEMANTIC_WEIGHT = 0.4
#: A filtered semantic search on a store that offers ``nearest`` (one whose filtered
#: queries are slow, like chroma's) asks it for OVERFETCH times the hits it needs plus
#: OVERFETCH_SLACK, unfiltered, and judges them against the catalog (see
#: ``SearchService._filtered_nearest``).
OVERFETCH = 2
OVERFETCH_SLACK = 20
#: A memory search's candidates that may be kept under the floor for being about the same
#: thing as a kept fact (``SearchService._kin``).
KIN_DEPTH = 20


class SearchService:
    """Runs each signal with the filters pushed down, fuses, and loads fragments.

    ``keyword``, ``vectors`` and ``embedder`` may be ``None`` when not installed;
    hybrid search then degrades to the signal that is there and says so. When the
    vector store fails at query time (:class:`VectorStoreUnavailableError`), hybrid
    and semantic searches answer with keyword results and set ``fallback``;
    ``keyword_fallback`` supplies the keyword store for a semantic search, lazily, so
    that a semantic search that works never loads it.
    """

    def __init__(
        self,
        catalog: CatalogPort,
        keyword: KeywordStore | None,
        vectors: VectorStore | None,
        embedder: Embedder | None,
        ranker: Ranker,
        candidate_depth: int = DEFAULT_CANDIDATE_DEPTH,
        semantic_unavailable_reason: str | None = None,
        keyword_fallback: Callable[[], KeywordStore] | None = None,
    ) -> None:
        self.catalog = catalog
        self.keyword_store = keyword
        self.vectors = vectors
        self.embedder = embedder
        self.ranker = ranker
        self.candidate_depth = candidate_depth
        self.semantic_unavailable_reason = semantic_unavailable_reason
        self.keyword_fallback = keyword_fallback

    @property
    def semantic_available(self) -> bool:
        return self.vectors is not None and self.embedder is not None

    def keyword_hits(self, query: str, limit: int, filters: SearchFilters) -> list[SignalHit]:
        if self.keyword_store is None:
            return []
        return self.keyword_store.search(query, limit, filters)

    def semantic_hits(
        self,
        query: str,
        limit: int,
        filters: SearchFilters,
        min_score: float | None = None,
        query_vector: Sequence[float] | None = None,
    ) -> list[SignalHit]:
        if self.vectors is None or self.embedder is None:
            return []
        vector = self.embedder.embed_query(query) if query_vector is None else query_vector
        hits = self._filtered_nearest(vector, limit, filters)
        if hits is None:
            hits = self.vectors.search(vector, limit, filters)
        if min_score is not None:
            hits = [h for h in hits if h.score >= min_score]
        return hits

    def _filtered_nearest(
        self, vector: Sequence[float], limit: int, filters: SearchFilters
    ) -> list[SignalHit] | None:
        """The ``limit`` best vectors passing ``filters``, judged against the catalog from
        an unfiltered ``nearest`` query of about :data:`OVERFETCH` times as many; None when
        the store has no ``nearest``, nothing is filtered, or too few of those pass (the
        store's own filtered search answers then).

        An agent's search always filters by owner once a home holds other users' memory,
        though the corpus it may read is nearly every vector, and a filtered chroma query
        is far slower than an unfiltered one (~0.7 s against ~5 ms at 100,000 vectors).
        The store could check its hits' metadata itself, but reading it costs more than the
        query (chroma: ~4 ms for 40 ids, serialised inside chroma), while the catalog holds
        the same fields and answers in a fraction of that. When at least ``limit`` of the
        wider unfiltered hits pass, they are exactly the filtered answer (the best passing
        vectors are among the best vectors); a vector whose fragment the catalog no longer
        holds passes nothing (search results never show one anyway)."""
        nearest = getattr(self.vectors, "nearest", None)
        if not callable(nearest) or (filters.is_empty and not filters.hidden_source_kinds()):
            return None  # the store's own search is as fast (private vectors aside)
        wide = limit * OVERFETCH + OVERFETCH_SLACK
        candidates: list[SignalHit] = nearest(vector, wide)
        kept: list[SignalHit] = []
        start = 0
        # The best ``limit`` first; the rest only if some of those fail the filter.
        # Only the fields a filter reads, where the catalog can give just those.
        judged = getattr(self.catalog, "filter_fields", None) or self.catalog.get_many
        while start < len(candidates) and len(kept) < limit:
            chunk = candidates[start : start + limit] if start == 0 else candidates[start:]
            fields = judged([hit.id for hit in chunk])
            kept += [
                hit
                for hit in chunk
                if (found := fields.get(hit.id)) is not None and filters.matches(found)
            ]
            start += len(chunk)
        if len(kept) < limit and len(candidates) >= wide:
            return None  # the filter is selective here: let the store apply it
        return kept[:limit]

    def keyword(self, query: str, limit: int, filters: SearchFilters) -> SearchResults:
        hits = self.keyword_hits(query, limit, filters)
        return self._single(KEYWORD, hits)

    def semantic(
        self,
        query: str,
        limit: int,
        filters: SearchFilters,
        min_score: float | None = None,
        query_vector: Sequence[float] | None = None,
        floor: float | None = None,
    ) -> SearchResults:
        """``floor``: hits below this cosine similarity are left out (and counted)."""
        if not self.semantic_available:
            out = SearchResults(SEMANTIC)
            out.notes.append(self.semantic_unavailable_reason or "semantic search unavailable")
            return out
        try:
            hits = self.semantic_hits(query, limit, filters, min_score, query_vector)
        except VectorStoreUnavailableError as exc:
            store = self.keyword_store
            if store is None and self.keyword_fallback is not None:
                store = self.keyword_fallback()
            fallback = self._single(KEYWORD, store.search(query, limit, filters) if store else [])
            return self._fell_back(fallback, SEMANTIC, exc)
        below = 0
        if floor is not None:
            kept = [h for h in hits if h.score >= floor]
            below, hits = len(hits) - len(kept), kept
        out = self._single(SEMANTIC, hits)
        out.floor, out.below_floor = floor, below
        return out

    def hybrid(
        self,
        query: str,
        limit: int,
        filters: SearchFilters,
        semantic_weight: float = DEFAULT_SEMANTIC_WEIGHT,
        query_vector: Sequence[float] | None = None,
        floor: float | None = None,
        answers: Answers | None = None,
        beside: BesideKept | None = None,
    ) -> SearchResults:
        """``query_vector`` may be passed when the caller already embedded the query.
        ``answers`` (a memory search whose question the supersession judge reads) picks the
        memory facts among the candidates that set what the question asks about: they are
        fused as one more signal and kept under the floor
        (:mod:`memex_core.services.slot_signal`).

        With a ``floor`` (a cosine similarity), the candidates are judged as
        :func:`memex_core.domain.relevance.select` says (enough of the query's words, a
        similarity at or above the floor, or both signals agreeing on one); the best
        ``limit`` kept are returned. The
        floor applies only while the semantic signal answers: keyword results standing
        in for it are shown as they are. ``beside`` (a search of memory only): the ways a
        memory fact under the floor is kept beside a kept fact of its owner, after those
        with evidence of their own (:mod:`memex_core.services.beside_kept`)."""
        if not 0.0 <= semantic_weight <= 1.0:
            raise ValueError("semantic_weight must be between 0 and 1")
        depth = max(limit, self.candidate_depth)
        signals: dict[str, Sequence[SignalHit]] = {}
        notes: list[str] = []
        failure: VectorStoreUnavailableError | None = None
        if semantic_weight < 1.0 or not self.semantic_available:
            signals[KEYWORD] = self.keyword_hits(query, depth, filters)
        if self.semantic_available and semantic_weight > 0.0:
            try:
                signals[SEMANTIC] = self.semantic_hits(query, depth, filters, None, query_vector)
            except VectorStoreUnavailableError as exc:
                failure = exc
                if KEYWORD not in signals:
                    signals[KEYWORD] = self.keyword_hits(query, depth, filters)
        elif not self.semantic_available:
            notes.append(
                (self.semantic_unavailable_reason or "semantic search unavailable")
                + "; showing keyword results only"
            )
        weights = {KEYWORD: 1.0 - semantic_weight, SEMANTIC: semantic_weight}
        if not self.semantic_available or failure is not None:
            weights[KEYWORD] = 1.0
        if SEMANTIC not in signals:
            floor = None  # nothing to hold a similarity against: keyword results as found
        # With a floor every candidate is judged before the best ``limit`` are taken, so
        # one left out makes room for the next that carries evidence.
        rerank_depth = int(getattr(self.ranker, "rerank_depth", 0) or 0)
        wanted = max(limit if floor is None else depth * 2, rerank_depth)
        slotted: set[str] = set()
        if answers is not None:
            everything = sum(len(hits) for hits in signals.values())
            ordered = self.ranker.fuse(signals, weights, everything)
            found = slot_hits(self.catalog, answers, [h.id for h in ordered])
            if found:
                signals[SLOT], weights[SLOT] = found, SLOT_WEIGHT
                slotted = {h.id for h in found}
        fused = self.ranker.fuse(signals, weights, wanted)
        keyword_hits = signals.get(KEYWORD, ())
        # Without a floor a label only says which signals found a hit: no shares to measure.
        shares = (
            {h.id: 1.0 for h in keyword_hits}
            if floor is None
            else self._keyword_shares(query, keyword_hits)
        )
        labels = select(
            [(shares.get(h.id), h.scores.get(SEMANTIC)) for h in fused],
            floor,
        )
        labels = [
            EVIDENCE_SLOT if label is None and h.id in slotted else label
            for h, label in zip(fused, labels, strict=True)
        ]
        kindred: set[str] = set()
        if beside and beside.any_on and floor is not None and None in labels and any(labels):
            kindred = self._kin(fused, labels, beside)
            labels = [
                EVIDENCE_SEMANTIC if label is None and h.id in kindred else label
                for h, label in zip(fused, labels, strict=True)
            ]
        kept = [(h, e) for h, e in zip(fused, labels, strict=True) if e is not None]
        if kindred:  # after the facts with evidence of their own: shown first only without them
            kept.sort(key=lambda pair: pair[0].id in kindred)
        if rerank_depth:
            kept = self._reranked(query, kept, rerank_depth)
        kept = kept[:limit]
        below = labels.count(None)
        fragments = self.catalog.get_many([h.id for h, _ in kept])
        results = [
            SearchResult(
                fragment=fragments[h.id],
                score=h.score,
                ranks={KEYWORD: h.ranks.get(KEYWORD), SEMANTIC: h.ranks.get(SEMANTIC), **h.ranks},
                scores={
                    KEYWORD: h.scores.get(KEYWORD),
                    SEMANTIC: h.scores.get(SEMANTIC),
                    **h.scores,
                },
                evidence=evidence,
                reasons=h.reasons,
            )
            for h, evidence in kept
            if h.id in fragments
        ]
        out = SearchResults("hybrid", results, notes, floor=floor, below_floor=below)
        return out if failure is None else self._fell_back(out, "hybrid", failure)

    def _kin(
        self, fused: Sequence[FusedHit], labels: list[str | None], beside: BesideKept
    ) -> set[str]:
        """The candidates under the floor kept beside a kept memory fact of their owner
        (:mod:`memex_core.services.beside_kept`)."""
        # The best KIN_DEPTH candidates only: a fact far down both lists stays out, and the
        # catalog and the vector store are asked about a few ids, not the whole depth.
        head = [(h, label is not None) for h, label in zip(fused, labels, strict=True)]
        head = head[:KIN_DEPTH]
        handed = getattr(self.vectors, "stored_vectors", None)
        successors = getattr(self.catalog, "memory_successors", None)
        return kept_beside(
            head,
            self.catalog.get_many([h.id for h, _ in head]),
            beside,
            handed if callable(handed) else None,
            successors if callable(successors) else None,
        )

    def _reranked(
        self, query: str, kept: list[tuple[FusedHit, str]], depth: int
    ) -> list[tuple[FusedHit, str]]:
        """The best ``depth`` candidates the floor kept, in the order of a ranker that reranks
        (:class:`memex_core.domain.QueryAwareRanker`); the rest after them, as fused. The
        evidence labels stay with their hits: a rerank re-orders, it does not judge."""
        head = kept[:depth]
        if not head:
            return kept
        evidence = {h.id: e for h, e in head}
        ranker = cast(QueryAwareRanker, self.ranker)  # it has a rerank_depth: hybrid asked
        reranked = ranker.rerank(query, [h for h, _ in head], self.catalog)
        return [(h, evidence[h.id]) for h in reranked if h.id in evidence] + kept[depth:]

    def _keyword_shares(self, query: str, hits: Sequence[SignalHit]) -> dict[str, float]:
        """Share of the query's information each keyword hit holds (1.0 for every hit when
        the keyword store cannot tell: then any keyword match counts as evidence)."""
        if not hits:
            return {}
        share_of = getattr(self.keyword_store, "query_share", None)
        if not callable(share_of):
            return {h.id: 1.0 for h in hits}
        shares: dict[str, float] = share_of(query, [h.id for h in hits])
        return {h.id: shares.get(h.id, 0.0) for h in hits}

    @staticmethod
    def _fell_back(
        out: SearchResults, mode: str, failure: VectorStoreUnavailableError
    ) -> SearchResults:
        """Mark keyword results that stand in for a failed semantic signal."""
        reason = f"semantic search failed, so these are keyword results only: {failure}"
        out.mode = mode
        out.notes.append(reason)
        out.fallback = reason
        return out

    def _single(self, signal: str, hits: list[SignalHit]) -> SearchResults:
        fragments = self.catalog.get_many([h.id for h in hits])
        other = SEMANTIC if signal == KEYWORD else KEYWORD
        results = [
            SearchResult(
                fragment=fragments[h.id],
                score=h.score,
                ranks={signal: rank, other: None},
                scores={signal: h.score, other: None},
                evidence=EVIDENCE_KEYWORD if signal == KEYWORD else EVIDENCE_SEMANTIC,
            )
            for rank, h in enumerate(hits, start=1)
            if h.id in fragments
        ]
        return SearchResults(signal, results)


# Re-exported: vector stores and callers have imported it from here.


__all__ = [
    "DEFAULT_CANDIDATE_DEPTH",
    "DEFAULT_SEMANTIC_WEIGHT",
    "OVERFETCH",
    "OVERFETCH_SLACK",
    "SearchResults",
    "SearchService",
    "VectorStoreUnavailableError",
]
