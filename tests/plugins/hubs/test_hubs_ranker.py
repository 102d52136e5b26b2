"""The hubs ranker: weighted RRF, then a lift for notes with many backlinks."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from memex_core.domain import GraphAwareRanker, LinkGraphView, PluginContext, SignalHit
from memex_core.plugins import load_registry
from memex_hubs import HubRanker, HubsSettingError, parse_settings
from memex_rrf import ReciprocalRankFusion


class FakeGraph:
    """A LinkGraphView over a fixed table; records what it was asked."""

    def __init__(self, backlinks: Mapping[str, int]) -> None:
        self.backlinks = dict(backlinks)
        self.asked: list[list[str]] = []

    def backlink_counts(self, fragment_ids: Sequence[str]) -> Mapping[str, int]:
        self.asked.append(list(fragment_ids))
        return {i: self.backlinks.get(i, 0) for i in fragment_ids}


def hits(*ids: str) -> list[SignalHit]:
    return [SignalHit(i, 10.0 - n) for n, i in enumerate(ids)]


SIGNALS = {"keyword": hits("a", "b", "c", "d"), "semantic": hits("b", "a", "d", "e")}
WEIGHTS = {"keyword": 0.5, "semantic": 0.5}


def bound(backlinks: Mapping[str, int], **kwargs: float) -> HubRanker:
    ranker = HubRanker(**kwargs)
    ranker.bind_graph(FakeGraph(backlinks))
    return ranker


def test_fake_graph_and_ranker_satisfy_the_contracts() -> None:
    assert isinstance(FakeGraph({}), LinkGraphView)
    assert isinstance(HubRanker(), GraphAwareRanker)


def test_hub_moves_up_by_the_documented_factor() -> None:
    rrf = {h.id: h.score for h in ReciprocalRankFusion().fuse(SIGNALS, WEIGHTS, 10)}
    fused = bound({"d": 20}, boost=0.1).fuse(SIGNALS, WEIGHTS, 10)
    by_id = {h.id: h for h in fused}
    assert by_id["d"].score == pytest.approx(rrf["d"] * (1 + 0.1 * math.log1p(20)))
    assert by_id["a"].score == rrf["a"]  # no backlinks: unchanged
    # d was third in RRF (behind a and b, which tie); with 20 backlinks it leads.
    assert [h.id for h in fused] == ["d", "a", "b", "c", "e"]


def test_a_hub_below_the_cut_can_move_into_it() -> None:
    plain = ReciprocalRankFusion(60).fuse(SIGNALS, WEIGHTS, 2)
    assert "e" not in [h.id for h in plain]
    lifted = bound({"e": 1000}, boost=1.0).fuse(SIGNALS, WEIGHTS, 2)
    assert lifted[0].id == "e" and len(lifted) == 2


def test_hits_keep_their_per_signal_ranks_and_scores() -> None:
    fused = bound({"d": 5}).fuse(SIGNALS, WEIGHTS, 10)
    d = next(h for h in fused if h.id == "d")
    assert d.ranks == {"keyword": 4, "semantic": 3}
    assert d.scores == {"keyword": 7.0, "semantic": 8.0}
    e = next(h for h in fused if h.id == "e")
    assert e.ranks == {"keyword": None, "semantic": 4} and e.scores["keyword"] is None


@pytest.mark.parametrize("limit", [0, 1, 3, 5, 50])
def test_without_backlinks_the_result_is_rrf_exactly(limit: int) -> None:
    expected = ReciprocalRankFusion(k=10).fuse(SIGNALS, WEIGHTS, limit)
    assert bound({}, k=10).fuse(SIGNALS, WEIGHTS, limit) == expected
    # ids the graph does not know, or reports as 0, are the same thing
    assert bound({"zzz": 9, "a": 0}, k=10).fuse(SIGNALS, WEIGHTS, limit) == expected


def test_unbound_or_zero_boost_behaves_like_rrf() -> None:
    expected = ReciprocalRankFusion().fuse(SIGNALS, WEIGHTS, 3)
    assert HubRanker().fuse(SIGNALS, WEIGHTS, 3) == expected
    graph = FakeGraph({"e": 100})
    zero = HubRanker(boost=0)
    zero.bind_graph(graph)
    assert zero.fuse(SIGNALS, WEIGHTS, 3) == expected
    assert graph.asked == []  # nothing to lift: the graph is not even read


def test_unbinding_returns_to_rrf() -> None:
    ranker = bound({"e": 100}, boost=1.0)
    ranker.bind_graph(None)
    assert ranker.fuse(SIGNALS, WEIGHTS, 5) == ReciprocalRankFusion().fuse(SIGNALS, WEIGHTS, 5)


def test_graph_is_asked_once_about_every_candidate() -> None:
    graph = FakeGraph({})
    ranker = HubRanker()
    ranker.bind_graph(graph)
    ranker.fuse(SIGNALS, WEIGHTS, 1)
    assert len(graph.asked) == 1 and sorted(graph.asked[0]) == ["a", "b", "c", "d", "e"]


def test_equal_lifted_scores_are_ordered_deterministically() -> None:
    # x and y tie in RRF (mirror ranks) and get the same lift: RRF's tie order (id) stays.
    signals = {"keyword": hits("x", "y"), "semantic": hits("y", "x")}
    for graph in ({}, {"x": 3, "y": 3}):
        assert [h.id for h in bound(graph).fuse(signals, {}, 5)] == ["x", "y"]


def test_negative_counts_from_a_faulty_graph_do_not_demote() -> None:
    expected = ReciprocalRankFusion().fuse(SIGNALS, WEIGHTS, 5)
    assert bound({"a": -4}).fuse(SIGNALS, WEIGHTS, 5) == expected


def test_empty_signals() -> None:
    assert bound({"a": 1}).fuse({}, {}, 10) == []
    assert bound({"a": 1}).fuse({"keyword": []}, {}, 10) == []


def test_settings_defaults_and_values() -> None:
    assert parse_settings({}) == parse_settings(None)
    assert (parse_settings({}).k, parse_settings({}).boost) == (10.0, 0.1)  # rrf's default k
    parsed = parse_settings({"k": 10, "boost": 0.5})
    assert (parsed.k, parsed.boost) == (10.0, 0.5)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"k": -1}, r"\[ranker.hubs\] k = -1: use .*non-negative number"),
        ({"k": "60"}, r"k = '60'"),
        ({"k": True}, r"k = True"),
        ({"boost": -0.1}, r"boost = -0.1: use .*0 = plain RRF"),
        ({"boost": float("nan")}, r"boost = nan"),
        ({"boost": float("inf")}, r"boost = inf"),
        ({"bost": 1}, r"unknown setting\(s\) bost; known settings are: k, boost"),
    ],
)
def test_bad_settings_name_the_table_and_the_fix(settings: dict[str, object], message: str) -> None:
    with pytest.raises(HubsSettingError, match=message):
        parse_settings(settings)


def test_constructor_rejects_negative_values() -> None:
    with pytest.raises(ValueError, match="boost"):
        HubRanker(boost=-1)
    with pytest.raises(ValueError, match="k"):
        HubRanker(k=-1)


def test_registered_and_buildable_through_the_registry(tmp_path: Path) -> None:
    registry = load_registry()
    registration = registry.get("ranker", "hubs")
    assert registration.available and "backlinks" in registration.description
    ranker = registry.build("ranker", "hubs", PluginContext(tmp_path, {"k": 5, "boost": 0.3}))
    assert isinstance(ranker, HubRanker) and (ranker.k, ranker.boost) == (5.0, 0.3)
    assert isinstance(ranker, GraphAwareRanker)


def test_building_with_bad_settings_reports_the_setting(tmp_path: Path) -> None:
    with pytest.raises(HubsSettingError, match="boost"):
        load_registry().build("ranker", "hubs", PluginContext(tmp_path, {"boost": "lots"}))
