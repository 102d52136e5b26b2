"""What the catalog's SQL needs of a database engine, so one body of SQL serves SQLite and
PostgreSQL.

The catalog's parts (documents, the link graph, memory, health queries, agent keys)
talk to a :class:`Connection`: the slice of ``sqlite3.Connection`` both engines offer
(``execute`` and ``executemany`` with ``?`` placeholders, a cursor to fetch from). What
truly differs between the engines is a handful of SQL snippets and error types, named
in :class:`Dialect`; each engine's catalog supplies its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol


class Cursor(Protocol):
    """The result of one statement: rows to fetch, or how many rows it changed."""

    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Connection(Protocol):
    """Runs one statement (``?`` placeholders) or one statement over many parameter rows."""

    def execute(self, sql: str, parameters: Sequence[Any] = ..., /) -> Cursor: ...

    def executemany(self, sql: str, parameters: Iterable[Sequence[Any]], /) -> Cursor: ...


class Dialect:
    """The few SQL snippets that differ between engines (SQLite's here; other engines
    override them)."""

    #: Exceptions a violated UNIQUE or PRIMARY KEY constraint raises.
    integrity_errors: tuple[type[BaseException], ...] = ()

    def json_text(self, column: str, key: str) -> str:
        """An expression for the value at top-level ``key`` of the JSON text in ``column``
        (NULL when absent); ``key`` is a constant of memex's code, never user input."""
        return f"json_extract({column}, '$.{key}')"

    def memory_order(self, alias: str) -> str:
        """The column that orders memories created in the same instant as they were
        stored (SQLite's implicit ``rowid``)."""
        return f"{alias}.rowid"

    def turn_windows(self, windows: Sequence[tuple[str, int]]) -> tuple[str, list[Any]]:
        """A FROM clause of ``fragments`` rows (under that name) limited to each
        (conversation, start) of ``windows``: the conversation's rows from position
        ``start`` on, and its rows without a position; with its parameters.

        SQLite's planner answers this join by the ``(conversation_id, position)`` index,
        a conversation at a time."""
        return (
            f"(VALUES {','.join('(?, ?)' for _ in windows)}) AS wanted "
            "JOIN fragments ON conversation_id = wanted.column1 "
            "AND (position >= wanted.column2 OR position IS NULL)",
            [value for window in windows for value in window],
        )


class CatalogPart:
    """What each part of the catalog (the mixins of :class:`memex_core.catalog.base.SqlCatalog`)
    uses of the whole: its connection, its dialect and its write transactions."""

    _db: Connection
    dialect: Dialect

    def transaction(self) -> AbstractContextManager[Connection]:
        """A write transaction: everything in it commits together or not at all."""
        raise NotImplementedError

    def insert_fragment_rows(self, db: Connection, rows: Sequence[Sequence[Any]]) -> None:
        """Insert rows of ``memex_core.catalog.rows.fragment_rows`` inside ``db``'s
        transaction, as its ``INSERT_FRAGMENT`` would one by one."""
        raise NotImplementedError
