"""``memex ingest`` killed with SIGKILL at 20 points, then run again: nothing lost or doubled.

Each scenario is one ingest run over a set of paths:

- ``fixtures-first``: generated exports, a Codex rollout and a generated vault, ingested
  into an empty home (always runs);
- ``fixtures-resync``: the same home ingested again after the vault changed (notes
  edited, deleted, renamed, added) and the rollout grew (always runs);
- ``real-first`` / ``real-resync``: the same on the shared real exports and the
  Obsidian Help vault (skipped when ../shared/data is absent).

A clean run with ``MEMEX_CRASH_TRACE`` records every crash point passed (see
:mod:`memex_core.crashpoints`); the kill points (20 over the first run on
the real data, see ``KILLS_PER_SCENARIO``) are chosen from that trace,
deterministically: every point name at least once, the rest spread evenly over
the run. For each, a copy of the starting home is ingested in a subprocess that
kills itself with SIGKILL at that point. Right after the kill the catalog holds
each source whole or not at all and no index is damaged (the doctor finds at
most lag). Then ``memex ingest`` runs again, and the catalog must equal the clean
run's (fragments, documents, links, conversations, files), the doctor must find
nothing at all, and keyword and semantic searches must return what the clean
run's home returns.

The subprocess is the real command line (``memex_core.cli.main``) with the fast
hashing embedder and a vector store kept in one SQLite file in the home (the
in-memory test double would not outlive the process). The "crashes survived"
figure of docs/reliability.md is the number of ``test_ingest_killed_and_rerun...``
cases that passed: the sum of ``KILLS_PER_SCENARIO`` over the scenarios that ran
(54 with the shared data, 22 without).
"""

from __future__ import annotations

import json
import shutil
import signal
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memex_core.crashpoints import POINTS
from tests.support._data import shared_data_root
from tests.support.codex_builders import typical_session, write_rollout
from tests.support.crash_ingest import (
    catalog_state,
    change_vault,
    crash_memex,
    fragments_by_source,
    generated_exports,
    generated_vault,
    grow_rollout,
    ingest_args,
    memex,
    search_results,
)
from tests.support.worker_shared import built_once

#: Kill points per scenario (material, run). The issue asks for 20 over a run on the real
#: exports and vault; the fixture scenarios always run, in CI too.
KILLS_PER_SCENARIO = {
    ("fixtures", "first"): 10,
    ("fixtures", "resync"): 12,
    ("real", "first"): 20,
    ("real", "resync"): 12,
}


# -- choosing where to kill -----------------------------------------------------------------


