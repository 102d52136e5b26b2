"""The SQL escape hatch (``memex query``, ``memex sql``, ``Memex.query``) on PostgreSQL: read,
and nothing else.

Locks, as SQLite's (:mod:`memex_core.catalog.read_only`) are, each enough for writes on
its own:

- only a query may run: the statement must start with SELECT, WITH, VALUES or TABLE
  (after comments and parentheses), so SET, SET ROLE, RESET, COPY, DO, CALL, LISTEN,
  PREPARE, transaction control and DDL are refused before anything is sent;
- it runs in a ``READ ONLY`` transaction (the server refuses every write in it, a
  data-modifying WITH included) that is always rolled back, on a connection of its own
  that is closed afterwards (so nothing it leaves behind, a session advisory lock say,
  outlives it);
- under the role :data:`READER_ROLE` (``SET LOCAL ROLE``), which may SELECT the catalog's
  tables and nothing else, created when the schema is migrated. If the server user may
  not create roles, memex says so once and relies on the other locks;
- the statement is planned first (``EXPLAIN VERBOSE``, through the extended protocol,
  which refuses a second statement) and refused if it calls a function that could get
  round the role or reach outside the query: ``set_config`` (``SET ROLE`` by another
  name), advisory locks, sleeps, large objects, server files, signals
  (:data:`DENIED_FUNCTIONS`).

Errors are :class:`ReadOnlyQueryError` (refused) or :class:`MemexError` (SQL mistakes),
both without a traceback in the CLI.
"""

from __future__ import annotations

import contextlib
import re
from typing import Any

import psycopg
from psycopg import errors as pg_errors

from memex_core.errors import MemexError, ReadOnlyQueryError
from memex_postgres.errors import cannot_connect, connection_lost

#: The role read-only SQL runs as: NOLOGIN, SELECT on the catalog's tables only.
READER_ROLE = "memex_reader"

#: Functions (as PostgreSQL's planner prints them) a read-only query may not call.
DENIED_FUNCTIONS = re.compile(
    r"\b(set_config|pg_advisory\w*|pg_try_advisory\w*|pg_sleep\w*|pg_notify|lo_\w+|"
    r"pg_read_\w+|pg_ls_\w+|pg_stat_file|pg_file_\w+|dblink\w*|pg_terminate_backend|"
    r"pg_cancel_backend|pg_reload_conf|pg_rotate_logfile|pg_promote|pg_switch_wal|"
    r"pg_create_\w+|pg_drop_\w+|pg_logical_\w+|pg_replication_\w+|pg_stat_reset\w*|"
    r"pg_import_\w+|query_to_xml\w*|table_to_xml\w*|cursor_to_xml\w*|database_to_xml\w*|"
    r"schema_to_xml\w*)\s*\(",
    re.IGNORECASE,
)

#: Names refused wherever they appear as a call in the statement's text (quotes ignored):
#: the denied functions, and SQLite's, so the refusal reads the same on both engines.
_DENIED_IN_TEXT = re.compile(
    DENIED_FUNCTIONS.pattern.replace(
        r"\b(", r"\b(load_extension|fts3_tokenizer|readfile|writefile|", 1
    ),
    re.IGNORECASE,
)

_QUERY_KEYWORDS = frozenset({"select", "with", "values", "table"})

_REFUSED = (
    "`memex query` only reads the catalog, one SELECT at a time; writes, DDL, SET and "
    "SET ROLE, COPY, transactions and functions that reach outside the query are not "
    "allowed."
)

_COMMENT_OR_PAREN = re.compile(r"\s+|--[^\n]*|\(")


def _first_word(sql: str) -> str:
    """The statement's first keyword, past whitespace, comments and opening parentheses."""
    at = 0
    while at < len(sql):
        if sql.startswith("/*", at):
            at = _end_of_block_comment(sql, at)
            continue
        match = _COMMENT_OR_PAREN.match(sql, at)
        if match is None:
            break
        at = match.end()
    word = re.match(r"[A-Za-z_]+", sql[at:])
    return word.group(0).lower() if word else ""


