"""Benchmark 13: how the costs grow with the corpus, from 1,000 to 1,000,000 fragments.

The same figures as the hybrid, ingest, cold and memory benchmarks, at each size
of :attr:`Sizes.growth_sizes` (sizes those benchmarks measured are reused, not
measured again). Up to 100,000 fragments every passage has its real MiniLM
vector; the million-passage home (the ~130,000 distinct windows repeated under new
ids) is keyword-only, because storing a million vectors in chroma would take longer
than the rest of the bench (the table says so). The peers are not run above
100,000. Charts go to ``docs/img/benchmarks/`` next to the report.
"""

from __future__ import annotations

import statistics
from pathlib import Path

from benchmarks import charts, cold_start, corpus, peers, scale
from benchmarks.charts import Series
from benchmarks.context import RunContext, log
from benchmarks.report import Section, ms, table

CHART_FOLDER = Path("img") / "benchmarks"


def run(ctx: RunContext) -> Section:
    section = Section("growth", "13. Growth from 1,000 to 1,000,000 fragments")
    reason = corpus.unavailable() or ctx.embedder_available()
    if reason:
        section.skipped = reason
        return section
    points = []
    colds = []
    for size in ctx.sizes.growth_sizes:
        points.append(scale.point(ctx, size))
        colds.append(cold_start.measure(ctx, size, runs=min(3, ctx.sizes.cold_runs)))
        log(f"growth: {size:,} done")

    rows: list[list[object]] = []
    for p, cold in zip(points, colds, strict=True):
        lang = p.peers.get(peers.LANGCHAIN)
        llama = p.peers.get(peers.LLAMAINDEX)
        rows.append(
            [
                f"{p.size:,}",
                p.vectors,
                ms(p.memex.p50) + ("" if p.vectors == scale.VECTORS_REAL else " (keyword)"),
                ms(p.memex.p95),
                ms(lang.p50) if isinstance(lang, scale.Timing) else "not run",
                ms(llama.p50) if isinstance(llama, scale.Timing) else "not run",
                f"{p.keyword_rate:,.0f}",
                f"{p.vector_rate:,.0f}" if p.vector_rate else "-",
                f"{statistics.median(cold.dig):.2f} s"
                + ("" if cold.command == "dig" else " (`memex keyword`)"),
                f"{p.build['peak_rss_mb']:,.0f} MB",
                f"{p.memex.peak_rss_mb:,.0f} MB",
                f"{statistics.median(cold.dig_rss_mb):,.0f} MB",
            ]
        )
    section.add(
        "Each row: a memex home of the first N passages of one draw (the million repeats the "
        "~130,000 distinct passage windows under new ids), built in a fresh process "
        "(`add_fragments` 10,000 at a time, keyword-only, then the vectors stored through "
        "`Memex.backfill` from the cache), then hybrid queries timed warm in another fresh "
        f"process (first {ctx.sizes.hybrid_queries} SciFact queries, query embedding "
        "included), then cold `memex dig` processes (median of "
        f"{min(3, ctx.sizes.cold_runs)} or more). Peers as in benchmark 10, not run above "
        f"{scale.PEER_MAX_SIZE:,}. Ingest rates leave the model out (see benchmark 11 for "
        "ingest with MiniLM running): *keyword-only* is the catalog and keyword index, "
        "*vectors* is storing precomputed vectors in chroma.",
        table(
            [
                "fragments",
                "vectors",
                "memex hybrid p50",
                "memex hybrid p95",
                "LangChain p50",
                "LlamaIndex p50",
                "keyword-only ingest (fragments/s)",
                "storing vectors (fragments/s)",
                "cold `dig` (median)",
                "peak RSS, ingest",
                "peak RSS, warm queries",
                "peak RSS, cold `dig`",
            ],
            rows,
        ),
    )
    if ctx.charts is None:
        return section
    missing = charts.unavailable()
    if missing:
        section.add(f"Charts not drawn: {missing}.")
        return section
    section.add(*_charts(ctx.charts, points, colds))
    return section


def _charts(folder: Path, points: list[scale.Point], colds: list[cold_start.Cold]) -> list[str]:
    sizes = [p.size for p in points]

    def peer_series(name: str, label: str) -> Series:
        pairs = [
            (p.size, t.p50 * 1000)
            for p in points
            if isinstance(t := p.peers.get(name), scale.Timing)
        ]
        return Series(label, [x for x, _ in pairs], [y for _, y in pairs])

    made = [
        charts.line_chart(
            folder / "growth-hybrid-latency.png",
            "Hybrid query latency (p50, warm, query embedding included)",
            "milliseconds",
            [
                Series("memex p50", sizes, [p.memex.p50 * 1000 for p in points]),
                Series("memex p95", sizes, [p.memex.p95 * 1000 for p in points]),
                peer_series(peers.LANGCHAIN, "LangChain EnsembleRetriever p50"),
                peer_series(peers.LLAMAINDEX, "LlamaIndex QueryFusionRetriever p50"),
            ],
        ),
        charts.line_chart(
            folder / "growth-ingest.png",
            "Ingest throughput, the model left out",
            "fragments per second",
            [
                Series("keyword-only ingest", sizes, [p.keyword_rate for p in points]),
                Series(
                    "storing precomputed vectors",
                    [p.size for p in points if p.vector_rate],
                    [p.vector_rate for p in points if p.vector_rate],
                ),
            ],
        ),
        charts.line_chart(
            folder / "growth-cold-dig.png",
            "Cold command wall time (fresh process; the million is keyword-only)",
            "seconds",
            [
                Series(
                    "memex dig, hybrid (median)",
                    [c.size for c in colds if c.command == "dig"],
                    [statistics.median(c.dig) for c in colds if c.command == "dig"],
                ),
                Series(
                    "memex keyword (median)",
                    [c.size for c in colds],
                    [statistics.median(c.keyword) for c in colds],
                ),
            ],
            log_y=False,
        ),
        charts.line_chart(
            folder / "growth-peak-rss.png",
            "Peak resident memory of one process",
            "MB",
            [
                Series("ingest", sizes, [p.build["peak_rss_mb"] for p in points]),
                Series("warm query process", sizes, [p.memex.peak_rss_mb for p in points]),
                Series("cold memex dig", sizes, [statistics.median(c.dig_rss_mb) for c in colds]),
            ],
        ),
    ]
    return [f"![{path.stem}]({(CHART_FOLDER / path.name).as_posix()})" for path in made]
