"""The home's SQLite catalog, read and never written: the source of ``memex migrate``.

Everything is read through one read-only connection inside one read transaction,
so the copy and its checksums see a single consistent state of the catalog even
if a writer ignored the home's write lock (which the command holds anyway).
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memex_core.errors import MemexError

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
#: Tables the target's own migrations keep; everything else in the catalog is copied.
NOT_COPIED = frozenset({"schema_version"})


def quoted(name: str) -> str:
    """``name`` as a double-quoted SQL identifier (both engines; in SQLite ``"rowid"`` is a
    table's implicit row number); refuses odd names."""
    if not _NAME.match(name):
        raise MemexError(
            f"The catalog has a table or column named {name!r}, which memex never creates."
        )
    return f'"{name}"'


@dataclass(frozen=True)
class SourceTable:
    name: str
    columns: tuple[str, ...]
    key: tuple[str, ...]  # primary key columns, in key order
    references: tuple[str, ...]  # tables its foreign keys point at


class SqliteSource:
    """A read-only snapshot of ``catalog.sqlite``."""

    def __init__(self, path: Path) -> None:
        if not path.is_file():
            raise MemexError(
                f"{path}: there is no catalog here, so nothing to migrate. Point --home (or "
                "MEMEX_HOME) at the home you ingested into."
            )
        self.path = path
        try:
            self._db = sqlite3.connect(
                f"{path.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None
            )
            self._db.execute("PRAGMA query_only=1")
            # The read transaction starts at its first read: from here on every query sees
            # the catalog as it is now.
            self._db.execute("BEGIN")
            self.version = self._schema_version()
        except sqlite3.DatabaseError as exc:
            raise MemexError(
                f"{path}: cannot read the catalog ({exc}). Run `memex doctor` on this home."
            ) from exc

    def _schema_version(self) -> int:
        exists = self._db.execute(
            "SELECT 1 FROM sqlite_master WHERE type='table' AND name='schema_version'"
        ).fetchone()
        if not exists:
            return 0
        return int(self._db.execute("SELECT MAX(version) FROM schema_version").fetchone()[0] or 0)

    def catalog_id(self) -> str:
        """Names this catalog wherever its home is moved or copied: a hash of the moment its
        first migration ran (recorded to the microsecond when the catalog was created)."""
        row = self._db.execute(
            "SELECT version, applied_at FROM schema_version ORDER BY version LIMIT 1"
        ).fetchone()
        if row is None:
            raise MemexError(f"{self.path}: the catalog has no schema yet; nothing to migrate.")
        return hashlib.sha256(f"sqlite:{row[0]}:{row[1]!r}".encode()).hexdigest()[:16]

    def tables(self) -> list[SourceTable]:
        names = [
            r[0]
            for r in self._db.execute(
                "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' "
                "ORDER BY name"
            )
            if r[0] not in NOT_COPIED
        ]
        found = []
        for name in names:
            info = self._db.execute(f"PRAGMA table_info({quoted(name)})").fetchall()
            columns = tuple(r[1] for r in info)
            for column in columns:
                quoted(column)  # refuses a name memex never writes
            key = tuple(r[1] for r in sorted((r for r in info if r[5]), key=lambda r: r[5]))
            if not key:
                raise MemexError(
                    f"{self.path}: table {name} has no primary key, so it cannot be copied in "
                    "resumable batches; this memex does not create such tables."
                )
            refs = self._db.execute(f"PRAGMA foreign_key_list({quoted(name)})").fetchall()
            references = tuple(sorted({r[2] for r in refs if r[2] != name}))
            found.append(SourceTable(name, columns, key, references))
        return found

    def count(self, table: SourceTable) -> int:
        return int(self._db.execute(f"SELECT COUNT(*) FROM {quoted(table.name)}").fetchone()[0])

    def rows(
        self,
        table: SourceTable,
        columns: Sequence[str],
        after: Sequence[Any] | None = None,
        upto: Sequence[Any] | None = None,
    ) -> Iterator[tuple[Any, ...]]:
        """Rows of ``table`` (``columns``, in that order) in key order, with keys after
        ``after`` and up to ``upto`` (either may be None: no bound)."""
        key = ", ".join(quoted(c) for c in table.key)
        where: list[str] = []
        params: list[Any] = []
        if after is not None:
            where.append(f"({key}) > ({', '.join('?' * len(table.key))})")
            params.extend(after)
        if upto is not None:
            where.append(f"({key}) <= ({', '.join('?' * len(table.key))})")
            params.extend(upto)
        sql = f"SELECT {', '.join(quoted(c) for c in columns)} FROM {quoted(table.name)}"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += f" ORDER BY {key}"
        try:
            yield from self._db.execute(sql, params)
        except sqlite3.DatabaseError as exc:
            raise MemexError(f"{self.path}: reading table {table.name} failed ({exc}).") from exc

    def sequence(self, table: str) -> int:
        """The highest number SQLite's AUTOINCREMENT has handed out for ``table`` (0: none):
        a journal pruned to nothing still must not hand the same numbers out again."""
        exists = self._db.execute(
            "SELECT 1 FROM sqlite_master WHERE type='table' AND name='sqlite_sequence'"
        ).fetchone()
        if not exists:
            return 0
        row = self._db.execute("SELECT seq FROM sqlite_sequence WHERE name=?", (table,)).fetchone()
        return int(row[0]) if row else 0

    def close(self) -> None:
        with contextlib.suppress(sqlite3.Error):  # nothing to roll back: it only read
            self._db.execute("ROLLBACK")
        self._db.close()
