"""A fact set in a closed past period ends by itself (issue 30): "Alice lived in Rome in
2019", told in 2024, is stored already ended (``valid_until`` the end of 2019, no
``superseded_by``), so default recall leaves it out; ``as_of`` inside 2019, history and
``include_superseded`` still read it.

The judge is the lives-in test double with the optional ``valid_until`` of
``EndingJudge``: a past-tense "lived" with "in <year>" ends at that year's end,
"before <year>" and "until <year>" at its start.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memex_core.api import Memex
from memex_core.domain import MemoryFact
from memex_core.domain.memory.records import CREATE, REOPEN, SUPERSEDE
from memex_core.domain.memory.validity import (
    START_UNKNOWN,
    START_UNKNOWN_BEFORE_1970,
    EndingJudge,
    read_start,
    start_unknown,
    unknown_start,
)
from tests.support.supersession_doubles import LivesInJudge, only_id, timed_memex

_IN = re.compile(r"\blived\b.*\bin (\d{4})\b")
_BEFORE = re.compile(r"\bbefore (\d{4})\b.*\blived\b", re.I)
_UNTIL = re.compile(r"\blived\b.*\buntil (\d{4})\b")


def _at(day: str) -> float:
    return datetime.fromisoformat(day).replace(tzinfo=UTC).timestamp()


class EndingLivesInJudge(LivesInJudge):
    """The lives-in double that also reads when a past fact ended."""

    def valid_until(self, text: str, said_at: float) -> float | None:
        found = _IN.search(text)
        if found:
            end = datetime(int(found.group(1)) + 1, 1, 1, tzinfo=UTC).timestamp()
        elif before := _BEFORE.search(text) or _UNTIL.search(text):
            end = datetime(int(before.group(1)), 1, 1, tzinfo=UTC).timestamp()
        else:
            return None
        return end if end <= said_at else None


@pytest.fixture
def mx(memex_home: Path) -> Iterator[Memex]:
    memex = timed_memex(memex_home, EndingLivesInJudge())
    yield memex
    memex.close()


def test_the_double_keeps_the_optional_contract() -> None:
    assert isinstance(EndingLivesInJudge(), EndingJudge)
    assert not isinstance(LivesInJudge(), EndingJudge)


@pytest.mark.parametrize("consolidate", [False, True])
def test_a_fact_told_late_about_a_closed_period_ends_by_itself(
    mx: Memex, consolidate: bool
) -> None:
    rome = only_id(
        mx.remember(
            "Alice lived in Rome in 2019", user="alice", at="2024-03-01", consolidate=consolidate
        )
    )
    told = mx.operator().get(rome)
    assert told.status == "active" and not told.is_current
    assert told.valid_from == _at("2019-01-01") and told.valid_until == _at("2020-01-01")
    assert told.superseded_by is None
    assert mx.recall("alice live", user="alice") == []  # not current
    assert [h.memory_id for h in mx.recall("alice live", user="alice", as_of="2019-06-01")] == [
        rome
    ]
    assert mx.recall("alice live", user="alice", as_of="2020-06-01") == []
    every = mx.recall("alice live", user="alice", include_superseded=True)
    assert [h.memory_id for h in every] == [rome]
    assert every[0].to_dict()["valid_until"] == "2020-01-01T00:00:00Z"
    assert every[0].to_dict()["superseded_by"] is None
    assert [r.id for r in mx.history(rome, user="alice")] == [rome]
    revision = mx.operator().history(rome)[-1]
    assert (
        revision.action == CREATE and "held until 2020-01-01 (by its own words)" in revision.reason
    )


def test_the_current_fact_stays_on_top(mx: Memex) -> None:
    berlin = only_id(mx.remember("Alice lives in Berlin", user="alice", at="2024-01-01"))
    rome = only_id(mx.remember("Alice lived in Rome in 2019", user="alice", at="2024-03-01"))
    assert mx.operator().get(berlin).is_current
    assert [h.memory_id for h in mx.recall("alice live", user="alice")] == [berlin]
    assert [h.memory_id for h in mx.recall("alice live", user="alice", as_of="2019-06-01")] == [
        rome
    ]


def test_a_period_not_over_when_said_keeps_the_fact_current(mx: Memex) -> None:
    rome = only_id(mx.remember("Alice lived in Rome in 2024", user="alice", at="2024-03-01"))
    assert mx.operator().get(rome).is_current


def test_a_fact_ended_before_its_start_closes_nothing_said_since(mx: Memex) -> None:
    berlin = only_id(mx.remember("Alice lives in Berlin", user="alice", at="2024-01-01"))
    rome = only_id(mx.remember("Before 2022 Alice lived in Rome", user="alice", at="2024-03-01"))
    assert mx.operator().get(berlin).is_current  # the double alone would have closed it
    told = mx.operator().get(rome)
    assert told.valid_until == _at("2022-01-01") and told.superseded_by is None


def test_an_ended_fact_still_closes_a_fact_that_held_before_it(mx: Memex) -> None:
    paris = only_id(mx.remember("Alice lives in Paris", user="alice", at="2018-01-01"))
    rome = only_id(mx.remember("Alice lived in Rome in 2019", user="alice", at="2024-03-01"))
    old = mx.operator().get(paris)
    assert old.valid_until == _at("2019-01-01") and old.superseded_by == rome
    assert mx.operator().get(rome).valid_until == _at("2020-01-01")


def test_conversation_facts_end_by_their_own_words(mx: Memex) -> None:
    class Lines:
        def extract(self, fragments, fact_types):  # type: ignore[no-untyped-def]
            return [MemoryFact(f.content, "misc", (f.id,)) for f in fragments if f.role == "user"]

    alice = mx.agent("alice")
    when = _at("2024-03-01")
    turns = [
        {"role": "user", "content": "Alice lived in Rome in 2019", "timestamp": when},
        {"role": "assistant", "content": "Noted.", "timestamp": when + 1},
    ]
    alice.remember(messages=turns, extractor=Lines())
    fact = next(r for r in alice.list() if r.kind == "misc")
    assert fact.valid_until == _at("2020-01-01") and fact.superseded_by is None


def test_undelete_reopens_an_ended_fact_and_says_why(mx: Memex) -> None:
    rome = only_id(mx.remember("Alice lived in Rome in 2019", user="alice", at="2024-03-01"))
    reopened = mx.agent("alice").undelete(rome)
    assert reopened.is_current and reopened.superseded_by is None
    last = mx.operator().history(rome)[-1]
    assert last.action == REOPEN
    assert last.reason == "reopened (had ended 2020-01-01 by its own words)"
    assert rome in {h.memory_id for h in mx.recall("alice live", user="alice")}


def test_restore_of_an_ended_fact_says_why(mx: Memex) -> None:
    rome = only_id(mx.remember("Alice lived in Rome in 2019", user="alice", at="2024-03-01"))
    restored = mx.operator().restore(rome, 1)
    assert restored.is_current
    assert "None" not in mx.operator().history(rome)[-1].reason
    assert "by its own words" in mx.operator().history(rome)[-1].reason


def test_a_fact_told_late_ends_at_the_earlier_of_its_words_and_its_successor(mx: Memex) -> None:
    berlin = only_id(mx.remember("Alice lives in Berlin", user="alice", at="2021-06-01"))
    rome = only_id(mx.remember("Alice lived in Rome in 2019", user="alice", at="2024-03-01"))
    told = mx.operator().get(rome)
    assert told.superseded_by == berlin  # the double closes it with the later Berlin
    assert told.valid_until == _at("2020-01-01")  # not 2021-06-01: its words end it first
    assert mx.recall("alice live", user="alice", as_of="2020-06-01") == []


def _remembered_without_a_judge(home: Path) -> str:
    plain = timed_memex(home, supersession_judge="none")
    try:
        rome = only_id(plain.remember("Alice lived in Rome in 2019", user="alice", at="2024-03-01"))
        assert plain.operator().get(rome).is_current  # no judge: nothing read
        return rome
    finally:
        plain.close()


def test_dream_ends_a_stored_fact_by_its_own_words(memex_home: Path) -> None:
    rome = _remembered_without_a_judge(memex_home)
    memex = timed_memex(memex_home, EndingLivesInJudge())
    try:
        report = memex.agent("alice").dream()
        assert report.ended == [(rome, _at("2020-01-01"))]
        assert report.to_dict()["ended"] == [
            {"memory_id": rome, "valid_until": "2020-01-01T00:00:00Z"}
        ]
        told = memex.operator().get(rome)
        assert told.valid_until == _at("2020-01-01") and told.superseded_by is None
        assert memex.operator().history(rome)[-1].action == SUPERSEDE
        assert memex.recall("alice live", user="alice") == []
        again = memex.agent("alice").dream()  # an ended fact is history: not examined again
        assert again.ended == [] and again.examined == 0
    finally:
        memex.close()


def test_a_dream_plan_names_its_endings_and_applying_it_makes_them(memex_home: Path) -> None:
    rome = _remembered_without_a_judge(memex_home)
    memex = timed_memex(memex_home, EndingLivesInJudge())
    try:
        alice = memex.agent("alice")
        plan = alice.dream_plan()
        assert plan.report.ended == [(rome, _at("2020-01-01"))]
        assert memex.operator().get(rome).is_current  # a plan writes nothing
        applied = alice.apply_dream(plan)
        assert applied.ended == [(rome, _at("2020-01-01"))]
        assert not memex.operator().get(rome).is_current
    finally:
        memex.close()


def test_an_ended_fact_told_first_is_left_as_it_is_by_a_later_one(mx: Memex) -> None:
    rome = only_id(mx.remember("Alice lived in Rome in 2019", user="alice", at="2024-01-01"))
    berlin = only_id(mx.remember("Alice moved to Berlin", user="alice", at="2024-03-01"))
    told = mx.operator().get(rome)  # not current, so not offered: never closed again
    assert told.valid_until == _at("2020-01-01") and told.superseded_by is None
    assert [h.memory_id for h in mx.recall("alice live", user="alice")] == [berlin]
    assert [h.memory_id for h in mx.recall("alice live", user="alice", as_of="2019-06-01")] == [
        rome
    ]


def test_a_fact_that_names_only_its_end_has_an_unknown_start(mx: Memex) -> None:
    # Said in 2024, ended in 2022 by its own words: never stored from 2024 to 2022 (an
    # interval no as_of could ever find), but from the earliest time, its start unknown.
    rome = only_id(mx.remember("Before 2022 Alice lived in Rome", user="alice", at="2024-03-01"))
    told = mx.operator().get(rome)
    assert told.valid_from == START_UNKNOWN and told.valid_until == _at("2022-01-01")
    assert told.to_dict()["valid_from"] == "1970-01-01T00:00:00Z"
    assert told.superseded_by is None
    assert mx.recall("alice live", user="alice") == []  # over: not current
    for day in ["2021-06-01", "2015-01-01"]:  # any time before its end finds it
        hits = mx.recall("alice live", user="alice", as_of=day)
        assert [h.memory_id for h in hits] == [rome]
        assert hits[0].to_dict()["valid_from"] == "1970-01-01T00:00:00Z"
    assert mx.recall("alice live", user="alice", as_of="2022-01-01") == []


def test_a_fact_that_ended_before_1970_is_stored_with_its_unknown_start_before_it(
    mx: Memex,
) -> None:
    # "till 1968", said today: the epoch (the usual unknown start) comes after its end, and
    # remember refused the fact ("cannot stop holding before it starts"); found by
    # benchmark 21's blind split.
    cork = only_id(mx.remember("Before 1968 Grandma lived in Cork", user="g", at="2024-03-01"))
    told = mx.operator().get(cork)
    assert told.valid_from == START_UNKNOWN_BEFORE_1970 and start_unknown(told.valid_from)
    assert told.valid_until == _at("1968-01-01")
    assert told.to_dict()["valid_from"] == "0001-01-01T00:00:00Z"
    assert mx.recall("grandma live", user="g") == []  # over: not current
    assert [h.memory_id for h in mx.recall("grandma live", user="g", as_of="1960-05-01")] == [cork]


def test_a_start_named_before_1970_is_a_known_start() -> None:
    assert not start_unknown(_at("1931-06-01"))  # "born in 1931"
    assert start_unknown(START_UNKNOWN) and start_unknown(START_UNKNOWN_BEFORE_1970)
    assert unknown_start(_at("1968-01-01")) == START_UNKNOWN_BEFORE_1970
    assert unknown_start(_at("2022-01-01")) == START_UNKNOWN
    assert read_start(_at("2024-03-01"), _at("1968-01-01")) == START_UNKNOWN_BEFORE_1970


def test_a_fact_with_an_unknown_start_closes_nothing_and_is_closed_by_nothing_later(
    mx: Memex,
) -> None:
    # The double reads "Alice lived in Rome until 2022" as about where Alice lives, so it
    # would close Rome with Berlin and Berlin with Rome, but for the start being unknown.
    berlin = only_id(mx.remember("Alice lives in Berlin", user="alice", at="2023-02-01"))
    rome = only_id(mx.remember("Alice lived in Rome until 2022", user="alice", at="2024-03-01"))
    assert mx.operator().get(berlin).is_current  # began after Rome ended: untouched
    told = mx.operator().get(rome)
    assert told.valid_from == START_UNKNOWN and told.valid_until == _at("2022-01-01")
    assert told.superseded_by is None  # already over: Berlin (2023) does not close it
    assert [h.memory_id for h in mx.recall("alice live", user="alice")] == [berlin]
    assert [h.memory_id for h in mx.recall("alice live", user="alice", as_of="2021-01-01")] == [
        rome
    ]


def test_dream_gives_a_fact_that_names_only_its_end_an_unknown_start(memex_home: Path) -> None:
    plain = timed_memex(memex_home, supersession_judge="none")
    try:
        rome = only_id(
            plain.remember("Before 2022 Alice lived in Rome", user="alice", at="2024-03-01")
        )
    finally:
        plain.close()
    memex = timed_memex(memex_home, EndingLivesInJudge())
    try:
        assert memex.agent("alice").dream().ended == [(rome, _at("2022-01-01"))]
        told = memex.operator().get(rome)
        assert told.valid_from == START_UNKNOWN and told.valid_until == _at("2022-01-01")
        assert [
            h.memory_id for h in memex.recall("alice live", user="alice", as_of="2021-06-01")
        ] == [rome]
    finally:
        memex.close()
