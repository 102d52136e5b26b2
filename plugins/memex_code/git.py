"""What git knows about a work tree: its root, and each tracked file's blob hash.

Runs the ``git`` program (no library): ``git ls-files -s`` gives the blob hash of every
tracked file as the index holds it, and ``git ls-files -m -d`` the files whose work-tree
copy differs from it (edited or deleted). An edited file's hash is computed here from its
bytes exactly as git would (``sha1("blob <size>\\0" + bytes)``), so the fingerprint always
describes the content on disk and an unchanged file is never read.
"""

from __future__ import annotations

import hashlib
import subprocess
from dataclasses import dataclass
from pathlib import Path

from memex_core.domain import SourceError

#: Modes of index entries that are not regular files: symbolic links and submodules.
_NOT_FILES = ("120000", "160000")


@dataclass(frozen=True)
class TrackedFile:
    path: str  # relative to the folder asked about, "/"-separated
    blob: str  # git's blob hash of the work-tree content
    mode: str


def _git(folder: Path, *args: str) -> bytes:
    try:
        done = subprocess.run(
            ["git", "-C", str(folder), *args],
            capture_output=True,
            check=False,
            timeout=120,
        )
    except FileNotFoundError as exc:
        raise SourceError(
            folder, "the git program is not installed; the code source needs git on PATH"
        ) from exc
    except subprocess.TimeoutExpired as exc:
        raise SourceError(
            folder, f"git {args[0]} took over 120 s; is the repository locked?"
        ) from exc
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise SourceError(
            folder,
            f"not a git work tree ({message[-1] if message else 'git failed'}); the code source "
            "indexes the tracked files of a git repository: pass the repository's folder",
        )
    return done.stdout


def git_root(folder: Path) -> Path:
    """The top-level folder of the work tree ``folder`` is in (SourceError if none)."""
    if not Path(folder).is_dir():
        raise SourceError(folder, "not a folder; pass a git repository's folder")
    out = _git(Path(folder), "rev-parse", "--show-toplevel").decode("utf-8").strip()
    return Path(out).resolve()


def blob_hash(data: bytes) -> str:
    """git's object id of a blob holding ``data``."""
    digest = hashlib.sha1(usedforsecurity=False)
    digest.update(b"blob %d\0" % len(data))
    digest.update(data)
    return digest.hexdigest()


def tracked_files(folder: Path) -> list[TrackedFile]:
    """Every tracked regular file under ``folder`` that exists on disk, with its blob hash."""
    folder = Path(folder)
    entries: dict[str, TrackedFile] = {}
    for record in _git(folder, "ls-files", "-s", "-z").split(b"\0"):
        if not record:
            continue
        meta, _, name = record.partition(b"\t")
        mode, blob, _stage = meta.decode("ascii").split()
        path = name.decode("utf-8", "surrogateescape")
        if mode in _NOT_FILES or path in entries:  # a conflicted file lists several stages
            continue
        entries[path] = TrackedFile(path, blob, mode)
    differing = _git(folder, "ls-files", "-m", "-d", "-z").split(b"\0")
    for changed in sorted({n.decode("utf-8", "surrogateescape") for n in differing if n}):
        entry = entries.pop(changed, None)
        file = folder / changed
        if entry is None or not file.is_file():
            continue  # deleted from the work tree: nothing to index
        entries[changed] = TrackedFile(changed, blob_hash(file.read_bytes()), entry.mode)
    return sorted(entries.values(), key=lambda e: e.path)
