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
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memex_core.api import Memex
from memex_core.config import Config, default_home, load_config
from memex_core.crashpoints import CRASH_ENV, POINTS, TRACE_ENV
from memex_core.domain import Fragment, Provenance, SearchFilters, SignalHit
from memex_core.hookspecs import hookimpl
from memex_core.plugins import PluginRegistry, load_registry
from tests.conftest import EXAMPLES, REPO
from tests.support._data import shared_data_root
from tests.support.codex_builders import assistant, typical_session, user, write_rollout
from tests.support.component_doubles import HashingEmbedder
from tests.support.export_builders import chatgpt_conversation, write_chatgpt_export
from tests.support.worker_shared import built_once

#: Kill points per scenario (material, run). The issue asks for 20 over a run on the real
#: exports and vault; the fixture scenarios always run, in CI too.
KILLS_PER_SCENARIO = {
    ("fixtures", "first"): 10,
    ("fixtures", "resync"): 12,
    ("real", "first"): 20,
    ("real", "resync"): 12,
}
EVERYTHING = SearchFilters(include_private=True)
QUERIES = (
    "kubernetes pod restarting",
    "sqlite database is locked",
    "retry ledger payments worker",
    "compost greens browns",
    "canvas",
    "sync vault settings",
    "keyboard shortcuts",
    "project plan milestone",
)


# -- the components the subprocess uses --------------------------------------------------


