"""What every vector store checks of its input before an upsert or a search (shared by the
built-in ones)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from memex_core.domain import Fragment


def upsert_rows(
    fragments: Sequence[Fragment], vectors: Sequence[Sequence[float]] | Any
) -> tuple[list[Fragment], np.ndarray]:
    """The fragments and a float32 matrix of their vectors, one row each, ready to upsert.

    ``vectors`` may be a list of lists or a numpy matrix (no copy through Python floats).
    A store cannot take one id twice in a call (chroma refuses it; PostgreSQL cannot update
    a row twice in one statement), so the last vector for an id wins. Raises ValueError on
    a count or shape that does not fit.
    """
    if len(fragments) != len(vectors):
        raise ValueError(f"{len(fragments)} fragments but {len(vectors)} vectors")
    matrix = np.asarray(vectors, dtype=np.float32)
    if fragments and matrix.ndim != 2:
        raise ValueError(f"vectors must form a 2-D array, got shape {matrix.shape}")
    last_row = {fragment.id: row for row, fragment in enumerate(fragments)}
    rows = sorted(last_row.values())
    if len(rows) == len(fragments):
        return list(fragments), matrix
    return [fragments[row] for row in rows], matrix[rows]


def query_vector(vector: Sequence[float] | Any) -> np.ndarray:
    """A search's query vector as float32, 1-D (ValueError otherwise)."""
    query = np.asarray(vector, dtype=np.float32)
    if query.ndim != 1:
        raise ValueError(f"the query vector must be 1-D, got shape {query.shape}")
    return query
