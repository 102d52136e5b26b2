"""Handing stored vectors out (the vector store's optional ``stored_vectors``), for
``memex export --with-vectors``: read by id from chroma (or the cold reader), a batch at
a time the size the caller asks for, as the float32 values chroma holds."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def stored_vectors(collection: Any, ids: Sequence[str]) -> dict[str, list[float]]:
    """The vectors of those of ``ids`` ``collection`` holds (None: no collection yet)."""
    if collection is None or not ids:
        return {}
    found = collection.get(ids=list(ids), include=["embeddings"])
    if not found["ids"]:
        # None of them is here (a replica may list a fact whose vector another one has not
        # stored yet): chroma then returns no rows, which numpy cannot shape.
        return {}
    rows = np.asarray(found["embeddings"], dtype=np.float32).reshape(len(found["ids"]), -1)
    return {str(i): row.tolist() for i, row in zip(found["ids"], rows, strict=True)}
