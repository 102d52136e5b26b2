"""The memex archive: what ``memex export`` writes and ``memex import`` reads.

One zip file. Each catalog table that holds what a home knows is one JSON Lines member
(``fragments.jsonl``...): one row a line, a JSON object of the row's columns by name,
keys sorted, written compactly. ``manifest.json``, the last member, says which format
version wrote it, which memex, when, with which filters, and for each member its rows,
bytes, columns and SHA-256, so any program can read and check an archive without memex.

Rows are exported by column name, whatever columns the table has (a column a later
schema adds travels without a change here); the columns that only mean something inside
one home (row numbers, which embedder built a vector) are left out, so the same content
exports to the same bytes from any home and any engine.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from memex_core.errors import MemexError

#: Written in every manifest; an importer refuses a version above the one it knows.
FORMAT = "memex-archive"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
VECTORS = "vectors.jsonl"
#: Rows read, written or compared at a time (memory stays flat whatever the home's size).
BATCH = 1000
#: The settings that change how a home is read (the turn context its indexes are built
#: with, its relevance floor); the rest of ``settings`` is one home's own bookkeeping.
READ_SETTINGS = ("keyword_context", "vector_context", "relevance_floor")


class ArchiveError(MemexError):
    """An archive that cannot be written or is refused on import (one line, with the fix)."""


@dataclass(frozen=True)
class Member:
    """One catalog table as one member of the archive."""

    table: str
    #: Columns that name a row in every home (empty: the row as a whole names itself).
    key: tuple[str, ...]
    #: Columns that mean something in one home only: left out of the archive.
    local: frozenset[str] = frozenset()
    #: The order rows are exported and imported in ("" : the key): a row number, so
    #: rows stored in the same instant keep their order in the home they move to.
    order: str = ""
    #: For rows without a key: an indexed column that narrows the search for the same row.
    lookup: str = ""

    @property
    def name(self) -> str:
        return f"{self.table}.jsonl"


#: Every member, in the order an import writes them (memories before their fragments, so
#: a memory a newer archive revised drops its old fragments before the new ones arrive).
MEMBERS: tuple[Member, ...] = (
    Member("conversations", ("id",)),
    Member("documents", ("id",)),
    Member("memories", ("id",), frozenset({"seq"}), order="@memory_order"),
    Member("memory_revisions", ("memory_id", "revision")),
    Member("fragments", ("id",), frozenset({"seq", "embedded_by", "ingest_run"}), order="seq"),
    Member("links", (), frozenset({"id"}), order="id", lookup="source_document"),
    Member("session_projects", ("conversation_id", "cwd")),
    Member("access_log", (), frozenset({"id"}), order="id", lookup="at"),
    Member("settings", ("key",)),
)
BY_NAME = {m.name: m for m in MEMBERS}

#: Catalog tables an archive leaves out, and why (a test checks every table is one or the
#: other, so a new table is a decision, not an accident): the schema's own record, one
#: home's ingest bookkeeping and index progress, and credentials (agent keys are made anew).
NOT_ARCHIVED = {
    "schema_version": "the target's own migrations keep it",
    "ingest_runs": "this home's ingest history",
    "ingested_files": "paths on this machine; a re-ingest finds the same ids",
    "fragment_changes": "this home's index journal",
    "pending_vector_deletes": "this home's vector bookkeeping",
    "agent_keys": "credentials: create keys anew where the memory moves",
    "replicas": "the hosts sharing this catalog",
    "migration_progress": "memex migrate's own bookkeeping",
}

_SAFE_NAME = re.compile(r"^[a-z_]+\.(jsonl|json)$")


def is_safe_member_name(name: str) -> bool:
    """Whether ``name`` is a plain member name (no folder, no ``..``, nothing absolute)."""
    return bool(_SAFE_NAME.match(name))


def value(value: Any) -> Any:
    """A column value as the archive holds it: the same from SQLite and PostgreSQL."""
    if value is None or isinstance(value, str) or type(value) in (int, float):
        return value
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float | Decimal):
        return float(value)
    raise ArchiveError(
        f"The catalog holds a {type(value).__name__} value, which the archive format cannot "
        "carry; report it."
    )


def line(row: Mapping[str, Any]) -> bytes:
    """One row as one line of a member (keys sorted, compact, UTF-8, ``\\n``-ended)."""
    return (
        json.dumps(row, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        + "\n"
    ).encode("utf-8", "surrogatepass")


@dataclass
class MemberDigest:
    """Rows, bytes and SHA-256 of a member as it is written or read."""

    rows: int = 0
    size: int = 0  # bytes
    _hash: Any = field(default_factory=hashlib.sha256)

    def update(self, data: bytes, rows: int) -> None:
        self._hash.update(data)
        self.size += len(data)
        self.rows += rows

    @property
    def sha256(self) -> str:
        return str(self._hash.hexdigest())


@dataclass(frozen=True)
class Filters:
    """What part of a home an archive holds (all None: everything)."""

    user: str | None = None
    collection: str | None = None
    source: str | None = None
    since: float | None = None
    until: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None}

    @property
    def any(self) -> bool:
        return bool(self.to_dict())


def parse_manifest(data: bytes) -> dict[str, Any]:
    """The manifest, checked for what an importer relies on; :class:`ArchiveError` else."""
    try:
        manifest = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ArchiveError(f"manifest.json is not valid JSON ({exc})") from exc
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise ArchiveError("manifest.json does not describe a memex archive")
    version = manifest.get("format_version")
    if type(version) is not int or version < 1:
        raise ArchiveError(f"manifest.json has no valid format_version ({version!r})")
    if version > FORMAT_VERSION:
        raise ArchiveError(
            f"the archive has format version {version}, newer than this memex reads "
            f"({FORMAT_VERSION}); upgrade memex (pip install -U memex) to import it"
        )
    members = manifest.get("members")
    if not isinstance(members, dict):
        raise ArchiveError("manifest.json lists no members")
    for name, info in members.items():
        if not isinstance(name, str) or not is_safe_member_name(name):
            raise ArchiveError(f"manifest.json names an unsafe member {name!r}")
        if name not in BY_NAME and name != VECTORS:
            raise ArchiveError(f"manifest.json names a member this memex does not know: {name}")
        if (
            not isinstance(info, dict)
            or type(info.get("rows")) is not int
            or type(info.get("bytes")) is not int
            or not isinstance(info.get("sha256"), str)
            or not isinstance(info.get("columns"), list)
            or not all(isinstance(c, str) for c in info["columns"])
        ):
            raise ArchiveError(f"manifest.json describes member {name} incompletely")
    return manifest