def choose_kill_points(trace: Sequence[str], count: int) -> list[str]:
    """``<point>:<n>`` specs: each point name once (at its middle occurrence), then the rest
    spread evenly over the run's other steps; in run order, no repeats."""
    assert len(set(trace)) <= count, f"{count} kills cannot cover {len(set(trace))} points"
    occurrence: list[tuple[str, int]] = []
    seen: Counter[str] = Counter()
    for name in trace:
        seen[name] += 1
        occurrence.append((name, seen[name]))
    chosen: set[int] = set()
    for name in dict.fromkeys(trace):
        positions = [i for i, (n, _) in enumerate(occurrence) if n == name]
        chosen.add(positions[len(positions) // 2])
    free = [i for i in range(len(trace)) if i not in chosen]
    wanted = min(count - len(chosen), len(free))
    if wanted > 0:
        for spot in np.linspace(0, len(free) - 1, wanted):
            chosen.add(free[round(spot)])
    return [f"{occurrence[i][0]}:{occurrence[i][1]}" for i in sorted(chosen)]


# -- scenarios ---------------------------------------------------------------------------------


@dataclass
class Scenario:
    """A starting home (a folder to copy, or None for an empty home) and what to ingest."""

    start: Path | None
    paths: list[Path]
    before: dict[str, frozenset[str]]  # fragments per source at the start
    expected: dict[str, list[tuple[Any, ...]]]  # the catalog after a clean run
    results: dict[str, dict[str, float]]  # searches after a clean run
    kill_points: list[str]


def prepare(start: Path | None, home: Path) -> None:
    if start is not None:
        shutil.copytree(start, home)


def clean_run(start: Path | None, paths: list[Path], work: Path, kills: int) -> Scenario:
    """Run the scenario once without a kill, recording the trace and the outcome."""
    home = work / "clean"
    prepare(start, home)
    before = fragments_by_source(catalog_state(home)) if start is not None else {}
    trace = work / "trace.txt"
    done = memex(home, *ingest_args(paths), trace=trace)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["failed"] == 0, done.stdout
    names = trace.read_text(encoding="utf-8").split()
    assert set(names) <= set(POINTS)
    return Scenario(
        start,
        paths,
        before,
        catalog_state(home),
        search_results(home),
        choose_kill_points(names, kills) if kills else [],
    )


def survive(scenario: Scenario, kill_at: str, home: Path) -> None:
    prepare(scenario.start, home)
    killed = memex(home, *ingest_args(scenario.paths), crash_at=kill_at)
    assert killed.returncode == -signal.SIGKILL, (kill_at, killed.returncode, killed.stderr)

    # Right after the kill: each source whole (as before the run or as after it), no damage.
    expected_sources = fragments_by_source(scenario.expected)
    for source, ids in fragments_by_source(catalog_state(home)).items():
        allowed = {scenario.before.get(source), expected_sources.get(source)}
        assert ids in allowed, f"{kill_at}: {source} is half-written"
    mx = crash_memex(home)
    right_after = mx.doctor()
    mx.close()
    severe = [f.code for f in right_after.findings if f.severity == "damage"]
    severe += [f.code for f in right_after.findings if f.code.endswith((".damaged", ".unreadable"))]
    assert not severe, (kill_at, right_after.to_dict())

    rerun = memex(home, *ingest_args(scenario.paths))
    assert rerun.returncode == 0, (kill_at, rerun.stderr)
    assert catalog_state(home) == scenario.expected, kill_at
    mx = crash_memex(home)
    after = mx.doctor()
    mx.close()
    assert after.healthy and after.findings == [], (kill_at, after.to_dict())
    assert search_results(home) == scenario.results, kill_at


Material = Callable[[Path], tuple[list[Path], Callable[[], None]]]


def fixture_material(root: Path) -> tuple[list[Path], Callable[[], None]]:
    exports = generated_exports(root / "exports")
    vault = generated_vault(root / "vault")

    def change() -> None:
        change_vault(vault)
        grow_rollout(exports)

    return [exports, vault], change


def real_material(root: Path) -> tuple[list[Path], Callable[[], None]]:
    data = shared_data_root()
    vault = root / "vault"
    shutil.copytree(data / "obsidian-help" / "en", vault)
    rollouts = root / "rollouts"
    (rollouts / "codex").mkdir(parents=True)
    write_rollout(rollouts / "codex" / "rollout-2026-01-01.jsonl", typical_session())

    def change() -> None:
        change_vault(vault)
        grow_rollout(rollouts)

    return [data / "exports", vault, rollouts], change


MATERIALS: dict[str, Material] = {"fixtures": fixture_material, "real": real_material}


def _scenarios(material: str, root: Path) -> dict[str, Scenario]:
    # Two copies of the material: the first run's stays as it is, the other one changes.
    paths, _ = MATERIALS[material](root / "material-first")
    first = clean_run(None, paths, root / "first", KILLS_PER_SCENARIO[material, "first"])
    paths, change = MATERIALS[material](root / "material-resync")
    start = clean_run(None, paths, root / "start", 0)
    change()
    resync = clean_run(
        root / "start" / "clean", paths, root / "resync", KILLS_PER_SCENARIO[material, "resync"]
    )
    assert resync.expected != start.expected  # the change really changed something
    return {"first": first, "resync": resync}


_BUILT: dict[str, dict[str, Scenario]] = {}


@pytest.fixture(scope="module")
def scenarios(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], dict[str, Scenario]]:
    """The clean runs, built once per test run: the kills are spread over the xdist workers
    (tests/support/xdist_scheduling.py), which share them (they only copy the start homes)."""

    def get(material: str) -> dict[str, Scenario]:
        if material == "real" and not (shared_data_root() / "exports").is_dir():
            pytest.skip(f"shared test data not found at {shared_data_root()}")
        if material not in _BUILT:
            _BUILT[material] = built_once(
                tmp_path_factory,
                f"crash-ingest-{material}",
                lambda work: _scenarios(material, work),
            )
        return _BUILT[material]

    return get


#: (material, run, index of the kill point): one test per kill.
KILLS = [
    pytest.param(material, run, n, id=f"{material}-{run}-{n:02d}")
    for (material, run), count in KILLS_PER_SCENARIO.items()
    for n in range(count)
]


@pytest.mark.slow
@pytest.mark.parametrize(("material", "run", "n"), KILLS)
def test_ingest_killed_and_rerun_loses_and_doubles_nothing(
    scenarios: Callable[[str], dict[str, Scenario]],
    tmp_path: Path,
    material: str,
    run: str,
    n: int,
) -> None:
    scenario = scenarios(material)[run]
    assert len(scenario.kill_points) == KILLS_PER_SCENARIO[material, run]
    survive(scenario, scenario.kill_points[n], tmp_path / "home")


def test_kill_points_cover_every_point_of_the_ingest_path(
    scenarios: Callable[[str], dict[str, Scenario]],
) -> None:
    built = scenarios("fixtures")
    names = {spec.rsplit(":", 1)[0] for s in built.values() for spec in s.kill_points}
    assert names == set(POINTS)


def test_kill_points_are_chosen_deterministically() -> None:
    trace = ["a"] * 10 + ["b"] + ["a"] * 30 + ["c"] * 2
    chosen = choose_kill_points(trace, count=6)
    assert chosen == choose_kill_points(list(trace), count=6)
    assert len(chosen) == len(set(chosen)) == 6
    assert {c.split(":")[0] for c in chosen} == {"a", "b", "c"}


def test_a_gap_that_removed_as_many_fragments_as_it_added_is_closed_on_open(
    tmp_path: Path,
) -> None:
    """A writer killed after replacing a note (two sections out, two in) and before its
    keyword flush: the counts agree, the ids do not. The change journal closes the gap."""
    vault = generated_vault(tmp_path / "vault", notes=3)
    home = tmp_path / "home"
    assert memex(home, *ingest_args([vault])).returncode == 0
    note = next(vault.rglob("Note 1.md"))
    note.write_text("# Note 1\n\nRewritten.\n\n## Details\n\nAlso rewritten.\n", "utf-8")
    killed = memex(home, *ingest_args([vault]), crash_at="catalog.document_committed:1")
    assert killed.returncode == -signal.SIGKILL
    from memex_bm25.store import BM25Store

    on_disk = BM25Store(home / "index" / "bm25")
    mx = crash_memex(home)
    assert on_disk.count() == mx.catalog.count_fragments()
    assert on_disk.ids() != mx.catalog.all_ids()  # the index on disk lags
    assert mx.keyword_store.ids() == mx.catalog.all_ids()  # caught up on open
    hits = mx.search("rewritten", mode="keyword", limit=5)
    assert hits and all("ewritten" in h.fragment.content for h in hits)
    mx.close()


def test_a_reader_that_caught_up_in_memory_still_sees_later_writes(tmp_path: Path) -> None:
    """A long-lived reader (an MCP server, say) opens while a writer's catalog commits are
    not yet in the index: it catches up in memory. Writes flushed later by other processes
    must still reach it."""
    exports = generated_exports(tmp_path / "exports")
    home = tmp_path / "home"
    first = [exports / "chatgpt-0", exports / "chatgpt-1"]
    killed = memex(home, *ingest_args(first), crash_at="ingest.keyword_added:2")
    assert killed.returncode == -signal.SIGKILL
    reader = crash_memex(home)
    assert reader.keyword_store.ids() == reader.catalog.all_ids()  # caught up in memory
    for batch in (["chatgpt-2"], ["chatgpt-3", "chatgpt-4"]):
        done = memex(home, *ingest_args([exports / name for name in batch]))
        assert done.returncode == 0, done.stderr
        assert reader.keyword_store.ids() == reader.catalog.all_ids()
        newest = f"gen-{batch[-1][-1]}-3"
        assert reader.search("question", mode="keyword", conversation=newest, limit=3)
    reader.close()
