"""``memex migrate`` as its tests run it: in-process through a minimal ``memex`` group, or
in a process of its own (killed at a crash point on request); and each side's tables, row by
row, for comparing a copy with its source."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner, Result

from memex_core.cli.app import MemexGroup
from memex_core.crashpoints import CRASH_ENV
from tests.conftest import REPO

psycopg = pytest.importorskip("psycopg")

from memex_postgres.migration.command import migrate  # noqa: E402


@click.group(cls=MemexGroup)
@click.option("--home")
@click.pass_context
def memex_cli(ctx: click.Context, home: str) -> None:
    """``memex`` as far as these tests need it: errors shown as the CLI shows them."""
    ctx.obj = {"home": home}


memex_cli.add_command(migrate)


def run_migrate(home: Path, *args: str) -> Result:
    return CliRunner().invoke(memex_cli, ["--home", str(home), "migrate", *args])


def run_child(home: Path, *args: str, crash_at: str | None = None) -> subprocess.CompletedProcess:
    """``memex --home HOME migrate ARGS`` in a process of its own (killed by a crash point)."""
    env = {k: v for k, v in os.environ.items() if k != CRASH_ENV}
    if crash_at:
        env[CRASH_ENV] = crash_at
    return subprocess.run(
        [sys.executable, "-m", "memex_core", "--home", str(home), "migrate", *args],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )


#: Columns PostgreSQL adds for what SQLite has implicitly: memories list in rowid order.
ROWID_COLUMNS = {"memories": "seq"}


def sqlite_tables(home: Path) -> dict[str, dict[tuple[Any, ...], dict[str, Any]]]:
    """Every copied table of the home's catalog: primary key -> row (columns by name)."""
    db = sqlite3.connect(home / "catalog.sqlite")
    try:
        names = [
            r[0]
            for r in db.execute(
                "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' "
                "AND name != 'schema_version'"
            )
        ]
        out = {}
        for name in names:
            info = db.execute(f"PRAGMA table_info({name})").fetchall()
            columns = [r[1] for r in info]
            key = [r[1] for r in sorted((r for r in info if r[5]), key=lambda r: r[5])]
            selected = list(columns)
            if name in ROWID_COLUMNS:
                columns.append(ROWID_COLUMNS[name])
                selected.append("rowid")
            rows = db.execute(f"SELECT {', '.join(selected)} FROM {name}")
            out[name] = _keyed(rows, columns, key)
        return out
    finally:
        db.close()


def postgres_tables(url: str, like: dict[str, Any]) -> dict[str, dict[tuple[Any, ...], Any]]:
    """The same tables read from PostgreSQL."""
    out = {}
    with psycopg.connect(url) as conn:
        for name in like:
            columns = [
                r[0]
                for r in conn.execute(
                    "SELECT column_name FROM information_schema.columns WHERE table_name = %s",
                    (name,),
                )
            ]
            key = [
                r[0]
                for r in conn.execute(
                    "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = "
                    "i.indrelid AND a.attnum = ANY(i.indkey) WHERE i.indrelid = %s::regclass "
                    "AND i.indisprimary ORDER BY array_position(i.indkey, a.attnum)",
                    (name,),
                )
            ]
            out[name] = _keyed(
                conn.execute(f"SELECT {', '.join(columns)} FROM {name}"), columns, key
            )
    return out


def _keyed(rows: Any, columns: list[str], key: list[str]) -> dict[tuple[Any, ...], Any]:
    positions = [columns.index(k) for k in key]
    return {tuple(row[i] for i in positions): dict(zip(columns, row, strict=True)) for row in rows}


def target_digest(url: str) -> str:
    """Everything in the database's tables, for 'nothing was written' checks."""
    digest = hashlib.sha256()
    with psycopg.connect(url) as conn:
        tables = [
            r[0]
            for r in conn.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema='public' "
                "ORDER BY table_name"
            )
        ]
        for name in tables:
            rows = conn.execute(f"SELECT * FROM {name}").fetchall()
            digest.update(f"{name}:{sorted(map(repr, rows))}".encode())
    return digest.hexdigest()


def home_files(home: Path) -> dict[str, str]:
    """Hash of every file of the home but the lock file and SQLite's shared-memory index."""
    return {
        str(p.relative_to(home)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(home.rglob("*"))
        if p.is_file() and p.name != "write.lock" and not p.name.endswith("-shm")
    }


def next_identity(url: str, table: str, column: str) -> int:
    with psycopg.connect(url) as conn:
        sequence = conn.execute(
            "SELECT pg_get_serial_sequence(%s, %s)", (table, column)
        ).fetchone()[0]
        return int(conn.execute("SELECT nextval(%s)", (sequence,)).fetchone()[0])


def with_password(url: str, password: str) -> str:
    return url.replace("memex@", f"memex:{password}@", 1)
