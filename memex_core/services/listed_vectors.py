"""A filtered nearest search over fragments the catalog lists, ranked here by cosine.

A memory write asks for the owner's facts closest to the new one (the supersession judge's
candidates, then the consolidator's similar memories): a filter that passes one owner's
few hundred fragments among a home's thousands. A vector store's filtered search is slow
on such a filter (chroma 1.5.9 at 10,000 facts: ~12-25 ms a call, its metadata reads
included), while the catalog lists the passing fragment ids from an index in ~0.3 ms. So
the listed fragments' vectors are read from the store by id (its optional
``stored_vectors``) and ranked by cosine in numpy, which is exactly what a filtered search
over so few vectors answers.

Reading ~200 vectors by id costs chroma about as much as the search (~13 ms), so the
vectors read are held (:class:`ListedVectors`), with those this process stores itself: the
next write for that owner reads only what other processes wrote since. A fragment's vector
does not change while its id stands (the id is derived from its content, and a process
embeds with one embedder); a store that was cleared or re-embedded by another embedder is
noticed by the vectors' dimension, and vectors held for another store or embedder are
dropped (:meth:`ListedVectors.held_for`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from memex_core.domain import Fragment, VectorStore

#: The most listed fragments ranked here; a filter passing more is left to the store.
LISTED_MAX = 1000
#: The most vectors held (~30 MB of 384-d float32); past it the held vectors are dropped.
HELD_MAX = 20_000


class ListedVectors:
    """The vectors of listed fragments, read from one vector store by id and held."""

    def __init__(self) -> None:
        self._held: dict[str, np.ndarray] = {}
        self._source: tuple[object, str] | None = None

    def held_for(self, store: VectorStore, embedder: str) -> None:
        """Hold vectors of ``store`` built by ``embedder`` (its signature) from now on:
        those held for another store or embedder are dropped."""
        if self._source != (store, embedder):
            self._held, self._source = {}, (store, embedder)

    def hold(self, fragments: Sequence[Fragment], vectors: Sequence[Sequence[float]]) -> None:
        """Hold the vectors just stored for ``fragments`` (a memory write's own), so the
        next nearest search need not read them back."""
        if len(self._held) + len(fragments) > HELD_MAX:
            self._held = {}
        for fragment, vector in zip(fragments, vectors, strict=True):
            self._held[fragment.id] = np.asarray(vector, dtype=np.float32).reshape(-1)

    def nearest(
        self, store: VectorStore, query: Sequence[float], ids: Sequence[str], limit: int
    ) -> list[tuple[str, float]] | None:
        """The ``limit`` of ``ids`` with a stored vector closest to ``query`` as (id,
        cosine), best first, as the store's filtered search would rank them; None when the
        store hands no vectors out (or holds vectors of another dimension: its own search
        says what is wrong)."""
        handed = getattr(store, "stored_vectors", None)
        if not callable(handed):
            return None
        held = self._held
        missing = [i for i in ids if i not in held]
        if missing:
            if len(held) + len(missing) > HELD_MAX:
                held.clear()
                missing = list(ids)
            for key, vector in handed(missing).items():
                held[key] = np.asarray(vector, dtype=np.float32).reshape(-1)
        present = [i for i in ids if i in held]
        probe = np.asarray(query, dtype=np.float32).reshape(-1)
        if not present:
            return []
        matrix = np.stack([held[i] for i in present])
        if matrix.shape[1] != probe.shape[0]:
            self._held = {}
            return None
        return ranked(present, matrix, probe, limit)


def ranked(
    ids: Sequence[str], matrix: np.ndarray, probe: np.ndarray, limit: int
) -> list[tuple[str, float]]:
    """``ids`` (rows of ``matrix``) closest to ``probe`` by cosine, at most ``limit``, best
    first, as (id, cosine): computed as chroma's exact path does (float32 cosine distance,
    stable on the ids' order), the cosine clamped to [-1, 1] as its search reports it."""
    norms = np.linalg.norm(matrix, axis=1) * float(np.linalg.norm(probe))
    distances = 1.0 - (matrix @ probe) / np.where(norms == 0, 1.0, norms)
    order = np.argsort(distances, kind="stable")[:limit]
    hits = [(ids[i], min(1.0, max(-1.0, 1.0 - float(distances[i])))) for i in order]
    hits.sort(key=lambda hit: hit[1], reverse=True)  # stable: the clamp may tie a few
    return hits
