"""The obsidian folder source: vault detection, scanning, reading notes, registration."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pluggy
import pytest

import memex_obsidian
from memex_core import hookspecs
from memex_core.domain import FolderSource, PluginContext, Source, SourceError
from memex_core.plugins import PluginRegistry
from memex_obsidian.source import ObsidianSource


def write(root: Path, rel_path: str, text: str | bytes = "") -> Path:
    path = root / rel_path
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "My Vault"
    write(root, "Home.md", "# Home\n[[Sub/Deep note]] ![[pic.png]]")
    write(root, "Sub/Deep note.md", "Deep")
    write(root, "Sub/pic.png", b"\x89PNG")
    write(root, "Zeta.MD", "upper-case suffix")
    write(root, ".obsidian/app.json", "{}")
    write(root, ".obsidian/snippets/x.md", "not a note")
    write(root, ".trash/Old.md", "deleted")
    write(root, "Sub/.hidden.md", "hidden")
    write(root, ".DS_Store", b"\x00")
    return root


def test_scan_lists_notes_and_files_sorted_without_hidden(vault: Path) -> None:
    scan = ObsidianSource().scan(vault)
    assert scan.documents == ["Home.md", "Sub/Deep note.md", "Zeta.MD"]
    assert scan.files == ["Home.md", "Sub/Deep note.md", "Sub/pic.png", "Zeta.MD"]


def test_scan_of_a_missing_folder_names_it(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="not a folder"):
        ObsidianSource().scan(tmp_path / "nope")


def test_can_handle_a_folder_with_obsidian_settings(vault: Path) -> None:
    assert ObsidianSource().can_handle_folder(vault)


def test_settings_folder_wins_even_beside_transcripts(vault: Path) -> None:
    write(vault, "logs/session.jsonl", "{}")
    assert ObsidianSource().can_handle_folder(vault)


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"Note.md": "x"}, True),
        ({"Deep/Down/Note.md": "x", "img.png": "x"}, True),
        ({"Note.md": "x", "session.jsonl": "{}"}, False),  # agent transcripts + notes
        ({"Note.md": "x", "sub/abc.jsonl": "{}"}, False),
        ({"README.md": "x", "conversations.json": "[]"}, False),  # a chat export
        ({"img.png": "x", "data.json": "{}"}, False),  # no notes
        ({".hidden/Note.md": "x"}, False),  # hidden folders do not count
        ({}, False),
    ],
)
def test_can_handle_a_folder_without_settings(
    tmp_path: Path, files: dict[str, str], expected: bool
) -> None:
    root = tmp_path / "folder"
    root.mkdir()
    for rel_path, text in files.items():
        write(root, rel_path, text)
    assert ObsidianSource().can_handle_folder(root) is expected


def test_cannot_handle_a_file_or_nothing(vault: Path) -> None:
    assert not ObsidianSource().can_handle_folder(vault / "Home.md")
    assert not ObsidianSource().can_handle_folder(vault / "missing")


def test_read_document_parses_the_note(vault: Path) -> None:
    os.utime(vault / "Home.md", (1_600_000_000, 1_600_000_000))
    document = ObsidianSource().read_document(vault, "Home.md")
    assert document.path == "Home.md" and document.title == "Home"
    assert document.timestamp == 1_600_000_000  # no date in frontmatter: file mtime
    assert [(link.target, link.kind) for link in document.links] == [
        ("Sub/Deep note", "link"),
        ("pic.png", "embed"),
    ]
    assert document.fragments[0].provenance.source_path == str(vault.resolve())
    assert memex_obsidian.document_id(vault, "Home.md") == document.id


def test_read_document_names_the_file_it_cannot_read(vault: Path) -> None:
    source = ObsidianSource()
    with pytest.raises(SourceError, match="note not found") as missing:
        source.read_document(vault, "Gone.md")
    assert "Gone.md" in str(missing.value)
    write(vault, "Latin1.md", "caf\xe9".encode("latin-1"))
    with pytest.raises(SourceError, match="not UTF-8") as latin:
        source.read_document(vault, "Latin1.md")
    assert latin.value.location == "byte 3" and "Latin1.md" in latin.value.path


@pytest.mark.parametrize("bad", ["../outside.md", "/etc/passwd", "Sub/../../x.md", ""])
def test_read_document_refuses_paths_outside_the_vault(vault: Path, bad: str) -> None:
    with pytest.raises(SourceError, match="not a path inside the vault"):
        ObsidianSource().read_document(vault, bad)


def test_it_is_a_folder_source_not_a_file_source() -> None:
    source = ObsidianSource()
    assert isinstance(source, FolderSource)
    assert not isinstance(source, Source)
    assert source.source_kind == "obsidian"


def test_plugin_registers_the_source(tmp_path: Path) -> None:
    manager = pluggy.PluginManager("memex")
    manager.add_hookspecs(hookspecs)
    registry = PluginRegistry(manager)
    registry.register_plugin(memex_obsidian, "obsidian")
    registration = registry.get("source", "obsidian")
    assert registration.available and "Obsidian" in registration.description
    source = registry.build(
        "source", "obsidian", PluginContext(home=tmp_path, settings={"max_chars": 500})
    )
    assert isinstance(source, ObsidianSource) and source.max_chars == 500


def test_importing_the_plugin_does_not_load_the_reader() -> None:
    code = (
        "import sys, memex_obsidian; "
        "print('memex_obsidian.source' in sys.modules, 'yaml' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.split() == ["False", "False"]
