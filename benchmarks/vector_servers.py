"""Benchmark 15b: the pgvector store against the chroma store on a ``chroma run`` server.

The two vector stores a multi-host memex can share (issue 15), side by side in one run on
this machine: a ``chroma run`` server (memex's chroma store, its defaults: HNSW cosine,
ef_search 400) and PostgreSQL 16 with pgvector (memex's pgvector store, its defaults:
HNSW cosine, m 16, ef_construction 64, the ef_search of ``memex_pgvector.location``). The
same real MiniLM vectors go into both: the first 100,000 passages of the speed
benchmarks' corpus (:mod:`benchmarks.corpus`, from the on-disk vector cache).

1. **Load**: each store in turn gets all of them through its ``upsert`` in batches of 256,
   as ``memex backfill`` (or ``memex rebuild --vectors``) does, then ``settle`` (pgvector
   builds its HNSW index there), then the benchmark waits until the server's CPU is idle:
   chroma indexes in the background after an upsert returns, so the time until idle is
   what the load costs. The servers' CPU seconds are read from /proc.
2. **Search**: the same SciFact test queries (their MiniLM vectors) are asked of both,
   alternating store by store for each query so that the machine's noise falls on both
   alike: ``search(q, 10)`` for latency and recall@10 against the exact top 10
   (brute-force cosine over the same vectors in numpy), and ``search(q, 40)`` (hybrid
   search's candidate depth) for latency, and ``search(q, 10)`` with an agent's owner
   filter (every vector passes it). A sweep of pgvector's ``hnsw.ef_search`` shows
   the recall it buys.
3. **Adding to a large index**: 10,000 more vectors into each 100,000-vector index, batch
   by batch into one store then the other (what ingest does to a grown home). They are
   synthetic: corpus vectors with Gaussian noise (sigma 0.05 per dimension), renormalised.

PostgreSQL runs with production durability (fsync on) and ``shared_buffers`` large enough
to hold the table and its index (1 GB), started by ``BenchPostgres`` from the binaries the
tests use (tests/support/postgres_server.py). Both servers, and this client, share the machine's
2 cores (and with whatever else runs: see the load average in the report).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import corpus
from benchmarks.context import RunContext, log
from benchmarks.data import load_scifact
from benchmarks.metrics import mean, percentile
from benchmarks.report import Check, Section, ms, table
from memex_core.domain import Fragment, SearchFilters

TITLE = "15b. Vectors on a shared server: pgvector against a `chroma run` server"
#: Vectors per upsert: the batch ``memex backfill`` embeds and stores at a time.
BATCH = 256
K = 10
#: Hybrid search's default candidate depth: what memex asks the vector store for.
DEPTH = 40
WARMUP = 5
EF_SWEEP = (40, 100, 200, 400)
SHARED_BUFFERS = "1GB"
#: Vectors added to each full index in phase 3.
ADDED = 10_000
#: Idle: the server used less than this share of one core over a second.
IDLE_SHARE = 0.05
IDLE_LIMIT_S = 900.0


def unavailable() -> str | None:
    from tests.support.chroma_server import find_chroma_cli
    from tests.support.postgres_server import find_postgres_bin, missing_reason

    if corpus.unavailable():
        return corpus.unavailable()
    if find_chroma_cli() is None:
        return "the `chroma` CLI is not installed (pip install 'memex[chroma]')"
    if find_postgres_bin(need_vector=True) is None:
        return missing_reason(need_vector=True)
    for module in ("psycopg", "pgvector"):
        try:
            __import__(module)
        except ImportError:
            return f"{module} is not installed (pip install 'memex[postgres]')"
    return None


# -- the servers ---------------------------------------------------------------------------


def _bench_postgres() -> Any:
    from tests.support.postgres_server import PostgresServer

    class BenchPostgres(PostgresServer):
        """The tests' server with production durability and room for the index in memory.

        The tests turn fsync off (they never survive a machine crash); a benchmark of
        insert rates must not, so this starts ``postgres`` with its defaults but for the
        port, the loopback address, the socket folder and ``shared_buffers``.
        """

        def start(self) -> BenchPostgres:
            self.init()
            options = (
                f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.sockets} "
                f"-c shared_buffers={SHARED_BUFFERS} -c max_connections=50"
            )
            result = self._run(
                "pg_ctl", "-D", str(self.data), "-l", str(self.log), "-o", options,
                "-w", "-t", "120", "start", check=False,
            )  # fmt: skip
            if result.returncode != 0:
                raise RuntimeError(f"PostgreSQL did not start: {result.stderr}\n{self.log_tail()}")
            return self

    return BenchPostgres


@dataclass
class Served:
    """A store on a server of its own, and how to read what the server costs."""

    name: str
    store: Any
    cpu: Callable[[], float]  # the server's CPU seconds so far (all its processes)
    disk: Callable[[], int]  # bytes the vectors take on the server


def _ticks(pid: int, children: bool) -> int:
    """utime + stime of a process (and of its reaped children), in clock ticks."""
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    used = int(fields[11]) + int(fields[12])
    return used + (int(fields[13]) + int(fields[14]) if children else 0)


def process_tree_cpu(root: int) -> float:
    """CPU seconds of ``root``, of its children alive now and of those it reaped (a
    PostgreSQL backend that ended counts in its postmaster's children's time)."""
    total = _ticks(root, children=True)
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                parent = int(handle.read().rsplit(")", 1)[1].split()[1])
            if parent == root:
                total += _ticks(int(entry), children=False)
        except (OSError, ValueError, IndexError):
            continue  # ended meanwhile
    return total / os.sysconf("SC_CLK_TCK")


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


@contextlib.contextmanager
def pgvector_served(ctx: RunContext) -> Iterator[Served]:
    """The pgvector store on a fresh database of a PostgreSQL of its own."""
    from memex_pgvector.location import PgvectorLocation
    from memex_pgvector.store import PgvectorStore
    from tests.support.postgres_server import find_postgres_bin

    server = _bench_postgres()(find_postgres_bin(need_vector=True)).start()
    try:
        url = server.create_database("bench")
        postmaster = int((server.data / "postmaster.pid").read_text().split()[0])
        store = PgvectorStore(PgvectorLocation(url, "the benchmark's server"))

        def disk() -> int:
            query = "SELECT pg_total_relation_size('memex_vectors')"
            row = store._run(lambda conn: conn.execute(query).fetchone())
            return int(row[0]) if row else 0

        try:
            yield Served("pgvector", store, lambda: process_tree_cpu(postmaster), disk)
        finally:
            store.close()
    finally:
        server.destroy()


@contextlib.contextmanager
def chroma_served(ctx: RunContext) -> Iterator[Served]:
    """The chroma store on a ``chroma run`` server of its own."""
    from memex_chroma.connection import ChromaLocation, parse_server_url
    from memex_chroma.store import ChromaVectorStore
    from tests.support.chroma_server import controllable_chroma_server

    folder = ctx.tmp / "chroma-server"
    with controllable_chroma_server(folder / "data") as server:
        location = ChromaLocation(server=parse_server_url(server.url, "the benchmark's server"))
        store = ChromaVectorStore(location)
        assert server.process is not None
        pid = server.process.pid
        try:
            yield Served(
                "chroma server",
                store,
                lambda: process_tree_cpu(pid),
                lambda: folder_bytes(folder / "data"),
            )
        finally:
            store.close()
    shutil.rmtree(folder, ignore_errors=True)


# -- measuring -----------------------------------------------------------------------------


@dataclass
class Load:
    """One store's load: its upsert calls, settle, and the wait until its server is idle."""

    upsert_seconds: float = 0.0
    settle_seconds: float = 0.0
    idle_seconds: float = 0.0
    server_cpu: float = 0.0

    @property
    def ready_seconds(self) -> float:
        return self.upsert_seconds + self.settle_seconds + self.idle_seconds


