"""Benchmark 15b: the pgvector store against the chroma store on a ``chroma run`` server.

The two vector stores a multi-host memex can share (issue 15), side by side in one run on
this machine: a ``chroma run`` server (memex's chroma store, its defaults: HNSW cosine,
ef_search 400) and PostgreSQL 16 with pgvector (memex's pgvector store, its defaults:
HNSW cosine, m 16, ef_construction 64, the ef_search of ``memex_pgvector.location``). The
same real MiniLM vectors go into both: the first 100,000 passages of the speed
benchmarks' corpus (:mod:`benchmarks.corpus`, from the on-disk vector cache), inserted
through each store's ``upsert`` in batches of 256, as ``memex backfill`` does, each
batch into one store then the other (so a busy moment of the shared machine falls on both).

Then the same SciFact test queries (their MiniLM vectors) are asked of both, alternating
store by store for each query so that the machine's noise falls on both alike:
``search(q, 10)`` for latency and recall@10 against the exact top 10 (brute-force cosine
over the same vectors in numpy), and ``search(q, 40)`` (hybrid search's candidate depth)
for latency. A sweep of pgvector's ``hnsw.ef_search`` shows the recall it buys.

PostgreSQL runs with production durability (fsync on) and ``shared_buffers`` large enough
to hold the table and its index (1 GB), started by :class:`BenchPostgres` from the
binaries the tests use (tests/postgres_server.py). Both servers, and this client, share
the machine's 2 cores.
"""

from __future__ import annotations

import contextlib
import shutil
import time
from collections.abc import Iterator, Sequence
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


def unavailable() -> str | None:
    from tests.chroma_server import find_chroma_cli
    from tests.postgres_server import find_postgres_bin, missing_reason

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
    from tests.postgres_server import PostgresServer

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


@contextlib.contextmanager
def pgvector_store(ctx: RunContext) -> Iterator[tuple[Any, Any]]:
    """A pgvector store on a fresh database of a server of its own; (store, server)."""
    from memex_pgvector.location import PgvectorLocation
    from memex_pgvector.store import PgvectorStore
    from tests.postgres_server import find_postgres_bin

    server = _bench_postgres()(find_postgres_bin(need_vector=True)).start()
    try:
        url = server.create_database("bench")
        store = PgvectorStore(PgvectorLocation(url, "the benchmark's server"))
        try:
            yield store, server
        finally:
            store.close()
    finally:
        server.destroy()


@contextlib.contextmanager
def chroma_store(ctx: RunContext) -> Iterator[tuple[Any, Path]]:
    """The chroma store on a ``chroma run`` server of its own; (store, its data folder)."""
    from memex_chroma.connection import ChromaLocation, parse_server_url
    from memex_chroma.store import ChromaVectorStore
    from tests.chroma_server import controllable_chroma_server

    folder = ctx.tmp / "chroma-server"
    with controllable_chroma_server(folder / "data") as server:
        location = ChromaLocation(server=parse_server_url(server.url, "the benchmark's server"))
        store = ChromaVectorStore(location)
        try:
            yield store, folder / "data"
        finally:
            store.close()
    shutil.rmtree(folder, ignore_errors=True)


# -- measuring -----------------------------------------------------------------------------


@dataclass
class Timings:
    insert_seconds: float = 0.0
    at_k: list[float] = field(default_factory=list)
    at_depth: list[float] = field(default_factory=list)
    recall: list[float] = field(default_factory=list)

    def insert_rate(self, count: int) -> float:
        return count / self.insert_seconds if self.insert_seconds else 0.0


def insert_both(
    stores: Sequence[tuple[Any, Timings]], fragments: Sequence[Fragment], vectors: np.ndarray
) -> None:
    """Upsert every batch into each store in turn, timing each store's calls apart: both
    see the same load from the rest of the machine."""
    started = time.perf_counter()
    next_log = started + 30
    for start in range(0, len(fragments), BATCH):
        part = slice(start, start + BATCH)
        for store, timings in stores:
            began = time.perf_counter()
            store.upsert(fragments[part], vectors[part])
            timings.insert_seconds += time.perf_counter() - began
        if time.perf_counter() >= next_log:
            rates = ", ".join(
                f"{min(start + BATCH, len(fragments)) / t.insert_seconds:.0f}/s" for _, t in stores
            )
            log(f"  {min(start + BATCH, len(fragments)):,}/{len(fragments):,} vectors ({rates})")
            next_log = time.perf_counter() + 30


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


