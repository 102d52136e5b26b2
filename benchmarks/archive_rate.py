"""Benchmark: ``memex export`` and ``memex import`` at 10,000 and 100,000 fragments, against
copying the home folder and against ``memex migrate`` on the same home, in one sitting.

A home is built per size from real text (windows of SciFact sentences and LoCoMo turns,
``benchmarks.fragments.passage_corpus``) plus 200 remembered facts of ten users, keyword
index only (no embedder: an export never reads vectors, and the import is measured without
embedding, which costs the same as after an ingest: see section 11). Each step then runs in
a fresh process of its own, so its peak resident memory (``VmHWM``) is its own:

- **copy**: ``shutil.copytree`` of the home folder (catalog and keyword index);
- **export**: ``Memex.export_archive`` of the whole home, access log included;
- **import (SQLite)**: ``Memex.import_archive`` into a new SQLite home, ``embed=False``
  (the rows in one transaction, then the keyword index brought up to them);
- **import (PostgreSQL)**: the same into a fresh PostgreSQL database;
- **reference**: one keyword search in the imported home (a process holding its keyword
  index, for the import's memory to be read against);
- **migrate**: ``memex migrate``'s engine copying the same catalog into PostgreSQL
  (copy and verification), when PostgreSQL is installed.

Standalone: ``python -m benchmarks.archive_rate [--sizes 10000,100000]`` prints the section.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.context import RunContext, log
from benchmarks.data import data_root, load_locomo, load_scifact, missing, scifact_dir
from benchmarks.report import Section, table

#: What the table's import rows say, under it.
IMPORT_NOTE = (
    "An import's wall time is its rows (checked, then written in one transaction) and then "
    "the keyword index brought up to them, which costs what an ingest of the same fragments "
    "costs (tokenising, turn context); the split is the last but one column. Its peak "
    "memory grows with the home for the same reason: the keyword index is built in memory "
    "and flushed once at the end (the archive itself is read a batch of rows at a time, and "
    "searching the imported home afterwards takes far less: the reference row). Export "
    "memory stays flat."
)
TITLE = "15d. Export and import of a home (`memex export` / `memex import`)"
SIZES = (10_000, 100_000)
MEMORIES = 200


def unavailable() -> str | None:
    root = data_root()
    return missing(scifact_dir(), root / "locomo")


def _postgres() -> Any:
    try:
        import psycopg  # noqa: F401

        from tests.support.postgres_server import find_postgres_bin
    except ImportError:
        return None
    return find_postgres_bin()


def build_home(home: Path, size: int) -> None:
    from benchmarks.fragments import passage_corpus
    from tests.support.component_doubles import fast_memex

    passages = passage_corpus(load_scifact().docs, load_locomo(), size)
    mx = fast_memex(home)
    for start in range(0, len(passages), 10_000):
        mx.add_fragments(passages[start : start + 10_000], origin=f"bench:{start}", embed=False)
    for i in range(MEMORIES):
        mx.agent(f"user{i % 10}").remember(
            f"User {i % 10} noted item {i}: project {i} builds with cache {i * 7}."
        )
    mx.close()


# -- the steps, each run in a process of its own ------------------------------------------------


def _no_vectors(home: Path) -> Any:
    """A Memex on ``home`` with the doubles registered but no embedding asked of them."""
    from tests.support.component_doubles import fast_memex

    return fast_memex(home)


def _postgres_memex(home: Path, url: str) -> Any:
    from tests.support.component_doubles import fast_memex

    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        f'[catalog]\nuse = "postgres"\n\n[catalog.postgres]\nurl = "{url}"\n', encoding="utf-8"
    )
    from memex_core.config import load_config

    return fast_memex(home, **load_config(home).raw)


def step(name: str, args: list[str]) -> dict[str, Any]:
    """One step; its wall time counts the work only (not opening the home)."""
    out: dict[str, Any] = {}
    if name == "copy":
        started = time.perf_counter()
        shutil.copytree(args[0], args[1])
    elif name == "export":
        mx = _no_vectors(Path(args[0]))
        mx.catalog.count_fragments()  # opened before the clock starts
        started = time.perf_counter()
        out = mx.export_archive(Path(args[1])).to_dict()
        mx.close()
    elif name in ("import", "import_pg"):
        home = Path(args[1])
        mx = _no_vectors(home) if name == "import" else _postgres_memex(home, args[2])
        mx.catalog.count_fragments()
        started = time.perf_counter()
        out = mx.import_archive(Path(args[0]), embed=False).to_dict()
        mx.close()
    elif name == "search":
        mx = _no_vectors(Path(args[0]))
        started = time.perf_counter()
        out = {"hits": len(mx.search("protein expression in cells", mode="keyword"))}
        mx.close()
    elif name == "migrate":
        from benchmarks.migrate_rate import migrate

        started = time.perf_counter()
        report = migrate(Path(args[0]), args[1])
        out = {"ok": report.ok, "copy_seconds": report.copy_seconds}
    else:
        raise SystemExit(f"unknown step {name}")
    out["seconds"] = time.perf_counter() - started
    out["peak_rss_mb"] = peak_rss_mb()
    return out


def peak_rss_mb() -> float:
    """This process's high-water mark of resident memory: ``VmHWM``, which starts afresh
    with the process (``ru_maxrss`` keeps the parent's across ``exec`` on Linux)."""
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_step(name: str, *args: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.archive_rate", "--step", name, *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=Path(__file__).resolve().parent.parent,
    )
    if done.returncode != 0:
        raise RuntimeError(f"step {name} failed: {done.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    log(f"archive {name}: {result['seconds']:.1f} s, peak RSS {result['peak_rss_mb']:.0f} MB")
    return result


def measure(root: Path, sizes: tuple[int, ...]) -> dict[str, Any]:
    bin_dir = _postgres()
    server = None
    if bin_dir is not None:
        from tests.support.postgres_server import PostgresServer

        server = PostgresServer(bin_dir).start()
    load_before = os.getloadavg()[0]
    results: list[dict[str, Any]] = []
    try:
        for size in sizes:
            base = root / str(size)
            home = base / "home"
            started = time.perf_counter()
            build_home(home, size)
            log(f"archive: home of {size:,} built in {time.perf_counter() - started:.0f} s")
            row: dict[str, Any] = {"size": size}
            row["copy"] = run_step("copy", str(home), str(base / "copy"))
            row["export"] = run_step("export", str(home), str(base / "home.zip"))
            row["archive_bytes"] = (base / "home.zip").stat().st_size
            row["import"] = run_step("import", str(base / "home.zip"), str(base / "imported"))
            row["search"] = run_step("search", str(base / "imported"))
            if server is not None:
                url = server.create_database(f"import_{size}")
                row["import_pg"] = run_step(
                    "import_pg", str(base / "home.zip"), str(base / "pg"), url
                )
                url = server.create_database(f"migrate_{size}")
                row["migrate"] = run_step("migrate", str(home), url)
            results.append(row)
            shutil.rmtree(base, ignore_errors=True)
    finally:
        if server is not None:
            server.destroy()
    return {"sizes": results, "load": (load_before, os.getloadavg()[0])}


def render(measured: dict[str, Any], section: Section) -> Section:
    rows: list[list[str]] = []
    for r in measured["sizes"]:
        size = r["size"]
        fragments = r["export"]["fragments"]

        def rate(seconds: float, fragments: int = fragments) -> str:
            return f"{fragments / seconds:,.0f}"

        steps = [
            ("copy the home folder", r["copy"]),
            ("`memex export` (whole home, with the log)", r["export"]),
            ("`memex import` into a new SQLite home (no embedding)", r["import"]),
        ]
        if "search" in r:
            steps.append(("reference: one keyword search in the imported home", r["search"]))
        if "import_pg" in r:
            steps.append(("`memex import` into a new PostgreSQL database", r["import_pg"]))
        if "migrate" in r:
            steps.append(("`memex migrate` to PostgreSQL (copy + verify)", r["migrate"]))
        for label, s in steps:
            index = s.get("index_seconds")
            rows.append(
                [
                    f"{size:,}",
                    label,
                    f"{s['seconds']:.1f} s",
                    "-" if label.startswith("reference") else rate(s["seconds"]),
                    "-" if index is None else f"{s['seconds'] - index:.1f} s / {index:.1f} s",
                    f"{s['peak_rss_mb']:,.0f} MB",
                ]
            )
    load = measured["load"]
    sizes = ", ".join(f"{r['size']:,}" for r in measured["sizes"])
    archive = ", ".join(
        f"{r['archive_bytes'] / 1024**2:,.1f} MB at {r['size']:,}" for r in measured["sizes"]
    )
    section.add(
        f"Homes of {sizes} fragments (windows of SciFact sentences and LoCoMo turns, plus "
        f"{MEMORIES} remembered facts of ten users; keyword index, no vectors), each step in "
        "a fresh process of its own on this 2-core machine shared with other work (load "
        f"average {load[0]:.1f} before, {load[1]:.1f} after). Rates are the home's fragments "
        "divided by the step's wall time (starting the process and opening the home "
        "excluded; an import's time includes bringing the keyword index up to its rows); "
        "peak RSS is "
        f"the whole process's high-water mark (`VmHWM`). Archive size: {archive}.",
        table(
            ["fragments", "step", "wall", "fragments/s", "rows / keyword index", "peak RSS"],
            rows,
        ),
        IMPORT_NOTE,
    )
    return section


def run(ctx: RunContext) -> Section:
    section = Section("archive", TITLE)
    reason = unavailable()
    if reason:
        section.skipped = reason
        return section
    sizes = (SIZES[0],) if ctx.quick else SIZES
    return render(measure(ctx.tmp / "archive", sizes), section)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.archive_rate")
    parser.add_argument("--sizes", default=",".join(str(s) for s in SIZES))
    parser.add_argument("--step", help=argparse.SUPPRESS)
    parser.add_argument("args", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.step:
        print(json.dumps(step(args.step, args.args)))
        return
    reason = unavailable()
    if reason:
        raise SystemExit(f"skipped: {reason}")
    sizes = tuple(int(s) for s in args.sizes.split(","))
    with tempfile.TemporaryDirectory(prefix="memex-bench-archive-") as tmp:
        section = render(measure(Path(tmp), sizes), Section("archive", TITLE))
    print(f"## {section.title}\n\n" + "\n\n".join(section.body))


if __name__ == "__main__":
    main()
