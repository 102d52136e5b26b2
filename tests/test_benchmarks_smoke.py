"""The benchmark metrics on hand-computed examples (no timing, no data needed)."""

from __future__ import annotations

import math

import pytest

from benchmarks.metrics import dedupe, ndcg_at_k, percentile, recall_at_k


def test_ndcg_perfect_ranking_is_one() -> None:
    assert ndcg_at_k(["a", "b", "x"], {"a": 1, "b": 1}) == pytest.approx(1.0)


def test_ndcg_single_relevant_at_rank_three() -> None:
    # DCG = 1/log2(4) = 0.5; IDCG = 1/log2(2) = 1.
    assert ndcg_at_k(["x", "y", "a"], {"a": 1}) == pytest.approx(0.5)


def test_ndcg_two_relevant_at_ranks_two_and_four() -> None:
    dcg = 1 / math.log2(3) + 1 / math.log2(5)
    idcg = 1 + 1 / math.log2(3)
    assert ndcg_at_k(["x", "a", "y", "b"], {"a": 1, "b": 1}) == pytest.approx(dcg / idcg)


def test_ndcg_graded_gains_are_linear() -> None:
    # pytrec_eval's ndcg uses the grade itself as gain: DCG = 1 + 2/log2(3); IDCG = 2 + 1/log2(3).
    expected = (1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3))
    assert ndcg_at_k(["b", "a"], {"a": 2, "b": 1}) == pytest.approx(expected)


def test_ndcg_ignores_hits_beyond_k_and_repeats() -> None:
    assert ndcg_at_k(["x", "y", "a"], {"a": 1}, k=2) == 0.0
    # a second chunk of "x" must not push "a" down to rank 3
    assert ndcg_at_k(["x", "x", "a"], {"a": 1}) == pytest.approx(1 / math.log2(3))


def test_ndcg_without_relevant_documents_is_zero() -> None:
    assert ndcg_at_k(["a"], {}) == 0.0


def test_recall_counts_share_of_evidence_in_top_k() -> None:
    assert recall_at_k(["D1:1", "D2:5", "D3:3"], ["D2:5", "D9:9"], k=10) == 0.5
    assert recall_at_k(["D1:1", "D2:5", "D9:9"], ["D2:5", "D9:9"], k=2) == 0.5
    assert recall_at_k(["D2:5", "D2:5", "D9:9"], ["D2:5", "D9:9"], k=2) == 1.0


def test_recall_without_evidence_is_an_error() -> None:
    with pytest.raises(ValueError):
        recall_at_k(["a"], [])


def test_percentile_interpolates_like_numpy() -> None:
    values = [4.0, 1.0, 3.0, 2.0]
    assert percentile(values, 50) == 2.5
    assert percentile(values, 95) == pytest.approx(3.85)
    assert percentile([7.0], 95) == 7.0


def test_dedupe_keeps_first_occurrence() -> None:
    assert dedupe(["b", "a", "b", "c", "a"]) == ["b", "a", "c"]
