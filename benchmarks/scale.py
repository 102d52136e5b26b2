"""Speed at a corpus size: one memex home and the peers, each measured in its own process.

:func:`point` builds (once per run and size) a memex home of the first ``size``
passages with their cached MiniLM vectors, then times hybrid queries in a fresh
worker process for memex and for each peer (:mod:`benchmarks.worker`). The
hybrid-latency, memory and growth sections all read the same points, so each
size is built and measured once per run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks import corpus, peers
from benchmarks.context import RunContext, log
from benchmarks.data import REPO_ROOT, load_scifact
from benchmarks.metrics import percentile
from benchmarks.worker import write_corpus

#: Peer processes stop timing after this many seconds (at least 10 queries each).
PEER_BUDGET = 40.0
PEER_QUERIES = 100
WARMUP = 10
PEER_NAMES = {peers.LANGCHAIN: "langchain", peers.LLAMAINDEX: "llamaindex"}
#: Above this size the peers are not built (LangChain's BM25 alone would take seconds a
#: query and LlamaIndex's in-memory vectors tens of GB): the growth section says so.
PEER_MAX_SIZE = 100_000

VECTORS_REAL = "MiniLM"
VECTORS_NONE = "none: keyword only"


@dataclass
class Timing:
    times: list[float]
    peak_rss_mb: float
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def p50(self) -> float:
        return percentile(self.times, 50)

    @property
    def p95(self) -> float:
        return percentile(self.times, 95)

    def p50_of_first(self, count: int) -> float:
        return percentile(self.times[:count], 50)

    def p50_without_embedding(self, count: int | None = None) -> float | None:
        """p50 of each query's time minus the time spent embedding it (None if not timed)."""
        embeds = self.extra.get("embed_times")
        if not embeds:
            return None
        rest = [t - e for t, e in zip(self.times, embeds, strict=True)]
        return percentile(rest[:count] if count else rest, 50)


@dataclass
class Point:
    size: int
    home: Path
    vectors: str
    description: str
    build: dict[str, Any]
    memex: Timing
    peers: dict[str, Timing | str] = field(default_factory=dict)  # result or why not run

    @property
    def keyword_rate(self) -> float:
        return self.size / self.build["keyword_seconds"]

    @property
    def vector_rate(self) -> float | None:
        seconds = self.build["vector_seconds"]
        return self.size / seconds if seconds else None


_POINTS: dict[tuple[Path, int], Point] = {}


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("MEMEX_HOME", None)
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    path = env.get("PYTHONPATH")
    env["PYTHONPATH"] = str(REPO_ROOT) + (os.pathsep + path if path else "")
    return env


def run_worker(ctx: RunContext, command: str, spec: dict[str, Any]) -> dict[str, Any]:
    spec_path = ctx.tmp / f"spec-{command}-{time.monotonic_ns()}.json"
    spec_path.write_text(json.dumps(spec), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.worker", command, str(spec_path)],
        capture_output=True,
        text=True,
        env=_env(),
        cwd=REPO_ROOT,
    )
    if done.returncode != 0:
        raise RuntimeError(f"benchmark worker {command!r} failed: {done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def queries() -> tuple[list[str], list[str]]:
    """(timed, warm-up): SciFact queries in id order; warm-up uses the last ten."""
    ordered = [
        text for _, text in sorted(load_scifact().queries.items(), key=lambda kv: int(kv[0]))
    ]
    return ordered[:-WARMUP], ordered[-WARMUP:]


def vectors_for(ctx: RunContext, size: int, texts: list[str]) -> str:
    """Which vectors the home at ``size`` gets; real ones are embedded into the cache first.

    Above ``Sizes.vectors_max`` the home is keyword-only: storing a million vectors in
    chroma (about 1 ms each on this machine, growing with the index) would take longer
    than the whole rest of the bench, random vectors or not.
    """
    if size <= ctx.sizes.vectors_max:
        corpus.ensure_vectors(ctx, texts)
        return VECTORS_REAL
    return VECTORS_NONE


def point(ctx: RunContext, size: int, *, with_peers: bool = True) -> Point:
    key = (ctx.tmp, size)
    found = _POINTS.get(key)
    if found is not None and (found.peers or not with_peers or size > PEER_MAX_SIZE):
        return found
    passages = corpus.passages(size)
    texts = [f.content for f in passages]
    corpus_file = ctx.tmp / f"corpus-{size}.jsonl"
    if found is None:
        vectors = vectors_for(ctx, size, texts)
        write_corpus(corpus_file, passages)
        cache_folder = str(ctx.disk_cache().folder)
        home = ctx.tmp / f"scale-{size}"
        source = "cache" if vectors == VECTORS_REAL else "none"
        log(f"scale {size:,}: building the memex home ({vectors})")
        built = run_worker(
            ctx,
            "build",
            {
                "home": str(home),
                "corpus": str(corpus_file),
                "vectors": source,
                "cache": cache_folder,
                "model_warmup": ctx.sizes.model_warmup_texts,
            },
        )
        log(
            f"  keyword ingest {built['keyword_seconds']:.1f} s, vectors "
            f"{built['vector_seconds']:.1f} s, peak RSS {built['peak_rss_mb']:.0f} MB"
        )
        timed, warmup = queries()
        log(f"scale {size:,}: timing memex queries")
        result = run_worker(
            ctx,
            "memex",
            {
                "home": str(home),
                "queries": timed[: ctx.sizes.hybrid_queries],
                "warmup": warmup,
                "mode": "hybrid" if vectors == VECTORS_REAL else "keyword",
            },
        )
        memex = Timing(result.pop("times"), result.pop("peak_rss_mb"), result)
        log(f"  memex p50 {memex.p50 * 1000:.1f} ms, p95 {memex.p95 * 1000:.1f} ms")
        found = Point(size, home, vectors, corpus.describe(passages), built, memex)
        _POINTS[key] = found
    if with_peers and not found.peers:
        found.peers = measure_peers(ctx, size, corpus_file, found.vectors)
    return found


def measure_peers(
    ctx: RunContext, size: int, corpus_file: Path, vectors: str
) -> dict[str, Timing | str]:
    out: dict[str, Timing | str] = {}
    timed, warmup = queries()
    cache_folder = str(ctx.disk_cache().folder)
    for name, command in PEER_NAMES.items():
        reason = peers.unavailable(name)
        if reason is None and size > PEER_MAX_SIZE:
            reason = f"not run above {PEER_MAX_SIZE:,} fragments (too slow and too large)"
        if reason is None and vectors != VECTORS_REAL:
            reason = "not run without real vectors"
        if reason is not None:
            out[name] = reason
            continue
        log(f"scale {size:,}: building and timing {name}")
        result = run_worker(
            ctx,
            command,
            {
                "corpus": str(corpus_file),
                "cache": cache_folder,
                "folder": str(ctx.tmp / f"{command}-{size}"),
                "queries": timed[: ctx.sizes.peer_queries],
                "warmup": warmup[: 3 if size >= 100_000 else WARMUP],
                "budget": ctx.sizes.peer_budget,
            },
        )
        timing = Timing(result.pop("times"), result.pop("peak_rss_mb"), result)
        log(
            f"  {command}: p50 {timing.p50 * 1000:.0f} ms over {len(timing.times)} queries, "
            f"built in {result['build_seconds']:.0f} s"
        )
        out[name] = timing
    return out
