"""The archive's optional ``vectors.jsonl`` (``memex export --with-vectors``).

One line per fragment that holds a vector from the home's recorded embedder:
``{"id": ..., "vector": [...]}``, the vector's float32 values written as JSON numbers
(Python's ``repr`` of each value as a float, so reading it back and rounding to float32
gives the very same bits). The manifest's ``vectors`` object names the embedder that
built them (``embedder``: ``name:dimension`` as the home records it, ``build``, and the
``vector_context`` the texts were embedded with); an import stores the archive's vectors
instead of embedding only when all three match the target home's, and embeds as usual
otherwise (its report says why).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Protocol

from memex_core.services.archive_format import BATCH, VECTORS, ArchiveError
from memex_core.services.index_text import VECTOR_CONTEXT_SETTING
from memex_core.services.indexing import EMBEDDER_BUILD_SETTING, EMBEDDER_SETTING

#: The manifest key naming the embedder the vectors member was built with.
IDENTITY_KEY = "vectors"
_IDENTITY_FIELDS = ("embedder", "build", "vector_context")


class VectorSource(Protocol):
    """A vector store able to hand its vectors out (the optional ``stored_vectors``)."""

    def stored_vectors(self, ids: Sequence[str]) -> dict[str, list[float]]: ...


def vector_source(store: object, name: str) -> VectorSource:
    """``store`` as a :class:`VectorSource`, or the one-line refusal when it cannot be."""
    if not callable(getattr(store, "stored_vectors", None)):
        raise ArchiveError(
            f"--with-vectors: the {name} vector store cannot hand its vectors out; export "
            "without --with-vectors (the import embeds again)"
        )
    return store  # type: ignore[return-value]


def identity(settings: Mapping[str, str | None]) -> dict[str, str]:
    """The manifest's ``vectors`` object from a home's settings (its recorded embedder,
    build and vector context); refused when the home has embedded nothing yet."""
    embedder = settings.get(EMBEDDER_SETTING)
    if not embedder:
        raise ArchiveError(
            "--with-vectors: this home holds no vectors yet (run `memex backfill`), or "
            "export without --with-vectors"
        )
    return {
        "embedder": embedder,
        "build": settings.get(EMBEDDER_BUILD_SETTING) or "",
        "vector_context": settings.get(VECTOR_CONTEXT_SETTING) or "",
    }


def dimension_of(found: Mapping[str, Any]) -> int:
    """The vector dimension a manifest's ``vectors`` object names (checked)."""
    if not isinstance(found, dict) or not all(
        isinstance(found.get(k), str) for k in _IDENTITY_FIELDS
    ):
        raise ArchiveError("manifest.json describes the archive's vectors incompletely")
    _name, _, dimension = found["embedder"].rpartition(":")
    if not dimension.isdigit() or int(dimension) <= 0:
        raise ArchiveError(f"manifest.json names no vector dimension ({found['embedder']!r})")
    return int(dimension)


def mismatch(archive: Mapping[str, str], home: Mapping[str, str]) -> str | None:
    """Why the archive's vectors cannot stand for the target home's, or None if they can."""
    for key, what in (
        ("embedder", "embedder"),
        ("build", "embedder build"),
        ("vector_context", "turn context"),
    ):
        if archive.get(key, "") != home.get(key, ""):
            return (
                f"the archive's vectors are from {what} {archive.get(key) or 'default'!r}, "
                f"this home's is {home.get(key) or 'default'!r}: embedded afresh"
            )
    return None


def vector_line(fragment_id: str, vector: Sequence[float]) -> bytes:
    """One line of ``vectors.jsonl`` (compact; ``repr`` of each float)."""
    numbers = [float(v) for v in vector]
    return (
        json.dumps(
            {"id": fragment_id, "vector": numbers},
            sort_keys=True,
            separators=(",", ":"),
            allow_nan=False,
        )
        + "\n"
    ).encode("utf-8")


def _number(value: Any) -> bool:
    return type(value) in (int, float) and math.isfinite(value)


def parse_vectors(
    lines: Iterator[bytes], dimension: int
) -> Iterator[list[tuple[str, list[float]]]]:
    """Batches of ``(id, vector)`` from ``vectors.jsonl``'s lines, each checked: an object
    of exactly ``id`` (text) and ``vector`` (``dimension`` finite numbers)."""
    batch: list[tuple[str, list[float]]] = []
    for number, data in enumerate(lines, 1):
        try:
            row = json.loads(data)
        except ValueError as exc:
            raise ArchiveError(f"{VECTORS} line {number} is not JSON ({exc})") from exc
        if not isinstance(row, dict) or set(row) != {"id", "vector"}:
            raise ArchiveError(f"{VECTORS} line {number} is not an id and a vector")
        vector = row["vector"]
        if not isinstance(row["id"], str) or not isinstance(vector, list):
            raise ArchiveError(f"{VECTORS} line {number} is not an id and a vector")
        if len(vector) != dimension:
            raise ArchiveError(
                f"{VECTORS} line {number} holds a vector of {len(vector)} dimensions, "
                f"manifest.json says {dimension}"
            )
        if not all(_number(v) for v in vector):
            raise ArchiveError(f"{VECTORS} line {number} holds a value that is not a number")
        batch.append((row["id"], [float(v) for v in vector]))
        if len(batch) >= BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


class VectorStoring(Protocol):
    """Where an import's vectors go: the home's indexer (store and mark as embedded)."""

    def store_built(self, fragments: Sequence[Any], vectors: Sequence[Sequence[float]]) -> int: ...


class FragmentLookup(Protocol):
    def get_many(self, ids: Sequence[str]) -> Mapping[str, Any]: ...


def store_vectors(
    batches: Iterator[list[tuple[str, list[float]]]],
    wanted: set[str],
    catalog: FragmentLookup,
    indexer: VectorStoring,
) -> int:
    """Store the archive's vectors of the fragments in ``wanted`` (those the import
    added), a batch at a time; the number stored."""
    stored = 0
    for batch in batches:
        chosen = [(i, v) for i, v in batch if i in wanted]
        if not chosen:
            continue
        found = catalog.get_many([i for i, _v in chosen])
        pairs = [(found[i], v) for i, v in chosen if i in found]
        if pairs:
            stored += indexer.store_built([f for f, _v in pairs], [v for _f, v in pairs])
    return stored
