"""A selective filtered search (too few of the wide unfiltered hits pass) is answered from
the passing vectors, ranked here (memex_chroma.exact), not by chroma's filtered query."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memex_core.domain import SearchFilters

pytest.importorskip("chromadb", reason="chromadb is not installed (pip install 'memex[chroma]')")

import memex_chroma.exact
import memex_chroma.store
from memex_chroma.connection import ChromaLocation
from memex_chroma.exact import exact_filtered
from memex_chroma.store import ChromaVectorStore
from tests.support.vector_builders import expected_ranking, make_fragment, unit_vectors

RARE = "claude"
#: One fragment in twenty is RARE: the wide net of a 3-hit search holds about one.
FRAGMENTS = [make_fragment(i, source_kind=RARE if i % 20 == 0 else "chatgpt") for i in range(200)]
VECTORS = unit_vectors(len(FRAGMENTS), seed=3)


def _exact_answers(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each selective search from now on was answered from the passing vectors
    (True) or left to chroma's filtered query (False)."""
    answered: list[bool] = []

    def spy(*args: Any) -> Any:
        found = exact_filtered(*args)
        answered.append(found is not None)
        return found

    monkeypatch.setattr(memex_chroma.store, "exact_filtered", spy)
    return answered


@pytest.mark.parametrize("exact_max", [memex_chroma.exact.EXACT_MAX, 5])
def test_a_selective_filter_finds_the_best_passing_vectors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, exact_max: int
) -> None:
    monkeypatch.setattr(memex_chroma.exact, "EXACT_MAX", exact_max)
    rare = [i for i, f in enumerate(FRAGMENTS) if f.source_kind == RARE]
    with ChromaVectorStore(ChromaLocation(path=tmp_path / "chroma")) as store:
        store.upsert(FRAGMENTS, VECTORS)
        answered = _exact_answers(monkeypatch)
        for seed in range(5):
            query = unit_vectors(1, seed=100 + seed)[0]
            want = expected_ranking(query, VECTORS[rare], [FRAGMENTS[i] for i in rare])[:3]
            hits = store.search(query, 3, SearchFilters(source_kinds=(RARE,)))
            assert [h.id for h in hits] == [fid for fid, _ in want]
            assert [h.score for h in hits] == pytest.approx([s for _, s in want], abs=1e-5)
    # Read and ranked here when few enough pass; else chroma's filtered query, as before.
    assert answered  # some of the five were selective (the wide net held too few)
    assert set(answered) == {exact_max >= len(rare)}


def test_a_filter_nothing_passes_finds_nothing(tmp_path: Path) -> None:
    with ChromaVectorStore(ChromaLocation(path=tmp_path / "chroma")) as store:
        store.upsert(FRAGMENTS, VECTORS)
        query = np.asarray(unit_vectors(1, seed=9)[0])
        assert store.search(query, 3, SearchFilters(source_kinds=("codex",))) == []


def test_an_owner_filter_reads_the_owners_vectors_and_checks_the_rest_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One fragment in ten is bob's, and half of those are RARE: owner and kind both count.
    mixed = [
        replace(f, owner="users/bob" if i % 10 == 0 else "users/alice")
        for i, f in enumerate(FRAGMENTS)
    ]
    wanted = [i for i, f in enumerate(mixed) if f.owner == "users/bob" and f.source_kind == RARE]
    filters = SearchFilters(owners=("users/bob",), source_kinds=(RARE,))
    with ChromaVectorStore(ChromaLocation(path=tmp_path / "chroma")) as store:
        store.upsert(mixed, VECTORS)
        answered = _exact_answers(monkeypatch)
        for seed in range(5):
            query = unit_vectors(1, seed=200 + seed)[0]
            want = expected_ranking(query, VECTORS[wanted], [mixed[i] for i in wanted])[:3]
            hits = store.search(query, 3, filters)
            assert [h.id for h in hits] == [fid for fid, _ in want]
    assert answered and set(answered) == {True}
