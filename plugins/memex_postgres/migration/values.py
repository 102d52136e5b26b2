"""Column values as both engines hold them, made comparable.

SQLite types values per row (a REAL column can hand back an int, an INTEGER
column a float that happens to be whole); PostgreSQL types them per column. Each
column gets a :data:`Kind` from its PostgreSQL type, and every value read from
either side is brought to that kind: the value written into PostgreSQL and the
value a checksum sees are the same on both sides, so REAL/DOUBLE and TEXT/JSON
compare exactly.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from decimal import Decimal
from typing import Any, Literal

from memex_core.errors import MemexError

Kind = Literal["int", "float", "bool", "text", "json", "bytes"]

_KINDS: dict[str, Kind] = {
    "bigint": "int",
    "integer": "int",
    "smallint": "int",
    "double precision": "float",
    "real": "float",
    "numeric": "float",
    "boolean": "bool",
    "text": "text",
    "character varying": "text",
    "character": "text",
    "json": "json",
    "jsonb": "json",
    "bytea": "bytes",
}


def kind_of(pg_type: str) -> Kind:
    """The kind of a PostgreSQL column (``information_schema.columns.data_type``)."""
    try:
        return _KINDS[pg_type]
    except KeyError:
        raise MemexError(
            f"memex migrate does not know how to copy a PostgreSQL column of type {pg_type!r}; "
            "the target's schema is not the one memex creates."
        ) from None


def to_kind(value: Any, kind: Kind) -> Any:
    """``value`` (from SQLite or PostgreSQL) as a value of ``kind``; raises ``ValueError``
    with the reason when it cannot be one."""
    if value is None:
        return None
    if kind == "int":
        if isinstance(value, bool):
            return int(value)
        if isinstance(value, int):
            return value
        if isinstance(value, float | Decimal) and value == int(value):
            return int(value)
        raise ValueError(f"{value!r} is not a whole number")
    if kind == "float":
        if isinstance(value, int | float | Decimal) and not isinstance(value, bool):
            return float(value)
        raise ValueError(f"{value!r} is not a number")
    if kind == "bool":
        if isinstance(value, bool | int):
            return bool(value)
        raise ValueError(f"{value!r} is not 0 or 1")
    if kind == "bytes":
        if isinstance(value, bytes | bytearray | memoryview):
            return bytes(value)
        raise ValueError(f"{type(value).__name__} is not bytes")
    if kind == "json" and not isinstance(value, str):
        # psycopg hands json/jsonb back parsed; text is what SQLite holds and what is copied.
        return json.dumps(value, ensure_ascii=False)
    if not isinstance(value, str):
        raise ValueError(f"{type(value).__name__} {value!r} is not text")
    if "\x00" in value:
        # PostgreSQL text cannot hold NUL; the postgres catalog stores U+FFFD instead, and
        # so does the copy (both sides are compared after this, so they still match).
        return value.replace("\x00", "\ufffd")
    return value


def canonical(value: Any, kind: Kind) -> Any:
    """What a checksum sees of a value already brought to ``kind``."""
    if value is None:
        return None
    if kind == "bool":
        return int(value)
    if kind == "json":
        # jsonb reorders keys and respaces: compare the parsed document, not its spelling.
        return json.dumps(json.loads(value), sort_keys=True, separators=(",", ":"))
    return value


#: The Python type each kind's values already have when nothing needs converting.
_NATIVE: dict[Kind, type] = {"int": int, "float": float, "text": str}


class RowNormaliser:
    """:func:`to_kind` over whole rows of one table, fast: a value already of its kind's
    Python type (nearly all of them) is only checked, not converted. Calling it gives the
    row to write; :meth:`canonical` the row a checksum sees."""

    def __init__(self, kinds: Sequence[Kind]) -> None:
        self.kinds = tuple(kinds)
        self._typed = [(i, _NATIVE[k]) for i, k in enumerate(self.kinds) if k in _NATIVE]
        self._texts = [i for i, k in enumerate(self.kinds) if k == "text"]
        self._other = [(i, k) for i, k in enumerate(self.kinds) if k not in _NATIVE]
        self._canonical = [(i, k) for i, k in self._other if k in ("bool", "json")]

    def __call__(self, row: Sequence[Any]) -> tuple[Any, ...]:
        values = list(row)
        kinds = self.kinds
        for i, native in self._typed:
            value = values[i]
            if value.__class__ is not native and value is not None:
                values[i] = to_kind(value, kinds[i])  # converts, or raises ValueError
        for i in self._texts:
            value = values[i]
            if value is not None and "\x00" in value:
                values[i] = to_kind(value, "text")
        for i, kind in self._other:
            values[i] = to_kind(values[i], kind)
        return tuple(values)

    def canonical(self, row: Sequence[Any]) -> tuple[Any, ...]:
        values = self(row)
        if not self._canonical:
            return values
        out = list(values)
        for i, kind in self._canonical:
            out[i] = canonical(out[i], kind)
        return tuple(out)


class Digest:
    """Row count and SHA-256 over rows fed in key order, each row as the ``repr`` of its
    canonical values (exact for floats: repr round-trips every double)."""

    def __init__(self, kinds: Sequence[Kind]) -> None:
        self.normalise = RowNormaliser(kinds)
        self.rows = 0
        self._hash = hashlib.sha256()

    def update(self, rows: Iterable[Sequence[Any]]) -> None:
        canonical_row = self.normalise.canonical
        update = self._hash.update
        count = 0
        for row in rows:
            update(repr(canonical_row(row)).encode("utf-8", "surrogatepass"))
            update(b"\n")
            count += 1
        self.rows += count

    def hexdigest(self) -> str:
        return self._hash.hexdigest()
