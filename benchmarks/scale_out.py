"""Benchmark 15: scale-out on PostgreSQL (issue 15) against SQLite, in the same run.

* Ingest and hybrid latency: at each size, the same passages (:mod:`benchmarks.corpus`, the
  draw of benchmarks 10 and 13) go into a SQLite home and into a home whose catalog is a
  PostgreSQL database, each built in a process of its own (``benchmarks.worker.Builder``:
  ``add_fragments`` 10,000 at a time, keyword-only, then the cached MiniLM vectors stored
  into the home's embedded chroma by ``Memex.backfill``). The two builds are interleaved
  batch by batch (SQLite, PostgreSQL, then PostgreSQL, SQLite...), each engine's time
  summed over its own batches, so both see the same load on a shared machine; the CPU
  time of each memex process and of the PostgreSQL server's processes is counted too (per
  1,000 fragments: a ratio the machine's load hardly moves). Up to ``Sizes.vectors_max``
  the homes have real vectors and queries are hybrid; the million home is keyword-only (as
  in benchmark 13). Queries are timed in ONE process that opens both homes and alternates
  engines query by query, so both see the same load on a shared machine.
* Catch-up (at the largest size with vectors up to ``REPLICAS_MAX``, 100,000, as replicas):
  a fresh home pointed at the populated PostgreSQL catalog, in a fresh process:
  time from ``Memex(home)`` to its first keyword answer (its keyword index replays the
  catalog), and its answers compared with the writer's.
* Replicas: ``memex serve`` on the PostgreSQL home, and on the caught-up home given a copy
  of the writer's chroma folder (the vectors; a deployment would share a chroma server or
  pgvector, which benchmark ``vector_servers`` measures). Client threads in another process
  (:func:`benchmarks.service.timed_concurrently`) send every query once to one replica,
  then spread over both.

PostgreSQL: a server of this run (tests/support/postgres_server.py's binaries and layout) started
with ``fsync=on`` and ``full_page_writes=on`` (the test server's defaults turn both off);
SQLite homes run WAL with ``synchronous=NORMAL`` (memex's setting).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks import corpus, scale, service
from benchmarks.context import RunContext, log
from benchmarks.data import REPO_ROOT
from benchmarks.metrics import percentile
from benchmarks.report import Section, ms
from benchmarks.scale_out_postgres import (
    catalog_config,
    durable_postgres,
    postgres_unavailable,
    server_cpu,
    server_settings,
)
from benchmarks.scale_out_processes import process_env, run_process
from benchmarks.scale_out_report import SizePoint, fill
from benchmarks.scale_out_settings import (
    AGENT,
    CLIENTS,
    QUICK_REPLICA_QUERIES,
    REPLICA_MODES,
    REPLICAS_MAX,
    STEP_MARK,
    TITLE,
    USER,
    sizes,
    vectors_max,
)
from benchmarks.worker import write_corpus

# -- the section ---------------------------------------------------------------------------


def run(ctx: RunContext) -> Section:
    section = Section("scale_out", TITLE)
    reason = (
        corpus.unavailable()
        or ctx.embedder_available()
        or postgres_unavailable()
        or service.unavailable()
    )
    if reason:
        section.skipped = reason
        return section
    chosen = sizes(ctx)
    root = ctx.tmp / "scale-out"
    root.mkdir(parents=True, exist_ok=True)
    with durable_postgres() as server:
        settings = server_settings(server.url())
        log(f"scale_out: PostgreSQL {settings['server_version']} on port {server.port}")
        points: list[SizePoint] = []
        catchup: dict[str, Any] | None = None
        replicas: list[dict[str, Any]] = []
        # Catch-up and replicas at the largest size with vectors up to REPLICAS_MAX (the
        # issue asks for them at 100,000; a million-fragment replica pair would double a
        # run that already takes an hour), measured before any larger size so that its
        # homes are the only ones then.
        replica_size = max(
            (s for s in chosen if s <= min(vectors_max(ctx), REPLICAS_MAX)), default=None
        )
        for size in chosen:
            url = server.create_database(f"scale_{size}")
            point, homes = measure_size(ctx, root, size, url, server)
            points.append(point)
            if size == replica_size:
                catchup = measure_catchup(ctx, root, homes, url, size)
                replicas = measure_replicas(ctx, root, homes, catchup["home"], size)
            for home in homes.values():  # a million-fragment home is gigabytes
                shutil.rmtree(home, ignore_errors=True)
    fill(section, ctx, settings, points, catchup, replicas, replica_size, chosen)
    return section


def measure_size(
    ctx: RunContext, root: Path, size: int, url: str, server: Any
) -> tuple[SizePoint, dict[str, Path]]:
    passages = corpus.passages(size)
    texts = [f.content for f in passages]
    keyword_only = size > vectors_max(ctx)
    # Not scale.vectors_for: it stops at the default Sizes.vectors_max, and this benchmark's
    # own limit (VECTORS_MAX_ENV) may reach past it.
    if not keyword_only:
        corpus.ensure_vectors(ctx, texts)
    vectors = scale.VECTORS_NONE if keyword_only else scale.VECTORS_REAL
    corpus_file = ctx.tmp / f"scale-out-corpus-{size}.jsonl"
    write_corpus(corpus_file, passages)
    del passages, texts
    homes = {"SQLite": root / f"sqlite-{size}", "PostgreSQL": root / f"postgres-{size}"}
    spec = {
        "corpus": str(corpus_file),
        "vectors": "cache" if vectors == scale.VECTORS_REAL else "none",
        "cache": str(ctx.disk_cache().folder),
        "model_warmup": ctx.sizes.model_warmup_texts,
    }
    log(f"scale_out {size:,}: building both homes batch by batch, interleaved ({vectors})")
    build_load = _load()
    builds = interleaved(ctx, homes, spec, {"PostgreSQL": url}, server)
    build_load = f"{build_load} -> {_load()}"
    for engine, built in builds.items():
        log(
            f"  {engine}: keyword ingest {built['keyword_seconds']:.1f} s "
            f"({size / built['keyword_seconds']:,.0f}/s), memex CPU "
            f"{_per_1000(built['keyword_cpu_seconds'], size)} s per 1,000, vectors "
            f"{built['vector_seconds']:.1f} s"
        )
    log(
        f"  PostgreSQL server CPU {_per_1000(builds['PostgreSQL']['server_cpu_seconds'], size)} "
        "s per 1,000 fragments"
    )
    (homes["PostgreSQL"] / "config.toml").write_text(catalog_config(url), encoding="utf-8")
    corpus_file.unlink()
    timed, warmup = scale.queries()
    mode = "hybrid" if vectors == scale.VECTORS_REAL else "keyword"
    load = _load()
    log(f"scale_out {size:,}: timing {mode} queries on both engines, alternating")
    result = run_process(
        ctx,
        "benchmarks.scale_out_processes",
        "query",
        {
            "homes": {e: str(h) for e, h in homes.items()},
            "mode": mode,
            "queries": timed[: ctx.sizes.hybrid_queries],
            "warmup": warmup,
        },
    )
    load = f"{load} -> {_load()}"
    ids = result["ids"]
    same = sum(a == b for a, b in zip(ids["SQLite"], ids["PostgreSQL"], strict=True))
    times = result["times"]
    for engine in homes:
        log(
            f"  {engine}: p50 {percentile(times[engine], 50) * 1000:.1f} ms, "
            f"p95 {percentile(times[engine], 95) * 1000:.1f} ms"
        )
    modes = result["modes"]
    point = SizePoint(
        size, vectors, builds, times, same, len(ids["SQLite"]), "/".join(modes), load, build_load
    )
    return point, homes


class StepBuild:
    """One home's build in a process of its own, driven a step at a time."""

    def __init__(self, ctx: RunContext, name: str, spec: dict[str, Any], url: str | None):
        spec_path = ctx.tmp / f"scale-out-steps-{name}-{time.monotonic_ns()}.json"
        spec_path.write_text(json.dumps(spec), encoding="utf-8")
        self.name = name
        self.log = ctx.tmp / f"{spec_path.stem}.log"
        self._log = self.log.open("w", encoding="utf-8")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "benchmarks.scale_out_processes", "build_steps", str(spec_path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,  # a file: a full pipe would stall the worker
            text=True,
            env=process_env(url),
            cwd=REPO_ROOT,
        )
        self.answer()  # ready: the model loaded and warmed up

    def ask(self, command: str) -> Any:
        assert self.process.stdin is not None
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        return self.answer()

    def answer(self) -> Any:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            if line.startswith(STEP_MARK):
                return json.loads(line[len(STEP_MARK) :])
        self.process.wait()
        raise RuntimeError(
            f"the {self.name} build stopped (exit {self.process.returncode}): "
            f"{self.log.read_text(encoding='utf-8', errors='replace')[-3000:]}"
        )

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self._log.close()