@dataclass
class Timings:
    load: Load = field(default_factory=Load)
    added: Load = field(default_factory=Load)
    at_k: list[float] = field(default_factory=list)
    at_depth: list[float] = field(default_factory=list)
    agent: list[float] = field(default_factory=list)
    recall: list[float] = field(default_factory=list)
    agent_recall: list[float] = field(default_factory=list)


def wait_idle(cpu: Callable[[], float]) -> float:
    """Seconds until the server stays under :data:`IDLE_SHARE` of a core for a second
    (the quiet second itself not counted)."""
    started = time.perf_counter()
    last = cpu()
    while time.perf_counter() - started < IDLE_LIMIT_S:
        time.sleep(1.0)
        now = cpu()
        if now - last < IDLE_SHARE:
            return max(0.0, time.perf_counter() - started - 1.0)
        last = now
    return time.perf_counter() - started


def load(served: Served, fragments: Sequence[Fragment], vectors: np.ndarray) -> Load:
    """Every vector through ``upsert`` in backfill's batches, then settle and idle."""
    figures = Load()
    cpu_before = served.cpu()
    started = time.perf_counter()
    next_log = started + 30
    for start in range(0, len(fragments), BATCH):
        served.store.upsert(fragments[start : start + BATCH], vectors[start : start + BATCH])
        if time.perf_counter() >= next_log:
            done = min(start + BATCH, len(fragments))
            log(f"  {served.name}: {done:,}/{len(fragments):,} vectors upserted")
            next_log = time.perf_counter() + 30
    figures.upsert_seconds = time.perf_counter() - started
    began = time.perf_counter()
    settle = getattr(served.store, "settle", None)
    if callable(settle):
        settle()
    figures.settle_seconds = time.perf_counter() - began
    figures.idle_seconds = wait_idle(served.cpu)
    figures.server_cpu = served.cpu() - cpu_before
    return figures


