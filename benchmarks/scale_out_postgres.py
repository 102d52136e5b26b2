"""Benchmark 15's PostgreSQL: a server of the run with fsync on, its settings and the CPU
its processes use."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

# -- PostgreSQL with fsync on ----------------------------------------------------------------


def postgres_unavailable() -> str | None:
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg is not installed (pip install 'memex[postgres]')"
    from tests.support.postgres_server import find_postgres_bin, missing_reason

    return None if find_postgres_bin() else missing_reason()


@contextmanager
def durable_postgres() -> Iterator[Any]:
    """A PostgreSQL server of the test layout, but durable: fsync and full-page writes on.

    Started here rather than by ``PostgresServer.start``, whose command-line options (which
    win over postgresql.conf) turn both off for tests."""
    from tests.support.postgres_server import PostgresServer, find_postgres_bin

    bin_dir = find_postgres_bin()
    assert bin_dir is not None  # checked by postgres_unavailable()
    server = PostgresServer(bin_dir)  # its own folder under /tmp (the server user's, as root)
    server.init()
    _durable_start(server)
    try:
        yield server
    finally:
        server.destroy()


def _durable_start(server: Any) -> None:
    options = " ".join(
        [
            f"-p {server.port}",
            "-c listen_addresses=127.0.0.1",
            f"-k {server.sockets}",
            "-c fsync=on",
            "-c full_page_writes=on",
            "-c synchronous_commit=on",
            "-c max_connections=200",
            "-c shared_buffers=128MB",
        ]
    )
    result = server._run(
        "pg_ctl", "-D", str(server.data), "-l", str(server.log), "-o", options, "-w", "start",
        check=False,
    )  # fmt: skip
    if result.returncode != 0:
        raise RuntimeError(f"PostgreSQL did not start: {result.stderr}\n{server.log_tail()}")


def server_settings(url: str) -> dict[str, str]:
    import psycopg

    names = ("server_version", "fsync", "full_page_writes", "synchronous_commit", "shared_buffers")
    with psycopg.connect(url, autocommit=True) as conn:
        return {n: str(conn.execute(f"SHOW {n}").fetchone()[0]) for n in names}  # type: ignore[index]


def server_cpu(server: Any) -> float:
    """CPU seconds (user and system) the PostgreSQL server has used so far: the postmaster
    and every process below it, with what its exited children used (Linux /proc)."""
    postmaster = int((server.data / "postmaster.pid").read_text().split()[0])
    tick = os.sysconf("SC_CLK_TCK")
    stats: dict[int, list[str]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stats[int(entry.name)] = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # gone meanwhile
    parents = {pid: int(fields[1]) for pid, fields in stats.items()}

    def below(pid: int) -> bool:
        while pid > 1:
            if pid == postmaster:
                return True
            pid = parents.get(pid, 0)
        return False

    total = 0
    for pid, fields in stats.items():
        if below(pid):
            total += int(fields[11]) + int(fields[12])  # utime, stime
            if pid == postmaster:
                total += int(fields[13]) + int(fields[14])  # its reaped children's
    return total / tick


def catalog_config(url: str) -> str:
    return f'[catalog]\nuse = "postgres"\n\n[catalog.postgres]\nurl = "{url}"\n'
