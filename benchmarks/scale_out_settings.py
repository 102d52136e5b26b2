"""Benchmark 15's sizes, targets and knobs (see :mod:`benchmarks.scale_out`)."""

from __future__ import annotations

import os

from benchmarks import service
from benchmarks.context import RunContext

TITLE = "15. Scale-out on PostgreSQL: ingest, hybrid latency, catch-up, two replicas"
SIZES = (100_000, 1_000_000)
QUICK_SIZES = (1_000, 2_000)
#: Comma-separated sizes instead of the defaults (e.g. to leave out the million on a
#: machine where its two ingests do not fit the time at hand): the report says which ran.
SIZES_ENV = "MEMEX_BENCH_SCALE_OUT_SIZES"
#: Largest size with vectors (hybrid queries, catch-up, replicas) instead of the bench's
#: ``vectors_max``; 0 makes every size keyword-only (a short check of the ingest figures).
VECTORS_MAX_ENV = "MEMEX_BENCH_SCALE_OUT_VECTORS_MAX"
#: Catch-up and replicas run at the largest size with vectors up to this one.
REPLICAS_MAX = 100_000
#: Marks the lines a stepwise build worker answers with (libraries may print too).
STEP_MARK = "@@step "
#: Targets of issue 15.
TARGET_INGEST = 0.5  # PostgreSQL ingest rate >= half of SQLite's
TARGET_P50 = 1.5  # PostgreSQL hybrid p50 <= 1.5 x SQLite's
TARGET_REPLICAS = 1.6  # two replicas >= 1.6 x one replica's requests/s (given the cores)
CLIENTS = 8
#: Queries sent per mode and replica count in a --quick run (a full run sends all ~1,100).
QUICK_REPLICA_QUERIES = 64
REPLICA_MODES = ("hybrid", "keyword")
USER = service.USER
AGENT = service.AGENT


def vectors_max(ctx: RunContext) -> int:
    raw = os.environ.get(VECTORS_MAX_ENV, "").strip()
    return int(raw.replace("_", "")) if raw else ctx.sizes.vectors_max


def sizes(ctx: RunContext) -> tuple[int, ...]:
    raw = os.environ.get(SIZES_ENV, "").strip()
    if raw:
        return tuple(int(part.replace("_", "")) for part in raw.split(",") if part.strip())
    return QUICK_SIZES if ctx.quick else SIZES
