"""Disk full and read-only homes, told in words: what happened, where, and what to do.

SQLite and the OS report these as codes (``SQLITE_FULL``, ``ENOSPC``, ``EROFS``
...). memex turns them into :class:`StorageError` messages that name the home
and the fix, and says what the failure left behind: every write is atomic
(a file's fragments are one transaction, an index generation is switched in one
rename), so the answer is always "nothing half-written, run it again".
"""

from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path

from memex_core.errors import StorageFailure

#: errno values that mean "no room to write" (a quota and a file size limit count).
DISK_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})
#: errno values that mean "not allowed to write here".
NOT_WRITABLE_ERRNOS = frozenset({errno.EROFS, errno.EACCES, errno.EPERM})

_SQLITE_READONLY, _SQLITE_IOERR, _SQLITE_FULL, _SQLITE_CANTOPEN = 8, 10, 13, 14

_INTACT = (
    "Nothing was half-written: the catalog keeps every file committed before the failure "
    "and the indexes catch up on the next run."
)


class StorageError(StorageFailure):
    """memex could not write to its home; the message names the home and the fix."""


class DiskFullError(StorageError):
    """No space (or quota, or file size allowance) left where the home lives."""


class NotWritableError(StorageError):
    """The home (or a file in it) is read-only for this process."""


class CatalogStorageError(StorageError, sqlite3.OperationalError):
    """A storage failure raised by the catalog; still an ``sqlite3.OperationalError``."""


class CatalogDiskFullError(CatalogStorageError, DiskFullError):
    pass


class CatalogNotWritableError(CatalogStorageError, NotWritableError):
    pass


def disk_full_message(home: Path, where: Path | str, detail: str) -> str:
    return (
        f"No space left to write {where} ({detail}). {_INTACT} Free some space on the disk "
        f"holding {home} (or move MEMEX_HOME to a bigger disk) and run the command again; "
        "`memex doctor` checks the home afterwards."
    )


def not_writable_message(home: Path, where: Path | str, detail: str) -> str:
    return (
        f"memex cannot write to {where} ({detail}): the home {home} is read-only for this "
        "process. Make it writable (chmod u+w, or remount it read-write) or point "
        "MEMEX_HOME (or --home) at a writable folder, then run the command again."
    )


def from_os_error(exc: OSError, home: Path, where: Path | str | None = None) -> StorageError | None:
    """The storage error ``exc`` stands for, or None if it is some other failure."""
    place = where or exc.filename or home
    detail = exc.strerror or str(exc)
    if exc.errno in DISK_FULL_ERRNOS:
        return DiskFullError(disk_full_message(home, place, detail))
    if exc.errno in NOT_WRITABLE_ERRNOS:
        return NotWritableError(not_writable_message(home, place, detail))
    return None


def from_sqlite_error(exc: sqlite3.Error, database: Path) -> CatalogStorageError | None:
    """The storage error an SQLite failure on ``database`` stands for, or None."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None:
        return None
    home = database.parent
    primary = code & 0xFF
    if primary == _SQLITE_FULL:
        return CatalogDiskFullError(disk_full_message(home, database, str(exc)))
    if primary == _SQLITE_IOERR:
        # A failed write (a file size limit, a full disk SQLite noticed late, a bad disk).
        detail = f"{exc}: the disk is full, a file size limit was reached or the disk failed"
        return CatalogDiskFullError(disk_full_message(home, database, detail))
    # "unable to open database file" is a read-only home when the folder says so.
    if primary == _SQLITE_READONLY or (
        primary == _SQLITE_CANTOPEN and not os.access(home, os.W_OK)
    ):
        return CatalogNotWritableError(not_writable_message(home, database, str(exc)))
    return None


_FULL_WORDS = ("database or disk is full", "no space left on device", "disk quota exceeded")
_READ_ONLY_WORDS = ("read-only file system", "readonly database")


def storage_error(exc: BaseException, home: Path) -> StorageError | None:
    """The storage error behind any failure during a write, or None.

    Errors from memex's own code are already :class:`StorageError`; this is the
    net for components that wrap the OS or SQLite error in their own exception
    (chroma raises ``InternalError('... (code: 13) database or disk is full')``).
    """
    if isinstance(exc, StorageError):
        return exc
    if isinstance(exc, OSError):
        return from_os_error(exc, home)
    if isinstance(exc, sqlite3.Error):
        return from_sqlite_error(exc, home / "catalog.sqlite")
    text = str(exc).lower()
    if any(words in text for words in _FULL_WORDS):
        return DiskFullError(disk_full_message(home, home, str(exc)))
    if any(words in text for words in _READ_ONLY_WORDS):
        return NotWritableError(not_writable_message(home, home, str(exc)))
    return None


class CatalogUnavailableError(StorageError):
    """The catalog's database server cannot be reached, refused the connection, or lost it
    in the middle of a statement. The message names the server (never a password) and
    the fix; a write transaction it interrupted was rolled back whole.

    ``server`` (``host:port/database``), ``reason`` and ``fix``, when the engine gives
    them, are the message's parts, for reports that show them apart (``memex doctor``'s
    ``catalog.unreachable`` finding)."""

    def __init__(self, message: str, *, server: str = "", reason: str = "", fix: str = ""):
        super().__init__(message)
        self.server = server
        self.reason = reason
        self.fix = fix
