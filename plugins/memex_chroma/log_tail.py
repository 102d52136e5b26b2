"""How many writes chroma's HNSW files on disk are behind its write-ahead log.

Embedded chroma (1.5.9) commits every write to a log table in ``chroma.sqlite3`` at
once, but writes the HNSW index files only after ``sync_threshold`` (default 1,000)
more records have been applied. Every process that opens the folder replays the
records past the last sync into the index before its first query: up to 999 HNSW
insertions, measured at 0.45 s instead of 0.22 s for the first query of a cold
``memex dig`` on 100,000 vectors (672 records behind). chroma has no public call to
force the sync (chroma-core/chroma#7463, open), so after a bulk write the store
re-writes unchanged records until the threshold is crossed (see
``ChromaVectorStore.settle``).

This module only reads chroma's own bookkeeping tables, read-only. If their layout
ever changes, :func:`unsynced_records` answers None and memex skips the settling:
the cost is start-up time, never data.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

#: chroma's database file inside its folder.
DATABASE_NAME = "chroma.sqlite3"

_VECTOR_SEGMENT = "SELECT id FROM segments WHERE collection = ? AND scope = 'VECTOR'"
_SYNCED_UPTO = "SELECT seq_id FROM max_seq_id WHERE segment_id = ?"
_LOGGED_AFTER = "SELECT COUNT(*) FROM embeddings_queue WHERE topic LIKE ? AND seq_id > ?"


def unsynced_records(folder: Path, collection_id: str) -> int | None:
    """Log records of the collection not yet in its HNSW files, or None if unknown."""
    path = folder / DATABASE_NAME
    if not path.is_file():
        return None
    try:
        connection = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=5.0)
    except sqlite3.Error:
        return None
    try:
        segment = connection.execute(_VECTOR_SEGMENT, (collection_id,)).fetchone()
        if segment is None:
            return None
        synced = connection.execute(_SYNCED_UPTO, (segment[0],)).fetchone()
        # No row yet: the index was never synced (fewer records than the threshold so far).
        synced_upto = int(synced[0]) if synced is not None and synced[0] is not None else 0
        # The log topic ends with the collection id (persistent://tenant/database/<id>);
        # sequence numbers are shared by every collection of the folder, so count.
        (behind,) = connection.execute(
            _LOGGED_AFTER, (f"%/{collection_id}", synced_upto)
        ).fetchone()
    except sqlite3.Error:
        return None
    finally:
        connection.close()
    return int(behind)
