"""A hostile Obsidian vault: symlink loops, links out of the vault, names that are not UTF-8.

Nothing outside the vault is ever read; what is left out is reported with a
:class:`SkippedItemWarning` naming it; syncing never raises.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from memex_core.domain import SourceError
from memex_core.source_kit import SkippedItemWarning
from memex_obsidian.source import ObsidianSource
from tests.support.component_doubles import fast_memex
from tests.support.hostile_builders import tally, write_tallies

FAMILY = "vault"
SECRET = "top secret outside the vault"


@pytest.fixture(autouse=True, scope="module")
def _write_tallies() -> Iterator[None]:
    yield
    write_tallies()


@pytest.fixture
def hostile_vault(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text(f"# Secret\n{SECRET}\n")
    vault = tmp_path / "vault"
    (vault / ".obsidian").mkdir(parents=True)
    (vault / "Home.md").write_text("# Home\nSee [[Inside]] and [[secret]].\n")
    (vault / "Inside.md").write_text("# Inside\nplain note\n")
    (vault / "sub").mkdir()
    links = {
        "secret.md": outside / "secret.md",  # a file outside
        "etc-passwd.md": Path("/etc/passwd"),  # an absolute path outside
        "relative-out.md": Path("../outside/secret.md"),  # a relative one
        "loop-a.md": vault / "loop-b.md",  # a loop of two
        "loop-b.md": vault / "loop-a.md",
        "self.md": vault / "self.md",  # a link to itself
        "broken.md": vault / "missing.md",  # a dangling link
        "alias.md": vault / "Inside.md",  # a link that stays inside: read
        "outdir": outside,  # a folder outside
        "sub/up": vault,  # a folder loop
    }
    for name, target in links.items():
        (vault / name).symlink_to(target)
    return vault


def _scan(vault: Path) -> tuple[list[str], list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scan = ObsidianSource().scan(vault)
    notes = [str(w.message) for w in caught if issubclass(w.category, SkippedItemWarning)]
    return scan.files, notes


def test_scan_reads_only_inside_and_says_what_it_left_out(hostile_vault: Path) -> None:
    tally(FAMILY, 10)
    files, notes = _scan(hostile_vault)
    assert files == ["Home.md", "Inside.md", "alias.md"]
    skipped = {note.split("(", 1)[1].split(")", 1)[0]: note for note in notes}
    for name in ("secret.md", "etc-passwd.md", "relative-out.md"):
        assert "outside the vault" in skipped[name]
    for name in ("loop-a.md", "loop-b.md", "self.md", "broken.md"):
        assert "broken or loops" in skipped[name]
    for name in ("outdir", "sub/up"):
        assert "not followed" in skipped[name]


def test_read_document_refuses_a_link_out_even_when_asked(hostile_vault: Path) -> None:
    tally(FAMILY, 4)
    source = ObsidianSource()
    for name in ("secret.md", "relative-out.md", "loop-a.md", "../outside/secret.md"):
        with pytest.raises(SourceError) as caught:
            source.read_document(hostile_vault, name)
        assert SECRET not in str(caught.value)


def test_syncing_a_hostile_vault_never_indexes_outside_text(
    hostile_vault: Path, tmp_path: Path
) -> None:
    tally(FAMILY)
    mx = fast_memex(tmp_path / "home")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SkippedItemWarning)
            report = mx.ingest(hostile_vault, embed=False)
            again = mx.ingest(hostile_vault, embed=False)
        assert {Path(f.path).name: f.status for f in report.files} == {
            "Home.md": "new",
            "Inside.md": "new",
            "alias.md": "new",
        }
        assert all(f.status == "unchanged" for f in again.files)
        _, rows = mx.query("SELECT content FROM fragments")
        assert rows and not any(SECRET in row[0] for row in rows)
        assert len(mx.search("top outside", mode="keyword")) == 0
    finally:
        mx.close()


def test_names_that_are_not_utf8_are_skipped_with_a_note(tmp_path: Path) -> None:
    tally(FAMILY, 2)
    vault = tmp_path / "vault"
    (vault / ".obsidian").mkdir(parents=True)
    (vault / "ok.md").write_text("# ok\nfine\n")
    (vault / os.fsdecode(b"bad\xff.md")).write_text("# bad\nname\n")
    (vault / os.fsdecode(b"dir\xfe")).mkdir()
    (vault / os.fsdecode(b"dir\xfe") / "inner.md").write_text("# inner\n")
    files, notes = _scan(vault)
    assert files == ["ok.md"]
    assert len(notes) == 2 and all("not valid UTF-8" in note for note in notes)
    mx = fast_memex(tmp_path / "home")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SkippedItemWarning)
            report = mx.ingest(vault, embed=False)
    finally:
        mx.close()
    assert [(Path(f.path).name, f.status) for f in report.files] == [("ok.md", "new")]


def test_a_note_replaced_by_a_link_after_the_scan_is_refused(tmp_path: Path) -> None:
    tally(FAMILY)
    vault = tmp_path / "vault"
    (vault / ".obsidian").mkdir(parents=True)
    (tmp_path / "secret.md").write_text(SECRET)
    (vault / "note.md").symlink_to(tmp_path / "secret.md")
    with pytest.raises(SourceError, match="outside the vault"):
        ObsidianSource().read_document(vault, "note.md")
