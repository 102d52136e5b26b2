"""A selective filtered search answered by reading the passing vectors and ranking them here.

When the unfiltered wide net (``ChromaVectorStore._filtered_after``) finds too few hits
that pass a filter, the filter is selective: one user's facts among 50 users' (~2% of the
vectors). Chroma's filtered ``query`` then costs far more than reading the candidates with a
filtered ``get`` and ranking them by cosine in numpy, and the answer is the same: chroma's
filtered query over so few vectors is exact too. Each clause of a ``where`` costs chroma
more, so where the filter names owners, the ``get`` asks for those owners' vectors alone and
the other clauses are checked here on the best of them (metadata read only for those).
Measured with chroma 1.5.9 at 10,000 384-d vectors, one owner's ~200 vectors, owner +
collection + source kind: filtered query ~33 ms; get by all three clauses ~18 ms; get by
owner ~8 ms and the metadata of the best ~20 ~1 ms; the ranking ~0.1 ms. A filter that
lets more than :data:`EXACT_MAX` vectors through the ``get`` is left to chroma's query.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from memex_chroma.metadata import OWNER, passes, where_clause
from memex_core.domain import SearchFilters

#: The most passing vectors read and ranked here; with more, chroma's query answers.
EXACT_MAX = 1000


def exact_filtered(
    collection: Any, query: np.ndarray, limit: int, filters: SearchFilters, private_stored: bool
) -> tuple[list[str], list[float]] | None:
    """The ``limit`` vectors passing ``filters`` closest to ``query`` (ids, cosine
    distances, best first), or None when more than :data:`EXACT_MAX` are read."""
    where = where_clause(filters, private_stored=private_stored)
    narrow = {OWNER: {"$in": list(filters.owners)}} if filters.owners else where
    got = collection.get(where=narrow, include=["embeddings"], limit=EXACT_MAX + 1)
    ids: list[str] = list(got["ids"])
    if len(ids) > EXACT_MAX:
        return None
    if not ids:
        return [], []
    matrix = np.asarray(got["embeddings"], dtype=np.float32).reshape(len(ids), -1)
    probe = np.asarray(query, dtype=np.float32).reshape(-1)
    norms = np.linalg.norm(matrix, axis=1) * float(np.linalg.norm(probe))
    distances = 1.0 - (matrix @ probe) / np.where(norms == 0, 1.0, norms)
    # Stable on the id order, so equal distances come back in one order every time.
    ranked = [(ids[i], float(distances[i])) for i in np.argsort(distances, kind="stable")]
    if narrow == where:
        kept = ranked[:limit]
    else:  # the other clauses, on the best first (metadata costs): the rest only if needed
        kept = []
        start = 0
        while start < len(ranked) and len(kept) < limit:
            chunk = ranked[start : start + limit] if start == 0 else ranked[start:]
            read = collection.get(ids=[i for i, _ in chunk], include=["metadatas"])
            metadata_of = dict(zip(read["ids"], read["metadatas"] or [], strict=True))
            kept += [
                (i, d)
                for i, d in chunk
                if passes(metadata_of.get(i), filters, private_stored=private_stored)
            ]
            start += len(chunk)
        kept = kept[:limit]
    return [i for i, _ in kept], [d for _, d in kept]
