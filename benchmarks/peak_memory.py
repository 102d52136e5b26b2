"""Benchmark 12: peak resident memory of an ingest process and of query processes at 100,000.

Every figure is one process's high-water mark of resident memory (``ru_maxrss``,
the kernel's VmHWM): the whole process (Python, imports, the model, caches), not
a difference. The processes are those of the hybrid and cold benchmarks:

* ingest: the fresh process that built the home (the MiniLM model loaded and run on
  one batch of 256, then the passages ingested 10,000 per ``add_fragments`` call, then
  their vectors stored; the vectors come from the cache, read row by row);
* a warm query process: opened the home and ran the timed hybrid queries;
* a cold ``memex dig`` process (median of the cold benchmark's runs);
* the peers' processes, for reference (built in-process from the same texts and vectors).
"""

from __future__ import annotations

import statistics

from benchmarks import cold_start, corpus, peers, scale
from benchmarks.context import RunContext
from benchmarks.report import Check, Section, table

TARGET_MB = 1536.0


def run(ctx: RunContext) -> Section:
    section = Section("memory", "12. Peak memory (RSS) at 100,000 fragments")
    reason = corpus.unavailable() or ctx.embedder_available()
    if reason:
        section.skipped = reason
        return section
    size = ctx.sizes.memory_size
    point = scale.point(ctx, size)
    cold = cold_start.measure(ctx, size)
    ingest = point.build["peak_rss_mb"]
    query = point.memex.peak_rss_mb
    dig = statistics.median(cold.dig_rss_mb)
    section.checks += [
        Check(
            f"peak RSS of ingest @ {size:,}",
            f"{ingest:,.0f} MB",
            "<= 1.5 GB",
            _peer(point, peers.LANGCHAIN),
            ingest <= TARGET_MB,
        ),
        Check(
            f"peak RSS of a query process @ {size:,} (warm, {len(point.memex.times)} queries)",
            f"{query:,.0f} MB",
            "<= 1.5 GB",
            f"cold `memex dig`: {dig:,.0f} MB",
            query <= TARGET_MB,
        ),
    ]
    rows: list[list[object]] = [
        [
            "memex ingest (`add_fragments` 10,000 at a time, then the vectors)",
            f"{ingest:,.0f} MB",
            f"{point.build['keyword_peak_rss_mb']:,.0f} MB after the keyword-only part",
        ],
        [
            "memex warm query process (`Memex.search` hybrid, in-process)",
            f"{query:,.0f} MB",
            f"{len(point.memex.times)} queries",
        ],
        ["memex cold `memex dig` process", f"{dig:,.0f} MB", f"median of {len(cold.dig)}"],
    ]
    for name in (peers.LANGCHAIN, peers.LLAMAINDEX):
        peer = point.peers.get(name)
        if isinstance(peer, scale.Timing):
            rows.append([f"{name}: build + queries", f"{peer.peak_rss_mb:,.0f} MB", "-"])
        else:
            rows.append([name, "-", str(peer)])
    section.add(
        f"Home: {point.description}, vectors: {point.vectors}. Each figure is the peak "
        "resident memory of one whole fresh process (`ru_maxrss`).",
        table(["process", "peak RSS", "note"], rows),
    )
    return section


def _peer(point: scale.Point, name: str) -> str:
    peer = point.peers.get(name)
    if isinstance(peer, scale.Timing):
        return f"LangChain process (build + queries) {peer.peak_rss_mb:,.0f} MB"
    return f"LangChain: {peer}"
