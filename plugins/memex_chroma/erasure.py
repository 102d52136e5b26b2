"""After a purge: leave no copy of the deleted vectors in a chroma folder's own files.

Chroma deletes a record from its index at once, but its write-ahead log (the
``embeddings_queue`` table of ``chroma.sqlite3``) keeps the record as written (id, vector,
metadata) until the index files are next synced, up to ``sync_threshold`` (1,000) writes
later; chroma then deletes the log's records up to that point. So a purge writes (and at
once deletes) placeholder records until chroma syncs, then rewrites ``chroma.sqlite3``
(``VACUUM``) so that no free page keeps the deleted rows' bytes. A server's files are its
own: nothing is done there.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import numpy as np

from memex_chroma.log_tail import DATABASE_NAME, unsynced_records

#: The ids of the placeholder records a purge writes and deletes to make chroma sync.
PLACEHOLDER = "memex-purge-"


def push_log(collection: Any, folder: Path, threshold: int, dimension: int, batch: int) -> int:
    """Write placeholder records (ids ``memex-purge-N``, deleted again at once) until chroma
    has synced its index and dropped its log; returns how many were written. A few large
    writes, whatever the collection's size: re-writing real records would take hundreds of
    small writes on a small collection."""
    written = 0
    for _ in range(3):  # chroma syncs between its own batches: check and go again
        behind = unsynced_records(folder, str(collection.id))
        if not behind:
            break
        needed = max(1, threshold - behind + 1)
        ids = [f"{PLACEHOLDER}{written + n}" for n in range(needed)]
        vector = np.zeros((1, dimension), dtype=np.float32)
        vector[0, 0] = 1.0
        for start in range(0, needed, batch):
            part = ids[start : start + batch]
            collection.add(ids=part, embeddings=np.repeat(vector, len(part), axis=0))
        for start in range(0, needed, batch):
            collection.delete(ids=ids[start : start + batch])
        written += needed
    return written


def vacuum(folder: Path) -> None:
    """Rewrite ``chroma.sqlite3`` without free pages (the deleted rows' bytes) and empty
    its write-ahead log; skipped quietly when chroma holds the file busy."""
    path = folder / DATABASE_NAME
    if not path.is_file():
        return
    connection = sqlite3.connect(path, timeout=10.0, isolation_level=None)
    try:
        connection.execute("VACUUM")
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    except sqlite3.OperationalError:
        pass  # busy: the bytes go when chroma next reuses the pages
    finally:
        connection.close()