def timed(store: Any, query: np.ndarray, limit: int) -> tuple[float, list[Any]]:
    """Seconds for one ``store.search(query, limit)`` (no filter but the default), and hits."""
    started = time.perf_counter()
    hits = store.search(query, limit, SearchFilters())
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
        rows.append([ef, f"{mean(recalls):.3f}", ms(percentile(latencies, 50))])
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
    ids = [f.id for f in fragments]
    exact = exact_top(vectors, queries, ids, K)
    log(f"{len(fragments):,} vectors, {len(queries)} queries, exact top {K} computed")

    chroma, pg = Timings(), Timings()
    everything = SearchFilters()
    with chroma_store(ctx) as (chroma_db, chroma_folder), pgvector_store(ctx) as (pg_db, _server):
        log("inserting into both, batch by batch (chroma server, pgvector)")
        insert_both(((chroma_db, chroma), (pg_db, pg)), fragments, vectors)
        pg_db.settle()  # what memex does after a backfill (ANALYZE)
        for store in (chroma_db, pg_db):
            store.prepare()
            for query in queries[:WARMUP]:
                store.search(query, K, everything)
        log("querying both, alternating")
        for query, want in zip(queries, exact, strict=True):
            for store, timings in ((chroma_db, chroma), (pg_db, pg)):
                seconds, hits = timed(store, query, K)
                timings.at_k.append(seconds)
                timings.recall.append(len({h.id for h in hits} & want) / K)
                seconds, _ = timed(store, query, DEPTH)
                timings.at_depth.append(seconds)
        sweep = sweep_ef(pg_db.location.url, queries, exact) if not ctx.quick else []
        pg_bytes = pg_db._run(
            lambda conn: conn.execute("SELECT pg_total_relation_size('memex_vectors')").fetchone()
        )[0]
        chroma_bytes = sum(p.stat().st_size for p in chroma_folder.rglob("*") if p.is_file())

    def row(name: str, t: Timings, disk: int) -> list[object]:
        return [
            name,
            f"{t.insert_rate(len(fragments)):,.0f}/s ({t.insert_seconds:.0f} s)",
            ms(percentile(t.at_k, 50)),
            ms(percentile(t.at_k, 95)),
            ms(percentile(t.at_depth, 50)),
            ms(percentile(t.at_depth, 95)),
            f"{mean(t.recall):.3f}",
            f"{disk / 2**20:,.0f} MiB",
        ]

    p50_ratio = percentile(pg.at_k, 50) / percentile(chroma.at_k, 50)
    p95_ratio = percentile(pg.at_k, 95) / percentile(chroma.at_k, 95)
    insert_ratio = pg.insert_rate(len(fragments)) / chroma.insert_rate(len(fragments))
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
        f"{corpus.describe(fragments)}; every vector is a real MiniLM vector from the on-disk "
        f"cache (none synthetic). {len(queries)} SciFact test queries (their MiniLM vectors), "
        f"asked of each store in turn, query by query, after {WARMUP} warm-up queries. "
        f"Exact neighbours: brute-force cosine in numpy over the same vectors. pgvector "
        f"ef_search {DEFAULT_EF_SEARCH} (memex's default), chroma ef_search 400 (memex's "
        f"default). Insert: `upsert` in batches of {BATCH:,} into an empty index (HNSW built "
        "as the vectors arrive, as `memex backfill` does), each batch into one store then "
        "the other.",
        table(
            [
                "store",
                "insert rate",
                f"p50 k={K}",
                f"p95 k={K}",
                f"p50 k={DEPTH}",
                f"p95 k={DEPTH}",
                f"recall@{K}",
                "on disk",
            ],
            [row("chroma server", chroma, chroma_bytes), row("pgvector", pg, int(pg_bytes))],
        ),
        f"Ratios pgvector / chroma server (same run): query p50 {p50_ratio:.2f}x, p95 "
        f"{p95_ratio:.2f}x, insert rate {insert_ratio:.2f}x; recall@{K} "
        f"{recall_gap:+.3f}.",
    )
    if sweep:
        section.add(
            "pgvector's `hnsw.ef_search` ([vector.pgvector] ef_search) on the same queries:",
            table(["ef_search", f"recall@{K}", f"p50 k={K}"], sweep),
        )
    return section
