"""Retrieval-quality plumbing shared by SciFact and LoCoMo: running queries through a Memex
and the reference-method peers."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from benchmarks.context import RunContext, log
from benchmarks.metrics import dedupe, mean
from memex_core.api import Memex
from memex_core.domain import SearchFilters, SearchResult

MODES = ("keyword", "semantic", "hybrid")
_REGEX_TOKEN = re.compile(r"\w+")


@dataclass
class Task:
    """Queries, how to score one query's ranked keys, and how a hit maps to a key."""

    queries: list[str]
    filters: list[SearchFilters]
    score: Callable[[int, list[str]], float]
    key: Callable[[SearchResult], str]
    limit: int = 10  # results asked of memex (more than k when chunks map to one key)
    k: int = 10


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
        )
        ranked = dedupe([task.key(r) for r in results])[: task.k]
        scores.append(task.score(index, ranked))
    elapsed = (time.perf_counter() - started) / max(len(task.queries), 1)
    return Outcome(mean(scores), scores, elapsed)


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
