"""Builders for archive tests (``memex export`` / ``memex import``): a home with something of
everything in it, an archive's members read back, and a digest of a home's whole catalog
for "nothing was written" checks."""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path
from typing import Any

from memex_core.api import Memex
from memex_core.errors import MemexError
from memex_core.services.archive_format import MANIFEST, MEMBERS, NOT_ARCHIVED
from tests.conftest import EXAMPLES
from tests.support.doctor_home import EVERYTHING, write_vault

#: Asked of both homes of a round trip: the same ids must come back in the same order.
QUERIES = (
    "kubernetes pod restarting",
    "sqlite database is locked",
    "sourdough starter",
    "garden tomatoes watering",
    "espresso grinder",
    "prefers green tea",
    "Porto Braga trips",
)


def fill_home(mx: Memex, root: Path) -> None:
    """The sample exports, a small vault with links, agent memories with revisions (one
    deleted, undeleted and restored), memory files, two users, an access log."""
    report = mx.ingest(EXAMPLES, write_vault(root / "vault"))
    assert not report.failed and report.fragments_added > 20
    alice = mx.agent("alice", name="support-bot")
    alice.remember("Alice prefers green tea in the afternoon.", tool_call_id="call-1")
    moved = alice.remember("Alice lives in Lisbon.").memory_ids[0]
    alice.remember("Alice's door code is kept private.", private=True)
    alice.write("user/notes/trips.md", "# Trips\n\nPorto in May, see [[food]].\n")
    alice.write("user/notes/food.md", "# Food\n\nPastéis de nata — 1,5 € each. 🍮\n")
    alice.write("user/notes/trips.md", "# Trips\n\nPorto in May and Braga in June. [[food]]\n")
    operator = mx.operator()
    operator.forget(moved)
    operator.undelete(moved)
    operator.restore(moved, 1)
    mx.agent("bob").remember("Bob grows tomatoes in raised beds.")
    alice.get(moved)  # a read in the access log


def members(archive: Path) -> dict[str, list[bytes]]:
    """Every member but the manifest: its lines, sorted."""
    with zipfile.ZipFile(archive) as zf:
        return {
            name: sorted(zf.read(name).splitlines()) for name in zf.namelist() if name != MANIFEST
        }


def search_ids(mx: Memex) -> dict[str, list[str]]:
    """The ids each query finds, in order, in both modes."""
    out: dict[str, list[str]] = {}
    for query in QUERIES:
        for mode in ("keyword", "semantic"):
            found = mx.search(query, mode=mode, limit=50, filters=EVERYTHING, time_phrases=False)
            out[f"{mode}:{query}"] = [r.fragment.id for r in found]
    return out


def catalog_digest(mx: Memex, skip: tuple[str, ...] = ()) -> str:
    """SHA-256 over every row of every catalog table (sorted), whatever the engine;
    ``skip``: tables left out (the access log, where a handle records a refused call)."""
    digest = hashlib.sha256()
    for table in sorted(({m.table for m in MEMBERS} | set(NOT_ARCHIVED)) - set(skip)):
        try:
            columns, rows = mx.catalog.query(f"SELECT * FROM {table}")
        except MemexError:
            continue  # a table this engine does not have
        digest.update(f"{table}:{columns}\n".encode())
        for row in sorted(repr(tuple(r)) for r in rows):
            digest.update(row.encode("utf-8", "surrogatepass") + b"\n")
    return digest.hexdigest()


def rows_of(mx: Memex, table: str) -> list[dict[str, Any]]:
    columns, rows = mx.catalog.query(f"SELECT * FROM {table}")
    return [dict(zip(columns, r, strict=True)) for r in rows]


def rewrite(source: Path, target: Path, member: str, change: object) -> None:
    """A copy of the archive with ``member``'s rows changed and the manifest made to match
    (a valid archive whose content differs)."""
    from memex_core.services.archive_format import line

    with zipfile.ZipFile(source) as zf:
        manifest = json.loads(zf.read(MANIFEST))
        contents = {n: zf.read(n) for n in zf.namelist() if n != MANIFEST}
    rows = [change(json.loads(x)) for x in contents[member].splitlines()]  # type: ignore[operator]
    data = b"".join(line(r) for r in rows)
    contents[member] = data
    manifest["members"][member].update(
        rows=len(rows), bytes=len(data), sha256=hashlib.sha256(data).hexdigest()
    )
    if rows:
        manifest["members"][member]["columns"] = sorted(rows[0])
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, content in contents.items():
            zf.writestr(name, content)
        zf.writestr(MANIFEST, json.dumps(manifest))
