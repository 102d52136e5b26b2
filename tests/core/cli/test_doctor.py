"""``memex doctor``: every way of damaging a home is found, and ``--repair`` undoes it.

A template home (two chat exports, a small vault, agent memories) is built once.
Each test copies it, damages one index (or the catalog's derived rows) in one
way, checks that the doctor names the damage, repairs, and then checks that the
doctor finds the home healthy and that keyword and semantic searches return
exactly what they returned before the damage (the same ids with the same
scores), which is also what indexes built afresh from the catalog return.

``CORRUPTIONS`` lists the damages (the figure docs/reliability.md reports as
"corruptions repaired"); ``UNREPAIRABLE`` lists damage the doctor must report
without touching anything.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from memex_bm25 import storage
from memex_core.api import Memex
from memex_core.cli import cli
from memex_core.config import Config, load_config
from memex_core.domain import Fragment, Provenance
from memex_core.plugins import load_registry
from tests.conftest import EXAMPLES
from tests.support import component_doubles
from tests.support.component_doubles import DoublesPlugin
from tests.support.doctor_home import (
    ListingVectorStore,
    Template,
    doctor_memex,
    search_results,
    stored,
    write_vault,
)


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Template]:
    root = tmp_path_factory.mktemp("doctor")
    home = root / "home"
    mx = doctor_memex(home)
    report = mx.ingest(EXAMPLES, write_vault(root / "vault"))
    assert not report.failed and report.fragments_added > 20
    alice = mx.agent("alice")
    alice.remember("Alice prefers green tea in the afternoon.")
    alice.remember("Alice lives in Lisbon.")
    private = alice.remember("Alice's door code is kept private.", private=True).memory_ids[0]
    gone = alice.remember("Alice used to live in Porto.").memory_ids[0]
    mx.operator().forget(gone)
    mx.agent("bob").remember("Bob grows tomatoes in raised beds.")
    assert mx.doctor().healthy
    results = search_results(mx)
    store = component_doubles._STORES[home]
    assert isinstance(store, ListingVectorStore)
    mx.close()
    yield Template(home, store, results, gone, private)


@pytest.fixture
def home(template: Template, tmp_path: Path) -> Path:
    copy = tmp_path / "home"
    shutil.copytree(template.home, copy)
    component_doubles._STORES[copy] = template.store.clone()
    return copy


# -- ways to damage a home --------------------------------------------------------------


def bm25_root(home: Path) -> Path:
    return home / "index" / "bm25"


def manifest(home: Path) -> dict:
    found = storage.read_manifest(bm25_root(home))
    assert found is not None
    return found


def bm25_file(home: Path, name: str) -> Path:
    """The file ``name`` in the biggest folder of the current generation."""
    current = manifest(home)
    folders = [current["base"], current["delta"]]
    sizes = {f: (bm25_root(home) / f / name).stat().st_size for f in folders}
    return bm25_root(home) / max(folders, key=lambda f: sizes[f]) / name


def open_bm25(home: Path):
    from memex_bm25.store import BM25Store

    return BM25Store(bm25_root(home))


def fake_fragment(n: int) -> Fragment:
    return Fragment(
        id=f"ghost-{n}",
        conversation_id="ghost",
        role="user",
        content=f"ghost fragment {n} about kubernetes and tomatoes",
        provenance=Provenance("chatgpt", "/nowhere.json", "ghost", str(n), None),
    )


def keyword_ids(home: Path) -> list[str]:
    return sorted(open_bm25(home).ids())


def keyword_rows_deleted(home: Path, t: Template) -> None:
    store = open_bm25(home)
    store.delete(keyword_ids(home)[::7])
    store.flush()


def keyword_orphans_added(home: Path, t: Template) -> None:
    store = open_bm25(home)
    store.add([fake_fragment(n) for n in range(5)])
    store.flush()


def keyword_swapped_same_count(home: Path, t: Template) -> None:
    """As many removed as added: a count comparison sees nothing wrong."""
    store = open_bm25(home)
    store.delete(keyword_ids(home)[:5])
    store.add([fake_fragment(n) for n in range(5)])
    store.flush()


def manifest_truncated(home: Path, t: Template) -> None:
    path = bm25_root(home) / storage.MANIFEST
    path.write_bytes(path.read_bytes()[:40])


def manifest_deleted(home: Path, t: Template) -> None:
    (bm25_root(home) / storage.MANIFEST).unlink()


def manifest_garbage(home: Path, t: Template) -> None:
    (bm25_root(home) / storage.MANIFEST).write_bytes(bytes(range(256)) * 3)


def postings_truncated(home: Path, t: Template) -> None:
    path = bm25_file(home, "posting_slots.npy")
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def garble(path: Path, offset_from_end: int = 64, length: int = 16) -> None:
    data = bytearray(path.read_bytes())
    start = max(128, len(data) - offset_from_end)  # past the .npy header
    for i in range(start, min(len(data), start + length)):
        data[i] ^= 0xA5
    path.write_bytes(bytes(data))


def postings_garbled(home: Path, t: Template) -> None:
    garble(bm25_file(home, "posting_slots.npy"))


def frequencies_garbled(home: Path, t: Template) -> None:
    garble(bm25_file(home, "posting_tf.npy"))


def ids_garbled(home: Path, t: Template) -> None:
    garble(bm25_file(home, "doc_ids.npy"), offset_from_end=40, length=3)


def vocabulary_reworded(home: Path, t: Template) -> None:
    """Valid JSON, same size, another word: only the checksum can tell."""
    path = bm25_file(home, "vocab.json")
    words = json.loads(path.read_text(encoding="utf-8"))
    target = next(i for i, w in enumerate(words) if w.startswith("kubernet"))
    words[target] = "x" * len(words[target])
    path.write_text(json.dumps(words, ensure_ascii=False, separators=(",", ":")), "utf-8")


def old_index_garbled(home: Path, t: Template) -> None:
    """An index written before checksums existed, then damaged: the array checks find it."""
    current = manifest(home)
    del current["checksums"]
    (bm25_root(home) / storage.MANIFEST).write_text(json.dumps(current), encoding="utf-8")
    path = bm25_file(home, "posting_slots.npy")
    slots = np.load(path)
    slots[len(slots) // 2] = slots[len(slots) // 2 + 1]  # in range, out of order
    np.save(path, slots)


def generation_folder_deleted(home: Path, t: Template) -> None:
    shutil.rmtree(bm25_file(home, "doc_ids.npy").parent)


def vectors_dropped(home: Path, t: Template) -> None:
    store = component_doubles._STORES[home]
    store.delete(sorted(store.vectors)[::5])


def vectors_all_dropped(home: Path, t: Template) -> None:
    component_doubles._STORES[home].clear()


def vector_store_broken(home: Path, t: Template) -> None:
    stored(home).broken = "damaged"


def vector_orphans_added(home: Path, t: Template) -> None:
    store = component_doubles._STORES[home]
    ghosts = [fake_fragment(n) for n in range(4)]
    store.upsert(ghosts, np.eye(len(ghosts), 64, dtype=np.float32).tolist())


def vector_deletes_left_queued(home: Path, t: Template) -> None:
    """A writer removed fragments and died before deleting their vectors."""
    vector_orphans_added(home, t)
    with sqlite3.connect(home / "catalog.sqlite") as db:
        db.executemany(
            "INSERT INTO pending_vector_deletes (id) VALUES (?)",
            [(f"ghost-{n}",) for n in range(4)],
        )


def embedding_marks_lost(home: Path, t: Template) -> None:
    """Vectors stored, the catalog never told (killed between the two)."""
    with sqlite3.connect(home / "catalog.sqlite") as db:
        db.execute("UPDATE fragments SET embedded_by = NULL WHERE seq % 3 = 0")


def marked_by_another_embedder(home: Path, t: Template) -> None:
    with sqlite3.connect(home / "catalog.sqlite") as db:
        db.execute("UPDATE fragments SET embedded_by = 'old-model' WHERE seq % 4 = 0")


def forgotten_memory_searchable(home: Path, t: Template) -> None:
    """Fragments of a deleted memory back in the catalog and the keyword index."""
    ghost = Fragment(
        id="forgotten-fragment",
        conversation_id=t.forgotten,
        role="note",
        content="Alice used to live in Porto.",
        provenance=Provenance("memory", f"memory:{t.forgotten}", t.forgotten, "x", None),
        owner="users/alice",
    )
    with sqlite3.connect(home / "catalog.sqlite") as db:
        db.execute(
            "INSERT INTO fragments (id, conversation_id, role, content, source_kind, "
            "source_path, source_id, locator, owner) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                ghost.id,
                t.forgotten,
                "note",
                ghost.content,
                "memory",
                "m",
                t.forgotten,
                "x",
                ghost.owner,
            ),
        )
    store = open_bm25(home)
    store.add([ghost])
    store.flush()


def private_memory_made_public(home: Path, t: Template) -> None:
    with sqlite3.connect(home / "catalog.sqlite") as db:
        db.execute(
            "UPDATE fragments SET private = 0 WHERE conversation_id = ?", (t.private_memory,)
        )


def ingest_run_killed(home: Path, t: Template) -> None:
    with sqlite3.connect(home / "catalog.sqlite") as db:
        db.execute(
            "INSERT INTO ingest_runs (started_at, status, command) "
            "VALUES (0, 'running', 'ingest x')"
        )


def everything_at_once(home: Path, t: Template) -> None:
    keyword_swapped_same_count(home, t)
    vectors_dropped(home, t)
    vector_orphans_added(home, t)
    private_memory_made_public(home, t)
    ingest_run_killed(home, t)


Damage = Callable[[Path, Template], None]

#: Damage -> the finding codes the doctor must report for it.
CORRUPTIONS: list[tuple[Damage, set[str]]] = [
    (keyword_rows_deleted, {"keyword.missing"}),
    (keyword_orphans_added, {"keyword.orphans"}),
    (keyword_swapped_same_count, {"keyword.missing", "keyword.orphans"}),
    (manifest_truncated, {"keyword.unreadable"}),
    (manifest_deleted, {"keyword.missing"}),
    (manifest_garbage, {"keyword.unreadable"}),
    (postings_truncated, {"keyword.unreadable"}),
    (postings_garbled, {"keyword.damaged"}),
    (frequencies_garbled, {"keyword.damaged"}),
    (ids_garbled, {"keyword.unreadable"}),
    (vocabulary_reworded, {"keyword.damaged"}),
    (old_index_garbled, {"keyword.damaged"}),
    (generation_folder_deleted, {"keyword.unreadable"}),
    (vectors_dropped, {"vectors.missing"}),
    (vectors_all_dropped, {"vectors.missing"}),
    (vector_orphans_added, {"vectors.orphans"}),
    (vector_store_broken, {"vectors.unreadable"}),
    (vector_deletes_left_queued, {"vectors.pending_deletes"}),
    (embedding_marks_lost, {"vectors.not_embedded"}),
    (marked_by_another_embedder, {"vectors.other_embedder"}),
    (forgotten_memory_searchable, {"memory.inactive_fragments"}),
    (private_memory_made_public, {"memory.scope_mismatch"}),
    (ingest_run_killed, {"catalog.interrupted_runs"}),
    (
        everything_at_once,
        {
            "keyword.missing",
            "keyword.orphans",
            "vectors.missing",
            "vectors.orphans",
            "memory.scope_mismatch",
            "catalog.interrupted_runs",
        },
    ),
]


def catalog_rows(home: Path) -> dict[str, list[tuple]]:
    """What the catalog holds that a repair must never lose."""
    with sqlite3.connect(home / "catalog.sqlite") as db:
        return {
            table: sorted(db.execute(f"SELECT * FROM {table}").fetchall(), key=repr)
            for table in ("memories", "memory_revisions", "documents", "links", "conversations")
        } | {"fragments": sorted(r[0] for r in db.execute("SELECT id FROM fragments"))}


@pytest.mark.parametrize(("damage", "codes"), CORRUPTIONS, ids=[d.__name__ for d, _ in CORRUPTIONS])
def test_the_doctor_finds_the_damage_and_repair_undoes_it(
    home: Path, template: Template, damage: Damage, codes: set[str]
) -> None:
    before = catalog_rows(home)
    damage(home, template)
    mx = doctor_memex(home, stored(home))
    found = mx.doctor()
    assert codes <= {f.code for f in found.findings}, found.to_dict()
    if codes - {"catalog.interrupted_runs", "vectors.not_embedded"}:
        assert not found.healthy

    repaired = mx.doctor(repair=True)
    assert repaired.healthy and repaired.repairs, repaired.to_dict()
    assert not repaired.findings, repaired.to_dict()  # not even a note is left

    again = doctor_memex(home, stored(home))
    assert again.doctor().to_dict()["findings"] == []
    assert search_results(again) == template.results
    assert catalog_rows(home) == before  # nothing in the catalog was lost


def test_repaired_indexes_equal_indexes_built_afresh_from_the_catalog(
    home: Path, template: Template, tmp_path: Path
) -> None:
    everything_at_once(home, template)
    doctor_memex(home, stored(home)).doctor(repair=True)
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    # The backup API, not a file copy: the repair's last writes may still sit in the
    # WAL file beside catalog.sqlite, and a copy of the main file alone would miss them.
    with (
        sqlite3.connect(home / "catalog.sqlite") as src,
        sqlite3.connect(fresh / "catalog.sqlite") as dst,
    ):
        src.backup(dst)
    rebuilt = doctor_memex(fresh)
    rebuilt.rebuild(keyword=True, vectors=True)
    assert rebuilt.doctor().healthy
    assert search_results(rebuilt) == search_results(doctor_memex(home, stored(home)))


def test_a_healthy_home_needs_no_repair(home: Path) -> None:
    mx = doctor_memex(home, stored(home))
    report = mx.doctor(repair=True)
    assert report.healthy and report.repairs == [] and report.findings == []
    counts = report.final.counts
    assert counts["fragments"] == counts["keyword_documents"] == counts["vectors"]
    assert counts["embedded"] == counts["fragments"] and counts["memories"] == 5


def test_repair_embeds_only_what_is_missing(home: Path, template: Template) -> None:
    vectors_dropped(home, template)
    store = stored(home)
    dropped = len(template.store.vectors) - len(store.vectors)
    mx = doctor_memex(home, store)
    calls: list[int] = []
    real = mx.embedder.embed_documents

    def counting(texts: Sequence[str]) -> Sequence[Sequence[float]]:
        calls.append(len(texts))
        return real(texts)

    mx.embedder.embed_documents = counting  # type: ignore[method-assign]
    assert mx.doctor(repair=True).healthy
    assert sum(calls) == dropped > 0


# -- what the doctor reports and leaves alone -------------------------------------------------


def memory_revision_lost(home: Path, t: Template) -> None:
    with sqlite3.connect(home / "catalog.sqlite") as db:
        db.execute("PRAGMA foreign_keys = OFF")
        db.execute(
            "DELETE FROM memory_revisions WHERE memory_id = ? AND revision = "
            "(SELECT revision FROM memories WHERE id = ?)",
            (t.private_memory, t.private_memory),
        )


def memory_fragment_orphaned(home: Path, t: Template) -> None:
    with sqlite3.connect(home / "catalog.sqlite") as db:
        db.execute(
            "INSERT INTO fragments (id, conversation_id, role, content, source_kind, "
            "source_path, source_id, locator, owner) VALUES "
            "('lost-memory-fragment', 'mem_nowhere', 'note', 'no memory', 'memory', 'm', 'x', "
            "'x', 'users/alice')"
        )


def embedder_switched(home: Path, t: Template) -> None:
    with sqlite3.connect(home / "catalog.sqlite") as db:
        db.execute("UPDATE settings SET value = 'minilm:384' WHERE key = 'embedder'")


#: Damage the doctor reports (exit status 1) and must not "repair" by deleting or re-embedding.
UNREPAIRABLE: list[tuple[Damage, str]] = [
    (memory_revision_lost, "memory.missing_revision"),
    (memory_fragment_orphaned, "memory.orphan_fragments"),
    (embedder_switched, "vectors.embedder_mismatch"),
]


@pytest.mark.parametrize(
    ("damage", "code"), UNREPAIRABLE, ids=[d.__name__ for d, _ in UNREPAIRABLE]
)
def test_damage_a_person_must_decide_on_is_reported_and_left_alone(
    home: Path, template: Template, damage: Damage, code: str
) -> None:
    damage(home, template)
    before = catalog_rows(home)
    vectors = dict(component_doubles._STORES[home].vectors)
    mx = doctor_memex(home, stored(home))
    report = mx.doctor(repair=True)
    finding = report.final.get(code)
    assert finding is not None and finding.severity == "damage" and not report.healthy
    assert finding.fix  # says what to do
    assert catalog_rows(home) == before
    assert component_doubles._STORES[home].vectors.keys() >= vectors.keys()  # none deleted


def test_a_vector_store_that_cannot_be_reached_is_reported_not_cleared(home: Path) -> None:
    store = stored(home)
    store.broken = "unreachable"
    vectors = dict(store.vectors)
    report = doctor_memex(home, store).doctor(repair=True)
    assert not report.healthy
    assert report.final.get("vectors.unreadable") is not None
    assert any("could not repair the vector store" in r for r in report.repairs)
    assert store.vectors.keys() == vectors.keys()


def test_a_damaged_catalog_is_reported_and_nothing_is_rebuilt_from_it(home: Path) -> None:
    path = home / "catalog.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page_size = db.execute("PRAGMA page_size").fetchone()[0]
        root = db.execute(
            "SELECT rootpage FROM sqlite_master WHERE name = 'fragments_conversation'"
        ).fetchone()[0]
    data = bytearray(path.read_bytes())
    start = (root - 1) * page_size
    data[start + 8 : start + page_size] = bytes(page_size - 8)  # wipe an index page
    path.write_bytes(bytes(data))
    mx = doctor_memex(home, stored(home))
    keyword_before = sorted(p.name for p in bm25_root(home).iterdir())
    report = mx.doctor(repair=True)
    assert not report.healthy and report.repairs == []
    finding = report.final.get("catalog.damaged")
    assert finding is not None and "backup" in finding.fix
    assert sorted(p.name for p in bm25_root(home).iterdir()) == keyword_before


# -- the command line ----------------------------------------------------------------------


@pytest.fixture
def run(monkeypatch: pytest.MonkeyPatch, home: Path):
    monkeypatch.setenv("MEMEX_HOME", str(home))
    monkeypatch.setattr(
        "memex_core.cli.opening.Memex",
        lambda home=None: doctor_memex(Path(home), stored(Path(home))),
    )
    runner = CliRunner()

    def invoke(*args: str, code: int = 0):
        result = runner.invoke(cli, list(args), catch_exceptions=False)
        assert result.exit_code == code, result.output
        return result

    return invoke


def test_cli_exit_status_and_json(run, home: Path, template: Template) -> None:
    healthy = json.loads(run("doctor", "--format", "json").stdout)
    assert healthy["healthy"] is True and healthy["findings"] == []
    assert "Healthy" in run("doctor").stdout

    keyword_swapped_same_count(home, template)
    vectors_dropped(home, template)
    drift = json.loads(run("doctor", "--format", "json", code=1).stdout)
    assert drift["healthy"] is False
    codes = {f["code"]: f for f in drift["findings"]}
    assert codes["keyword.missing"]["count"] == 5 and codes["keyword.orphans"]["count"] == 5
    assert codes["keyword.orphans"]["sample"] == [f"ghost-{n}" for n in range(5)]
    assert all(f["severity"] == "drift" and f["fix"] for f in drift["findings"])
    text = run("doctor", code=1).stdout
    assert "ghost-0" in text and "memex doctor --repair" in text

    repaired = json.loads(run("doctor", "--repair", "--format", "json").stdout)
    assert repaired["healthy"] is True and repaired["repaired"]
    assert {f["code"] for f in repaired["found_before_repair"]} >= {"keyword.orphans"}
    assert "Nothing needed repairing" in run("doctor", "--repair").stdout


# -- the real vector store ---------------------------------------------------------------------


def chroma_memex(home: Path) -> Memex:
    """The hashing embedder with the real chroma store (kept in the home)."""
    registry = load_registry()
    registry.register_plugin(DoublesPlugin(home), name="doubles")
    components = {**load_config(home).components, "embedder": "hashing", "vector_store": "chroma"}
    return Memex(registry=registry, config=Config(home=home, components=components, raw={}))


def test_chroma_vectors_dropped_and_orphaned_are_repaired(tmp_path: Path) -> None:
    pytest.importorskip("chromadb")
    home = tmp_path / "home"
    mx = chroma_memex(home)
    mx.ingest(EXAMPLES)
    expected = search_results(mx)
    assert mx.doctor().healthy
    store = mx.vector_store
    ids = sorted(store.ids())  # type: ignore[attr-defined]
    store.delete(ids[::3])
    ghosts = [fake_fragment(n) for n in range(3)]
    store.upsert(ghosts, np.eye(3, 64, dtype=np.float32).tolist())

    found = mx.doctor()
    missing, orphans = found.final.get("vectors.missing"), found.final.get("vectors.orphans")
    assert missing is not None and missing.count == len(ids[::3])
    assert orphans is not None and orphans.count == 3
    assert mx.doctor(repair=True).healthy
    assert search_results(mx) == expected
    mx.close()
