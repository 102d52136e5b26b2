"""Benchmark 10: hybrid query latency against LangChain's and LlamaIndex's hybrid retrievers.

At each size, memex and each peer run in a fresh process over the same passages
and the same MiniLM vectors (see :mod:`benchmarks.scale` and
:mod:`benchmarks.peers`). Every timing is one call, warm, in-process, query
embedding included: ``Memex.search(q, "hybrid", 10)`` against the peer's
``invoke(q)`` / ``retrieve(q)``. memex times the first N SciFact queries (in id
order); a peer times as many of the same queries as fit in its budget, and the
speed-up compares the p50s over exactly those queries.
"""

from __future__ import annotations

from benchmarks import corpus, peers, scale
from benchmarks.context import RunContext
from benchmarks.metrics import percentile
from benchmarks.report import Check, Section, ms, table

TARGET_P50 = 0.030
TARGET_RATIO = 10.0


def speedup(point: scale.Point, peer: scale.Timing) -> tuple[float, float]:
    """(ratio, memex p50) over the queries the peer timed."""
    ours = point.memex.p50_of_first(len(peer.times))
    return peer.p50 / ours, ours


def run(ctx: RunContext) -> Section:
    section = Section("hybrid", "10. Hybrid query latency against LangChain and LlamaIndex")
    reason = corpus.unavailable() or ctx.embedder_available()
    if reason:
        section.skipped = reason
        return section
    points = [scale.point(ctx, size) for size in ctx.sizes.hybrid_sizes]
    largest = points[-1]
    section.checks.append(
        Check(
            f"hybrid query p50 @ {largest.size:,} (query embedding included)",
            ms(largest.memex.p50),
            "<= 30 ms",
            _peer_p50(largest, peers.LANGCHAIN),
            largest.memex.p50 <= TARGET_P50,
        )
    )
    for point in points:
        peer = point.peers.get(peers.LANGCHAIN)
        if isinstance(peer, scale.Timing):
            ratio, ours = speedup(point, peer)
            section.checks.append(
                Check(
                    f"hybrid speed-up vs LangChain EnsembleRetriever @ {point.size:,}",
                    f"{ratio:.1f}x",
                    ">= 10x",
                    f"LangChain {ms(peer.p50)} vs memex {ms(ours)} (same {len(peer.times)} "
                    f"queries){_without_embedding(point, peer)}"
                    + ("" if ratio >= TARGET_RATIO else _ceiling(point, peer)),
                    ratio >= TARGET_RATIO,
                )
            )
        else:
            section.checks.append(
                Check(
                    f"hybrid speed-up vs LangChain EnsembleRetriever @ {point.size:,}",
                    "not measured",
                    ">= 10x",
                    f"LangChain {peer}",
                    None,
                )
            )

    rows: list[list[object]] = []
    for point in points:
        rows.append(
            [
                f"{point.size:,}",
                '**memex** `Memex.search(q, "hybrid", 10)`',
                len(point.memex.times),
                ms(point.memex.p50),
                ms(point.memex.p95),
                _ms_or_dash(point.memex.p50_without_embedding()),
                "-",
                "-",
                f"{point.build['keyword_seconds'] + point.build['vector_seconds']:.0f} s",
                f"{point.memex.peak_rss_mb:,.0f} MB",
            ]
        )
        for name in (peers.LANGCHAIN, peers.LLAMAINDEX):
            peer = point.peers.get(name)
            if not isinstance(peer, scale.Timing):
                rows.append([f"{point.size:,}", name, *["-"] * 7, str(peer)])
                continue
            ratio, _ = speedup(point, peer)
            rest = peer.p50_without_embedding()
            ours_rest = point.memex.p50_without_embedding(len(peer.times))
            rows.append(
                [
                    f"{point.size:,}",
                    name,
                    len(peer.times),
                    ms(peer.p50),
                    ms(peer.p95),
                    _ms_or_dash(rest),
                    f"{ratio:.1f}x",
                    f"{rest / ours_rest:.1f}x" if rest and ours_rest else "-",
                    f"{peer.extra['build_seconds']:.0f} s",
                    f"{peer.peak_rss_mb:,.0f} MB",
                ]
            )
    section.add(
        f"Corpus at each size: the first N of {corpus.describe(corpus.passages(largest.size))}. "
        "Every system gets the same all-MiniLM-L6-v2 vectors for the passages (embedded once, "
        "cached on disk) and embeds each query with memex's own MiniLM embedder at query time "
        "(wrapped as a LangChain `Embeddings` and a LlamaIndex `BaseEmbedding`). memex runs "
        "with its default components (bm25, chroma, rrf); each system hands its fusion 10 "
        "candidates per signal. Peers, as their documentation builds them: "
        "LangChain `EnsembleRetriever(retrievers=[BM25Retriever.from_texts(texts, k=10), "
        "Chroma(...).as_retriever(k=10)], weights=[0.5, 0.5])` (chroma persisted to a folder, "
        "as memex's is); LlamaIndex `QueryFusionRetriever([VectorStoreIndex(nodes)"
        ".as_retriever(similarity_top_k=10), BM25Retriever.from_defaults(nodes, "
        'similarity_top_k=10, stemmer english)], mode="reciprocal_rerank", num_queries=1, '
        "use_async=False)`, whose default vector store is its in-memory `SimpleVectorStore`. "
        "Each system runs in its own fresh process; after 10 warm-up queries each query is "
        f"timed once. memex times the first {ctx.sizes.hybrid_queries} SciFact queries; a "
        f"peer times the same queries in order, up to {ctx.sizes.peer_queries} or "
        f"{ctx.sizes.peer_budget:.0f} s; the speed-up is the peer's p50 over memex's p50 on "
        "exactly the queries the peer timed. Build: memex ingest (catalog, keyword index, "
        "vector store) with the cached vectors; peers: building their indexes from the texts "
        "with the cached vectors. Peak RSS: the whole process, build included for the peers. "
        "*Without embedding the query*: each query's time minus the time its MiniLM query "
        "embedding took (timed around the embedder call inside the same query): the "
        "retrieval work each system adds to the model call they share.",
        table(
            [
                "fragments",
                "system",
                "queries",
                "p50",
                "p95",
                "p50 without embedding the query",
                "memex speed-up (p50)",
                "memex speed-up without embedding the query",
                "build",
                "peak RSS",
            ],
            rows,
        ),
    )
    phase_rows = []
    for point in points:
        phases = point.memex.extra.get("phases", {})
        total = point.memex.p50_of_first(len(next(iter(phases.values()), [])) or 1)
        for name, values in phases.items():
            phase_rows.append(
                [f"{point.size:,}", name, ms(percentile(values, 50)), ms(percentile(values, 95))]
            )
        phase_rows.append([f"{point.size:,}", "whole hybrid search", ms(total), "-"])
    section.add(
        "Where memex's time goes: each step of a hybrid search timed on its own in the same "
        "process, on the first 100 queries (the search runs them in turn, then fuses the two "
        "lists and reads the 10 fragments from the catalog). Embedding the query is the same "
        "MiniLM call every system here makes.",
        table(["fragments", "step", "p50", "p95"], phase_rows),
    )
    return section


def _peer_p50(point: scale.Point, name: str) -> str:
    peer = point.peers.get(name)
    if isinstance(peer, scale.Timing):
        return f"LangChain EnsembleRetriever p50 {ms(peer.p50)}"
    return f"LangChain: {peer}"


def _ms_or_dash(seconds: float | None) -> str:
    return "-" if seconds is None else ms(seconds)


def _without_embedding(point: scale.Point, peer: scale.Timing) -> str:
    rest = peer.p50_without_embedding()
    ours = point.memex.p50_without_embedding(len(peer.times))
    if not rest or not ours:
        return ""
    return f"; without embedding the query: {rest / ours:.1f}x ({ms(rest)} vs {ms(ours)})"


def _ceiling(point: scale.Point, peer: scale.Timing) -> str:
    """The most any system sharing the query's MiniLM call could be faster than the peer."""
    embedding = point.memex.extra.get("phases", {}).get("embed the query")
    if not embedding:
        return ""
    shared = percentile(embedding, 50)
    return (
        f"; the MiniLM query embedding both share takes {ms(shared)} alone, so even a "
        f"search that cost nothing else would be only {peer.p50 / shared:.1f}x faster"
    )
