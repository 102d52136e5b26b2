"""``Memex.export_archive`` / ``import_archive`` (issue 31) on SQLite: the round trip is exact,
imports are idempotent, a newer archive adds only what is new, conflicts are listed and
resolved by the documented rule, filters and agents reach only what they may.

One template home is built per module (tests/support/archive_builders.py) and exported
once; each test imports into fresh homes of its own.
"""

from __future__ import annotations

import io
import json
import shutil
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from memex_core.api import Memex
from memex_core.catalog.memory_records import MemoryAccessDenied
from memex_core.errors import MemexError
from memex_core.services.archive_format import MANIFEST, MEMBERS, NOT_ARCHIVED
from tests.support.archive_builders import (
    catalog_digest,
    fill_home,
    members,
    rewrite,
    rows_of,
    search_ids,
)
from tests.support.doctor_home import doctor_memex


@dataclass
class Exported:
    home: Path
    archive: Path
    searches: dict[str, list[str]]


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Exported]:
    root = tmp_path_factory.mktemp("archive")
    mx = doctor_memex(root / "source")
    fill_home(mx, root)
    archive = root / "home.zip"
    mx.export_archive(archive)
    searches = search_ids(mx)
    mx.close()
    yield Exported(root / "source", archive, searches)


@pytest.fixture
def target(tmp_path: Path) -> Iterator[Memex]:
    mx = doctor_memex(tmp_path / "target")
    yield mx
    mx.close()


def test_every_catalog_table_is_archived_or_left_out_on_purpose(target: Memex) -> None:
    _columns, rows = target.catalog.query(
        "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'"
    )
    tables = {r[0] for r in rows}
    archived = {m.table for m in MEMBERS}
    assert tables - archived - set(NOT_ARCHIVED) == set()
    assert archived <= tables


def test_the_manifest_describes_every_member(exported: Exported) -> None:
    with zipfile.ZipFile(exported.archive) as zf:
        manifest = json.loads(zf.read(MANIFEST))
        assert manifest["format"] == "memex-archive" and manifest["format_version"] == 1
        assert set(manifest["members"]) == {m.name for m in MEMBERS}
        for name, info in manifest["members"].items():
            data = zf.read(name)
            assert info["rows"] == data.count(b"\n") and info["bytes"] == len(data)
            for line in data.splitlines():
                assert sorted(json.loads(line)) == info["columns"]
    assert manifest["members"]["fragments.jsonl"]["rows"] > 20
    assert "seq" not in manifest["members"]["fragments.jsonl"]["columns"]


def test_round_trip_is_exact_and_searches_agree(
    exported: Exported, target: Memex, tmp_path: Path
) -> None:
    report = target.import_archive(exported.archive)
    assert report.tables["fragments"].added > 20 and not report.conflicts
    again = tmp_path / "again.zip"
    target.export_archive(again)
    assert members(again) == members(exported.archive)
    assert search_ids(target) == exported.searches
    assert target.doctor().healthy


def test_importing_twice_adds_nothing(exported: Exported, target: Memex) -> None:
    target.import_archive(exported.archive)
    before = catalog_digest(target)
    report = target.import_archive(exported.archive)
    assert report.added == 0 and not report.conflicts and not report.changed
    assert catalog_digest(target) == before


def test_dry_run_reports_and_writes_nothing(exported: Exported, target: Memex) -> None:
    before = catalog_digest(target)
    report = target.import_archive(exported.archive, dry_run=True)
    assert report.dry_run and report.tables["fragments"].added > 20
    assert catalog_digest(target) == before
    assert len(target.search("espresso grinder", mode="keyword")) == 0


def test_a_newer_archive_adds_only_what_is_new(exported: Exported, tmp_path: Path) -> None:
    home = tmp_path / "grown"
    shutil.copytree(exported.home, home)
    grown = doctor_memex(home)
    try:
        alice = grown.agent("alice")
        alice.write("user/notes/food.md", "# Food\n\nJasmine tea with pastéis de nata.\n")
        alice.remember("Alice learned to sail in Cascais.")
        newer = tmp_path / "newer.zip"
        grown.export_archive(newer)
    finally:
        grown.close()
    target = doctor_memex(tmp_path / "target")
    try:
        target.import_archive(exported.archive)
        report = target.import_archive(newer)
        assert report.tables["memories"].added == 1
        assert report.tables["memories"].updated == 1
        assert report.tables["memory_revisions"].added == 2
        assert not report.conflicts
        hits = target.search("jasmine tea", mode="keyword")
        assert hits and "Jasmine" in hits[0].fragment.content
        contents = [r["content"] for r in rows_of(target, "fragments")]
        assert not any("1,5 €" in c for c in contents)  # the old revision's text left
        again = tmp_path / "again.zip"
        target.export_archive(again)
        assert members(again)["memories.jsonl"] == members(newer)["memories.jsonl"]
    finally:
        target.close()


def test_a_conflict_keeps_the_homes_row_and_is_listed(
    exported: Exported, target: Memex, tmp_path: Path
) -> None:
    tampered = tmp_path / "tampered.zip"
    rewrite(exported.archive, tampered, "documents.jsonl", lambda row: {**row, "title": "Renamed"})
    target.import_archive(exported.archive)
    titles = {r["id"]: r["title"] for r in rows_of(target, "documents")}
    report = target.import_archive(tampered)
    assert report.tables["documents"].conflicts == len(titles)
    assert {c["member"] for c in report.conflicts} == {"documents.jsonl"}
    assert all(c["kept"] == "home" for c in report.conflicts)
    assert {r["id"]: r["title"] for r in rows_of(target, "documents")} == titles


