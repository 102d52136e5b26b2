"""``memex migrate``: copy a home's SQLite catalog into PostgreSQL, resumably, and prove it.

The steps, in order:

1. **Look before writing.** The target must be empty, an empty memex schema, or a
   copy this same catalog started earlier (``migration_progress`` names the source
   catalog). A copy already there must equal the source row for row (counts and
   checksums up to where it stopped) and hold nothing more. Anything else is
   refused before a single write.
2. **Schema.** The postgres catalog component's migrations create the tables.
3. **Copy** each table in dependency order (a table after those its foreign keys
   point at), in batches in key order, each batch committed with its progress.
4. **Identity sequences** move past the highest number the source handed out, so
   new rows never reuse a copied id (the change journal's too: its numbers go on
   where SQLite's stopped, so the keyword index's place in it stays valid).
5. **Verify**: per table, row counts and a checksum over every row in key order,
   computed the same way on both sides (:mod:`memex_postgres.migration.values`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import KW_ONLY, dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any, Protocol

from memex_core.crashpoints import crash_point
from memex_core.errors import MemexError
from memex_postgres.migration.source import SourceTable, SqliteSource
from memex_postgres.migration.target import PROGRESS_TABLE, PostgresTarget
from memex_postgres.migration.values import Digest, Kind, RowNormaliser, kind_of, to_kind
from memex_postgres.urls import mask_password

DEFAULT_BATCH_SIZE = 5000


@dataclass(frozen=True)
class TargetSchema:
    """What the postgres catalog component provides for the target's schema."""

    create: Callable[[str], None]  # runs its migrations in the database at this URL
    latest_version: int
    writer_lock_key: int | None = None


class Observer(Protocol):
    """Told what the migration does, for a progress display."""

    def phase(self, text: str) -> None: ...

    def table_started(self, name: str, total: int, done: int) -> None: ...

    def advanced(self, name: str, rows: int) -> None: ...

    def table_finished(self, name: str) -> None: ...


class QuietObserver:
    def phase(self, text: str) -> None:
        pass

    def table_started(self, name: str, total: int, done: int) -> None:
        pass

    def advanced(self, name: str, rows: int) -> None:
        pass

    def table_finished(self, name: str) -> None:
        pass


@dataclass(frozen=True)
class TablePlan:
    table: SourceTable
    columns: tuple[str, ...]  # the target's column names
    source_columns: tuple[str, ...]  # what SQLite gives each (its column, or its rowid)
    kinds: tuple[Kind, ...]  # of each column, from the target's column types
    key_kinds: tuple[Kind, ...]
    key_positions: tuple[int, ...]
    triggers: bool

    @property
    def normalise(self) -> RowNormaliser:
        return RowNormaliser(self.kinds)

    @property
    def name(self) -> str:
        return self.table.name

    def key_of(self, row: Sequence[Any]) -> list[Any]:
        return [row[i] for i in self.key_positions]


@dataclass
class TableReport:
    name: str
    source_rows: int
    target_rows: int
    source_checksum: str
    target_checksum: str
    copied: int = 0  # rows this run copied
    seconds: float = 0.0  # spent copying them

    @property
    def ok(self) -> bool:
        return (self.source_rows, self.source_checksum) == (self.target_rows, self.target_checksum)

    def as_dict(self) -> dict[str, Any]:
        return {
            "table": self.name,
            "source_rows": self.source_rows,
            "target_rows": self.target_rows,
            "source_checksum": self.source_checksum,
            "target_checksum": self.target_checksum,
            "copied": self.copied,
            "seconds": round(self.seconds, 3),
            "ok": self.ok,
        }


