"""What the folders sessions ran in are on this host: real paths and git repositories.

The catalog keeps each session's working folder as its transcript recorded it
(``session_projects``, :mod:`memex_core.catalog.sessions`); it never reads the
file system. The capture worker, which runs on the host where the sessions ran,
resolves them here after it ingests: the folder with its symlinks resolved
(``os.path.realpath``) and the git repository it lies in (the nearest ``.git``
above it, :func:`memex_capture.layout.git_root`), so a session recorded under a
symlinked path, or in a subfolder of a repository, is found by the brief of its
project through the catalog's indexes.

A folder that does not exist here (a session from another machine, a deleted
checkout) has no repository to find; its real path is what ``realpath`` makes of
it (the symlinks among its parents that still exist). On a catalog this home has
to itself that is recorded too, so the brief never resolves it again; on a catalog
shared by several hosts it is left unresolved, since another host may have it on
disk. The brief resolves on the fly what is still unresolved
(:func:`memex_capture.briefing.project_sessions`).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from memex_capture import layout

if TYPE_CHECKING:
    from memex_core.api import Memex

#: Most folders resolved in one go (each costs a few system calls).
RESOLVE_LIMIT = 2000


def resolve(folder: str, *, missing_too: bool = False) -> tuple[str, str | None] | None:
    """``(real path, git repository root or None)`` of ``folder`` on this host; None when
    it is not a directory here (unless ``missing_too``: then its real path, no root)."""
    try:
        exists = os.path.isdir(folder)
        if not (exists or missing_too):
            return None
        real = os.path.realpath(folder)
    except (OSError, ValueError):  # a NUL in a recorded path, a loop of links
        return None
    return real, layout.git_root(real) if exists else None


def resolve_unresolved(mx: Memex, limit: int = RESOLVE_LIMIT) -> int:
    """Resolve the recorded folders nobody has resolved yet (on a shared catalog, those
    that exist on this host), and record what they are in the catalog (under the home's
    write lock). Returns how many folders were resolved."""
    missing_too = not getattr(mx.catalog, "shared", False)
    found: dict[str, tuple[str, str | None]] = {}
    for folder in mx.catalog.unresolved_session_folders(limit):
        resolved = resolve(folder, missing_too=missing_too)
        if resolved is not None:
            found[folder] = resolved
    if found:
        with mx.writing():
            mx.catalog.resolve_session_folders(found)
    return len(found)
