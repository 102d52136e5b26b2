"""Retrieval-quality plumbing shared by SciFact and LoCoMo: running queries through a Memex
and the reference-method peers."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from benchmarks.context import RunContext, log
from benchmarks.metrics import dedupe, mean
from memex_core.api import Memex
from memex_core.domain import SearchFilters, SearchResult

MODES = ("keyword", "semantic", "hybrid")
_REGEX_TOKEN = re.compile(r"\w+")


@dataclass
class Task:
    """Queries, how to score one query's ranked keys, and how a hit maps to a key.

    ``time_phrases`` is off: these collections carry no timestamps, and memex reads a
    phrase such as "in June" in a query as a time filter, which no undated fragment
    passes (:func:`time_phrase_queries` counts the queries concerned).
    """

    queries: list[str]
    filters: list[SearchFilters]
    score: Callable[[int, list[str]], float]
    key: Callable[[SearchResult], str]
    limit: int = 10  # results asked of memex (more than k when chunks map to one key)
    k: int = 10
    time_phrases: bool = False


@dataclass
class Outcome:
    mean: float
    per_query: list[float]
    seconds_per_query: float


def evaluate(mx: Memex, task: Task, mode: str, weight: float | None = None) -> Outcome:
    scores = []
    started = time.perf_counter()
    for index, (query, filters) in enumerate(zip(task.queries, task.filters, strict=True)):
        results = mx.search(
            query,
            mode=mode,
            limit=task.limit,
            filters=filters,
            semantic_weight=weight if mode == "hybrid" else None,
            time_phrases=task.time_phrases,
        )
        ranked = dedupe([task.key(r) for r in results])[: task.k]
        scores.append(task.score(index, ranked))
    elapsed = (time.perf_counter() - started) / max(len(task.queries), 1)
    return Outcome(mean(scores), scores, elapsed)


def time_phrase_queries(queries: Sequence[str]) -> int:
    """How many queries hold a phrase memex would read as a time filter by default."""
    from memex_core.query_time_phrases import extract_time_phrase

    return sum(1 for query in queries if extract_time_phrase(query) is not None)


def time_phrase_line(mx: Memex, task: Task, metric: str, plural: str) -> str:
    """The hybrid figure with memex's default time-phrase reading on, as a sentence
    (``plural`` names the queries: "questions")."""
    count = time_phrase_queries(task.queries)
    if not count:
        return f"None of the {plural} holds a time phrase."
    log(f"  hybrid with time phrases read as filters ({count} {plural} hold one)")
    with_phrases = evaluate(mx, replace(task, time_phrases=True), "hybrid")
    return (
        f'{count} of the {len(task.queries)} {plural} hold a phrase such as "in June" or '
        '"last year", which memex reads as a time filter by default (`--no-time-phrases` '
        "turns that off); these fragments carry no timestamps, so no fragment passes the "
        "filter and memex searches those words as written instead (saying so in a note). "
        f"The figures above search with time phrases off; with them on (the default), hybrid "
        f"{metric} is {with_phrases.mean:.3f}."
    )


def evaluate_modes(ctx: RunContext, mx: Memex, task: Task) -> dict[str, Outcome]:
    """Each mode at the defaults; query vectors are forgotten before each mode so that its
    time per query includes embedding the query."""
    out = {}
    for mode in MODES:
        log(f"  {mode}: {len(task.queries)} queries")
        ctx.query_vectors.clear()
        out[mode] = evaluate(mx, task, mode)
    return out


# -- peers: the reference method (README of the shared data) -----------------------------


def regex_tokens(text: str) -> list[str]:
    """Lowercase ``\\w+`` runs: the reference figures' tokenization."""
    return _REGEX_TOKEN.findall(text.lower())


@dataclass
class PeerRankings:
    """Full rankings (indices into the collection) per query, per signal."""

    keyword: list[np.ndarray] = field(default_factory=list)
    semantic: list[np.ndarray] = field(default_factory=list)
    fused: list[np.ndarray] = field(default_factory=list)


def peer_rankings(
    texts: Sequence[str],
    doc_vectors: np.ndarray,
    queries: Sequence[str],
    query_vectors: np.ndarray,
    rrf_k: float = 60.0,
) -> PeerRankings:
    """rank_bm25 BM25Okapi (regex-lowercase tokens), exact cosine, and RRF over both, all full."""
    from rank_bm25 import BM25Okapi

    bm25 = BM25Okapi([regex_tokens(t) for t in texts])
    out = PeerRankings()
    sims = query_vectors @ doc_vectors.T
    n = len(texts)
    for row, query in enumerate(queries):
        keyword = np.argsort(-bm25.get_scores(regex_tokens(query)), kind="stable")
        semantic = np.argsort(-sims[row], kind="stable")
        fused_score = np.zeros(n)
        fused_score[keyword] += 1.0 / (rrf_k + np.arange(1, n + 1))
        fused_score[semantic] += 1.0 / (rrf_k + np.arange(1, n + 1))
        out.keyword.append(keyword)
        out.semantic.append(semantic)
        out.fused.append(np.argsort(-fused_score, kind="stable"))
    return out
