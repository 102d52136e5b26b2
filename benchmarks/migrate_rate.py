"""Benchmark: `memex migrate` copy rate, against a bare `COPY` of the same rows.

A home is built from the shared real data (the sample exports, the Obsidian Help vault,
the 5,183 SciFact abstracts and 200 remembered facts; the tests' hashing embedder and
in-memory vector store stand in for MiniLM and Chroma, which a copy of the catalog never
reads). Its catalog is then copied into fresh databases of one PostgreSQL server (the
tests' binaries and settings, tests/support/postgres_server.py), alternating, round by round:

- **baseline**: every table by one ``COPY`` per table in one transaction (triggers off
  by ``session_replication_role``), values as SQLite hands them: the least a copy costs;
- **memex migrate**: the command's engine, as ``memex migrate --to URL`` runs it (batches
  of 5,000 rows, each committed with its progress; values brought to the target's types),
  then its verification (counts and checksums of every table on both sides).

Standalone: ``python -m benchmarks.migrate_rate [--rounds N]`` prints the section.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.context import RunContext, log
from benchmarks.data import data_root, load_scifact, missing, scifact_dir
from benchmarks.report import Section, table

TITLE = "15c. Moving a home to PostgreSQL: `memex migrate` copy rate"
ROUNDS = 5
MEMORIES = 200


def unavailable() -> str | None:
    from tests.support.postgres_server import find_postgres_bin, missing_reason

    root = data_root()
    reason = missing(root / "exports", root / "obsidian-help" / "en", scifact_dir())
    if reason:
        return reason
    if find_postgres_bin() is None:
        return missing_reason()
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg is not installed: pip install 'memex[postgres]'"
    return None


def build_home(root: Path) -> Path:
    from benchmarks.fragments import scifact_fragments
    from tests.support.component_doubles import fast_memex

    data = data_root()
    home = root / "home"
    mx = fast_memex(home)
    exports = data / "exports"
    mx.ingest(
        exports / "chatgpt",
        exports / "claude_ai",
        exports / "claude_code",
        exports / "codex",
        data / "obsidian-help" / "en",
    )
    mx.add_fragments(scifact_fragments(load_scifact().docs), origin="bench:beir-scifact")
    for i in range(MEMORIES):
        mx.agent(f"user{i % 10}").remember(
            f"User {i % 10} noted item {i}: project {i} builds with cache {i * 7}."
        )
    mx.close()
    return home


def bare_copy(home: Path, url: str) -> tuple[int, float]:
    """Every table in one transaction, one COPY each: (rows, seconds)."""
    import sqlite3

    import psycopg
    from psycopg import sql

    from memex_postgres.migration.command import create_schema
    from memex_postgres.migration.engine import _dependency_order
    from memex_postgres.migration.source import SqliteSource

    create_schema(url)
    source = SqliteSource(home / "catalog.sqlite")
    tables = _dependency_order(source.tables())
    source.close()
    db = sqlite3.connect(f"{(home / 'catalog.sqlite').as_uri()}?mode=ro", uri=True)
    rows = 0
    with psycopg.connect(url, autocommit=True) as conn:
        started = time.perf_counter()
        with conn.transaction():
            conn.execute("SET LOCAL session_replication_role = replica")
            for t in tables:
                columns = list(t.columns)
                select = ", ".join(f'"{c}"' for c in columns)
                if t.name == "memories":  # PostgreSQL's seq stands for SQLite's rowid
                    columns.append("seq")
                    select += ", rowid"
                statement = sql.SQL("COPY {} ({}) FROM STDIN").format(
                    sql.Identifier(t.name), sql.SQL(", ").join(map(sql.Identifier, columns))
                )
                with conn.cursor().copy(statement) as copy:
                    for row in db.execute(f'SELECT {select} FROM "{t.name}"'):
                        copy.write_row(row)
                        rows += 1
        seconds = time.perf_counter() - started
    db.close()
    return rows, seconds


def migrate(home: Path, url: str) -> Any:
    from memex_postgres.migration.command import target_schema
    from memex_postgres.migration.engine import Migration
    from memex_postgres.migration.source import SqliteSource
    from memex_postgres.migration.target import PostgresTarget

    schema = target_schema()
    source = SqliteSource(home / "catalog.sqlite")
    target = PostgresTarget(url, schema.writer_lock_key)
    try:
        return Migration(source, target, schema, home=home).run()
    finally:
        target.close()
        source.close()


def measure(root: Path, rounds: int) -> dict[str, Any]:
    from tests.support.postgres_server import PostgresServer, find_postgres_bin

    started = time.perf_counter()
    home = build_home(root)
    log(f"migrate: home built in {time.perf_counter() - started:.0f} s")
    bin_dir = find_postgres_bin()
    assert bin_dir is not None
    server = PostgresServer(bin_dir).start()
    results: list[dict[str, Any]] = []
    load_before = os.getloadavg()[0]
    try:
        for n in range(rounds):
            bare_url = server.create_database(f"bare_{n}")
            migrate_url = server.create_database(f"migrate_{n}")
            if n % 2:  # each goes first in every other round: noise falls on both alike
                report = migrate(home, migrate_url)
                rows, base = bare_copy(home, bare_url)
            else:
                rows, base = bare_copy(home, bare_url)
                report = migrate(home, migrate_url)
            fragments = next(t for t in report.tables if t.name == "fragments")
            results.append(
                {
                    "rows": rows,
                    "copied": report.copied,
                    "ok": report.ok,
                    "bare_rate": rows / base,
                    "rate": report.rows_per_s,
                    "copy_s": report.copy_seconds,
                    "verify_s": report.verify_seconds,
                    "fragments": fragments.copied,
                    "fragments_rate": fragments.copied / fragments.seconds,
                }
            )
            log(
                f"migrate round {n}: {report.rows_per_s:,.0f} rows/s, bare COPY "
                f"{rows / base:,.0f} rows/s"
            )
    finally:
        server.destroy()
    load = (load_before, os.getloadavg()[0])
    return {"rounds": results, "postgres": bin_dir.parent.name, "load": load}


def render(measured: dict[str, Any], section: Section) -> Section:
    rounds = measured["rounds"]
    rows = [
        (
            n,
            f"{r['copied']:,}",
            f"{r['bare_rate']:,.0f}",
            f"{r['rate']:,.0f}",
            f"{r['rate'] / r['bare_rate']:.2f}",
            f"{r['fragments_rate']:,.0f}",
            f"{r['copy_s']:.2f} s",
            f"{r['verify_s']:.2f} s",
            "yes" if r["ok"] else "**NO**",
        )
        for n, r in enumerate(rounds)
    ]
    first = rounds[0]
    section.add(
        f"A home of {first['fragments']:,} fragments ({first['copied']:,} rows in all) copied "
        f"into PostgreSQL {measured['postgres']} on this machine (load average "
        f"{measured['load'][0]:.1f} before, {measured['load'][1]:.1f} after), {len(rounds)} "
        "rounds, each of a bare one-transaction `COPY` of the same rows (baseline) and `memex "
        "migrate`'s engine (batches of 5,000 rows, each committed with its progress; then "
        "the verification), taking turns to go first.",
        table(
            [
                "round",
                "rows",
                "bare COPY rows/s",
                "migrate rows/s",
                "ratio",
                "fragments rows/s",
                "copy",
                "verify",
                "verified",
            ],
            rows,
        ),
        f"Median: {statistics.median(r['rate'] for r in rounds):,.0f} rows/s, "
        f"{statistics.median(r['rate'] / r['bare_rate'] for r in rounds):.2f} of the bare "
        f"`COPY`'s rate in the same rounds; verification "
        f"{statistics.median(r['verify_s'] for r in rounds):.2f} s.",
    )
    return section


def run(ctx: RunContext) -> Section:
    section = Section("migrate", TITLE)
    reason = unavailable()
    if reason:
        section.skipped = reason
        return section
    return render(measure(ctx.tmp / "migrate", 2 if ctx.quick else ROUNDS), section)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.migrate_rate")
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    args = parser.parse_args()
    reason = unavailable()
    if reason:
        raise SystemExit(f"skipped: {reason}")
    with tempfile.TemporaryDirectory(prefix="memex-bench-migrate-") as tmp:
        section = render(measure(Path(tmp), args.rounds), Section("migrate", TITLE))
    print(f"## {section.title}\n\n" + "\n\n".join(section.body))


if __name__ == "__main__":
    main()
