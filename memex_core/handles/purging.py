"""A purge's receipt and its erasure: the home's counts before and after, and no copy of
the purged text left in the catalog's or the keyword index's files.

The operator handle (:mod:`memex_core.handles.operator`) purges inside the home's write
lock and calls these around it, so the counts are the purge's own.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from memex_core.domain.memory.receipts import RECEIPT_TABLES, HomeCounts
from memex_core.errors import MemexError

if TYPE_CHECKING:
    from memex_core.facade.protocols import MemoryHome


def home_counts(mx: MemoryHome) -> HomeCounts:
    """Rows per receipt table, keyword entries and vectors, as the home holds them now."""
    try:
        keyword: int | None = mx.keyword_sync.keyword.count()
    except MemexError:  # an unreadable index: the receipt says so rather than fail the purge
        keyword = None
    vectors: int | None = None
    if mx.semantic_unavailable_reason() is None:
        try:
            vectors = mx.vector_store.count()
        except MemexError:  # a vector server out of reach: its deletes wait in the catalog
            vectors = None
    return HomeCounts(mx.catalog.row_counts(RECEIPT_TABLES), keyword, vectors)


def erase_purged(mx: MemoryHome) -> bool | None:
    """After the purge's transaction: rewrite the keyword index without the deleted
    documents' words and generations, the catalog without the deleted rows' bytes, and
    the vector store's own files without the deleted vectors (a store's optional
    ``compact()``). Answers whether the catalog's own log could be emptied (None: an
    engine that keeps none of its own)."""
    mx.keyword_sync.compact()
    emptied = mx.catalog.erase_freed()
    if mx.semantic_unavailable_reason() is None:
        compact = getattr(mx.vector_store, "compact", None)  # optional (chroma's folder)
        if compact is not None:
            # out of reach: its deletes are done (or queued); its log goes at a later sync
            with contextlib.suppress(MemexError):
                compact()
    return emptied


def store_name(store: object) -> str:
    """The store's class (the one inside a wrapper such as the turn-context keyword store)."""
    return type(getattr(store, "inner", store)).__name__