def interleaved(
    ctx: RunContext,
    homes: dict[str, Path],
    spec: dict[str, Any],
    urls: dict[str, str],
    server: Any,
) -> dict[str, dict[str, Any]]:
    """Both builds, batch by batch in turn (the order flipping every batch: A B, B A...),
    then each home's vectors (SQLite's first). Each build's figures as
    ``benchmarks.worker.build`` gives them, PostgreSQL's with the server's CPU seconds
    during the keyword batches (``server_cpu_seconds``: the SQLite home never uses it)."""
    builds = {
        engine: StepBuild(ctx, engine, {**spec, "home": str(home)}, urls.get(engine))
        for engine, home in homes.items()
    }
    try:
        names = list(builds)
        server_before = server_cpu(server)
        number, done = 0, set[str]()
        while len(done) < len(names):
            order = names if number % 2 == 0 else names[::-1]
            for engine in order:
                if engine not in done and builds[engine].ask("batch") is None:
                    done.add(engine)
            number += 1
        server_seconds = server_cpu(server) - server_before
        for build in builds.values():
            build.ask("vectors")
        figures = {engine: build.ask("finish") for engine, build in builds.items()}
    finally:
        for build in builds.values():
            build.close()
    figures["PostgreSQL"]["server_cpu_seconds"] = server_seconds
    return figures


