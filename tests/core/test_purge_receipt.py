"""A purge's receipt, and its proof: after ``purge(user_id="alice")`` no trace of alice's
text is left anywhere in the home, on SQLite with chroma and on PostgreSQL with pgvector.

Alice's memory carries marker words found nowhere else; after the purge the test reads
the raw bytes of every file in the home (``catalog.sqlite`` and its ``-wal``, the keyword
index's generations, chroma's folder), every row of every table of the PostgreSQL
database, the vector store's ids, the viewer's pages and the access log, and finds none of
them. Bob's and shared memory keep theirs.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from memex_core.api import Memex
from tests.support.component_doubles import hashing_memex_on

ALICE = ("zqxalicemarkerone", "zqxalicemarkertwo", "zqxalicemarkerthree", "zqxalicemarkerfour")
ALICE_QUERY = "zqxalicequeryword"  # only ever searched for: it lives in the access log
BOB, SHARED = "zqxbobmarker", "zqxsharedmarker"
BOB_FACTS = 12  # alice's fragments are a small part of the index: no merge on its own


@dataclass
class Home:
    mx: Memex
    engine: str
    url: str | None = None


@pytest.fixture(params=["sqlite", "postgres"])
def home(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Home]:
    url = request.getfixturevalue("pgvector_url") if request.param == "postgres" else None
    mx = hashing_memex_on(tmp_path / "home", request.param, url)
    yield Home(mx, request.param, url)
    mx.close()


def _fill(mx: Memex) -> dict[str, Any]:
    alice, bob, op = mx.agent("alice"), mx.agent("bob"), mx.operator()
    for n in range(BOB_FACTS):
        bob.remember(f"Bob keeps the {BOB} number {n} in jar {n}", collection="pantry")
    op.write("shared/handbook.md", f"# Handbook\n\nThe {SHARED} rules apply to everyone.\n")
    alice.remember(f"Alice keeps the {ALICE[0]} ledger in the blue drawer", collection="notes")
    alice.remember(f"Alice met {ALICE[1]} at the harbour", collection="acme:support")
    alice.write("user/diary.md", f"# Diary\n\nThe {ALICE[2]} plan, see [[shared/handbook]].\n")
    # A second revision: the first one's fragments are deleted rows before the purge.
    later = f"# Diary\n\nNow the {ALICE[3]} plan, see [[shared/handbook]].\n"
    diary = alice.write("user/diary.md", later)
    alice.search(ALICE_QUERY)
    alice.search(ALICE[0])
    alice.get(diary.id)
    alice_ids = [m.id for m in op.list(user_id="alice", include_deleted=True)]
    fragments = [
        r[0]
        for r in mx.catalog._db.execute(
            "SELECT id FROM fragments WHERE owner = ?", ("users/alice",)
        )
    ]
    bob_ids = [m.id for m in op.list(user_id="bob")]
    return {"alice": alice_ids, "fragments": fragments, "bob": bob_ids}


def _file_bytes(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def _found_in_files(root: Path, words: tuple[str, ...]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for name, data in _file_bytes(root).items():
        hits = [w for w in words if w.encode() in data]
        if hits:
            found[name] = hits
    return found


def _found_in_database(url: str, words: tuple[str, ...]) -> dict[str, list[str]]:
    import psycopg

    found: dict[str, list[str]] = {}
    with psycopg.connect(url) as db:
        tables = [
            r[0]
            for r in db.execute(
                "SELECT table_name FROM information_schema.tables "
                "WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
            )
        ]
        for table in tables:
            text = "\n".join(repr(row) for row in db.execute(f'SELECT * FROM "{table}"'))
            hits = [w for w in words if w in text]
            if hits:
                found[table] = hits
    return found


def _viewer_pages(mx: Memex, alice_ids: list[str]) -> str:
    from tests.support.viewer_fixtures import SECRET, client_for, sign_in

    client = client_for(mx, secret=SECRET)
    sign_in(client, SECRET)
    pages = ["/memory?user=alice", "/memory/log?user=alice", "/memory/log"]
    pages.append("/?q=Alice+ledger+harbour+plan")  # (a query's own words show on its page)
    pages += [f"/memory/{memory_id}" for memory_id in alice_ids]
    return "\n".join(client.get(page).text for page in pages)


def test_a_purge_leaves_no_trace_of_the_users_text(home: Home) -> None:
    mx = home.mx
    made = _fill(mx)
    words = (*ALICE, ALICE_QUERY)
    root = Path(mx.config.home)
    assert _found_in_files(root, (ALICE[0],)) or home.engine == "postgres"  # the probe sees
    before = _viewer_pages(mx, made["alice"])
    assert ALICE[3] in before and ALICE[1] in before  # its memory page, the search page

    receipt = mx.operator().purge_receipt(user_id="alice", confirm="alice")

    assert receipt.purged == len(made["alice"]) == 3
    removed = receipt.rows_removed
    assert removed["memories"] == 3
    assert removed["memory_revisions"] == 4  # the diary had two
    assert removed["fragments"] == len(made["fragments"]) > 0
    assert removed["documents"] == 1  # the diary's file
    assert removed["links"] == 1  # its link to the shared handbook
    assert receipt.keyword_entries_removed == len(made["fragments"])
    assert receipt.vectors_removed == len(made["fragments"])
    assert receipt.log_entries_blanked >= 4
    assert receipt.after.tables["memories"] == BOB_FACTS + 1
    assert receipt.catalog_log_emptied is (True if home.engine == "sqlite" else None)

    # The home's files: the catalog (and its write-ahead log), keyword index, chroma
    # (whose own log kept every vector's id and metadata until it synced).
    ids = (*made["fragments"], *made["alice"])
    assert _found_in_files(root, words) == {}
    assert _found_in_files(root, ids) == {}
    if home.url is not None:
        assert _found_in_database(home.url, words) == {}
        assert _found_in_database(home.url, ids) == {}
    vectors = mx.vector_store
    assert not set(made["fragments"]) & set(vectors.ids())  # type: ignore[attr-defined]
    assert not set(made["fragments"]) & mx.keyword_store.ids()
    log = mx.operator().access_log(user_id="alice")
    assert log and not any(w in json.dumps([e.to_dict() for e in log]) for w in words)
    pages = _viewer_pages(mx, made["alice"])
    assert not [w for w in words if w in pages]

    # Bob's and shared memory are untouched, and read as before.
    assert [m.id for m in mx.operator().list(user_id="bob")] == made["bob"]
    found = {hit.memory_id for hit in mx.agent("bob").search(BOB, limit=50)}
    assert len(made["bob"]) == BOB_FACTS and set(made["bob"]) <= found
    assert mx.agent("bob").search(SHARED)
    if home.engine == "sqlite":
        assert set(_found_in_files(root, (BOB, SHARED))["catalog.sqlite"]) == {BOB, SHARED}
    mx.close()
    # and once closed (the memory ids are back in the log: the viewer was asked for them)
    assert _found_in_files(root, (*words, *made["fragments"])) == {}


def test_a_purge_by_id_removes_that_memory_only(tmp_path: Path) -> None:
    mx = hashing_memex_on(tmp_path / "home", "sqlite", None)
    try:
        alice = mx.agent("alice")
        kept = alice.remember(f"Alice keeps {ALICE[0]}").memory_ids[0]
        gone = alice.remember(f"Alice met {ALICE[1]}").memory_ids[0]
        receipt = mx.operator().purge_receipt(memory_ids=[gone], confirm=gone)
        assert (receipt.purged, receipt.user_id, receipt.memory_ids) == (1, None, [gone])
        assert receipt.rows_removed["memories"] == 1
        assert receipt.log_entries_blanked == 0  # only a user's purge blanks their log
        assert [m.id for m in mx.operator().list(user_id="alice")] == [kept]
        assert _found_in_files(tmp_path / "home", (ALICE[1],)) == {}
        assert _found_in_files(tmp_path / "home", (ALICE[0],))
    finally:
        mx.close()


def test_forget_purge_prints_the_receipt(memex_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.support.cli_runs import memex_runner

    run = memex_runner(monkeypatch, lambda home: hashing_memex_on(home, "sqlite", None))
    run("remember", f"Alice keeps the {ALICE[0]} ledger", "-u", "alice")
    run("remember", f"Bob keeps the {BOB} jar", "-u", "bob")
    out = run("forget", "--purge", "-u", "alice", "--confirm", "alice").output
    assert "Purged 1 memories" in out and "Receipt" in out and "blanked" in out
    rows = {
        cells[1].strip(): [c.strip() for c in cells[2:5]]
        for cells in (line.split("│") for line in out.splitlines())
        if len(cells) == 6
    }
    for name in ("memories", "memory_revisions", "fragments"):
        assert rows[name] == ["2", "1", "1"], rows
    assert rows["keyword index (BM25Store)"] == ["2", "1", "1"]
    assert rows["vector store (ChromaVectorStore)"] == ["2", "1", "1"]
    made = json.loads(
        run("forget", "--purge", "-u", "bob", "--confirm", "bob", "--format", "json").stdout
    )
    assert (made["purged"], made["user_id"], made["rows_removed"]["memories"]) == (1, "bob", 1)
    assert (made["keyword_entries_removed"], made["vectors_removed"]) == (1, 1)
    assert made["before"]["tables"]["memories"] == 1 and made["after"]["tables"]["memories"] == 0


def test_the_receipt_says_when_a_reader_kept_the_catalogs_log(tmp_path: Path) -> None:
    import sqlite3

    home = tmp_path / "home"
    mx = hashing_memex_on(home, "sqlite", None)
    try:
        mx.agent("alice").remember(f"Alice keeps the {ALICE[0]} ledger")
        reader = sqlite3.connect(home / "catalog.sqlite", isolation_level=None)
        reader.execute("BEGIN")
        reader.execute("SELECT COUNT(*) FROM fragments").fetchone()  # a snapshot held open
        mx.catalog._db.execute("PRAGMA busy_timeout = 50")  # (10 s otherwise)
        receipt = mx.operator().purge_receipt(user_id="alice", confirm="alice")
        assert receipt.catalog_log_emptied is False and receipt.purged == 1
        reader.execute("COMMIT")
        reader.close()
        assert mx.catalog.erase_freed() is True  # the next checkpoint empties it
        assert _found_in_files(home, (ALICE[0],)) == {}
    finally:
        mx.close()
