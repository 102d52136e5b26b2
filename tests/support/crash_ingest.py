"""``memex ingest`` as the crash tests run it: the real command line in a subprocess with
the hashing embedder and a vector store kept in one SQLite file (it outlives the process),
killed at a crash point on request; what a home must hold after (its catalog state, its
searches); and the generated material it ingests (see ``tests/core/test_crash_ingest.py``
and ``tests/core/catalog/test_disk_faults.py``)."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from memex_core.api import Memex
from memex_core.config import Config, default_home, load_config
from memex_core.crashpoints import CRASH_ENV, TRACE_ENV
from memex_core.domain import Fragment, Provenance, SearchFilters, SignalHit
from memex_core.hookspecs import hookimpl
from memex_core.plugins import PluginRegistry, load_registry
from tests.conftest import EXAMPLES, REPO
from tests.support.codex_builders import assistant, typical_session, user, write_rollout
from tests.support.component_doubles import HashingEmbedder
from tests.support.export_builders import chatgpt_conversation, write_chatgpt_export

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


DRIVER = "import sys; from tests.support.crash_ingest import main; main(sys.argv[1:])"


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


def ingest_args(paths: Sequence[Path]) -> list[str]:
    """``memex ingest PATHS`` as the crash tests run it: JSON out, no progress."""
    return ["ingest", *map(str, paths), "--format", "json", "--quiet"]


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
