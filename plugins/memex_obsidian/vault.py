"""Walk a vault folder: which files are notes, which are attachments, is it a vault at all.

Hidden folders and files (``.obsidian/`` settings, ``.trash/``, ``.git/``,
``.DS_Store``) are never part of the vault's content, as in Obsidian's file
list.

Links never lead memex out of the vault: a symlinked folder is not followed
(it can loop, or hold the whole disk), and a symlinked file is read only when
it resolves to a file inside the vault. Broken links, link loops, links out of
the vault and names that are not valid UTF-8 (which no catalog can store) are
skipped with a :class:`memex_core.source_kit.SkippedItemWarning` saying why.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from memex_core.domain import FolderScan
from memex_core.source_kit import warn_skipped

NOTE_SUFFIX = ".md"
CONFIG_FOLDER = ".obsidian"
#: Files that mark a folder of chat exports or agent transcripts, which other sources read.
_TRANSCRIPT_SUFFIXES = (".jsonl",)
_EXPORT_NAMES = ("conversations.json",)


def is_note(rel_path: str) -> bool:
    return rel_path.lower().endswith(NOTE_SUFFIX)


def _name_problem(name: str) -> str | None:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return "its name is not valid UTF-8; rename it to index it"
    return None


def _link_problem(path: Path, vault: Path) -> str | None:
    """Why the symlink ``path`` must not be read, or ``None`` if it stays inside ``vault``."""
    try:
        target = path.resolve(strict=True)
    except (OSError, RuntimeError):  # broken, or a loop (RuntimeError before Python 3.13)
        return "a symbolic link that is broken or loops"
    if not target.is_relative_to(vault):
        return "a symbolic link to a file outside the vault; memex reads only the vault"
    if not target.is_file():
        return "a symbolic link to something that is not a file"
    return None


def _walk(folder: Path, *, warn: bool = False) -> Iterator[str]:
    """Relative ``/``-separated paths of the visible files under ``folder``, unsorted.

    With ``warn``, every file or folder left out for a reason other than being
    hidden is reported (see the module docstring).
    """
    vault = folder.resolve()

    def skip(rel: str, reason: str) -> None:
        if warn:
            shown = rel.encode("utf-8", "backslashreplace").decode("utf-8")
            warn_skipped(folder, shown, reason)

    for root, dirs, files in os.walk(folder):
        relative_root = Path(root).relative_to(folder).as_posix()
        prefix = "" if relative_root == "." else relative_root + "/"
        kept = []
        for name in dirs:
            if name.startswith("."):
                continue
            problem = _name_problem(name)
            if problem is None and (Path(root) / name).is_symlink():
                problem = (
                    "a symbolic link to a folder; not followed (it could loop or leave the vault)"
                )
            if problem is None:
                kept.append(name)
            else:
                skip(prefix + name, problem)
        dirs[:] = kept
        for name in files:
            if name.startswith("."):
                continue
            problem = _name_problem(name)
            path = Path(root) / name
            if problem is None and path.is_symlink():
                problem = _link_problem(path, vault)
            if problem is None:
                yield prefix + name
            else:
                skip(prefix + name, problem)


def scan_vault(folder: Path) -> FolderScan:
    """Every visible file (sorted) and, among them, the notes."""
    files = sorted(_walk(folder, warn=True))
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
