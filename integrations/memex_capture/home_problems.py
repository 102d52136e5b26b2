"""Errors of the home as a whole (read-only, full, locked, a damaged catalog): the worker
keeps the batch and retries with backoff; it never fails a transcript for them."""

from __future__ import annotations

import errno
import sqlite3

_HOME_ERRNOS = frozenset(
    {errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOSPC, errno.EDQUOT, errno.EFBIG}
)


class HomeProblem(Exception):
    """The home cannot take writes right now; the batch stays and is retried."""


def is_home_problem(exc: BaseException) -> bool:
    """Errors of the home as a whole (not of one transcript): retried, never failed."""
    from memex_core.catalog.faults import StorageError
    from memex_core.errors import WriteLockedError

    if isinstance(exc, StorageError | WriteLockedError | sqlite3.DatabaseError):
        return True
    return isinstance(exc, OSError) and exc.errno in _HOME_ERRNOS
