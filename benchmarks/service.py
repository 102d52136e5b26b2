"""Benchmark 14: search through ``memex serve`` against the same searches in-process.

A real ``memex serve`` subprocess (uvicorn, its defaults, 127.0.0.1) serves the home of
the hybrid-latency benchmark (:mod:`benchmarks.scale`); an agent key for one user is
made through the operator API. Clients run in their own process
(``python -m benchmarks.service clients SPEC``), one thread and one
:class:`~memex_client.MemexClient` per concurrent client, each timing
``client.view().search(q, mode, 10)`` (request, JSON and the dataclasses rebuilt) on
distinct SciFact queries dealt round-robin, all starting together. The in-process
figures come from a fresh process (``... inprocess SPEC``) running
``Memex(home).view(user, name=...).search(q, mode, 10)``: exactly what the server runs
for that key, one caller at a time, and with N threads through
:func:`memex_core.threads.call` (what an application sharing one ``Memex`` does).

The results are checked against in-process ones: the same fragment ids in the same
order for every query the clients sent.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks import corpus, scale
from benchmarks.context import RunContext, log
from benchmarks.data import REPO_ROOT
from benchmarks.metrics import percentile
from benchmarks.report import Check, Section, ms, table
from benchmarks.service_cpu import CHROMA_ALONE, EMBED_FULL
from memex_server.launch import RunningServer, served

TITLE = "14. Search over HTTP (`memex serve`) against in-process"
CLIENTS = (1, 8, 32)
MODES = ("hybrid", "keyword")
#: Target: hybrid p50 over HTTP within this of in-process, one client.
TARGET_GAP = 0.005
#: Target: hybrid searches per second with 8 concurrent clients.
TARGET_RATE = 100.0
TARGET_CLIENTS = 8
USER = "bench-user"
AGENT = "bench-client"
#: Users with memory of their own in the home besides USER: a shared service's home has
#: them, and they make every agent search filter by owner (see memex_chroma's over-fetch).
OTHER_USERS = ("bench-other-1", "bench-other-2", "bench-other-3")
WARMUP_PER_CLIENT = 2
#: Queries timed with one client (in-process and over HTTP); with N clients every
#: SciFact query is sent once (about 1,100), at least SOLO_QUERIES.
SOLO_QUERIES = 300
#: Queries each part of a hybrid search is timed on (benchmarks/service_cpu.py).
BREAKDOWN_QUERIES = 120
STARTUP_TIMEOUT = 120.0


def unavailable() -> str | None:
    for module in ("fastapi", "uvicorn", "httpx"):
        try:
            __import__(module)
        except ImportError:
            return f"{module} is not installed (pip install 'memex[server]')"
    return None


# -- the server ----------------------------------------------------------------------------


@contextmanager
def running_server(home: Path, log_file: Path) -> Iterator[RunningServer]:
    """``memex --home HOME serve --port 0`` until the block ends (its output in log_file)."""
    with served(
        home,
        log=log_file,
        environ=scale._env(),
        startup_timeout=STARTUP_TIMEOUT,
        stop_timeout=30.0,
    ) as server:
        yield server


def run_script(ctx: RunContext, command: str, spec: dict[str, Any]) -> dict[str, Any]:
    """``python -m benchmarks.service_processes COMMAND SPEC`` in a fresh process; its last
    JSON line."""
    spec_path = ctx.tmp / f"service-{command}-{time.monotonic_ns()}.json"
    spec_path.write_text(json.dumps(spec), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.service_processes", command, str(spec_path)],
        capture_output=True,
        text=True,
        env=scale._env(),
        cwd=REPO_ROOT,
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"benchmarks.service_processes {command!r} failed: {done.stderr[-3000:]}"
        )
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


# -- one measured run ----------------------------------------------------------------------


@dataclass
class Run:
    """N callers sending distinct queries at once: each call's latency, the wall time."""

    where: str  # "http" or "in-process"
    mode: str
    clients: int
    latencies: list[float]
    wall: float
    ids: dict[str, list[str]]  # query -> result ids, in order
    server_cpu: float | None = None  # CPU seconds the server process spent on the run
    client_cpu: float | None = None  # ... and the process making the calls

    def cpu_per_call(self) -> float | None:
        """CPU seconds per answered call, server and caller together (None: not measured)."""
        if self.client_cpu is None:
            return None
        return (self.client_cpu + (self.server_cpu or 0.0)) / len(self.latencies)

    @property
    def rate(self) -> float:
        return len(self.latencies) / self.wall

    def p(self, q: float) -> float:
        return percentile(self.latencies, q)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Run:
        return cls(**data)