def test_export_filters_one_user(exported: Exported, tmp_path: Path) -> None:
    mx = doctor_memex(exported.home)
    try:
        archive = tmp_path / "alice.zip"
        mx.export_archive(archive, user="alice")
    finally:
        mx.close()
    got = {name: [json.loads(line) for line in lines] for name, lines in members(archive).items()}
    assert got["fragments.jsonl"] and {r["owner"] for r in got["fragments.jsonl"]} == {
        "users/alice"
    }
    assert {r["owner"] for r in got["memories.jsonl"]} == {"users/alice"}
    ids = {r["id"] for r in got["memories.jsonl"]}
    assert {r["memory_id"] for r in got["memory_revisions.jsonl"]} == ids
    assert got["access_log.jsonl"] and {r["user_id"] for r in got["access_log.jsonl"]} == {"alice"}
    assert not got["documents.jsonl"] or all(r["id"] in ids for r in got["documents.jsonl"])
    assert "Bob" not in archive.read_bytes().decode("latin-1")


def test_export_filters_source_and_log(exported: Exported, tmp_path: Path) -> None:
    mx = doctor_memex(exported.home)
    try:
        archive = tmp_path / "notes.zip"
        report = mx.export_archive(archive, source="obsidian", with_log=False)
    finally:
        mx.close()
    got = members(archive)
    assert "access_log.jsonl" not in got and report.members["fragments.jsonl"] > 0
    assert {json.loads(line)["source_kind"] for line in got["fragments.jsonl"]} == {"obsidian"}
    assert got["memories.jsonl"] == []


def test_an_export_to_a_stream(exported: Exported) -> None:
    mx = doctor_memex(exported.home)
    try:
        buffer = io.BytesIO()
        mx.export_archive(buffer)
    finally:
        mx.close()
    with zipfile.ZipFile(io.BytesIO(buffer.getvalue())) as zf:
        assert MANIFEST in zf.namelist()


class _Pipe(io.RawIOBase):
    """A stream that can only be written to, as an HTTP response body."""

    def __init__(self) -> None:
        self.chunks: list[bytes] = []

    def writable(self) -> bool:
        return True

    def write(self, data: bytes) -> int:  # type: ignore[override]
        self.chunks.append(bytes(data))
        return len(data)


def test_an_export_to_a_stream_that_cannot_seek(exported: Exported, tmp_path: Path) -> None:
    mx = doctor_memex(exported.home)
    try:
        pipe = _Pipe()
        mx.export_archive(pipe)  # type: ignore[arg-type]
    finally:
        mx.close()
    written = tmp_path / "piped.zip"
    written.write_bytes(b"".join(pipe.chunks))
    assert members(written) == members(exported.archive)


def test_an_agent_exports_and_imports_only_its_own_user(
    exported: Exported, target: Memex, tmp_path: Path
) -> None:
    mx = doctor_memex(exported.home)
    try:
        mine = tmp_path / "mine.zip"
        mx.agent("alice").export_archive(mine)
        with pytest.raises(MemoryAccessDenied):
            mx.agent("alice").export_archive(tmp_path / "bob.zip", user="bob")
    finally:
        mx.close()
    owners = {json.loads(line)["owner"] for line in members(mine)["fragments.jsonl"]}
    assert owners == {"users/alice"}
    report = target.agent("alice").import_archive(mine)
    assert report.tables["memories"].added > 0
    # The whole home's archive holds the corpus and bob: refused whole, nothing written
    # but the access log's record of the refused calls.
    before = catalog_digest(target, skip=("access_log",))
    with pytest.raises(MemexError, match="Nothing was imported"):
        target.agent("carol").import_archive(exported.archive)
    with pytest.raises(MemexError, match="Nothing was imported"):
        target.agent("alice").import_archive(exported.archive)
    assert catalog_digest(target, skip=("access_log",)) == before
    refusals = target.operator().access_log(action="import", outcome="invalid")
    assert len(refusals) == 2


def test_an_archive_from_before_fact_validity_imports_with_the_defaults(
    exported: Exported, target: Memex, tmp_path: Path
) -> None:
    older = tmp_path / "older.zip"
    dropped = ("valid_from", "valid_until", "superseded_by")
    rewrite(
        exported.archive,
        older,
        "memories.jsonl",
        lambda row: {k: v for k, v in row.items() if k not in dropped},
    )
    with zipfile.ZipFile(older) as zf:
        assert (
            "valid_from"
            not in json.loads(zf.read(MANIFEST))["members"]["memories.jsonl"]["columns"]
        )
    report = target.import_archive(older)
    assert report.tables["memories"].added > 0
    for row in rows_of(target, "memories"):
        assert row["valid_from"] == row["created_at"] and row["valid_until"] is None
    # The same memories from the current archive are then the same rows: nothing to add.
    assert target.import_archive(exported.archive).tables["memories"].unchanged > 0


def test_a_row_without_a_key_held_twice_travels_twice(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / ".obsidian").mkdir(parents=True)
    (vault / "A.md").write_text("# A\n\nSee [[B]], and once more [[B]].\n", encoding="utf-8")
    (vault / "B.md").write_text("# B\n\nThe other note.\n", encoding="utf-8")
    source = doctor_memex(tmp_path / "source")
    target = doctor_memex(tmp_path / "target")
    try:
        source.ingest(vault)
        source.export_archive(tmp_path / "a.zip")
        links = [json.loads(x) for x in members(tmp_path / "a.zip")["links.jsonl"]]
        assert len(links) == 2 and links[0] == links[1]
        target.import_archive(tmp_path / "a.zip")
        assert target.import_archive(tmp_path / "a.zip").added == 0
        target.export_archive(tmp_path / "b.zip")
        assert members(tmp_path / "b.zip") == members(tmp_path / "a.zip")
    finally:
        source.close()
        target.close()
