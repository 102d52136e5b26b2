"""Benchmark 4e on hand-made data (no data set, no model): a turn split into sentences that
keep its speaker, short fragments merged into a neighbour, and a turn scored by its own
cosine, (a) its best sentence, (b) the better of the two, (c) their mean; the floor read
on a turn's own cosine; the cost of each configuration in vectors and embedding time."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks import locomo_sentence_units as su
from benchmarks.locomo_candidates import Candidates
from memex_core.domain import SEMANTIC


def test_a_turn_splits_into_sentences_that_keep_the_speaker() -> None:
    text = "Anna: I went camping last week. It rained all night! Did you go too?"
    assert su.sentences(text) == [
        "Anna: I went camping last week.",
        "Anna: It rained all night!",
        "Anna: Did you go too?",
    ]


def test_short_fragments_go_into_a_neighbour() -> None:
    # "Wow!" (1 word) goes into the next sentence; "Thanks." at the end into the one before.
    text = "Ben: Wow! That is a lovely photo of the lake. Thanks."
    assert su.sentences(text) == ["Ben: Wow! That is a lovely photo of the lake. Thanks."]
    assert su.sentences("Ben: Oh. Sure.") == ["Ben: Oh. Sure."]  # all short: one sentence
    assert su.sentences("Ben: See you at the lake tomorrow.") == [
        "Ben: See you at the lake tomorrow."
    ]  # one sentence: the turn's own text, so its own vector
    assert su.sentences("no speaker here. And a second sentence here.") == [
        "no speaker here.",
        "And a second sentence here.",
    ]


def test_a_turn_scores_its_best_sentence_the_better_of_both_or_their_mean() -> None:
    # two turns: the first of three sentences, the second of one (its own sentence)
    sentence_cosines = np.array([0.2, 0.7, 0.4, 0.5])
    best = su.sentence_max(sentence_cosines, [0, 3])
    assert best.tolist() == [0.7, 0.5]
    turn = np.array([0.5, 0.5])
    assert su.scored("turn", turn, best).tolist() == [0.5, 0.5]
    assert su.scored("a", turn, best).tolist() == [0.7, 0.5]
    assert su.scored("b", turn, best).tolist() == [0.7, 0.5]
    assert su.scored("c", turn, best).tolist() == pytest.approx([0.6, 0.5])
    low = np.array([0.9, 0.1])  # a turn's own cosine above its best sentence
    assert su.scored("b", low, best).tolist() == [0.9, 0.5]
    assert su.scored("c", low, best).tolist() == pytest.approx([0.8, 0.3])
    with pytest.raises(ValueError):
        su.scored("d", turn, best)
    ranked = su.top(["t1", "t2"], su.scored("a", turn, best))
    assert [f for f, _ in ranked] == ["t1", "t2"]


def test_the_floor_can_read_the_turns_own_cosine() -> None:
    # found by meaning alone (no keyword share): kept only if its cosine reaches the floor
    q = Candidates(
        question="Where did Anna go?",
        conversation="c1",
        category=4,
        evidence=["D1:1"],
        keyword=[("k", 3.0)],
        keyword_plain=[],
        semantic=[("s", 0.6), ("k", 0.5)],
        shares={"k": 1.0},
    )
    kept = su.fused_pool(q, 0.417)
    assert {h.id for h in kept} == {"s", "k"}
    assert next(h for h in kept if h.id == "s").scores[SEMANTIC] == 0.6
    on_turn = su.fused_pool(q, 0.417, cosine={"s": 0.3, "k": 0.5})
    assert [h.id for h in on_turn] == ["k"]  # its turn's own cosine is under the floor
    assert {h.id for h in su.fused_pool(q, None, cosine={"s": 0.3, "k": 0.5})} == {"s", "k"}


def test_each_configuration_costs_the_vectors_it_reads() -> None:
    cpu = {"turns": 2.0, "split": 3.0, "single": 0.8, "sentences": 3.8}
    wall = {k: 2 * v for k, v in cpu.items()}
    cost = su.Cost(turns=10, split=20, single=4, wall=wall, cpu=cpu)
    assert cost.vectors(su.BASE) == 10 and cost.time(su.BASE) == 1.0
    assert cost.vectors(("a", "variant", False)) == 24  # its sentences only
    assert cost.time(("a", "variant", False)) == pytest.approx(1.9)
    for config in (("a", "turn", False), ("b", "variant", False), ("turn", "variant", True)):
        assert cost.vectors(config) == 30  # the turns and the sentences of split turns
        assert cost.time(config) == pytest.approx(2.5)
        assert cost.time(config, "wall") == pytest.approx(2.5)
    assert cost.rate("turns") == pytest.approx(10 / 4.0)
    assert cost.rate("sentences") == pytest.approx(24 / 7.6)
