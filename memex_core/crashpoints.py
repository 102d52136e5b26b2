"""Named points where the durability tests kill memex, and nothing else.

``MEMEX_CRASH_AT=<point>:<n>`` makes the process kill itself with SIGKILL the
``n``-th time (1-based) it passes ``crash_point("<point>")``: no cleanup, no
``finally``, no flush, exactly like a power cut or ``kill -9``.
``MEMEX_CRASH_TRACE=<file>`` appends the name of every point passed to that
file instead, so a test can see where a clean run goes and choose where to kill.

With neither variable set (always, outside tests) ``crash_point`` is a function
that returns at once: the variables are read once, at import.

The points, in the order an ingest meets them:

- ``catalog.file_txn``: a file's fragments are inserted, the transaction is not committed
- ``catalog.file_committed``: a file's fragments are committed, no index knows them yet
- ``catalog.document_txn`` / ``catalog.document_committed``: the same for a vault note
- ``catalog.document_removed``: a note deleted from the vault is gone from the catalog
- ``ingest.keyword_added``: the keyword index holds a file's fragments in memory only
- ``bm25.folder_written``: a new index generation folder is on disk, the manifest is old
- ``bm25.manifest_written``: the manifest names the new generation, old folders remain
- ``ingest.indexed``: the catalog and keyword index are done, vectors are not
- ``vectors.deleted``: vectors of removed fragments are deleted, the catalog still queues them
- ``vectors.upserted``: a batch of vectors is stored, the catalog does not record it yet
- ``vectors.marked``: the catalog records the batch as embedded

``memex migrate`` (copying a home's catalog into PostgreSQL) has its own, outside
:data:`POINTS` (which lists the ingest path's):

- ``migrate.batch_written``: a batch of rows is sent, its transaction not committed
- ``migrate.batch_committed``: a batch and the progress that counts it are committed
- ``migrate.copied``: every row is copied; identity sequences not moved, nothing verified
"""

from __future__ import annotations

import os
import signal
from collections import Counter
from collections.abc import Callable

CRASH_ENV = "MEMEX_CRASH_AT"
TRACE_ENV = "MEMEX_CRASH_TRACE"

#: Every point memex passes, for tests that want to be sure they cover each one.
POINTS = (
    "catalog.file_txn",
    "catalog.file_committed",
    "catalog.document_txn",
    "catalog.document_committed",
    "catalog.document_removed",
    "ingest.keyword_added",
    "bm25.folder_written",
    "bm25.manifest_written",
    "ingest.indexed",
    "vectors.deleted",
    "vectors.upserted",
    "vectors.marked",
)


def _parse(spec: str) -> tuple[str, int]:
    name, _, nth = spec.rpartition(":")
    if not name or not nth.isdigit() or int(nth) < 1:
        raise ValueError(f"{CRASH_ENV} must look like <point>:<n> with n >= 1, got {spec!r}")
    return name, int(nth)


def _no_crash(name: str) -> None:
    """Kill this process here when MEMEX_CRASH_AT names this point (tests only)."""


def _make_crash_point() -> Callable[[str], None]:
    spec, trace = os.environ.get(CRASH_ENV), os.environ.get(TRACE_ENV)
    if not spec and not trace:
        return _no_crash
    target = _parse(spec) if spec else None
    seen: Counter[str] = Counter()

    def crash_point(name: str) -> None:
        """Kill this process here when MEMEX_CRASH_AT names this point (tests only)."""
        seen[name] += 1
        if trace:
            with open(trace, "a", encoding="utf-8") as handle:
                handle.write(name + "\n")
        if target is not None and target == (name, seen[name]):
            os.kill(os.getpid(), signal.SIGKILL)

    return crash_point


crash_point = _make_crash_point()
