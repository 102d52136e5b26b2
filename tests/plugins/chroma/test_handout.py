"""``stored_vectors`` when a chroma server cannot read an id's vector yet.

Two replicas writing to one chroma server: replica A lists the facts of an owner from the
shared catalog, among them one replica B has just committed, and asks chroma for their
vectors while B's upsert is under way. The server then fails the whole read with
``InternalError: Error executing plan: Internal error: Error finding id`` (seen under load
in test_a_thousand_writes_over_two_replicas[chroma_server]), which failed A's memory
write with a 500. That id's vector is not stored yet; the others are.
"""

from __future__ import annotations

from typing import Any

import pytest

from memex_chroma.handout import NOT_READABLE_YET, stored_vectors


class Racing:
    """A collection holding ``stored``, whose reads fail on any id in ``writing``."""

    def __init__(self, stored: dict[str, list[float]], writing: set[str]) -> None:
        self.stored, self.writing = stored, writing
        self.reads: list[list[str]] = []

    def get(self, ids: list[str], include: list[str]) -> dict[str, Any]:
        assert include == ["embeddings"]
        self.reads.append(ids)
        if self.writing & set(ids):
            raise RuntimeError(f"Error executing plan: Internal error: {NOT_READABLE_YET}")
        held = [i for i in ids if i in self.stored]
        return {"ids": held, "embeddings": [self.stored[i] for i in held]}


def test_an_id_being_written_counts_as_not_stored_and_the_others_are_handed() -> None:
    collection = Racing({"a": [1.0, 0.0], "c": [0.0, 1.0]}, writing={"b"})
    assert stored_vectors(collection, ["a", "b", "c"]) == {"a": [1.0, 0.0], "c": [0.0, 1.0]}
    assert collection.reads == [["a", "b", "c"], ["a"], ["b"], ["c"]]


def test_any_other_server_error_is_raised() -> None:
    class Broken:
        def get(self, ids: list[str], include: list[str]) -> dict[str, Any]:
            raise RuntimeError("Error executing plan: Internal error: disk full")

    with pytest.raises(RuntimeError, match="disk full"):
        stored_vectors(Broken(), ["a", "b"])
