"""Handing stored vectors out (the vector store's optional ``stored_vectors``), for
``memex export --with-vectors``: read by id from chroma (or the cold reader), a batch at
a time the size the caller asks for, as the float32 values chroma holds."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

#: What a chroma server says when asked for the embedding of an id whose record it lists
#: but whose vector its reader does not hold yet: another replica's write to the same
#: collection is under way (seen under load in test_a_thousand_writes_over_two_replicas:
#: "InternalError: Error executing plan: Internal error: Error finding id").
NOT_READABLE_YET = "Error finding id"


def stored_vectors(collection: Any, ids: Sequence[str]) -> dict[str, list[float]]:
    """The vectors of those of ``ids`` ``collection`` holds (None: no collection yet).

    An id whose vector the server cannot read yet (another process is writing it) counts
    as not stored, as an id the collection does not hold at all does: a caller asks the
    store for the vectors of facts the catalog lists, and a fact another replica has just
    committed may not have its vector in place yet.
    """
    if collection is None or not ids:
        return {}
    try:
        found = collection.get(ids=list(ids), include=["embeddings"])
    except Exception as exc:
        if NOT_READABLE_YET not in str(exc):
            raise
        if len(ids) == 1:
            return {}
        # One of them is being written: read each alone, so the others still count.
        vectors: dict[str, list[float]] = {}
        for one in ids:
            vectors.update(stored_vectors(collection, [one]))
        return vectors
    if not found["ids"]:
        # None of them is here (a replica may list a fact whose vector another one has not
        # stored yet): chroma then returns no rows, which numpy cannot shape.
        return {}
    rows = np.asarray(found["embeddings"], dtype=np.float32).reshape(len(found["ids"]), -1)
    return {str(i): row.tolist() for i, row in zip(found["ids"], rows, strict=True)}