class SqliteVectorStore:
    """Vectors in ``<home>/index/test-vectors.sqlite``, exact cosine search.

    Each call is one SQLite transaction, so a kill leaves whole calls or none,
    like chroma's own write-ahead log. Filters use the fields kept per vector.
    """

    def __init__(self, home: Path) -> None:
        path = home / "index" / "test-vectors.sqlite"
        path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS vectors (id TEXT PRIMARY KEY, vector BLOB, fields TEXT)"
        )

    def upsert(self, fragments: Sequence[Fragment], vectors: Sequence[Sequence[float]]) -> None:
        rows = [
            (f.id, np.asarray(v, dtype=np.float32).tobytes(), json.dumps(_fields(f)))
            for f, v in zip(fragments, vectors, strict=True)
        ]
        with self.db:
            self.db.execute("BEGIN")
            self.db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)", rows)

    def delete(self, ids: Iterable[str]) -> None:
        with self.db:
            self.db.execute("BEGIN")
            self.db.executemany("DELETE FROM vectors WHERE id = ?", [(i,) for i in ids])

    def search(
        self, vector: Sequence[float], limit: int, filters: SearchFilters
    ) -> list[SignalHit]:
        query = np.asarray(vector, dtype=np.float32)
        rows = self.db.execute("SELECT id, vector, fields FROM vectors").fetchall()
        if filters != EVERYTHING:
            rows = [r for r in rows if filters.matches(_fragment(r[0], json.loads(r[2])))]
        if not rows:
            return []
        matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32)
        scores = matrix.reshape(len(rows), -1) @ query
        hits = [SignalHit(r[0], float(score)) for r, score in zip(rows, scores, strict=True)]
        return sorted(hits, key=lambda h: (-h.score, h.id))[:limit]

    def count(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM vectors").fetchone()[0])

    def ids(self) -> set[str]:
        return {r[0] for r in self.db.execute("SELECT id FROM vectors")}

    def clear(self) -> None:
        self.db.execute("DELETE FROM vectors")


def _fields(f: Fragment) -> dict[str, Any]:
    return {
        "conversation_id": f.conversation_id,
        "role": f.role,
        "source_kind": f.source_kind,
        "timestamp": f.timestamp,
        "owner": f.owner,
        "collection": f.collection,
        "private": f.private,
    }


def _fragment(fid: str, fields: dict[str, Any]) -> Fragment:
    return Fragment(
        id=fid,
        conversation_id=fields["conversation_id"],
        role=fields["role"],
        content="",
        provenance=Provenance(fields["source_kind"], "", "", "", fields["timestamp"]),
        timestamp=fields["timestamp"],
        owner=fields["owner"],
        collection=fields["collection"],
        private=fields["private"],
    )


class CrashComponents:
    @hookimpl
    def register_embedders(self, register: Any) -> None:
        register("hashing", lambda context: HashingEmbedder())

    @hookimpl
    def register_vector_stores(self, register: Any) -> None:
        register("sqlite-test", lambda context: SqliteVectorStore(context.home))


def crash_registry() -> PluginRegistry:
    registry = load_registry()
    registry.register_plugin(CrashComponents(), name="crash-components")
    return registry


def crash_memex(home: str | Path | None = None) -> Memex:
    """The Memex the subprocess runs: built-in sources and bm25, hashing + SQLite vectors."""
    base = load_config(Path(home) if home else default_home())
    components = {**base.components, "embedder": "hashing", "vector_store": "sqlite-test"}
    config = Config(home=base.home, components=components, raw=dict(base.raw))
    return Memex(registry=crash_registry(), config=config)


def main(argv: list[str]) -> None:
    """``memex`` as the subprocess runs it (``python -c`` imports this and calls it)."""
    import memex_core.cli.opening as opening
    from memex_core.cli import main as memex_main

    opening.Memex = crash_memex  # type: ignore[assignment,misc]
    memex_main(argv)


DRIVER = "import sys; from tests.core.test_crash_ingest import main; main(sys.argv[1:])"


def memex(home: Path, *args: str, crash_at: str | None = None, trace: Path | None = None):
    env = {k: v for k, v in os.environ.items() if k not in (CRASH_ENV, TRACE_ENV)}
    env.update(MEMEX_HOME=str(home), MEMEX_LOCK_TIMEOUT="30", PYTHONPATH=str(REPO))
    if crash_at:
        env[CRASH_ENV] = crash_at
    if trace:
        env[TRACE_ENV] = str(trace)
    return subprocess.run(
        [sys.executable, "-c", DRIVER, *args],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )


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


# -- what must hold ---------------------------------------------------------------------------


def catalog_state(home: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Everything an ingest puts in the catalog, without run ids, sequence numbers and times."""
    db = sqlite3.connect(home / "catalog.sqlite")
    try:
        queries = {
            "fragments": "SELECT id, conversation_id, role, content, title, timestamp, "
            "source_kind, source_path, source_id, locator, metadata, index_text, position, "
            "owner, collection, private FROM fragments",
            "documents": "SELECT id, source_kind, root, path, title, aliases, tags, properties, "
            "sha256, size, mtime_ns, timestamp FROM documents",
            "links": "SELECT source_document, source_fragment, target, kind, heading, block, "
            "display, target_path, target_document FROM links",
            "conversations": "SELECT * FROM conversations",
            "files": "SELECT path, sha256, size, source_kind, fragments, mtime_ns "
            "FROM ingested_files",
            "unembedded": "SELECT id FROM fragments WHERE embedded_by IS NULL",
            "pending_vector_deletes": "SELECT id FROM pending_vector_deletes",
        }
        return {name: sorted(db.execute(sql).fetchall(), key=repr) for name, sql in queries.items()}
    finally:
        db.close()


def fragments_by_source(state: dict[str, list[tuple[Any, ...]]]) -> dict[str, frozenset[str]]:
    """Fragment ids per unit of commit: a note of a vault, or an ingested file."""
    notes = {row[0] for row in state["documents"]}
    grouped: dict[str, set[str]] = {}
    for row in state["fragments"]:
        unit = row[1] if row[1] in notes else row[7]  # conversation_id, source_path
        grouped.setdefault(unit, set()).add(row[0])
    return {source: frozenset(ids) for source, ids in grouped.items()}


def search_results(home: Path) -> dict[str, dict[str, float]]:
    mx = crash_memex(home)
    try:
        out = {}
        for query in QUERIES:
            for mode in ("keyword", "semantic"):
                found = mx.search(query, mode=mode, limit=10_000, filters=EVERYTHING)
                out[f"{mode}:{query}"] = {r.fragment.id: round(r.score, 6) for r in found}
        return out
    finally:
        mx.close()


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


def ingest_args(paths: Sequence[Path]) -> list[str]:
    return ["ingest", *map(str, paths), "--format", "json", "--quiet"]


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


# -- the material ------------------------------------------------------------------------------


def generated_exports(folder: Path) -> Path:
    """Several ChatGPT export files and a Codex rollout: many files, so many file points."""
    folder.mkdir(parents=True)
    topics = ["project plan milestone", "kubernetes pod restarting", "garden compost", "canvas"]
    for n in range(6):
        conversations = [
            chatgpt_conversation(
                f"gen-{n}-{k}",
                f"{topics[(n + k) % 4]} {n}.{k}",
                [
                    ("user", f"question {n}.{k} about {topics[(n + k) % 4]}", 1.7e9 + n * 100 + k),
                    (
                        "assistant",
                        f"answer {n}.{k}: check the {topics[k % 4]}",
                        1.7e9 + n * 100 + k + 1,
                    ),
                ],
            )
            for k in range(8)
        ]
        write_chatgpt_export(folder / f"chatgpt-{n}" / "conversations.json", conversations)
    for name in ("chatgpt-conversations.json", "claude-conversations.json"):
        shutil.copy(EXAMPLES / name, folder / name)
    (folder / "codex").mkdir()
    write_rollout(folder / "codex" / "rollout-2026-01-01.jsonl", typical_session())
    return folder


def grow_rollout(folder: Path) -> None:
    write_rollout(
        folder / "codex" / "rollout-2026-01-01.jsonl",
        [
            *typical_session(),
            user("Now add a retry ledger for refunds too"),
            assistant("Done: refunds go through the same ledger."),
        ],
    )


def generated_vault(folder: Path, notes: int = 24) -> Path:
    (folder / ".obsidian").mkdir(parents=True)
    for n in range(notes):
        sub = folder / f"area-{n % 3}"
        sub.mkdir(exist_ok=True)
        links = f"See [[Note {(n + 1) % notes}]] and [[Note {(n + 5) % notes}#Details]]."
        (sub / f"Note {n}.md").write_text(
            f"# Note {n}\n\nSync vault settings, part {n}. {links}\n\n"
            f"## Details\n\nKeyboard shortcuts number {n}; compost greens browns {n}.\n",
            encoding="utf-8",
        )
    return folder


def change_vault(folder: Path) -> None:
    """Edit, delete, rename and add notes: a resync replaces, removes and re-links."""
    notes = sorted(p for p in folder.rglob("*.md"))
    for path in notes[:6]:  # edited
        path.write_text(path.read_text(encoding="utf-8") + "\n## Added\n\nA new canvas idea.\n")
    for path in notes[6:9]:  # deleted (other notes link to them)
        path.unlink()
    for renamed in notes[9:11]:
        renamed.rename(renamed.with_name("Renamed " + renamed.name))
    (folder / "New note.md").write_text(
        f"# New note\n\nLinks to [[{notes[6].stem}]] (now gone) and [[{notes[12].stem}]].\n"
        f"Also the sync vault settings.\n",
        encoding="utf-8",
    )
    (folder / "Extra").mkdir()
    (folder / "Extra" / "Another.md").write_text(
        "# Another\n\nKeyboard shortcuts, again. [[New note]]\n", encoding="utf-8"
    )


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
