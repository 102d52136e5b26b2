"""Benchmark 5: wall time of a cold ``memex dig`` process against a 10,000-fragment home.

The home mixes the SciFact abstracts (one fragment each), the LoCoMo dev turns
and passages of SciFact sentences to fill up to 10,000, all embedded. Each
timing is a fresh ``memex --home H dig QUERY --format json`` subprocess (Python
start, imports, opening the catalog and indexes, embedding the query, both
searches, fusion, JSON output). One untimed run first warms the OS file cache, as
on a machine where memex was used recently. ``python -c pass`` is the floor.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.context import RunContext, StderrProgress, log, write_config
from benchmarks.data import load_locomo, load_scifact, locomo_file, missing, scifact_dir
from benchmarks.fragments import locomo_fragments, passage_corpus, scifact_fragments
from benchmarks.report import Check, Section, table

TARGET = 1.5
QUERIES = (
    "database is locked while another process writes",
    "0-dimensional biomaterials show inductive properties.",
    "When did Caroline go to the LGBTQ support group?",
    "ALDH1 expression is associated with poorer prognosis for breast cancer primary tumors.",
    "What did Melanie paint recently?",
    "how did I fix slow startup",
    "Vitamin D deficiency effects on bone density",
)
_IMPORT_LINE = re.compile(r"^import time:\s+(\d+)\s+\|\s+(\d+)\s+\|(\s*)(\S+)")


def memex_command() -> list[str]:
    script = Path(sys.executable).parent / "memex"
    return [str(script)] if script.exists() else [sys.executable, "-m", "memex_core"]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("MEMEX_HOME", None)
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    return env


def _timed(command: list[str]) -> tuple[float, subprocess.CompletedProcess[str]]:
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=_env())
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}): {done.stderr[-2000:]}")
    return elapsed, done


def build_home(ctx: RunContext, size: int) -> Path:
    scifact = load_scifact()
    fragments = list(scifact_fragments(scifact.docs, whole=True))
    locomo = load_locomo() if locomo_file().exists() else None
    if locomo is not None:
        fragments += list(locomo_fragments(locomo))
    if len(fragments) < size:
        known = {f.id for f in fragments}
        fill = [f for f in passage_corpus(scifact.docs, None, size) if f.id not in known]
        fragments += fill[: size - len(fragments)]
    fragments = fragments[:size]
    home = ctx.home("cold")
    mx = ctx.memex(home)
    log(f"cold start: building a {len(fragments):,}-fragment home (embedding what is new)")
    mx.add_fragments(fragments, origin="bench:cold-mix", progress=StderrProgress())
    stats = mx.stats()
    mx.close()
    if stats.embedded != stats.fragments:
        raise RuntimeError(f"cold home: {stats.embedded} of {stats.fragments} embedded")
    write_config(home, cached_embedder=False)  # the subprocesses use the installed defaults
    return home


_PHASES = """
import json, sys, time
marks = [("start", time.perf_counter())]
def mark(name): marks.append((name, time.perf_counter()))
from memex_core.api import Memex
from memex_core.domain import SearchFilters
mark("import memex_core.api")
mx = Memex(home=sys.argv[1]); mx.catalog
mark("open the catalog")
mx.keyword_store.search(sys.argv[2], 50, SearchFilters())
mark("keyword store: open + search")
vector = mx.embedder.embed_query(sys.argv[2])
mark("embedder: load + embed the query")
mx.vector_store.search(vector, 50, SearchFilters())
mark("vector store: open (imports chromadb) + search")
mx.search(sys.argv[2], mode="hybrid", limit=10)
mark("a whole hybrid search, everything loaded")
print(json.dumps([(n, b - a) for (_, a), (n, b) in zip(marks, marks[1:])]))
"""


def phases(home: Path, query: str) -> list[list[object]]:
    """Where a cold dig's time goes, measured inside one fresh process through the public API."""
    _, done = _timed([sys.executable, "-c", _PHASES, str(home), query])
    return [[name, f"{seconds * 1000:.0f} ms"] for name, seconds in json.loads(done.stdout)]


