"""Retrieval metrics and latency summaries, kept free of memex imports so tests can check them."""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence


def ndcg_at_k(ranked: Sequence[str], relevance: Mapping[str, float], k: int = 10) -> float:
    """nDCG@k with linear gains, as pytrec_eval's ``ndcg_cut`` (and so BEIR) computes it.

    ``ranked`` is the retrieved ids, best first (duplicates count once, at their best
    rank); ``relevance`` maps relevant ids to their grade. A query without relevant
    documents scores 0.
    """
    ideal = sorted((g for g in relevance.values() if g > 0), reverse=True)[:k]
    if not ideal:
        return 0.0
    idcg = sum(gain / math.log2(rank + 2) for rank, gain in enumerate(ideal))
    dcg = 0.0
    for rank, doc in enumerate(dedupe(ranked)[:k]):
        gain = relevance.get(doc, 0.0)
        if gain > 0:
            dcg += gain / math.log2(rank + 2)
    return dcg / idcg


def recall_at_k(ranked: Sequence[str], relevant: Collection[str], k: int = 10) -> float:
    """Share of ``relevant`` found among the first ``k`` distinct ``ranked`` ids."""
    wanted = set(relevant)
    if not wanted:
        raise ValueError("recall is undefined without relevant items; skip the query instead")
    return len(wanted.intersection(dedupe(ranked)[:k])) / len(wanted)


def dedupe(ids: Sequence[str]) -> list[str]:
    """Ids in order with repeats dropped (a document hit through several chunks ranks once)."""
    seen: set[str] = set()
    out: list[str] = []
    for item in ids:
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) with linear interpolation (numpy's default method)."""
    if not values:
        raise ValueError("percentile of no values")
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100.0
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def mean(values: Sequence[float]) -> float:
    if not values:
        raise ValueError("mean of no values")
    return sum(values) / len(values)
