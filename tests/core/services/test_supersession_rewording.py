"""A judge that names an earlier fact the new one only rewords closes nothing: the new words
fold into the earlier memory, as a repeat does (issue 30, benchmark 9's duplicates).

The judge is tests/support/supersession_doubles.py's ``LivesInJudge``, which closes every
earlier "<subject> lives in" fact of the same subject whatever its value, so it names
rewordings ("Alice lives in Berlin" / "Alice now lives in Berlin") as a careless judge
would; the consolidator that tells a rewording from a change is the default ``rules`` one.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memex_core.api import Memex
from memex_core.config import Config, load_config
from memex_core.domain import ConsolidationDecision, MemoryFact, SimilarMemory
from memex_core.domain.contracts import ADD, NONE
from memex_core.plugins import load_registry
from memex_core.services.supersession import same_fact
from tests.support.component_doubles import DoublesPlugin
from tests.support.supersession_doubles import JudgePlugin, LivesInJudge, timed_memex

T0 = 1_700_000_000.0
DAY = 86400.0


@pytest.fixture
def judge() -> LivesInJudge:
    return LivesInJudge()


@pytest.fixture
def mx(memex_home: Path, judge: LivesInJudge) -> Iterator[Memex]:
    memex = timed_memex(memex_home, judge)
    yield memex
    memex.close()


def _current(mx: Memex) -> list[str]:
    return sorted(r.content for r in mx.operator().list(user_id="alice") if r.is_current)


@pytest.mark.parametrize("consolidate", [False, True])
def test_a_rewording_the_judge_names_folds_into_the_earlier_fact(
    mx: Memex, judge: LivesInJudge, consolidate: bool
) -> None:
    berlin = mx.remember("Alice lives in Berlin", user="alice", at=T0).memory_ids[0]
    again = mx.remember(
        "Alice now lives in Berlin", user="alice", at=T0 + DAY, consolidate=consolidate
    )
    assert judge.asked[-1][1], "the judge was offered Berlin"
    applied = again.decisions[0]
    assert (applied.decision.action, applied.memory_id) == (NONE, berlin)
    assert "in other words" in applied.decision.reason
    record = mx.operator().get(berlin)
    assert (record.valid_until, record.superseded_by) == (None, None)
    assert [r.action for r in mx.operator().history(berlin)] == ["create"]  # nothing closed
    assert _current(mx) == ["Alice lives in Berlin"]
    assert len(mx.operator().list(user_id="alice")) == 1  # no closed duplicate either


def test_a_change_still_closes_the_earlier_fact(mx: Memex) -> None:
    berlin = mx.remember("Alice lives in Berlin", user="alice", at=T0).memory_ids[0]
    paris = mx.remember("Alice moved to Paris", user="alice", at=T0 + DAY)
    assert paris.decisions[0].decision.action == ADD
    assert mx.operator().get(berlin).superseded_by == paris.memory_ids[0]
    assert _current(mx) == ["Alice moved to Paris"]


def test_a_fact_that_says_less_is_a_change_not_a_rewording(mx: Memex) -> None:
    """Asked both ways: "lives in Berlin" repeats "lives in Berlin and Potsdam" one way only
    (it drops a value), so the judge's closing stands."""
    both = mx.remember("Alice lives in Berlin and Potsdam", user="alice", at=T0).memory_ids[0]
    one = mx.remember("Alice lives in Berlin", user="alice", at=T0 + DAY)
    assert one.decisions[0].decision.action == ADD
    assert mx.operator().get(both).superseded_by == one.memory_ids[0]


class OneWay:
    """A consolidator that calls everything a repeat of the first similar memory, except
    when the fact is ``longer``: then it is news."""

    def __init__(self, longer: str) -> None:
        self.longer = longer

    def decide(self, fact: MemoryFact, similar: list[SimilarMemory]) -> ConsolidationDecision:
        if fact.text == self.longer or not similar:
            return ConsolidationDecision(ADD, fact, reason="news")
        return ConsolidationDecision(NONE, fact, similar[0].memory_id, reason="repeat")


def test_same_fact_asks_both_ways(mx: Memex) -> None:
    record = mx.operator().get(
        mx.remember("Alice lives in Berlin and Potsdam", user="alice", at=T0).memory_ids[0]
    )
    assert not same_fact(OneWay(record.content), "Alice lives in Berlin", "misc", record)
    assert same_fact(OneWay("-"), "Alice lives in Berlin", "misc", record)


def _home(home: Path, judge: str | None = None, **memory: float) -> Memex:
    """``timed_memex`` with a ``[memory]`` table (``judge``: the supersession judge)."""
    registry = load_registry()
    registry.register_plugin(DoublesPlugin(home), name="doubles")
    registry.register_plugin(JudgePlugin(LivesInJudge()), name="judge-double")
    chosen = {
        **load_config(home).components,
        "embedder": "hashing",
        "vector_store": "memory",
        "supersession_judge": judge or "test-lives",
    }
    raw = {"memory": dict(memory)} if memory else {}
    return Memex(registry=registry, config=Config(home=home, components=chosen, raw=raw))


def test_a_dream_never_closes_a_fact_by_its_rewording(memex_home: Path) -> None:
    """Stored without a judge, then dreamt with one: the consolidator is shown no similar
    memory (threshold 0.99), so it keeps the rewording and the judge names the earlier fact;
    that closing is no change, and the dream (and its plan) leave both open."""
    plain = _home(memex_home, "none")
    try:
        berlin = plain.remember("Alice lives in Berlin", user="alice", at=T0).memory_ids[0]
        plain.remember("Alice now lives in Berlin", user="alice", at=T0 + DAY)
    finally:
        plain.close()
    mx = _home(memex_home, similarity_threshold=0.99)
    try:
        alice = mx.agent("alice")
        assert alice.dream_plan().report.superseded == []
        report = alice.dream()
        assert report.superseded == []
        assert mx.operator().get(berlin).valid_until is None
        assert _current(mx) == ["Alice lives in Berlin", "Alice now lives in Berlin"]
    finally:
        mx.close()
