"""Benchmark 5: wall time of a cold ``memex dig`` process at 10,000 and 100,000 fragments,
run in its own process and answered by a warm process (``memex warm``, issue 18).

The homes are the hybrid benchmark's (:mod:`benchmarks.scale`): passages of
SciFact sentences and LoCoMo turns with their MiniLM vectors, default config.
Each timing is a fresh ``memex --home H dig QUERY --format json`` subprocess
(Python start, imports, opening the catalog and indexes, embedding the query,
both searches, fusion, JSON output); its peak RSS comes from ``wait4``. One
untimed run first warms the OS file cache, as on a machine where memex was used
recently. ``python -c pass`` is the floor.

"In-process" runs set ``MEMEX_NO_WARM=1``. "Warm" runs go through the socket of a
``memex warm start`` process on the same home (each checked to have gone through
it: ``MEMEX_WARM_DEBUG=1`` would say otherwise), and their JSON is compared with
the in-process run of the same query.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks import corpus, scale
from benchmarks.context import RunContext, log
from benchmarks.report import Check, Section, table

TARGET = 0.5  # issue 18: a cold `memex dig` at 100,000 fragments in at most 0.5 s wall
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


IN_PROCESS = {"MEMEX_NO_WARM": "1"}
THROUGH_WARM = {"MEMEX_WARM_DEBUG": "1"}  # says on stderr when it ran in its own process
NOT_WARM = "memex: running here, not in a warm process"


def _env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {name: value for name, value in os.environ.items() if not name.startswith("MEMEX_")}
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    env.update(extra or {})
    return env


def _timed(
    command: list[str], env: dict[str, str] | None = None
) -> tuple[float, subprocess.CompletedProcess[str]]:
    elapsed, done, _ = timed_with_rss(command, env)
    return elapsed, done


#: Runs a command as its grandchild and reports its wall time and peak RSS. Linux carries a
#: process's ``ru_maxrss`` over from whoever forked it (here the bench runner, holding its
#: corpora) across ``exec``; forked from this small launcher instead, the command's figure
#: is its own. The timing starts at the fork, so the launcher's start-up is not in it.
_LAUNCHER = """
import os, sys, time
started = time.perf_counter()
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
elapsed = time.perf_counter() - started
code = os.waitstatus_to_exitcode(status)
sys.stderr.write(f"\\n@@bench {elapsed} {usage.ru_maxrss} {code}\\n")
sys.exit(code)
"""


def timed_with_rss(
    command: list[str], env: dict[str, str] | None = None
) -> tuple[float, subprocess.CompletedProcess[str], float]:
    """Wall time, output and peak RSS (MB, from ``wait4``) of one fresh process (in its own
    process unless ``env`` says otherwise)."""
    done = subprocess.run(
        [sys.executable, "-c", _LAUNCHER, *command],
        capture_output=True,
        text=True,
        env=_env(IN_PROCESS if env is None else env),
    )
    stderr, _, marker = done.stderr.rpartition("\n@@bench ")
    try:
        elapsed, rss_kb, _ = marker.split()
    except ValueError:
        raise RuntimeError(f"{' '.join(command)} did not run: {done.stderr[-2000:]}") from None
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}): {stderr[-2000:]}")
    return (
        float(elapsed),
        subprocess.CompletedProcess(command, 0, done.stdout, stderr),
        (int(rss_kb) / 1024),
    )


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
mark("vector store: open (chroma's engine, not the chromadb package) + search")
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


@dataclass
class Cold:
    """Fresh-process timings at one size."""

    size: int
    dig: list[float]
    dig_rss_mb: list[float]
    keyword: list[float]
    hits: int
    command: str = "dig"  # "keyword" on a keyword-only home
    #: stdout of each in-process run, by (command, query): what the warm runs must print
    outputs: dict[tuple[str, str], str] = field(default_factory=dict)


_COLD: dict[tuple[Path, int], Cold] = {}


def measure(ctx: RunContext, size: int, runs: int | None = None) -> Cold:
    """Time ``runs`` cold ``dig`` and ``keyword`` processes on the scale home of ``size``
    (once per run and size)."""
    key = (ctx.tmp, size)
    if key in _COLD:
        return _COLD[key]
    point = scale.point(ctx, size, with_peers=False)
    home = point.home
    runs = runs or ctx.sizes.cold_runs
    queries = [QUERIES[i % len(QUERIES)] for i in range(runs)]
    memex = memex_command()
    # A keyword-only home (the million) is searched with `memex keyword` in both columns.
    search = "dig" if point.vectors == scale.VECTORS_REAL else "keyword"
    _, first = _timed([*memex, "--home", str(home), search, queries[0], "--format", "json"])
    log(f"cold start @ {size:,}: timing {runs} {search} and keyword processes")
    dig, rss, keyword = [], [], []
    outputs: dict[tuple[str, str], str] = {}
    for query in queries:
        seconds, done, peak = timed_with_rss(
            [*memex, "--home", str(home), search, query, "--format", "json"]
        )
        dig.append(seconds)
        rss.append(peak)
        outputs[(search, query)] = done.stdout
    for query in queries:
        seconds, done = _timed([*memex, "--home", str(home), "keyword", query, "--format", "json"])
        keyword.append(seconds)
        outputs[("keyword", query)] = done.stdout
    found = Cold(size, dig, rss, keyword, len(json.loads(first.stdout)), search, outputs)
    _COLD[key] = found
    return found


@dataclass
class Warm:
    """The same commands answered by a ``memex warm`` process on the same home."""

    size: int
    dig: list[float]
    keyword: list[float]
    start_seconds: float  # `memex warm start`: until the process listens, indexes loaded
    equal: int  # runs whose JSON is the in-process run's, byte for byte
    compared: int


def measure_warm(ctx: RunContext, cold: Cold) -> Warm:
    """Time the queries of :func:`measure` through a warm process started for this."""
    home = scale.point(ctx, cold.size, with_peers=False).home
    memex = memex_command()
    started = time.perf_counter()
    subprocess.run(
        [*memex, "--home", str(home), "warm", "start", "--idle-minutes", "10"],
        check=True,
        capture_output=True,
        env=_env(),
    )
    start_seconds = time.perf_counter() - started
    log(f"cold start @ {cold.size:,}: warm process up in {start_seconds:.1f} s; timing through it")
    times: dict[str, list[float]] = {cold.command: [], "keyword": []}
    equal = compared = 0
    try:
        for (command, query), expected in cold.outputs.items():
            seconds, done = _timed(
                [*memex, "--home", str(home), command, query, "--format", "json"], THROUGH_WARM
            )
            if NOT_WARM in done.stderr:
                raise RuntimeError(
                    f"{command} {query!r} did not go through the warm process: "
                    f"{done.stderr.strip()}"
                )
            times[command].append(seconds)
            compared += 1
            equal += done.stdout == expected
    finally:
        subprocess.run(
            [*memex, "--home", str(home), "warm", "stop"], capture_output=True, env=_env()
        )
    return Warm(cold.size, times[cold.command], times["keyword"], start_seconds, equal, compared)


def run(ctx: RunContext) -> Section:
    section = Section("cold", "5. Cold `memex dig` wall time")
    reason = corpus.unavailable() or ctx.embedder_available()
    if reason:
        section.skipped = reason
        return section
    runs = ctx.sizes.cold_runs
    figures = [measure(ctx, size) for size in ctx.sizes.cold_sizes]
    warms = [measure_warm(ctx, cold) for cold in figures]
    largest = scale.point(ctx, figures[-1].size, with_peers=False).home
    memex = memex_command()
    help_times = [_timed([*memex, "--help"])[0] for _ in range(runs)]
    floor = [_timed([sys.executable, "-c", "pass"])[0] for _ in range(runs)]
    import_total, import_rows = top_imports(largest, QUERIES[0])
    phase_rows = phases(largest, QUERIES[0])
    pass_median = statistics.median(floor)
    for cold, warm in zip(figures, warms, strict=True):
        median = statistics.median(cold.dig)
        warm_median = statistics.median(warm.dig)
        section.checks.append(
            Check(
                f"cold `memex {cold.command}` @ {cold.size:,}, warm process running "
                f"(median of {runs})",
                f"{warm_median:.2f} s",
                f"<= {TARGET} s",
                f"in-process {median:.2f} s ({median / warm_median:.1f}x); "
                f"`python -c pass` {pass_median:.2f} s",
                warm_median <= TARGET,
            )
        )
        section.checks.append(
            Check(
                f"cold `memex {cold.command}` @ {cold.size:,}, no warm process (median of {runs})",
                f"{median:.2f} s",
                f"<= {TARGET} s",
                f"`python -c pass` {pass_median:.2f} s",
                median <= TARGET,
            )
        )
        section.checks.append(
            Check(
                f"same JSON through the warm process @ {cold.size:,}",
                f"{warm.equal}/{warm.compared}",
                "all",
                "-",
                warm.equal == warm.compared,
            )
        )

    def row(label: str, values: list[float]) -> list[object]:
        return [
            label,
            f"{min(values):.3f} s",
            f"{statistics.median(values):.3f} s",
            f"{max(values):.3f} s",
        ]

    rows = []
    for cold, warm in zip(figures, warms, strict=True):
        rows.append(row(f"`memex {cold.command}` @ {cold.size:,}, in-process", cold.dig))
        rows.append(row(f"`memex {cold.command}` @ {cold.size:,}, warm process", warm.dig))
        rows.append(row(f"`memex keyword` @ {cold.size:,}, in-process", cold.keyword))
        rows.append(row(f"`memex keyword` @ {cold.size:,}, warm process", warm.keyword))
    rows.append(row("`memex --help`", help_times))
    rows.append(row("`python -c pass` (floor)", floor))
    section.add(
        "Homes: the hybrid benchmark's (passages of SciFact sentences and LoCoMo turns, all "
        "with MiniLM vectors, default config). Command: `"
        f"{Path(memex[-1]).name} --home H dig QUERY --format json`, {runs} fresh processes "
        f"over {len(set(QUERIES[:runs]))} different queries after one untimed warm-up run "
        f"(which returned {figures[-1].hits} results). Peak RSS of a `dig` process (median): "
        + ", ".join(f"{statistics.median(c.dig_rss_mb):,.0f} MB @ {c.size:,}" for c in figures)
        + ". In-process: `MEMEX_NO_WARM=1`. Warm process: the same commands while a `memex "
        "warm start` process holds the home open (started in "
        + ", ".join(f"{w.start_seconds:.1f} s @ {w.size:,}" for w in warms)
        + ", indexes loaded); every timed run checked to have gone through it, and its JSON "
        "compared with the in-process run of the same query.",
        table(["process", "min", "median", "max"], rows),
        f"`python -X importtime` on one `dig` @ {figures[-1].size:,}: top-level imports total "
        f"{import_total:.2f} s; the largest (cumulative, including what they import):",
        table(["module", "cumulative import time"], import_rows),
        f"Phases inside one fresh process @ {figures[-1].size:,} (after Python itself "
        "started), run one after the other through the public API; `dig` itself overlaps "
        "embedding the query with opening the vector store, so it spends less than their sum:",
        table(["phase", "time"], phase_rows),
    )
    return section
