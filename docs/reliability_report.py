"""Write docs/reliability.md from a run of the reliability tests (``nox -s reliability``).

    python docs/reliability_report.py JUNIT_XML COUNTS_JSON [--out docs/reliability.md]

``JUNIT_XML`` is pytest's ``--junitxml`` of the families below; ``COUNTS_JSON`` is
what the hostile-input tests tallied (``MEMEX_RELIABILITY_COUNTS``). Every figure
is a count of test cases that passed in that run: a skipped case (no shared data,
not root, no chroma server) is shown as skipped and never counted as survived.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Family:
    title: str
    what: str  # what one passing case proves
    selectors: tuple[str, ...]  # "file" or "file::test_function"


FAMILIES = (
    Family(
        "Crashes survived",
        "`memex ingest` killed with SIGKILL at a traced point, rerun: catalog equal to a clean "
        "run, nothing lost or doubled, doctor clean, searches equal",
        ("test_crash_ingest.py::test_ingest_killed_and_rerun_loses_and_doubles_nothing",),
    ),
    Family(
        "Corruptions repaired",
        "an index damaged on purpose, found by `memex doctor`, repaired from the catalog, "
        "searches identical to a fresh build, no catalog row lost",
        (
            "test_doctor.py::test_the_doctor_finds_the_damage_and_repair_undoes_it",
            "test_doctor.py::test_chroma_vectors_dropped_and_orphaned_are_repaired",
        ),
    ),
    Family(
        "Disk full and read-only homes",
        "a clear error naming the home and the fix; every file's hash unchanged or "
        "consistent by the doctor",
        (
            "test_disk_faults.py::test_disk_full_says_so_and_leaves_nothing_half_written",
            "test_disk_faults.py::test_a_read_only_home_is_named_with_the_fix_and_left_untouched",
        ),
    ),
    Family(
        "Concurrent processes",
        "two writers on one home, searches during an ingest, chroma readers during writes: "
        "the doctor finds nothing and the catalog equals a serial run",
        ("test_concurrency.py",),
    ),
    Family(
        "Chroma server outages",
        "a real `chroma run` stopped, killed, paused: keyword fallback marked as such, "
        "recovery without a restart, pending vectors backfilled",
        ("test_chroma_outage.py", "test_vector_outage_writes.py"),
    ),
    Family(
        "Hostile input",
        "parsers, archives, vaults, SQL and queries: only memex's own errors, never a "
        "traceback, never a partial write",
        (
            "test_hostile_sources.py",
            "test_hostile_archives.py",
            "test_hostile_vault.py",
            "test_hostile_sql.py",
            "test_hostile_queries.py",
        ),
    ),
    Family(
        "Isolation between users",
        "an agent bound to one user reaches nothing of another's through any argument: "
        "handles, HTTP, the viewer, the agent view, LangChain, LlamaIndex, MCP tools",
        (
            "test_matrix_1_paths.py",
            "test_matrix_2_ids.py",
            "test_matrix_3_search.py",
            "test_matrix_3_routes.py",
            "test_matrix_4_writes.py",
            "test_matrix_5_dream.py",
            "test_matrix_6_access.py",
            "test_matrix_7_catalog.py",
            "test_matrix_8_log.py",
            "test_agent_view.py",
            "test_langchain_retriever.py",
            "test_langchain_store.py",
            "test_llamaindex_retriever.py",
            "test_llamaindex_memory.py",
            "test_mcp_server.py",
        ),
    ),
    Family(
        "MCP HTTP guard",
        "requests without the bearer token get 401, foreign origins and hosts get 403, "
        "nothing listens beyond loopback",
        ("test_mcp_http.py",),
    ),
)


@dataclass
class Outcomes:
    passed: int = 0
    skipped: int = 0
    failed: int = 0


def read_junit(path: Path) -> dict[tuple[str, str], Counter[str]]:
    """(file name, test function) -> outcome counts, parametrized cases counted one by one."""
    found: dict[tuple[str, str], Counter[str]] = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        module = case.get("classname", "").split(".")
        file_name = next((m + ".py" for m in module if m.startswith("test_")), "")
        function = case.get("name", "").split("[")[0]
        if case.find("skipped") is not None:
            outcome = "skipped"
        elif case.find("failure") is not None or case.find("error") is not None:
            outcome = "failed"
        else:
            outcome = "passed"
        found.setdefault((file_name, function), Counter())[outcome] += 1
    return found


def tally(family: Family, junit: dict[tuple[str, str], Counter[str]]) -> Outcomes:
    out = Outcomes()
    for (file_name, function), counts in junit.items():
        for selector in family.selectors:
            wanted_file, _, wanted_function = selector.partition("::")
            if file_name == wanted_file and wanted_function in ("", function):
                out.passed += counts["passed"]
                out.skipped += counts["skipped"]
                out.failed += counts["failed"]
                break
    return out


def _commit() -> str:
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip()
    except OSError:
        return "unknown"


def render(junit: dict[tuple[str, str], Counter[str]], hostile: dict[str, int]) -> str:
    lines = [
        "# Reliability",
        "",
        "Generated by `nox -s reliability` (`docs/reliability_report.py`); do not edit by hand.",
        "Each figure counts test cases that passed in that run; a failing case would be an",
        "escape or a loss, so the run's verdict is the last column.",
        "",
        f"- Date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
        f"- Python {platform.python_version()} on {platform.system()} {platform.machine()}",
        f"- memex commit: {_commit()}",
        "",
        "| family | what one case proves | cases passed | skipped | failed |",
        "|---|---|---|---|---|",
    ]
    for family in FAMILIES:
        got = tally(family, junit)
        lines.append(
            f"| {family.title} | {family.what} | {got.passed:,} | {got.skipped:,} | "
            f"{got.failed:,} |"
        )
    lines += [
        "",
        "## Hostile inputs tried, by family",
        "",
        "Counted by the hostile-input tests themselves (each generated or hand-written input "
        "once); property-based families use hypothesis, `HYPOTHESIS_PROFILE=hostile` runs ten "
        "times as many with random seeds.",
        "",
        "| family | inputs tried |",
        "|---|---|",
    ]
    for name, count in sorted(hostile.items(), key=lambda item: (-item[1], item[0])):
        lines.append(f"| {name} | {count:,} |")
    lines.append(f"| **all** | **{sum(hostile.values()):,}** |")
    lines += [
        "",
        "Skipped cases need something this run did not have: the shared real exports "
        "(`../shared/data`), root for a tmpfs, or a `chroma` executable. They are not counted "
        "above.",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("junit", type=Path)
    parser.add_argument("counts", type=Path)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "reliability.md")
    args = parser.parse_args(argv)
    junit = read_junit(args.junit)
    hostile = json.loads(args.counts.read_text()) if args.counts.exists() else {}
    args.out.write_text(render(junit, hostile))
    failed = sum(tally(f, junit).failed for f in FAMILIES)
    print(f"Wrote {args.out} ({failed} failed case(s)).")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
