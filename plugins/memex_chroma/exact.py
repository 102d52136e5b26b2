"""A selective filtered search answered by reading the passing vectors and ranking them here.

When the unfiltered wide net (``ChromaVectorStore._filtered_after``) finds too few hits
that pass a filter, the filter is selective: one user's facts among 50 users' (~2% of the
vectors). Chroma's filtered ``query`` then costs far more than reading the passing vectors
with a filtered ``get`` and ranking them by cosine in numpy (measured with chroma 1.5.9 at
10,000 384-d vectors, owner + collection + source kind: query ~33 ms; get with embeddings
of the ~200 passing vectors ~18 ms, the ranking ~0.1 ms), and the answer is the same:
chroma's filtered query over so few vectors is exact too. A filter that passes more than
:data:`EXACT_MAX` vectors is left to chroma's query (None).
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: The most passing vectors read and ranked here; with more, chroma's query answers.
EXACT_MAX = 1000


def exact_filtered(
    collection: Any, query: np.ndarray, limit: int, where: dict[str, Any]
) -> tuple[list[str], list[float]] | None:
    """The ``limit`` vectors passing ``where`` closest to ``query`` (ids, cosine
    distances, best first), or None when more than :data:`EXACT_MAX` pass."""
    got = collection.get(where=where, include=["embeddings"], limit=EXACT_MAX + 1)
    ids: list[str] = list(got["ids"])
    if len(ids) > EXACT_MAX:
        return None
    if not ids:
        return [], []
    matrix = np.asarray(got["embeddings"], dtype=np.float32).reshape(len(ids), -1)
    probe = np.asarray(query, dtype=np.float32).reshape(-1)
    norms = np.linalg.norm(matrix, axis=1) * float(np.linalg.norm(probe))
    cosines = (matrix @ probe) / np.where(norms == 0, 1.0, norms)
    distances = 1.0 - cosines
    # Stable on the id order, so equal distances come back in one order every time.
    order = np.argsort(distances, kind="stable")[:limit]
    return [ids[i] for i in order], [float(distances[i]) for i in order]