def _per_1000(seconds: float, fragments: int) -> str:
    return f"{seconds / fragments * 1000:.3f}"


def _load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def measure_catchup(
    ctx: RunContext, root: Path, homes: dict[str, Path], url: str, size: int
) -> dict[str, Any]:
    """A fresh home on the populated database: Memex() to the first keyword answer."""
    home = root / f"replica-{size}"
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(catalog_config(url), encoding="utf-8")
    timed, _warmup = scale.queries()
    queries = timed[:20]
    log(f"scale_out {size:,}: a fresh replica home catching up")
    load = _load()
    result = run_process(
        ctx, "benchmarks.scale_out_processes", "catchup", {"home": str(home), "queries": queries}
    )
    writer = run_process(
        ctx,
        "benchmarks.scale_out_processes",
        "keyword_ids",
        {"home": str(homes["PostgreSQL"]), "queries": queries},
    )
    result["same"] = sum(a == b for a, b in zip(result["ids"], writer["ids"], strict=True))
    result["compared"] = len(queries)
    result["home"] = home
    result["load"] = f"{load} -> {_load()}"
    log(
        f"  caught up and answered in {result['first_seconds']:.1f} s "
        f"(process {result['process_seconds']:.1f} s), {result['indexed']:,} indexed"
    )
    return result


def measure_replicas(
    ctx: RunContext, root: Path, homes: dict[str, Path], replica: Path, size: int
) -> list[dict[str, Any]]:
    """memex serve on the writer home and on the caught-up home (with a copy of the vectors)."""
    from memex_client import MemexClient
    from memex_server.launch import served

    chroma = homes["PostgreSQL"] / "index" / "chroma"
    if chroma.exists():
        shutil.copytree(chroma, replica / "index" / "chroma", dirs_exist_ok=True)
    timed, warmup = scale.queries()
    queries = timed if not ctx.quick else timed[:QUICK_REPLICA_QUERIES]
    log(f"scale_out {size:,}: one and two `memex serve` replicas, {CLIENTS} client threads")
    env = process_env()
    with (
        served(homes["PostgreSQL"], log=root / "serve-a.log", environ=env,
               startup_timeout=service.STARTUP_TIMEOUT, stop_timeout=30.0) as first,
        served(replica, log=root / "serve-b.log", environ=env,
               startup_timeout=service.STARTUP_TIMEOUT, stop_timeout=30.0) as second,
    ):  # fmt: skip
        # Keys live in the shared catalog: one made through the first replica serves both.
        with MemexClient(first.url, admin_secret=first.admin_secret) as operator:
            key = operator.create_key(user=USER, name=AGENT)["key"]
        servers = [
            {"url": server.url, "key": key, "pid": server.process.pid} for server in (first, second)
        ]
        load = _load()
        result = run_process(
            ctx,
            "benchmarks.scale_out_processes",
            "clients",
            {
                "servers": servers,
                "modes": list(REPLICA_MODES),
                "replicas": [1, 2, 2, 1],  # ABBA: drift of a shared machine hits both
                "clients": CLIENTS,
                "queries": queries,
                "warmup": warmup,
            },
        )
    for r in result["runs"]:
        log(
            f"  {r['mode']}, {r['replicas']} replica(s), {len(r['latencies'])} queries: "
            f"{len(r['latencies']) / r['wall']:.1f} requests/s, p50 per replica "
            + ", ".join(ms(percentile(t, 50)) for t in r["per_server"] if t)
        )
    load = f"{load} -> {_load()}"
    return [
        merge([r for r in result["runs"] if r["mode"] == mode and r["replicas"] == count], load)
        for mode in REPLICA_MODES
        for count in (1, 2)
    ]


def merge(runs: Sequence[dict[str, Any]], load: str) -> dict[str, Any]:
    """The runs of one mode and replica count as one: every query once, the walls added."""
    first = runs[0]
    return {
        "mode": first["mode"],
        "replicas": first["replicas"],
        "latencies": [t for r in runs for t in r["latencies"]],
        "per_server": [
            [t for r in runs for t in r["per_server"][n]] for n in range(first["replicas"])
        ],
        "wall": sum(r["wall"] for r in runs),
        "server_cpu": sum(r["server_cpu"] for r in runs),
        "client_cpu": sum(r["client_cpu"] for r in runs),
        "rates": [len(r["latencies"]) / r["wall"] for r in runs],
        "load": load,
    }
