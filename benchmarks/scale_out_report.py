"""Benchmark 15's report: the checks and tables of what :mod:`benchmarks.scale_out`
measured."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from benchmarks.context import RunContext
from benchmarks.metrics import percentile
from benchmarks.report import Check, Section, ms, table
from benchmarks.scale_out_settings import (
    CLIENTS,
    QUICK_SIZES,
    REPLICA_MODES,
    REPLICAS_MAX,
    SIZES,
    SIZES_ENV,
    TARGET_INGEST,
    TARGET_P50,
    TARGET_REPLICAS,
    VECTORS_MAX_ENV,
    vectors_max,
)


@dataclass
class SizePoint:
    size: int
    vectors: str
    builds: dict[str, dict[str, Any]]  # engine -> the build worker's figures
    times: dict[str, list[float]]  # engine -> query latencies
    same: int  # queries whose ids agree on both engines
    compared: int
    mode: str
    load: str
    build_load: str

    def rate(self, engine: str) -> float:
        return self.size / self.builds[engine]["keyword_seconds"]

    def cpu_per_1000(self, engine: str) -> float:
        """Keyword-only ingest CPU seconds per 1,000 fragments: the memex process's, plus
        the server's for PostgreSQL."""
        built = self.builds[engine]
        seconds = built["keyword_cpu_seconds"] + built.get("server_cpu_seconds", 0.0)
        return seconds / self.size * 1000

    def vector_rate(self, engine: str) -> float | None:
        seconds = self.builds[engine]["vector_seconds"]
        return self.size / seconds if seconds else None


def _cpu_cell(p: SizePoint, engine: str) -> str:
    built = p.builds[engine]
    memex = built["keyword_cpu_seconds"] / p.size * 1000
    if "server_cpu_seconds" not in built:
        return f"{memex:.3f} s"
    server = built["server_cpu_seconds"] / p.size * 1000
    return f"{memex + server:.3f} s ({memex:.3f} + {server:.3f})"


# -- the report ------------------------------------------------------------------------------


def _p50(times: Sequence[float]) -> float:
    return percentile(list(times), 50)


def fill(
    section: Section,
    ctx: RunContext,
    settings: dict[str, str],
    points: list[SizePoint],
    catchup: dict[str, Any] | None,
    replicas: list[dict[str, Any]],
    replica_size: int | None,
    chosen: Sequence[int],
) -> None:
    for p in points:
        ratio = p.rate("PostgreSQL") / p.rate("SQLite")
        cpu = p.cpu_per_1000("SQLite") / p.cpu_per_1000("PostgreSQL")
        section.checks.append(
            Check(
                f"PostgreSQL keyword-only ingest vs SQLite @ {p.size:,}",
                f"{ratio:.2f}x ({p.rate('PostgreSQL'):,.0f} vs {p.rate('SQLite'):,.0f}/s, "
                f"builds interleaved); by CPU {cpu:.2f}x (SQLite's CPU per 1,000 fragments over "
                "PostgreSQL's, server included)",
                f">= {TARGET_INGEST:.1f}x",
                f"SQLite {p.rate('SQLite'):,.0f}/s",
                ratio >= TARGET_INGEST,
            )
        )
        pg, lite = _p50(p.times["PostgreSQL"]), _p50(p.times["SQLite"])
        section.checks.append(
            Check(
                f"PostgreSQL {p.mode} p50 vs SQLite @ {p.size:,}",
                f"{pg / lite:.2f}x ({ms(pg)} vs {ms(lite)})",
                f"<= {TARGET_P50:.1f}x",
                f"SQLite {ms(lite)}",
                pg / lite <= TARGET_P50,
            )
        )
    cores = os.cpu_count() or 1
    for mode in REPLICA_MODES if replicas else ():
        one, two = (_run(replicas, mode, n) for n in (1, 2))
        ratio = _rate(two) / _rate(one)
        section.checks.append(
            Check(
                f"two `memex serve` replicas vs one, {mode} @ {replica_size:,}, {CLIENTS} clients",
                f"{ratio:.2f}x ({_rate(two):.1f} vs {_rate(one):.1f}/s)",
                f">= {TARGET_REPLICAS:.1f}x where the cores allow",
                f"{cores} cores shared with the clients and other work",
                ratio >= TARGET_REPLICAS,
            )
        )
    if tuple(chosen) != (QUICK_SIZES if ctx.quick else SIZES):
        section.add(f"**Sizes run: {', '.join(f'{s:,}' for s in chosen)}** (set by {SIZES_ENV}).")
    if vectors_max(ctx) != ctx.sizes.vectors_max:
        section.add(
            f"**Vectors only up to {vectors_max(ctx):,} fragments** (set by {VECTORS_MAX_ENV}): "
            "larger homes are keyword-only."
        )
    section.add(
        f"PostgreSQL {settings['server_version']} started by this run on 127.0.0.1 "
        f"(tests/support/postgres_server.py's binaries and layout) with fsync={settings['fsync']}, "
        f"full_page_writes={settings['full_page_writes']}, "
        f"synchronous_commit={settings['synchronous_commit']}, shared_buffers="
        f"{settings['shared_buffers']} (the test server's fsync=off is not used here); SQLite "
        "homes run WAL with synchronous=NORMAL (memex's setting), so PostgreSQL is the more "
        "durable of the two here. Both homes of a size get the same passages (the first N of "
        "benchmark 13's draw), each built in a process of its own, the two builds interleaved "
        "batch by batch (`add_fragments` 10,000 at a time, keyword-only, SQLite then "
        "PostgreSQL, then the other way round, and so on), so both see the same load; each "
        "engine's ingest time is the sum over its own batches. Then the cached vectors are "
        "stored into each home's embedded chroma by `Memex.backfill`, SQLite's first (the "
        "model is left out of both rates). CPU per 1,000 fragments: the memex process's "
        "during its keyword-only batches, plus, for PostgreSQL, the server's processes over "
        "the interleaved batches (the SQLite home never uses the server); CPU time moves far "
        "less with the machine's load than a rate does. "
        f"Queries: the first {ctx.sizes.hybrid_queries} SciFact queries, in ONE process holding "
        "both homes, each query on both engines in turn (the order rotating), after 10 warm-up "
        "queries each; query embedding included in hybrid times. Homes above "
        f"{vectors_max(ctx):,} fragments are keyword-only, as in benchmark 13 "
        "(storing a million vectors in chroma would take longer than the rest of the bench).",
        table(
            [
                "fragments",
                "vectors",
                "engine",
                "keyword-only ingest (fragments/s)",
                "ingest CPU per 1,000 (memex + server)",
                "storing cached vectors (fragments/s)",
                "query mode",
                "p50",
                "p95",
                "same top-10 on both engines",
                "load (1 min) during builds / queries",
            ],
            [
                [
                    f"{p.size:,}",
                    p.vectors,
                    engine,
                    f"{p.rate(engine):,.0f}",
                    _cpu_cell(p, engine),
                    f"{v:,.0f}" if (v := p.vector_rate(engine)) else "-",
                    p.mode,
                    ms(_p50(p.times[engine])),
                    ms(percentile(p.times[engine], 95)),
                    f"{p.same}/{p.compared}",
                    f"{p.build_load} / {p.load}",
                ]
                for p in points
                for engine in ("SQLite", "PostgreSQL")
            ],
        ),
    )
    if catchup is None or replica_size is None:
        section.add(
            "Catch-up and replicas not measured: they run at the largest size with vectors "
            f"up to {min(vectors_max(ctx), REPLICAS_MAX):,}, and none was among the sizes run."
        )
        return
    _fill_replicas(section, catchup, replicas, replica_size, cores)


