"""The convex ranker: each signal's score over its best score for the query, weighted."""

from __future__ import annotations

from pathlib import Path

import pytest

from memex_core.domain import PluginContext, SignalHit
from memex_core.plugins import load_registry
from memex_rrf import ConvexFusion, ReciprocalRankFusion


def scored(*pairs: tuple[str, float]) -> list[SignalHit]:
    return [SignalHit(i, s) for i, s in pairs]


def test_fused_score_is_the_weighted_sum_of_shares_of_the_best_score() -> None:
    fused = ConvexFusion().fuse(
        {
            "keyword": scored(("a", 20.0), ("b", 10.0), ("c", 5.0)),
            "semantic": scored(("c", 0.8), ("a", 0.4), ("d", 0.4)),
        },
        {"keyword": 0.4, "semantic": 0.6},
        limit=10,
    )
    by_id = {h.id: h for h in fused}
    assert by_id["a"].score == pytest.approx(0.4 * 1.0 + 0.6 * 0.5)
    assert by_id["c"].score == pytest.approx(0.4 * 0.25 + 0.6 * 1.0)
    # b was not listed by the semantic signal, whose list was cut off as long as the
    # keyword signal's: it counts that signal's lowest share (0.5).
    assert by_id["b"].score == pytest.approx(0.4 * 0.5 + 0.6 * 0.5)
    assert [h.id for h in fused] == ["a", "c", "b", "d"]
    assert by_id["b"].ranks == {"keyword": 2, "semantic": None}
    assert by_id["a"].scores == {"keyword": 20.0, "semantic": 0.4}


def test_score_gaps_count_where_rank_fusion_sees_only_ranks() -> None:
    # The keyword signal's first hit far ahead of its second; the semantic signal barely
    # prefers the second. Rank fusion at equal weights ties them and breaks the tie by
    # id; the convex sum keeps the keyword signal's margin.
    signals = {
        "keyword": scored(("y", 30.0), ("x", 3.0)),
        "semantic": scored(("x", 0.61), ("y", 0.60)),
    }
    weights = {"keyword": 0.5, "semantic": 0.5}
    assert ReciprocalRankFusion().fuse(signals, weights, 1)[0].id == "x"
    assert ConvexFusion().fuse(signals, weights, 1)[0].id == "y"


def test_a_signal_that_ran_out_of_matches_gives_the_unlisted_nothing() -> None:
    # The keyword signal listed one hit where the semantic signal listed two: it found
    # nothing else, so c counts 0 for it, not its lowest listed share.
    fused = ConvexFusion().fuse(
        {"keyword": scored(("a", 2.0)), "semantic": scored(("c", 0.9), ("a", 0.45))},
        {"keyword": 0.5, "semantic": 0.5},
        5,
    )
    by_id = {h.id: h for h in fused}
    assert by_id["c"].score == pytest.approx(0.5 * 1.0)
    assert by_id["a"].score == pytest.approx(0.5 * 1.0 + 0.5 * 0.5)


def test_zero_weight_signal_reports_ranks_but_adds_nothing() -> None:
    fused = ConvexFusion().fuse(
        {"keyword": scored(("a", 2.0)), "semantic": scored(("b", 0.9), ("a", 0.3))},
        {"keyword": 1.0, "semantic": 0.0},
        5,
    )
    assert [h.id for h in fused] == ["a", "b"]
    assert fused[1].score == 0.0 and fused[1].ranks["semantic"] == 1


def test_one_result_per_fragment_and_empty_or_non_positive_signals() -> None:
    fused = ConvexFusion().fuse(
        {"keyword": scored(("a", 4.0), ("a", 3.0), ("b", 2.0)), "semantic": []},
        {"keyword": 1.0, "semantic": 1.0},
        10,
    )
    assert [h.id for h in fused] == ["a", "b"]
    assert fused[0].score == pytest.approx(1.0) and fused[1].ranks["keyword"] == 3
    flat = ConvexFusion().fuse({"semantic": scored(("a", -0.1), ("b", -0.2))}, {}, 10)
    assert [h.id for h in flat] == ["a", "b"] and {h.score for h in flat} == {0.0}


def test_limit_and_deterministic_ties() -> None:
    fused = ConvexFusion().fuse(
        {"keyword": scored(("x", 1.0), ("y", 0.5)), "semantic": scored(("y", 1.0), ("x", 0.5))},
        {},
        1,
    )
    assert len(fused) == 1 and fused[0].id == "x"


def test_registered_as_convex(tmp_path: Path) -> None:
    ranker = load_registry().build("ranker", "convex", PluginContext(tmp_path, {}))
    assert isinstance(ranker, ConvexFusion)