def add_to_both(
    both: Sequence[tuple[Served, Load]], fragments: Sequence[Fragment], vectors: np.ndarray
) -> None:
    """Upsert each batch into one store then the other (the same machine load on both),
    then wait until both servers are idle."""
    cpu_before = [served.cpu() for served, _ in both]
    for start in range(0, len(fragments), BATCH):
        part = slice(start, start + BATCH)
        for served, figures in both:
            began = time.perf_counter()
            served.store.upsert(fragments[part], vectors[part])
            figures.upsert_seconds += time.perf_counter() - began
    for (served, figures), before in zip(both, cpu_before, strict=True):
        figures.idle_seconds = wait_idle(served.cpu)
        figures.server_cpu = served.cpu() - before


def synthetic_additions(
    fragments: Sequence[Fragment], vectors: np.ndarray, count: int
) -> tuple[list[Fragment], np.ndarray]:
    """``count`` new fragments whose vectors are corpus vectors plus noise, renormalised."""
    from dataclasses import replace

    rng = np.random.default_rng(15)
    rows = rng.choice(len(fragments), size=count, replace=False)
    noisy = vectors[rows] + rng.normal(0.0, 0.05, size=(count, vectors.shape[1]))
    noisy = (noisy / np.linalg.norm(noisy, axis=1, keepdims=True)).astype(np.float32)
    added = [replace(fragments[row], id=f"added-{i:05d}") for i, row in enumerate(rows)]
    return added, noisy


def exact_top(
    vectors: np.ndarray, queries: np.ndarray, ids: Sequence[str], k: int
) -> list[set[str]]:
    """The exact top ``k`` ids of each query by cosine (the vectors are unit length)."""
    tops = []
    for start in range(0, len(queries), 64):
        scores = queries[start : start + 64] @ vectors.T
        best = np.argpartition(-scores, k, axis=1)[:, :k]
        tops += [{ids[i] for i in row} for row in best]
    return tops


