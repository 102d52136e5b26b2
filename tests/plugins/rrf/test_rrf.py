"""The rrf ranker: weighted reciprocal rank fusion, registered through register_rankers."""

from __future__ import annotations

from pathlib import Path

import pytest

from memex_core.domain import PluginContext, SignalHit
from memex_core.plugins import load_registry
from memex_rrf import ReciprocalRankFusion


def hits(*ids: str) -> list[SignalHit]:
    return [SignalHit(i, 10.0 - n) for n, i in enumerate(ids)]


def test_fused_score_is_weighted_reciprocal_rank() -> None:
    fused = ReciprocalRankFusion(k=60).fuse(
        {"keyword": hits("a", "b", "c"), "semantic": hits("c", "a")},
        {"keyword": 0.3, "semantic": 0.7},
        limit=10,
    )
    by_id = {h.id: h for h in fused}
    assert by_id["a"].score == pytest.approx(0.3 / 61 + 0.7 / 62)
    assert by_id["c"].score == pytest.approx(0.3 / 63 + 0.7 / 61)
    assert by_id["b"].score == pytest.approx(0.3 / 62)
    assert [h.id for h in fused] == ["c", "a", "b"]
    assert by_id["b"].ranks == {"keyword": 2, "semantic": None}
    assert by_id["a"].scores == {"keyword": 10.0, "semantic": 9.0}


def test_weights_change_the_order() -> None:
    signals = {"keyword": hits("a", "b"), "semantic": hits("b", "a")}
    ranker = ReciprocalRankFusion()
    assert ranker.fuse(signals, {"keyword": 0.9, "semantic": 0.1}, 2)[0].id == "a"
    assert ranker.fuse(signals, {"keyword": 0.1, "semantic": 0.9}, 2)[0].id == "b"


def test_zero_weight_signal_reports_ranks_but_adds_nothing() -> None:
    fused = ReciprocalRankFusion().fuse(
        {"keyword": hits("a"), "semantic": hits("b")}, {"keyword": 1.0, "semantic": 0.0}, 5
    )
    assert fused[0].id == "a"
    assert fused[1].score == 0.0 and fused[1].ranks["semantic"] == 1


def test_one_result_per_fragment_even_if_a_signal_repeats_it() -> None:
    fused = ReciprocalRankFusion(k=1).fuse({"keyword": hits("a", "a", "b")}, {"keyword": 1.0}, 10)
    assert [h.id for h in fused] == ["a", "b"]
    assert fused[0].score == pytest.approx(1 / 2)
    assert fused[1].ranks["keyword"] == 3


def test_limit_and_deterministic_ties() -> None:
    fused = ReciprocalRankFusion().fuse(
        {"keyword": hits("x", "y"), "semantic": hits("y", "x")}, {}, 1
    )
    assert len(fused) == 1 and fused[0].id == "x"


def test_registered_through_register_rankers_with_configurable_k(tmp_path: Path) -> None:
    ranker = load_registry().build("ranker", "rrf", PluginContext(tmp_path, {"k": 5}))
    assert isinstance(ranker, ReciprocalRankFusion) and ranker.k == 5
