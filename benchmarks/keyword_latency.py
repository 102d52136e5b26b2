"""Benchmark 1: keyword query latency at 100,000 passages, against rank_bm25 on the same tokens.

memex: the bm25 store built through the plugin registry, reopened from disk, warmed
with a few queries, then every SciFact query (1,109) timed with ``search(query,
limit, no filters)``: tokenizing, scoring and top-k included.

Peer: ``rank_bm25.BM25Okapi`` over the same passages tokenized by the store's own
tokenizer module with the same settings; ``get_scores(query_tokens)`` timed on the
first N queries (tokenizing the query is *not* timed for the peer, which favours
it). The same queries give both p50s and the speed ratio. Top-10 lists are also
compared, since the store claims BM25Okapi-exact scores.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from benchmarks.context import RunContext, log
from benchmarks.data import load_scifact
from benchmarks.keyword_index import open_store, passage_index
from benchmarks.metrics import percentile
from benchmarks.report import Check, Section, ms, table
from memex_core.domain import SearchFilters

TARGET_P50 = 0.005
TARGET_RATIO = 40.0
WARMUP = 20


def _time_queries(search: Any, queries: list[Any]) -> list[float]:
    out = []
    for query in queries:
        started = time.perf_counter()
        search(query)
        out.append(time.perf_counter() - started)
    return out


def run(ctx: RunContext) -> Section:
    section = Section("keyword", "1. Keyword query latency")
    size = ctx.sizes.keyword_corpus
    index = passage_index(ctx)
    if isinstance(index, str):
        section.skipped = index
        return section
    queries = [
        text for _, text in sorted(load_scifact().queries.items(), key=lambda kv: int(kv[0]))
    ]

    opened = time.perf_counter()
    store = open_store(index.home)
    none = SearchFilters()
    first = time.perf_counter()
    store.search(queries[0], 10, none)
    first_query = time.perf_counter() - first
    open_seconds = first - opened
    for query in queries[:WARMUP]:
        store.search(query, 10, none)
    log(f"timing {len(queries)} keyword queries at {size:,} passages")
    top10 = _time_queries(lambda q: store.search(q, 10, none), queries)
    top50 = _time_queries(lambda q: store.search(q, 50, none), queries)

    from rank_bm25 import BM25Okapi

    from memex_bm25.tokenizer import Tokenizer  # the store's own tokenizer module

    tokenizer = Tokenizer.from_settings({})
    store_tokenizer = getattr(store, "tokenizer", None)
    same_tokens = store_tokenizer is None or store_tokenizer == tokenizer
    log("building rank_bm25.BM25Okapi on the same tokens")
    started = time.perf_counter()
    tokens = [tokenizer(f.content) for f in index.corpus]
    tokenize_seconds = time.perf_counter() - started
    started = time.perf_counter()
    peer = BM25Okapi(tokens)
    peer_build = time.perf_counter() - started
    peer_queries = queries[: ctx.sizes.keyword_peer_queries]
    query_tokens = [tokenizer(q) for q in peer_queries]
    for tokens_q in query_tokens[:2]:
        peer.get_scores(tokens_q)
    log(f"timing rank_bm25 get_scores on {len(peer_queries)} queries")
    peer_times = _time_queries(peer.get_scores, query_tokens)
    ours_same = top10[: len(peer_queries)]

    # Agreement: same top-10 ids (ties broken by insertion order in both) and scores.
    ids = [f.id for f in index.corpus]
    same_lists, max_diff = 0, 0.0
    for query, tokens_q in zip(peer_queries, query_tokens, strict=True):
        scores = peer.get_scores(tokens_q)
        order = np.argsort(-scores, kind="stable")[:10]
        expected = [(ids[i], float(scores[i])) for i in order if scores[i] != 0]
        got = [(h.id, h.score) for h in store.search(query, 10, none)]
        same_lists += [i for i, _ in expected] == [i for i, _ in got]
        for (_, a), (_, b) in zip(expected, got, strict=False):
            max_diff = max(max_diff, abs(a - b))

    p50, p95 = percentile(top10, 50), percentile(top10, 95)
    peer_p50 = percentile(peer_times, 50)
    ours_p50_same = percentile(ours_same, 50)
    ratio = peer_p50 / ours_p50_same
    section.checks += [
        Check(
            f"keyword query p50 @ {size:,} (limit 10)",
            ms(p50),
            "<= 5 ms",
            f"rank_bm25 get_scores p50 {ms(peer_p50)}",
            p50 <= TARGET_P50,
        ),
        Check(
            "keyword speed-up vs rank_bm25 (p50 / p50, same queries)",
            f"{ratio:.0f}x",
            ">= 40x",
            f"rank_bm25 {ms(peer_p50)} vs memex {ms(ours_p50_same)}",
            ratio >= TARGET_RATIO,
        ),
    ]
    section.add(
        f"Corpus: {index.description}. Queries: the {len(queries):,} SciFact queries "
        f'(claims), in id order. Store built through `load_registry().build("keyword_store", '
        f'"bm25", PluginContext(home=tmp))` with default settings (tokenizer: '
        f"{tokenizer.describe()}), flushed, then reopened from disk; {WARMUP} warm-up queries, "
        "then each query timed once, in-process, no filters.",
        table(
            ["measure", "memex bm25", "rank_bm25 BM25Okapi (peer)"],
            [
                ["p50, limit 10 (all queries)", ms(p50), "-"],
                ["p95, limit 10 (all queries)", ms(p95), "-"],
                ["p50, limit 50", ms(percentile(top50, 50)), "-"],
                ["p95, limit 50", ms(percentile(top50, 95)), "-"],
                [
                    f"p50 on the first {len(peer_queries)} queries",
                    ms(ours_p50_same),
                    f"{ms(peer_p50)} (`get_scores` only)",
                ],
                [
                    f"p95 on the first {len(peer_queries)} queries",
                    ms(percentile(ours_same, 95)),
                    ms(percentile(peer_times, 95)),
                ],
                [
                    "index build (add in batches of 2,000 + flush)",
                    f"{index.build_seconds:.1f} s",
                    f"{peer_build:.1f} s (+ {tokenize_seconds:.1f} s tokenizing)",
                ],
                ["open from disk", ms(open_seconds), "-"],
                ["first query after open (builds caches)", ms(first_query), "-"],
            ],
        ),
        f"Agreement with rank_bm25 on the {len(peer_queries)} peer queries: identical top-10 id "
        f"lists for {same_lists}/{len(peer_queries)}; largest score difference "
        f"{max_diff:.2e}. Same tokens for both: "
        f"{'yes' if same_tokens else 'NO (store tokenizer differs from default settings)'}.",
    )
    return section
