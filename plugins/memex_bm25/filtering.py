"""SearchFilters as a vectorised mask over document slots.

Reproduces :meth:`memex_core.domain.SearchFilters.matches` exactly, on the
per-slot code columns, so filtering happens before top-k is taken.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from memex_bm25.segment import DocColumns
from memex_bm25.tables import StringTable
from memex_core.domain import SearchFilters


def filter_mask(
    filters: SearchFilters,
    columns: DocColumns,
    tables: Mapping[str, StringTable],
    slots: np.ndarray,
) -> np.ndarray:
    """Which of ``slots`` pass ``filters`` (a bool array aligned with ``slots``).

    Private slots are dropped unless ``filters.include_private``, and slots of the
    sources searched only when named unless ``filters.source_kinds`` names them, even when
    ``filters.is_empty``; the store skips calling this only when it holds neither and
    nothing else restricts.
    """
    mask = np.ones(len(slots), dtype=bool)
    for wanted, column, table in (
        (filters.source_kinds, columns.source, tables["source"]),
        (filters.conversation_ids, columns.conversation, tables["conversation"]),
        (filters.roles, columns.role, tables["role"]),
        (filters.owners, columns.owner, tables["owner"]),
        (filters.collections, columns.collection, tables["collection"]),
    ):
        if not wanted:
            continue
        codes = [code for value in wanted if (code := table.lookup(value)) is not None]
        if not codes:
            return np.zeros(len(slots), dtype=bool)
        mask &= _one_of(column[slots], codes)
    hidden = hidden_codes(filters, tables)
    if hidden:
        mask &= ~_one_of(columns.source[slots], hidden)
    if not filters.include_private:
        mask &= ~columns.private[slots]
    if filters.since is not None or filters.until is not None:
        # Written as "not before since, not after until" (not ">= since") so NaN
        # bounds and NaN timestamps behave exactly as the comparisons in matches().
        mask &= columns.timed[slots]
        stamps = columns.timestamp[slots]
        if filters.since is not None:
            mask &= ~(stamps < filters.since)
        if filters.until is not None:
            mask &= ~(stamps > filters.until)
    return mask


def hidden_codes(filters: SearchFilters, tables: Mapping[str, StringTable]) -> list[int]:
    """The codes of the sources ``filters`` leaves out unless named (a repository's code)
    that this index has ever held; none means there is nothing to leave out."""
    table = tables["source"]
    return [c for k in filters.hidden_source_kinds() if (c := table.lookup(k)) is not None]


#: Up to this many wanted codes, comparing against each beats np.isin (which sorts or
#: builds a table first): an agent's owner filter has three, over tens of thousands of
#: candidate slots.
_COMPARED_CODES = 8


def _one_of(values: np.ndarray, codes: list[int]) -> np.ndarray:
    """``np.isin(values, codes)``."""
    if len(codes) > _COMPARED_CODES:
        return np.isin(values, codes)
    found = values == codes[0]
    for code in codes[1:]:
        found |= values == code
    return found
