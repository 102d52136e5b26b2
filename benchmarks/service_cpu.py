"""Where the CPU of one hybrid search goes (benchmark 14), measured part by part.

Run in the in-process worker of :mod:`benchmarks.service` on the same home and queries:
each part of ``view.search(q, "hybrid", 10)`` is timed on its own over the same queries
(process CPU time, one caller), in the order the search runs them, and the whole search
after them; what the parts leave over is the search's own bookkeeping (filters, time
phrases, scope checks, building the results). The query embedding is timed alone and,
as ``memex serve`` embeds the queries of concurrent requests, four together.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

#: Queries embedded together in the batched row (memex serve with 8 clients on 2 cores
#: made batches of about 3 on average).
BATCH = 4
#: The largest batch 8 clients can make: the cheapest a query embedding gets there.
FULL_BATCH = 8
ROUNDS = 3
#: Rows that time a piece of another row again (not added to the parts' sum).
EMBED_FULL = f"query embedding, {FULL_BATCH} queries together (the most 8 clients batch)"
CHROMA_ALONE = "of which the chroma query alone (no owner check)"


Part = tuple[Callable[[str], object], Callable[[str], object] | None]


def _cpu_per_call(parts: dict[str, Part], queries: Sequence[str]) -> dict[str, float]:
    """Process CPU seconds per call of each part's work, the median of :data:`ROUNDS`
    rounds. Every query goes through every part in turn, so that a machine whose load
    drifts over the minutes weighs on all parts alike; a part's ``before`` (if any) runs
    untimed ahead of its work, as the search runs it."""
    rounds: dict[str, list[float]] = {name: [] for name in parts}
    for _ in range(ROUNDS):
        spent = dict.fromkeys(parts, 0.0)
        for query in queries:
            for name, (work, before) in parts.items():
                if before is not None:
                    before(query)
                began = time.process_time()
                work(query)
                spent[name] += time.process_time() - began
        for name, total in spent.items():
            rounds[name].append(total / len(queries))
    return {name: sorted(values)[len(values) // 2] for name, values in rounds.items()}


def hybrid_parts(mx: Any, view: Any, queries: Sequence[str], limit: int = 10) -> dict[str, float]:
    """CPU seconds per search for each part of the view's hybrid search, and the whole."""
    from memex_core.api import make_filters
    from memex_core.domain import KEYWORD, SEMANTIC
    from memex_core.services.search import DEFAULT_SEMANTIC_WEIGHT

    filters = replace(make_filters(), owners=view.owners)  # what the view searches with
    service = mx.search_service("hybrid")
    depth = max(limit, service.candidate_depth)
    embedder, keyword, catalog = mx.embedder, mx.keyword_store, mx.catalog
    vectors = {q: embedder.embed_query(q) for q in queries}
    keyword_hits = {q: keyword.search(q, depth, filters) for q in queries}
    semantic_hits = {q: service.semantic_hits(q, depth, filters, None, vectors[q]) for q in queries}
    weights = {KEYWORD: 1.0 - DEFAULT_SEMANTIC_WEIGHT, SEMANTIC: DEFAULT_SEMANTIC_WEIGHT}
    fused = {
        q: mx.ranker.fuse(
            {KEYWORD: keyword_hits[q], SEMANTIC: semantic_hits[q]}, weights, depth * 2
        )
        for q in queries
    }
    # The first query of each group of BATCH embeds the group; the others cost nothing.
    groups = {queries[i]: list(queries[i : i + BATCH]) for i in range(0, len(queries), BATCH)}
    full = {
        queries[i]: list(queries[i : i + FULL_BATCH]) for i in range(0, len(queries), FULL_BATCH)
    }

    def embed_together(query: str) -> None:
        if query in groups:
            embedder.embed_queries(groups[query])

    def embed_full(query: str) -> None:
        if query in full:
            embedder.embed_queries(full[query])

    wide = depth * 2 + 20  # what the search asks chroma for (services/search.py OVERFETCH)
    store = mx.vector_store

    parts: dict[str, Part] = {
        "query embedding, one query alone": (embedder.embed_query, None),
        f"query embedding, {BATCH} queries together (memex serve)": (embed_together, None),
        EMBED_FULL: (embed_full, None),
        f"keyword candidates (BM25, {depth})": (
            lambda q: keyword.search(q, depth, filters),
            None,
        ),
        f"semantic candidates (chroma query of {wide}, owners checked in the catalog)": (
            lambda q: service.semantic_hits(q, depth, filters, None, vectors[q]),
            None,
        ),
        CHROMA_ALONE: (lambda q: store.nearest(vectors[q], wide), None),
        # Right after its own keyword search, as in a search (it reuses that search's slots).
        "relevance floor: the keyword hits' share of the query": (
            lambda q: keyword.query_share(q, [h.id for h in keyword_hits[q]]),
            lambda q: keyword.search(q, depth, filters),
        ),
        "fusion (reciprocal rank)": (
            lambda q: mx.ranker.fuse(
                {KEYWORD: keyword_hits[q], SEMANTIC: semantic_hits[q]}, weights, depth * 2
            ),
            None,
        ),
        f"the {limit} results' fragments from the catalog": (
            lambda q: catalog.get_many([h.id for h in fused[q][:limit]]),
            None,
        ),
        "access-log line (a catalog insert)": (
            lambda q: catalog.log_access(
                actor_kind="agent",
                actor="bench-breakdown",
                user_id=view.user_id,
                action="search",
                target=q,
                detail={"mode": "hybrid", "hits": limit},
            ),
            None,
        ),
        "whole search (view.search)": (lambda q: view.search(q, "hybrid", limit), None),
    }
    return _cpu_per_call(parts, queries)


__all__ = ["BATCH", "CHROMA_ALONE", "EMBED_FULL", "hybrid_parts"]