#: What an agent's search through ``memex serve`` filters by: its user's memory and the
#: operator's corpus (owner ""), which here is every vector.
AGENT_FILTER = SearchFilters(owners=("", "users/bench-agent"))


def timed(
    store: Any, query: np.ndarray, limit: int, filters: SearchFilters | None = None
) -> tuple[float, list[Any]]:
    """Seconds for one ``store.search(query, limit, filters)`` (default: no filter but the
    default one), and its hits."""
    started = time.perf_counter()
    hits = store.search(query, limit, filters or SearchFilters())
    return time.perf_counter() - started, hits


def sweep_ef(url: str, queries: np.ndarray, exact: list[set[str]]) -> list[list[object]]:
    """pgvector's recall@10 and p50 at each ef_search, each from a store of its own."""
    from memex_pgvector.location import PgvectorLocation, StoreSettings
    from memex_pgvector.store import PgvectorStore

    rows: list[list[object]] = []
    everything = SearchFilters()
    for ef in EF_SWEEP:
        with PgvectorStore(PgvectorLocation(url, "sweep"), StoreSettings(ef_search=ef)) as store:
            for query in queries[:WARMUP]:
                store.search(query, K, everything)
            latencies, recalls = [], []
            for query, want in zip(queries, exact, strict=True):
                seconds, hits = timed(store, query, K)
                latencies.append(seconds)
                recalls.append(len({h.id for h in hits} & want) / K)
        rows.append(
            [
                ef,
                f"{mean(recalls):.3f}",
                ms(percentile(latencies, 50)),
                ms(percentile(latencies, 95)),
            ]
        )
    return rows


