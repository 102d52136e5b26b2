"""The SQL escape hatch (``memex query``, ``memex sql``, ``Memex.query``): read, and nothing else.

Three locks, each enough on its own for writes, together for everything else:

- the connection is opened read-only (``mode=ro``): SQLite refuses to write
  the file whatever the statement;
- ``PRAGMA query_only`` refuses writes to any attached or temporary database;
- an authorizer allows only SELECT, reading columns, recursive CTEs and
  functions other than the dangerous ones (:data:`DENIED_FUNCTIONS`), so
  ATTACH (and so ``VACUUM INTO``, which SQLite authorizes as an attach),
  PRAGMA, transactions, DDL and temp tables are refused before they run.

One statement at a time: a second one (``SELECT 1; DROP TABLE x``) is refused,
never run. Errors are :class:`ReadOnlyQueryError` (refused) or
:class:`MemexError` (SQL mistakes), both without a traceback in the CLI.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from memex_core.errors import MemexError, ReadOnlyQueryError

#: Actions the authorizer lets through; everything else is denied.
ALLOWED_ACTIONS = frozenset(
    {
        sqlite3.SQLITE_SELECT,
        sqlite3.SQLITE_READ,
        sqlite3.SQLITE_FUNCTION,
        getattr(sqlite3, "SQLITE_RECURSIVE", 33),  # WITH RECURSIVE (33 before Python 3.12)
    }
)

#: SQL functions that reach outside the query: loading native code, or (fts3_tokenizer)
#: reading and setting raw pointers. Denied by name, whatever the build enables.
DENIED_FUNCTIONS = frozenset({"load_extension", "fts3_tokenizer", "readfile", "writefile", "edit"})

_REFUSED = (
    "`memex query` only reads the catalog, one SELECT at a time; writes, ATTACH, "
    "VACUUM, PRAGMA, transactions and extensions are not allowed."
)


def _authorize(action: int, arg1: str | None, arg2: str | None, *_: object) -> int:
    if action not in ALLOWED_ACTIONS:
        return sqlite3.SQLITE_DENY
    if action == sqlite3.SQLITE_FUNCTION and (arg2 or "").lower() in DENIED_FUNCTIONS:
        return sqlite3.SQLITE_DENY
    return sqlite3.SQLITE_OK


def connect_read_only(path: Path) -> sqlite3.Connection:
    """A connection to the catalog at ``path`` that can only read (see the module docstring)."""
    uri = f"{path.resolve().as_uri()}?mode=ro"
    conn = sqlite3.connect(uri, uri=True, check_same_thread=False)
    conn.execute("PRAGMA query_only=1")
    if hasattr(conn, "enable_load_extension"):  # absent when Python is built without it
        conn.enable_load_extension(False)
    conn.set_authorizer(_authorize)
    return conn


def run_query(
    path: Path, sql: str, limit: int | None = None
) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Column names and rows of one read-only statement (the first ``limit`` rows if set)."""
    if not isinstance(sql, str):
        raise MemexError(f"SQL must be text, not {type(sql).__name__}")
    conn = connect_read_only(path)
    try:
        try:
            cursor = conn.execute(sql)
            columns = [d[0] for d in cursor.description or ()]
            rows = cursor.fetchmany(limit) if limit else cursor.fetchall()
        except sqlite3.ProgrammingError as exc:
            if "one statement at a time" in str(exc):
                raise ReadOnlyQueryError(
                    f"Refused: more than one statement. {_REFUSED} Run them one by one."
                ) from exc
            raise MemexError(f"SQL error: {exc}") from exc
        except (sqlite3.Warning, ValueError) as exc:  # Warning: several statements, Python<3.12
            raise MemexError(f"SQL error: {exc}") from exc
        except sqlite3.DatabaseError as exc:
            message = str(exc)
            if "not authorized" in message or "authorization denied" in message:
                raise ReadOnlyQueryError(f"Refused: {message}. {_REFUSED}") from exc
            if "readonly" in message.lower() or "read-only" in message.lower():
                raise ReadOnlyQueryError(f"Refused: {message}. {_REFUSED}") from exc
            raise MemexError(f"SQL error: {message}") from exc
        return columns, rows
    finally:
        conn.close()
