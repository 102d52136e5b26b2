"""Retrieval-quality plumbing shared by SciFact and LoCoMo: running queries through a Memex,
the reference-method peers, and the sweep over the knobs memex exposes."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from benchmarks.context import RunContext, log, write_config
from benchmarks.metrics import dedupe, mean
from benchmarks.report import table
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


def evaluate_modes(mx: Memex, task: Task) -> dict[str, Outcome]:
    out = {}
    for mode in MODES:
        log(f"  {mode}: {len(task.queries)} queries")
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


# -- sweeps over the knobs memex exposes ---------------------------------------------------

TOKENIZERS = {
    "stemmer english, stopwords english (default)": "",
    "no stemmer, stopwords english": "[keyword.bm25]\nstemmer = false\n",
    "stemmer english, no stopwords": "[keyword.bm25]\nstopwords = false\n",
    "no stemmer, no stopwords": "[keyword.bm25]\nstemmer = false\nstopwords = false\n",
}
WEIGHTS = (0.3, 0.4, 0.5, 0.6, 0.7)
DEPTHS = (20, 50, 100, 200)
RRF_KS = (20, 60, 120)


def _reopen(ctx: RunContext, mx: Memex, home: Path, config: str) -> Memex:
    mx.close()
    write_config(home, config)
    return ctx.memex(home)


def sweep(
    ctx: RunContext, mx: Memex, home: Path, task: Task, metric: str, defaults: dict[str, Outcome]
) -> tuple[Memex, list[str]]:
    """One knob at a time around the defaults, then the best weight with the best depth.

    Returns the reopened Memex (default config restored) and markdown blocks.
    """
    fmt = "{:.3f}".format
    log("  sweep: semantic_weight")
    weight_rows, best_weight = [], (defaults["hybrid"].mean, 0.5)
    for weight in WEIGHTS:
        value = (
            defaults["hybrid"].mean if weight == 0.5 else evaluate(mx, task, "hybrid", weight).mean
        )
        best_weight = max(best_weight, (value, weight))
        weight_rows.append([weight, fmt(value)])
    log("  sweep: candidate_depth")
    depth_rows, best_depth = [], (defaults["hybrid"].mean, 50)
    for depth in DEPTHS:
        if depth == 50:
            value = defaults["hybrid"].mean
        else:
            mx = _reopen(ctx, mx, home, f"[search]\ncandidate_depth = {depth}\n")
            value = evaluate(mx, task, "hybrid").mean
        best_depth = max(best_depth, (value, depth))
        depth_rows.append([depth, fmt(value)])
    log("  sweep: rrf k")
    k_rows = []
    for k in RRF_KS:
        if k == 60:
            value = defaults["hybrid"].mean
        else:
            mx = _reopen(ctx, mx, home, f"[ranker.rrf]\nk = {k}\n")
            value = evaluate(mx, task, "hybrid").mean
        k_rows.append([k, fmt(value)])
    combined = f"[search]\ncandidate_depth = {best_depth[1]}\nsemantic_weight = {best_weight[1]}\n"
    mx = _reopen(ctx, mx, home, combined)
    combined_value = evaluate(mx, task, "hybrid").mean
    log("  sweep: tokenizer (keyword index rebuilt for each)")
    token_rows = []
    for label, config in TOKENIZERS.items():
        if not config:
            token_rows.append([label, fmt(defaults["keyword"].mean), fmt(defaults["hybrid"].mean)])
            continue
        mx = _reopen(ctx, mx, home, config)
        mx.rebuild(keyword=True)
        token_rows.append(
            [label, fmt(evaluate(mx, task, "keyword").mean), fmt(evaluate(mx, task, "hybrid").mean)]
        )
    mx = _reopen(ctx, mx, home, "")
    mx.rebuild(keyword=True)
    blocks = [
        f"Sweep (hybrid {metric} unless stated; one knob at a time, the others at their "
        "defaults: semantic_weight 0.5, candidate_depth 50, rrf k 60, stemmer and stopwords "
        "english):",
        table(["semantic_weight", metric], weight_rows),
        table(["[search] candidate_depth", metric], depth_rows),
        table(["[ranker.rrf] k", metric], k_rows),
        table(["[keyword.bm25] tokenizer", f"keyword {metric}", f"hybrid {metric}"], token_rows),
        f"Best weight with best depth together (semantic_weight {best_weight[1]}, "
        f"candidate_depth {best_depth[1]}): hybrid {metric} {fmt(combined_value)}.",
    ]
    return mx, blocks
