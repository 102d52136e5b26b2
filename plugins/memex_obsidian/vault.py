"""Walk a vault folder: which files are notes, which are attachments, is it a vault at all.

Hidden folders and files (``.obsidian/`` settings, ``.trash/``, ``.git/``,
``.DS_Store``) are never part of the vault's content, as in Obsidian's file
list. Symlinked folders are not followed (they can loop).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from memex_core.domain import FolderScan

NOTE_SUFFIX = ".md"
CONFIG_FOLDER = ".obsidian"
#: Files that mark a folder of chat exports or agent transcripts, which other sources read.
_TRANSCRIPT_SUFFIXES = (".jsonl",)
_EXPORT_NAMES = ("conversations.json",)


def is_note(rel_path: str) -> bool:
    return rel_path.lower().endswith(NOTE_SUFFIX)


def _walk(folder: Path) -> Iterator[str]:
    """Relative ``/``-separated paths of the visible files under ``folder``, unsorted."""
    for root, dirs, files in os.walk(folder):
        dirs[:] = [name for name in dirs if not name.startswith(".")]
        relative_root = Path(root).relative_to(folder).as_posix()
        prefix = "" if relative_root == "." else relative_root + "/"
        for name in files:
            if not name.startswith("."):
                yield prefix + name


def scan_vault(folder: Path) -> FolderScan:
    """Every visible file (sorted) and, among them, the notes."""
    files = sorted(_walk(folder))
    return FolderScan(documents=[path for path in files if is_note(path)], files=files)


def looks_like_vault(folder: Path) -> bool:
    """A ``.obsidian/`` folder inside; or else Markdown files and no chat exports or transcripts.

    Stops at the first file that decides it; the walk is otherwise a full
    listing, no file is opened.
    """
    if not folder.is_dir():
        return False
    if (folder / CONFIG_FOLDER).is_dir():
        return True
    has_notes = False
    for rel_path in _walk(folder):
        name = rel_path.rsplit("/", 1)[-1].lower()
        if name.endswith(_TRANSCRIPT_SUFFIXES) or name in _EXPORT_NAMES:
            return False
        has_notes = has_notes or is_note(name)
    return has_notes