def _end_of_block_comment(sql: str, at: int) -> int:
    """Where the ``/* ... */`` comment starting at ``at`` ends (PostgreSQL's nest)."""
    depth, at = 0, at
    while at < len(sql):
        if sql.startswith("/*", at):
            depth, at = depth + 1, at + 2
        elif sql.startswith("*/", at):
            depth, at = depth - 1, at + 2
            if depth == 0:
                return at
        else:
            at += 1
    return at


def _refuse(reason: str) -> ReadOnlyQueryError:
    return ReadOnlyQueryError(f"Refused: {reason}. {_REFUSED}")


def run_query(
    url: str, sql: str, limit: int | None = None, *, reader_role: str | None = READER_ROLE
) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Column names and rows of one read-only statement (the first ``limit`` rows if set).

    ``reader_role`` is the role to run as (None when the server has none for us)."""
    if not isinstance(sql, str):
        raise MemexError(f"SQL must be text, not {type(sql).__name__}")
    if "\x00" in sql:
        raise MemexError("SQL error: the statement contains a NUL character")
    word = _first_word(sql)
    if word not in _QUERY_KEYWORDS:
        shown = word.upper() or "an empty statement"
        raise _refuse(f"{shown} is not a query")
    named = _DENIED_IN_TEXT.search(sql.replace('"', ""))
    if named:
        raise _refuse(f"it calls {named.group(1)}()")
    try:
        conn = psycopg.connect(url, autocommit=True, connect_timeout=10)
    except psycopg.Error as exc:
        raise cannot_connect(url, str(exc)) from exc
    try:
        return _run(conn, url, sql, limit, reader_role)
    finally:
        conn.close()


def _run(
    conn: psycopg.Connection[Any], url: str, sql: str, limit: int | None, reader_role: str | None
) -> tuple[list[str], list[tuple[Any, ...]]]:
    try:
        conn.execute("BEGIN TRANSACTION READ ONLY")
        if reader_role is not None:
            conn.execute(f'SET LOCAL ROLE "{reader_role}"'.encode())
        _check_plan(conn, sql)
        cursor = conn.cursor()
        cursor.execute(sql.encode())  # one statement: _check_plan proved it
        columns = [d.name for d in cursor.description or ()]
        rows = cursor.fetchmany(limit) if limit else cursor.fetchall()
        return columns, [tuple(r) for r in rows]
    except psycopg.Error as exc:
        if conn.broken:
            raise connection_lost(url, str(exc), writing=False) from exc
        raise _translated(exc) from exc
    finally:
        if not conn.closed and not conn.broken:
            with contextlib.suppress(psycopg.Error):
                conn.execute("ROLLBACK")


def _check_plan(conn: psycopg.Connection[Any], sql: str) -> None:
    """Plan the statement (extended protocol: a second statement is an error) and refuse
    one that calls a denied function."""
    result = conn.pgconn.exec_params(b"EXPLAIN (VERBOSE, FORMAT JSON) " + sql.encode(), [])
    if result.status != psycopg.pq.ExecStatus.TUPLES_OK:
        raise pg_errors.error_from_result(result, encoding=conn.info.encoding)
    plan = b"".join(result.get_value(row, 0) or b"" for row in range(result.ntuples)).decode(
        "utf-8", "replace"
    )
    denied = DENIED_FUNCTIONS.search(plan.replace('\\"', '"'))
    if denied:
        raise _refuse(f"it calls {denied.group(1)}()")


def _translated(exc: psycopg.Error) -> MemexError:
    message = (exc.diag.message_primary or str(exc)).strip()
    if isinstance(exc, pg_errors.ReadOnlySqlTransaction | pg_errors.InsufficientPrivilege):
        return _refuse(message)
    if "multiple commands" in message:
        return _refuse("more than one statement; run them one by one")
    return MemexError(f"SQL error: {message}")