def process_cpu(pid: int) -> float:
    """CPU seconds (user and system) process ``pid`` has used so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def deal(queries: Sequence[str], callers: int) -> list[list[str]]:
    """Queries dealt round-robin, one list per caller."""
    return [list(queries[i::callers]) for i in range(callers)]


def timed_concurrently(
    callers: Sequence[Callable[[str], list[str]]], queries: Sequence[str]
) -> tuple[list[float], float, dict[str, list[str]]]:
    """Each caller on its own thread runs its share of ``queries``, all released together.
    Returns every call's latency, the wall time from release to the last answer, and the
    ids each query found."""
    shares = deal(queries, len(callers))
    latencies: list[list[float]] = [[] for _ in callers]
    found: list[dict[str, list[str]]] = [{} for _ in callers]
    failures: list[BaseException] = []
    start = threading.Barrier(len(callers) + 1)

    def work(number: int) -> None:
        call, mine = callers[number], shares[number]
        start.wait()
        try:
            for query in mine:
                began = time.perf_counter()
                ids = call(query)
                latencies[number].append(time.perf_counter() - began)
                found[number][query] = ids
        except BaseException as exc:  # reported after the join
            failures.append(exc)

    threads = [threading.Thread(target=work, args=(n,), daemon=True) for n in range(len(callers))]
    for thread in threads:
        thread.start()
    start.wait()
    began = time.perf_counter()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - began
    if failures:
        raise failures[0]
    merged: dict[str, list[str]] = {}
    for part in found:
        merged.update(part)
    return [t for part in latencies for t in part], wall, merged


# -- the section ---------------------------------------------------------------------------


#: Sizes tried below the largest hybrid-benchmark size when its vectors are not all cached
#: yet (filling the cache for 100,000 passages takes the better part of an hour).
FALLBACK_SIZES = (50_000, 20_000)


def cached_size(ctx: RunContext) -> int:
    """The largest size (the hybrid benchmark's, then :data:`FALLBACK_SIZES`) whose passages
    all have cached vectors; the smallest hybrid size, embedded now, when none has."""
    largest = max(ctx.sizes.hybrid_sizes)
    sizes = sorted(
        {*ctx.sizes.hybrid_sizes, *(s for s in FALLBACK_SIZES if s < largest)}, reverse=True
    )
    cache = ctx.disk_cache()
    passages = corpus.passages(largest)
    for size in sizes:
        if not cache.missing(f.content for f in passages[:size]):
            return size
    return min(ctx.sizes.hybrid_sizes)


def run(ctx: RunContext) -> Section:
    section = Section("service", TITLE)
    reason = corpus.unavailable() or ctx.embedder_available() or unavailable()
    if reason:
        section.skipped = reason
        return section
    size = cached_size(ctx)
    if size != max(ctx.sizes.hybrid_sizes):
        log(
            f"service: vectors cached only up to {size:,} passages: measuring there, not at "
            f"{max(ctx.sizes.hybrid_sizes):,}"
        )
    point = scale.point(ctx, size, with_peers=False)
    timed, warmup = scale.queries()
    solo = min(SOLO_QUERIES, ctx.sizes.hybrid_queries * 10, len(timed))
    queries = timed if not ctx.quick else timed[: max(solo, 64)]
    spec: dict[str, Any] = {
        "home": str(point.home),
        "modes": list(MODES),
        "clients": list(CLIENTS),
        "queries": queries,
        "solo_queries": solo,
        "warmup": warmup,
        "overhead_calls": 200 if not ctx.quick else 20,
        "breakdown_queries": BREAKDOWN_QUERIES if not ctx.quick else 20,
    }
    run_script(ctx, "others", {"home": str(point.home)})
    log(f"service {size:,}: in-process searches ({', '.join(map(str, CLIENTS))} threads)")
    inprocess = run_script(ctx, "inprocess", spec)
    threaded = [Run.from_json(r) for r in inprocess["runs"]]
    with running_server(point.home, ctx.tmp / f"serve-{size}.log") as server:
        from memex_client import MemexClient

        with MemexClient(server.url, admin_secret=server.admin_secret) as operator:
            key = operator.create_key(user=USER, name=AGENT)["key"]
        log(f"service {size:,}: HTTP searches from {', '.join(map(str, CLIENTS))} clients")
        measured = run_script(
            ctx,
            "clients",
            {**spec, "url": server.url, "key": key, "server_pid": server.process.pid},
        )
    measured_runs = [Run.from_json(r) for r in measured["runs"]]
    local = [r for r in measured_runs if r.where == "in-process"] + threaded
    remote = [r for r in measured_runs if r.where == "http"]
    _fill(section, ctx, point, local, remote, measured["overhead"])
    _fill_cpu(section, inprocess["parts"], inprocess["parts_queries"], local, remote)
    if size != max(ctx.sizes.hybrid_sizes):
        section.body.insert(
            0,
            f"**Measured at {size:,} fragments, not {max(ctx.sizes.hybrid_sizes):,}**: when "
            f"this ran, the vector cache held MiniLM vectors for the first {size:,} passages "
            "only (see benchmarks/vector_cache.py).",
        )
    return section


def _fill_cpu(
    section: Section,
    parts: dict[str, float],
    queries: int,
    local: Sequence[Run],
    remote: Sequence[Run],
) -> None:
    """Where the CPU of one hybrid search goes, and what 2 free cores would allow."""
    if not parts:
        return
    whole = parts["whole search (view.search)"]
    alone = parts["query embedding, one query alone"]
    again = ("whole search (view.search)", EMBED_FULL, CHROMA_ALONE)
    counted = sum(v for k, v in parts.items() if k not in again and "together" not in k)
    rows: list[list[object]] = [[name, ms(value)] for name, value in parts.items()]
    rows.insert(
        -1,
        [
            "the rest: filters, time phrases, scope checks, building the results",
            ms(whole - counted),
        ],
    )
    http1, local1 = _find(remote, "hybrid", 1), _find(local, "hybrid", 1)
    http8 = _find(remote, "hybrid", TARGET_CLIENTS)
    cores = os.cpu_count() or 1
    if http1.server_cpu is not None and local1.client_cpu is not None:
        n = len(http1.latencies)
        added = (http1.server_cpu - local1.client_cpu) / n
        rows.append(
            [
                "memex serve, one client: server CPU per search minus the same search "
                "in-process (HTTP, credentials, JSON, the request thread)",
                ms(added),
            ]
        )
        client = (http1.client_cpu or 0) / n
        rows.append(["the client process (`MemexClient`), per search", ms(client)])
        keyword = next(v for k, v in parts.items() if k.startswith("keyword candidates"))
        # What no hybrid search over HTTP can skip: the query's embedding at its cheapest
        # (a full batch), chroma's own query, BM25's, the request's HTTP and the client.
        floor = parts[EMBED_FULL] + parts[CHROMA_ALONE] + keyword + max(0.0, added) + client
        rows.append(
            [
                "the least a search over HTTP can cost here: embedding in a full batch + "
                "chroma query alone + BM25 candidates + HTTP + client (nothing else of "
                f"memex's work); {cores} free cores would allow at most",
                f"{ms(floor)} ({cores / floor:.0f}/s)",
            ]
        )
    per8 = http8.cpu_per_call()
    if per8:
        rows.append(
            [
                f"memex serve, {TARGET_CLIENTS} clients: server and client CPU per search "
                f"(queries embedded together); {cores} free cores would allow",
                f"{ms(per8)} ({cores / per8:.0f}/s)",
            ]
        )
    section.add(
        "Where the CPU of one hybrid search goes (the in-process worker, one caller: each part "
        f"timed on its own on the first {queries} queries, each query through every part in "
        "turn, process CPU time, the median of 3 rounds; "
        f"{TARGET_RATE:.0f} searches/s on {cores} cores leaves {ms(cores / TARGET_RATE)} of "
        f"CPU per search, the client's included). Embedding one query alone is "
        f"{alone / whole:.0%} of the whole search.",
        table(["part", "CPU per search"], rows),
    )


def _find(runs: Sequence[Run], mode: str, clients: int) -> Run:
    return next(r for r in runs if r.mode == mode and r.clients == clients)


def mismatches(local: Sequence[Run], remote: Sequence[Run]) -> tuple[int, int, list[str]]:
    """(queries compared, queries whose ids or order differ, a few of them)."""
    compared = differ = 0
    examples: list[str] = []
    for run_ in remote:
        reference = _find(local, run_.mode, 1).ids
        for query, ids in run_.ids.items():
            expected = reference.get(query)
            if expected is None:
                expected = _find(local, run_.mode, max(CLIENTS)).ids.get(query)
            if expected is None:
                continue
            compared += 1
            if ids != expected:
                differ += 1
                if len(examples) < 3:
                    examples.append(f"{run_.mode} x{run_.clients}: {query[:60]!r}")
    return compared, differ, examples


def _cpu(run_: Run) -> str:
    per_call = run_.cpu_per_call()
    if per_call is None or run_.clients == 1:
        return "-"
    server = (
        "" if run_.server_cpu is None else (f", server {ms(run_.server_cpu / len(run_.latencies))}")
    )
    return f"{ms(per_call)}{server} ({(os.cpu_count() or 1) / per_call:.0f}/s)"


def _paired_gap(remote: Sequence[Run], local: Sequence[Run], mode: str) -> float:
    """Median over the one-client queries of HTTP time minus in-process time (timed in turn)."""
    pairs = zip(_find(remote, mode, 1).latencies, _find(local, mode, 1).latencies, strict=True)
    return percentile([h - i for h, i in pairs], 50)


def _fill(
    section: Section,
    ctx: RunContext,
    point: scale.Point,
    local: list[Run],
    remote: list[Run],
    overhead: dict[str, list[float]],
) -> None:
    size = point.size
    http1, local1 = _find(remote, "hybrid", 1), _find(local, "hybrid", 1)
    gap = http1.p(50) - local1.p(50)
    section.checks.append(
        Check(
            f"hybrid p50 over HTTP vs in-process @ {size:,}, 1 client",
            f"+{ms(gap)} ({ms(http1.p(50))} vs {ms(local1.p(50))})",
            f"<= +{TARGET_GAP * 1000:.0f} ms",
            "-",
            gap <= TARGET_GAP,
        )
    )
    http8 = _find(remote, "hybrid", TARGET_CLIENTS)
    section.checks.append(
        Check(
            f"hybrid searches/s over HTTP @ {size:,}, {TARGET_CLIENTS} clients",
            f"{http8.rate:.0f}/s",
            f">= {TARGET_RATE:.0f}/s on {os.cpu_count()} cores",
            f"in-process, {TARGET_CLIENTS} threads: "
            f"{_find(local, 'hybrid', TARGET_CLIENTS).rate:.0f}/s",
            http8.rate >= TARGET_RATE,
        )
    )
    compared, differ, examples = mismatches(local, remote)
    section.checks.append(
        Check(
            "HTTP results equal in-process (same ids, same order)",
            f"{compared - differ:,}/{compared:,} queries",
            "all",
            "; ".join(examples) or "-",
            differ == 0,
        )
    )
    rows: list[list[object]] = []
    for mode in MODES:
        for clients in CLIENTS:
            for where, runs in (("in-process", local), ("HTTP", remote)):
                r = _find(runs, mode, clients)
                rows.append(
                    [
                        mode,
                        clients,
                        where,
                        len(r.latencies),
                        ms(r.p(50)),
                        ms(r.p(95)),
                        ms(r.p(99)),
                        f"{r.rate:.0f}",
                        _cpu(r),
                    ]
                )
    section.add(
        f"Corpus: the first {corpus.describe(corpus.passages(size))}; the home of benchmark "
        f"10 at {size:,} fragments (default components: bm25, chroma, rrf, MiniLM query "
        f"embeddings). `memex serve` runs with its defaults on 127.0.0.1 in its own process; "
        f"an agent key for user `{USER}` (corpus lent) is made through `POST /v1/admin/keys`; "
        f"{len(OTHER_USERS)} other users have a memory each in the home, as on a shared "
        "service, so every search through the key filters by owner. "
        "Clients run in one other process: per concurrent client one thread and one "
        "`MemexClient(url, api_key=KEY)`, timing `client.view().search(q, mode, 10)` "
        "(request, JSON, the result dataclasses rebuilt) on distinct SciFact queries dealt "
        f"round-robin and released together, after {WARMUP_PER_CLIENT} warm-up searches per "
        f"client: {len(local1.latencies)} queries with one client, every query "
        f"({len(_find(remote, 'hybrid', max(CLIENTS)).latencies):,}) once with 8 and 32. "
        "In-process: "
        f'`Memex(home).view("{USER}", name="{AGENT}").search(q, mode, 10)` on the same home '
        "(what the server runs for that key, access-log entry included, its query "
        "embeddings warmed as memex serve warms its own: ONNX Runtime for one query) on the "
        "same queries: "
        "with one caller in the clients' process, each query in-process then over HTTP in "
        "turn (so both see the same load on a shared machine); with 8 and 32, a fresh "
        "process with N threads sharing the Memex through `memex_core.threads.call` "
        "(searches hold its call lock shared, as many at a time as the process has cores; "
        "writes hold it alone). `memex serve` embeds the queries of concurrent requests "
        "together before they take the lock (one batch at a time on 2 cores). "
        "Requests/s: queries answered over the wall time from release to the last answer. "
        "CPU per search: the CPU time the server and the calling process used during the run "
        "over the queries answered (in-process: the one process), which depends far less "
        "than the rate on what else the machine runs (not nothing: on a busy machine the "
        "same search costs more CPU, up to ~1.4x in this project's runs, as other work "
        "shares the cores' caches); the ceiling in brackets is how many searches per second "
        "that CPU allows on this machine's cores if nothing else ran. "
        "Every machine core is shared by the server, the clients and anything else running.",
        table(
            [
                "mode",
                "clients",
                "where",
                "queries",
                "p50",
                "p95",
                "p99",
                "requests/s",
                "CPU per search (ceiling on 2 free cores)",
            ],
            rows,
        ),
    )
    client_p50 = percentile(overhead["client"], 50)
    httpx_p50 = percentile(overhead["httpx"], 50)
    decode_p50 = percentile(overhead["decode"], 50)
    keyword_gap = _find(remote, "keyword", 1).p(50) - _find(local, "keyword", 1).p(50)
    section.add(
        "What HTTP adds to one call (one client, nothing else running in the client process):",
        table(
            ["", "p50"],
            [
                ["`GET /healthz` round trip through `MemexClient.health()`", ms(client_p50)],
                ["the same with bare `httpx.Client.get(...).json()`", ms(httpx_p50)],
                [
                    "rebuilding a hybrid search's `SearchResults` from its JSON "
                    f"({percentile(overhead['bytes'], 50) / 1024:.1f} KiB, p50) in the client",
                    ms(decode_p50),
                ],
                ["hybrid search: HTTP p50 minus in-process p50", ms(gap)],
                [
                    "hybrid search: median of each query's HTTP time minus its in-process time",
                    ms(_paired_gap(remote, local, "hybrid")),
                ],
                ["keyword search: HTTP p50 minus in-process p50", ms(keyword_gap)],
                [
                    "keyword search: median of each query's HTTP time minus its in-process time",
                    ms(_paired_gap(remote, local, "keyword")),
                ],
            ],
        ),
    )