def top_imports(home: Path, query: str, count: int = 10) -> tuple[float, list[list[object]]]:
    command = [
        sys.executable,
        "-X",
        "importtime",
        "-m",
        "memex_core",
        "--home",
        str(home),
        "dig",
        query,
        "--format",
        "json",
    ]
    _, done = _timed(command)
    top_level = []
    for line in done.stderr.splitlines():
        match = _IMPORT_LINE.match(line)
        if match and len(match.group(3)) == 1:  # one space after "|": imported at top level
            top_level.append((int(match.group(2)), match.group(4)))
    total = sum(us for us, _ in top_level) / 1e6
    top_level.sort(reverse=True)
    rows: list[list[object]] = [[name, f"{us / 1000:.0f} ms"] for us, name in top_level[:count]]
    return total, rows


def run(ctx: RunContext) -> Section:
    section = Section("cold", "5. Cold `memex dig` wall time")
    reason = missing(scifact_dir() / "corpus.jsonl") or ctx.embedder_available()
    if reason:
        section.skipped = reason
        return section
    size = ctx.sizes.cold_fragments
    home = build_home(ctx, size)
    runs = ctx.sizes.cold_runs
    queries = [QUERIES[i % len(QUERIES)] for i in range(runs)]
    memex = memex_command()
    dig = [[*memex, "--home", str(home), "dig", q, "--format", "json"] for q in queries]
    _, warm = _timed(dig[0])
    hits = len(json.loads(warm.stdout))
    log(f"cold start: timing {runs} dig processes")
    dig_times = [_timed(command)[0] for command in dig]
    keyword_times = [
        _timed([*memex, "--home", str(home), "keyword", q, "--format", "json"])[0] for q in queries
    ]
    help_times = [_timed([*memex, "--help"])[0] for _ in range(runs)]
    floor = [_timed([sys.executable, "-c", "pass"])[0] for _ in range(runs)]
    import_total, import_rows = top_imports(home, queries[0])
    phase_rows = phases(home, queries[0])

    median = statistics.median(dig_times)
    section.checks.append(
        Check(
            f"cold `memex dig` @ {size:,} fragments (median of {runs})",
            f"{median:.2f} s",
            "<= 1.5 s",
            f"`python -c pass` {statistics.median(floor):.2f} s",
            median <= TARGET,
        )
    )

    def row(label: str, values: list[float]) -> list[object]:
        return [
            label,
            f"{min(values):.3f} s",
            f"{statistics.median(values):.3f} s",
            f"{max(values):.3f} s",
        ]

    section.add(
        f"Home: {size:,} fragments (SciFact abstracts, LoCoMo dev turns, SciFact sentence "
        f"passages), all embedded, default config. Command: `{Path(memex[-1]).name} "
        f"--home H dig QUERY --format json`, {runs} fresh processes over {len(set(queries))} "
        f"different queries after one untimed warm-up run (which returned {hits} results).",
        table(
            ["process", "min", "median", "max"],
            [
                row("`memex dig` (hybrid)", dig_times),
                row("`memex keyword`", keyword_times),
                row("`memex --help`", help_times),
                row("`python -c pass` (floor)", floor),
            ],
        ),
        f"`python -X importtime` on one `dig`: top-level imports total {import_total:.2f} s; "
        "the largest (cumulative, including what they import):",
        table(["module", "cumulative import time"], import_rows),
        "Phases inside one fresh process (after Python itself started), run one after the "
        "other through the public API; `dig` itself overlaps embedding the query with opening "
        "the vector store, so it spends less than their sum:",
        table(["phase", "time"], phase_rows),
    )
    shutil.rmtree(home, ignore_errors=True)
    return section