@dataclass
class MigrationReport:
    target: str  # URL, password masked
    resumed: bool  # an earlier run had copied rows (interrupted, or finished)
    finished_before: bool = False  # an earlier run had finished and verified its copy
    tables: list[TableReport] = field(default_factory=list)
    copy_seconds: float = 0.0
    verify_seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return all(t.ok for t in self.tables)

    @property
    def copied(self) -> int:
        return sum(t.copied for t in self.tables)

    @property
    def rows(self) -> int:
        return sum(t.source_rows for t in self.tables)

    @property
    def rows_per_s(self) -> float:
        return self.copied / self.copy_seconds if self.copy_seconds > 0 else 0.0

    def mismatches(self) -> list[TableReport]:
        return [t for t in self.tables if not t.ok]


@dataclass(eq=False)
class Migration:
    """One run of ``memex migrate`` from ``source`` into ``target``."""

    source: SqliteSource
    target: PostgresTarget
    schema: TargetSchema
    _: KW_ONLY
    home: Path
    batch_size: int = DEFAULT_BATCH_SIZE
    observer: Observer = field(default_factory=QuietObserver)

    def run(self) -> MigrationReport:
        self.target.lock()
        self.observer.phase("Checking the target")
        progress = self._prepare()
        plan = self._plan()
        resumed = any(name.startswith("table:") for name in progress)
        if resumed:
            self._check_copied_so_far(plan, progress)
        report = MigrationReport(
            mask_password(self.target.url), resumed, finished_before="finished" in progress
        )
        started = time.perf_counter()
        copied = {p.name: self._copy(p, progress.get(f"table:{p.name}")) for p in plan}
        report.copy_seconds = time.perf_counter() - started
        crash_point("migrate.copied")
        self._move_sequences(plan)
        self.observer.phase("Verifying counts and checksums")
        started = time.perf_counter()
        for p in plan:
            table = self._compare(p, None)
            table.copied, table.seconds = copied[p.name]
            report.tables.append(table)
        report.verify_seconds = time.perf_counter() - started
        self.target.set_progress(
            "finished", {"at": time.time(), "verified": report.ok, "rows": report.rows}
        )
        return report

    # -- 1. look before writing; 2. schema --------------------------------------------------

    def _prepare(self) -> dict[str, Any]:
        """Refuse a target that is not ours to write; create the schema; return the
        progress recorded by earlier runs (``{}`` on a first run)."""
        latest = self.schema.latest_version
        if self.source.version != latest:
            newer = self.source.version > latest
            raise MemexError(
                f"{self.source.path} has catalog schema {self.source.version}; the postgres "
                f"catalog of this memex has schema {latest}. "
                + (
                    "Upgrade memex (pip install -U memex) and run memex migrate again."
                    if newer
                    else "Run any memex command on the home once (memex corpus) to upgrade its "
                    "catalog, then run memex migrate again."
                )
            )
        catalog_id = self.source.catalog_id()
        where = self.target.where
        version = self.target.schema_version()
        progress = self.target.progress()
        if progress is not None and "source" in progress:
            recorded = progress["source"]
            if recorded.get("catalog_id") != catalog_id:
                raise MemexError(
                    f"{where} holds a copy of another home's catalog (migrated from "
                    f"{recorded.get('home', 'an unknown home')}), not of {self.home}. Nothing "
                    "was written. Migrate into an empty database instead (createdb <name>)."
                )
        if version is None:
            ours = {t.name for t in self.source.tables()} | {PROGRESS_TABLE}
            clash = sorted(ours & set(self.target.columns()))
            if clash:
                raise MemexError(
                    f"{where} already has tables named {', '.join(clash)} that are not a memex "
                    "catalog. Nothing was written. Migrate into an empty database "
                    "(createdb <name>)."
                )
        elif version > latest:
            raise MemexError(
                f"{where} holds a memex catalog of schema {version}, newer than this memex "
                f"knows ({latest}). Nothing was written. Upgrade memex (pip install -U memex)."
            )
        elif progress is None or "source" not in progress:
            holding = self._rows_held()
            if holding:
                raise MemexError(
                    f"{where} already holds a memex catalog that was not copied from this "
                    f"home ({holding}). Nothing was written. memex migrate only fills an empty "
                    "database or continues its own interrupted copy: migrate into an empty "
                    "database (createdb <name>)."
                )
        if version is None or version < latest:
            self.observer.phase("Creating the memex schema")
            self.target.migrate_schema(self.schema.create)
        if progress is None or "source" not in progress:
            self.target.start_progress(
                {"catalog_id": catalog_id, "home": str(self.home), "started_at": time.time()}
            )
            return {}
        return {name: value for name, value in progress.items() if name != "source"}

    def _rows_held(self) -> str:
        """What the target's memex tables hold, e.g. ``"120 rows in fragments"`` (``""``:
        nothing)."""
        existing = self.target.columns()
        held = []
        for table in self.source.tables():
            if table.name in existing:
                count = self.target.count(table.name)
                if count:
                    held.append(f"{count:,} rows in {table.name}")
        return ", ".join(held)

    def _plan(self) -> list[TablePlan]:
        existing = self.target.columns()
        identities = set(self.target.identity_columns())
        with_triggers = self.target.tables_with_triggers()
        plans = []
        for table in _dependency_order(self.source.tables()):
            types = existing.get(table.name)
            if types is None:
                raise MemexError(
                    f"{self.target.where} has no table {table.name} after its schema was "
                    "created: the postgres catalog component and this catalog disagree. "
                    "Report it; nothing of that table was copied."
                )
            missing = [c for c in table.columns if c not in types]
            # An identity column SQLite lacks stands for its implicit rowid (memories.seq:
            # the order of memories stored in the same instant); it is filled from it.
            rowids = [c for c in types if c not in table.columns and (table.name, c) in identities]
            extra = [c for c in types if c not in table.columns and c not in rowids]
            if missing or extra or len(rowids) > 1:
                raise MemexError(
                    f"Table {table.name} differs between the two schemas (only in SQLite: "
                    f"{', '.join(missing) or 'none'}; only in PostgreSQL: "
                    f"{', '.join(extra + rowids) or 'none'}). Report it: the copy would not be "
                    "exact."
                )
            columns = (*table.columns, *rowids)
            kinds = tuple(kind_of(types[c]) for c in columns)
            positions = tuple(columns.index(k) for k in table.key)
            plans.append(
                TablePlan(
                    table,
                    columns,
                    (*table.columns, *("rowid" for _ in rowids)),
                    kinds,
                    tuple(kinds[i] for i in positions),
                    positions,
                    table.name in with_triggers,
                )
            )
        return plans

    def _check_copied_so_far(self, plan: list[TablePlan], progress: dict[str, Any]) -> None:
        """An interrupted copy goes on only if what it wrote still equals the source."""
        self.observer.phase("Checking the rows an earlier run copied")
        for p in plan:
            state = progress.get(f"table:{p.name}")
            last = state["last"] if state else None
            if last is None:
                expected = Digest(p.kinds)
            else:
                expected = _digest(p, self.source.rows(p.table, p.source_columns, upto=last))
            found = _digest(p, self.target.rows(p.name, p.columns, p.table.key, p.key_kinds))
            if (expected.rows, expected.hexdigest()) == (found.rows, found.hexdigest()):
                continue
            if "finished" in progress and found.rows > expected.rows:
                raise MemexError(
                    f"{self.target.where} holds {found.rows:,} rows in {p.name}, more than the "
                    f"{expected.rows:,} copied from this home: a memex has written to the database "
                    "since the copy finished, so it is in use and there is nothing to migrate "
                    "again. Nothing was written. (To copy this home afresh, migrate into a new, "
                    "empty database.)"
                )
            raise MemexError(
                f"{self.target.where} holds {found.rows:,} rows in {p.name} that differ from "
                f"the {expected.rows:,} this home's catalog has up to where the earlier copy "
                "stopped: the home changed since then, or something else wrote to the "
                "database. Nothing was written. Drop and recreate the database (dropdb, "
                "createdb), then run memex migrate again."
            )

    # -- 3. copy -----------------------------------------------------------------------------

    def _copy(self, p: TablePlan, state: dict[str, Any] | None) -> tuple[int, float]:
        """Copy the rows after the last one copied; returns (rows copied, seconds)."""
        last = state["last"] if state else None
        done = int(state["rows"]) if state else 0
        started = time.perf_counter()
        self.observer.table_started(p.name, self.source.count(p.table), done)
        copied = 0
        rows = self.source.rows(p.table, p.source_columns, after=last)
        normalise = p.normalise
        while batch := list(islice(rows, self.batch_size)):
            converted = [self._converted(p, normalise, row) for row in batch]
            last = p.key_of(batch[-1])
            done += len(batch)
            self.target.write_batch(
                p.name,
                p.columns,
                converted,
                (f"table:{p.name}", {"last": last, "rows": done}),
                p.triggers,
            )
            copied += len(batch)
            self.observer.advanced(p.name, len(batch))
        if state is None and not copied:  # an empty table: record that it was reached
            self.target.set_progress(f"table:{p.name}", {"last": None, "rows": 0})
        self.observer.table_finished(p.name)
        return copied, time.perf_counter() - started

    def _converted(
        self, p: TablePlan, normalise: RowNormaliser, row: Sequence[Any]
    ) -> tuple[Any, ...]:
        try:
            return normalise(row)
        except ValueError:
            for column, value, kind in zip(p.columns, row, p.kinds, strict=True):
                try:
                    to_kind(value, kind)
                except ValueError as exc:
                    key = ", ".join(
                        f"{k}={v!r}" for k, v in zip(p.table.key, p.key_of(row), strict=True)
                    )
                    raise MemexError(
                        f"{self.source.path}: table {p.name}, row {key}: column {column} cannot "
                        f"be copied into PostgreSQL ({exc}). Nothing of this row was written; "
                        "fix or delete the row, then run memex migrate again."
                    ) from exc
            raise

    # -- 4. sequences; 5. verify ----------------------------------------------------------------

    def _move_sequences(self, plan: list[TablePlan]) -> None:
        self.observer.phase("Moving identity sequences past the copied rows")
        copied = {p.name for p in plan}
        floors: dict[tuple[str, str], int] = {}
        for table, column in self.target.identity_columns():
            if table not in copied:
                continue
            highest = self.target.max_value(table, column)
            floors[table, column] = max(highest, self.source.sequence(table))
        self.target.move_sequences(floors)

    def _compare(self, p: TablePlan, upto: Sequence[Any] | None) -> TableReport:
        expected = _digest(p, self.source.rows(p.table, p.source_columns, upto=upto))
        found = _digest(p, self.target.rows(p.name, p.columns, p.table.key, p.key_kinds, upto))
        return TableReport(
            p.name, expected.rows, found.rows, expected.hexdigest(), found.hexdigest()
        )


def _digest(p: TablePlan, rows: Iterable[Sequence[Any]]) -> Digest:
    digest = Digest(p.kinds)
    for chunk in _chunks(rows, 2000):
        digest.update(chunk)
    return digest


def _chunks(rows: Iterable[Sequence[Any]], size: int) -> Iterator[list[Sequence[Any]]]:
    it = iter(rows)
    while chunk := list(islice(it, size)):
        yield chunk


def _dependency_order(tables: list[SourceTable]) -> list[SourceTable]:
    """Tables after those their foreign keys point at; otherwise by name."""
    by_name = {t.name: t for t in tables}
    ordered: list[SourceTable] = []
    placed: set[str] = set()

    def place(table: SourceTable, path: tuple[str, ...]) -> None:
        if table.name in placed:
            return
        if table.name in path:
            raise MemexError(f"The catalog's foreign keys form a cycle through {table.name}.")
        for ref in table.references:
            if ref in by_name:
                place(by_name[ref], (*path, table.name))
        placed.add(table.name)
        ordered.append(table)

    for table in sorted(tables, key=lambda t: t.name):
        place(table, ())
    return ordered