def run(ctx: RunContext) -> Section:
    section = Section("vector_servers", TITLE)
    reason = unavailable()
    if reason:
        section.skipped = reason
        return section
    from memex_pgvector.location import DEFAULT_EF_SEARCH

    size = ctx.sizes.vectors_max
    fragments = corpus.passages(size)
    texts = [f.content for f in fragments]
    vectors = corpus.ensure_vectors(ctx, texts).matrix(texts)
    scifact = load_scifact()
    query_texts = [text for _, text in scifact.test_queries()][: ctx.sizes.hybrid_queries]
    queries = corpus.ensure_vectors(ctx, query_texts).matrix(query_texts)
    exact = exact_top(vectors, queries, [f.id for f in fragments], K)
    added_count = min(ADDED, size // 10)
    added, added_vectors = synthetic_additions(fragments, vectors, added_count)
    log(f"{len(fragments):,} vectors, {len(queries)} queries, exact top {K} computed")

    chroma, pg = Timings(), Timings()
    with chroma_served(ctx) as chroma_db, pgvector_served(ctx) as pg_db:
        for served, timings in ((chroma_db, chroma), (pg_db, pg)):
            log(f"loading {served.name}")
            timings.load = load(served, fragments, vectors)
        disk = {chroma_db.name: chroma_db.disk(), pg_db.name: pg_db.disk()}
        for served in (chroma_db, pg_db):
            served.store.prepare()
            for query in queries[:WARMUP]:
                served.store.search(query, K, SearchFilters())
        log("querying both, alternating")
        for query, want in zip(queries, exact, strict=True):
            for served, timings in ((chroma_db, chroma), (pg_db, pg)):
                seconds, hits = timed(served.store, query, K)
                timings.at_k.append(seconds)
                timings.recall.append(len({h.id for h in hits} & want) / K)
                seconds, _ = timed(served.store, query, DEPTH)
                timings.at_depth.append(seconds)
                seconds, hits = timed(served.store, query, K, AGENT_FILTER)
                timings.agent.append(seconds)
                timings.agent_recall.append(len({h.id for h in hits} & want) / K)
        sweep = sweep_ef(pg_db.store.location.url, queries, exact) if not ctx.quick else []
        log(f"adding {added_count:,} vectors to both, batch by batch")
        add_to_both(((chroma_db, chroma.added), (pg_db, pg.added)), added, added_vectors)

    def rate(count: int, seconds: float) -> str:
        return f"{count / seconds:,.0f}/s" if seconds > 0 else "-"

    def load_row(name: str, t: Timings) -> list[object]:
        n, lo, ad = len(fragments), t.load, t.added
        return [
            name,
            rate(n, lo.upsert_seconds),
            f"{lo.ready_seconds:.0f} s ({rate(n, lo.ready_seconds)})",
            f"{lo.server_cpu:.1f} s",
            f"{rate(added_count, ad.upsert_seconds)} (+{ad.idle_seconds:.0f} s idle wait)",
            f"{ad.server_cpu / max(added_count, 1) * 1000:.1f} s",
            f"{disk[name] / 2**20:,.0f} MiB",
        ]

    def search_row(name: str, t: Timings) -> list[object]:
        return [
            name,
            ms(percentile(t.at_k, 50)),
            ms(percentile(t.at_k, 95)),
            ms(percentile(t.at_depth, 50)),
            ms(percentile(t.at_depth, 95)),
            f"{mean(t.recall):.3f}",
            ms(percentile(t.agent, 50)),
            ms(percentile(t.agent, 95)),
            f"{mean(t.agent_recall):.3f}",
        ]

    p50_ratio = percentile(pg.at_k, 50) / percentile(chroma.at_k, 50)
    p95_ratio = percentile(pg.at_k, 95) / percentile(chroma.at_k, 95)
    depth_ratio = percentile(pg.at_depth, 50) / percentile(chroma.at_depth, 50)
    ready_ratio = chroma.load.ready_seconds / pg.load.ready_seconds
    add_ratio = chroma.added.upsert_seconds / pg.added.upsert_seconds
    recall_gap = mean(pg.recall) - mean(chroma.recall)
    section.checks.append(
        Check(
            f"pgvector recall@{K} at {len(fragments):,} vectors (chroma server: peer)",
            f"{mean(pg.recall):.3f}",
            "at least chroma's - 0.01",
            peer=f"{mean(chroma.recall):.3f}",
            met=recall_gap >= -0.01,
        )
    )
    section.checks.append(
        Check(
            f"pgvector search p50 at {len(fragments):,} vectors, k={K}",
            ms(percentile(pg.at_k, 50)),
            "-",
            peer=ms(percentile(chroma.at_k, 50)),
        )
    )
    section.add(
        f"{corpus.describe(fragments)}; every loaded vector is a real MiniLM vector from the "
        f"on-disk cache (none synthetic); the {added_count:,} added in phase 3 are synthetic "
        f"(corpus vectors plus noise). {len(queries)} SciFact test queries (their MiniLM "
        f"vectors), asked of each store in turn, query by query, after {WARMUP} warm-up "
        f"queries. Exact neighbours: brute-force cosine in numpy over the same vectors. "
        f"pgvector ef_search {DEFAULT_EF_SEARCH} (memex's default), chroma ef_search 400 "
        f"(memex's default). Batches of {BATCH} vectors per `upsert`, as `memex backfill`.",
        "**Loading** the index (each store alone; *ready* = upserts, `settle` and the wait "
        "until the server is idle: chroma indexes in the background after an upsert returns, "
        "pgvector builds its HNSW index in `settle` after a bulk load) and **adding** "
        f"{added_count:,} vectors to the full index (batch by batch into one then the other; "
        "pgvector inserts into its HNSW index in each statement):",
        table(
            [
                "store",
                "load: upsert calls",
                "load: ready",
                "load: server CPU",
                f"adding {added_count:,}: upsert calls",
                "adding: server CPU per 1,000",
                "on disk",
            ],
            [load_row(chroma_db.name, chroma), load_row(pg_db.name, pg)],
        ),
        "**Searching** the loaded index (alternating query by query). *Agent*: k=10 with "
        "the owner filter an agent's search through `memex serve` carries (its user's memory "
        "and the operator's corpus, which here is every vector; chroma answers it with its "
        "over-fetch, pgvector with the filter in the HNSW scan):",
        table(
            [
                "store",
                f"p50 k={K}",
                f"p95 k={K}",
                f"p50 k={DEPTH}",
                f"p95 k={DEPTH}",
                f"recall@{K}",
                "agent p50",
                "agent p95",
                f"agent recall@{K}",
            ],
            [search_row(chroma_db.name, chroma), search_row(pg_db.name, pg)],
        ),
        f"Ratios pgvector against the chroma server (same run): search p50 {p50_ratio:.2f}x "
        f"the time (p95 {p95_ratio:.2f}x, k={DEPTH} p50 {depth_ratio:.2f}x); load ready "
        f"{ready_ratio:.2f}x as fast; adding to a full index {add_ratio:.2f}x as fast "
        f"(upsert calls); recall@{K} {recall_gap:+.3f}.",
    )
    if sweep:
        section.add(
            "pgvector's `hnsw.ef_search` ([vector.pgvector] ef_search) on the same queries "
            "(one store per value, same database):",
            table(["ef_search", f"recall@{K}", f"p50 k={K}", f"p95 k={K}"], sweep),
        )
    section.add(
        "### Which to pick when",
        pick_when(
            search=p50_ratio,
            agent=percentile(pg.agent, 50) / percentile(chroma.agent, 50),
            recall=(mean(pg.recall), mean(chroma.recall)),
            ready=ready_ratio,
            adding=add_ratio,
            adding_cpu=(pg.added.server_cpu, chroma.added.server_cpu, added_count),
            disk=disk[pg_db.name] / max(disk[chroma_db.name], 1),
            size=len(fragments),
        ),
    )
    return section


def _times(ratio: float, faster: str, slower: str) -> str:
    """``ratio`` (pgvector over chroma, >1: pgvector better) in words."""
    if ratio >= 1:
        return f"{ratio:.1f}x {faster}"
    return f"{1 / ratio:.1f}x {slower}"


def pick_when(
    *,
    search: float,
    agent: float,
    recall: tuple[float, float],
    ready: float,
    adding: float,
    adding_cpu: tuple[float, float, int],
    disk: float,
    size: int,
) -> str:
    """The advice, from this run's ratios (pgvector against the chroma server)."""
    return "\n".join(
        [
            "- **The catalog is on PostgreSQL (several hosts, `memex serve` replicas): "
            "pgvector.** The vectors live in the database the operators already run, back up "
            "and monitor, with nothing else to deploy; in this run its searches were "
            f"{_times(1 / search, 'faster', 'slower')} at p50 "
            f"({_times(1 / agent, 'faster', 'slower')} with an agent's owner filter), recall@10 "
            f"{recall[0]:.3f} against chroma's {recall[1]:.3f}, and loading {size:,} vectors "
            f"(`memex rebuild --vectors`, a first backfill) was "
            f"{_times(ready, 'faster', 'slower')} until searchable.",
            "- **Adding vectors one batch at a time to a large index** (every ingest of a "
            "grown home) is where pgvector pays: each statement inserts into the HNSW graph, "
            f"{adding_cpu[0] / adding_cpu[2] * 1000:.1f} s of server CPU per 1,000 vectors "
            f"against the chroma server's {adding_cpu[1] / adding_cpu[2] * 1000:.1f} s, and its "
            f"upsert calls were {_times(adding, 'faster', 'slower')}; a home that "
            "ingests a lot continuously on a busy database may prefer the chroma server, or "
            "`memex rebuild --vectors` after a very large import (it builds the index once).",
            f"- **Disk**: pgvector's table and indexes took {disk:.1f}x the chroma server's "
            "folder (the HNSW graph and B-tree filter indexes live in the database, and its "
            "backups).",
            "- **One machine, SQLite catalog: the default chroma folder.** Nothing to run at "
            "all; a chroma server (`MEMEX_CHROMA_URL`) is for several hosts sharing vectors "
            "without PostgreSQL.",
        ]
    )