def _fill_replicas(
    section: Section,
    catchup: dict[str, Any],
    replicas: list[dict[str, Any]],
    replica_size: int,
    cores: int,
) -> None:
    section.add(
        f"Catch-up at {replica_size:,} fragments: a new home (empty folder, config.toml naming "
        "the populated database) opened in a fresh process; time from `Memex(home)` to its "
        "first keyword answer, which includes building its keyword index from the catalog.",
        table(
            ["", ""],
            [
                ["`Memex(home)` to the first keyword answer", f"{catchup['first_seconds']:.1f} s"],
                [
                    "the whole process (imports, 20 queries, close)",
                    f"{catchup['process_seconds']:.1f} s",
                ],
                [
                    "fragments in its keyword index / in the catalog",
                    f"{catchup['indexed']:,} / {catchup['stored']:,}",
                ],
                [
                    "same top-10 keyword ids as the writer home",
                    f"{catchup['same']}/{catchup['compared']} queries",
                ],
                ["load (1 min) before -> after", catchup["load"]],
            ],
        ),
    )
    rows = []
    for r in replicas:
        rows.append(
            [
                r["mode"],
                r["replicas"],
                len(r["latencies"]),
                ms(percentile(r["latencies"], 50)),
                ms(percentile(r["latencies"], 95)),
                f"{_rate(r):.1f} ({', '.join(f'{x:.1f}' for x in r['rates'])})",
                " / ".join(ms(percentile(t, 50)) for t in r["per_server"]),
                ms((r["server_cpu"]) / len(r["latencies"])),
                ms((r["server_cpu"] + r["client_cpu"]) / len(r["latencies"])),
                r["load"],
            ]
        )
    section.add(
        f"Replicas at {replica_size:,} fragments: `memex serve` (defaults, 127.0.0.1) on the "
        "PostgreSQL home and on the caught-up home, which got a copy of the writer's chroma "
        "folder for its vectors (a deployment would share a chroma server or pgvector: see "
        "`vector_servers`); one agent key for both (made through the first: keys live in the "
        "shared catalog). One other process runs "
        f"{CLIENTS} client threads (one `MemexClient` each, every SciFact query once, dealt "
        "round-robin, released together): with one replica all threads call it; with two, "
        "thread i calls replica i mod 2. Runs in the order one, two, two, one replicas per "
        "mode, each run sending half of the queries, so a drift in the machine's load falls "
        "on both counts. Requests/s: queries over the wall time from release "
        f"to the last answer. This machine has {cores} cores, shared by the servers, the "
        "client process, PostgreSQL and other work running at the same time; a replica is "
        "one process, so two replicas can at most use both cores where one used one.",
        table(
            [
                "mode",
                "replicas",
                "queries",
                "p50",
                "p95",
                "requests/s (each of the two runs)",
                "p50 at each replica",
                "server CPU per search",
                "servers + clients CPU per search",
                "load (1 min)",
            ],
            rows,
        ),
    )


def _run(runs: Sequence[dict[str, Any]], mode: str, replicas: int) -> dict[str, Any]:
    return next(r for r in runs if r["mode"] == mode and r["replicas"] == replicas)


def _rate(run_: dict[str, Any]) -> float:
    return len(run_["latencies"]) / run_["wall"]
