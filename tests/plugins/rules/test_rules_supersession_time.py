"""The rules judge's times: when a fact reads as valid from, and what a fact told late,
or dated, may close."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memex_core.domain.memory.validity import TimedFact
from tests.plugins.rules.judging import JUDGE, LATER, SAID, timed


def _day(when: float) -> str:
    return datetime.fromtimestamp(when, UTC).date().isoformat()


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("Alice lived in Rome in 2019", "2019-01-01"),
        ("Alice has lived in Berlin since May 2023", "2023-05-01"),
        ("Alice moved to Berlin last year", "2025-01-01"),
        ("Alice started at Stripe two weeks ago", "2026-02-24"),
        ("Alice got married on 3 June 2022", "2022-06-03"),
        ("Alice got married on June 3rd, 2022", "2022-06-03"),
        ("Alice moved to Oslo on 2021-09-15", "2021-09-15"),
        ("Alice has worked at Google for 5 years", "2021-03-10"),
        ("Since March, Alice works at Google", "2026-03-01"),
        ("From January, Alice works from home", "2026-01-01"),
        ("Since April, Alice works from home", "2025-04-01"),
        ("Alice moved to Paris in the summer of 2021", "2021-06-01"),
        ("Alice moved last month", "2026-02-01"),
        ("Alice came home yesterday", "2026-03-09"),
        ("Alice lived in Rome from 2015 until 2019", "2015-01-01"),
        # a change dated by a recent period holds surely from its end; a past state from its start
        ("Priya went keto last month", "2026-03-01"),
        ("Alice started at Stripe last week", "2026-03-09"),
        ("Alice lived in Rome last month", "2026-02-01"),
        ("Alice has been vegan since last month", "2026-02-01"),
    ],
)
def test_a_text_that_names_its_time_is_valid_from_then(text: str, day: str) -> None:
    assert _day(JUDGE.valid_from(text, SAID)) == day


@pytest.mark.parametrize(
    "text",
    [
        "Alice lives in Berlin",
        "We use Visual Studio 2019",  # a version, not a time
        "We use Postgres 15",
        "The launch is on June 1",  # a plan's date is its value
        "The launch moved to 2027-01-05",
        "Alice is going to Rome for two weeks",
        "Alice will move to Rome in 2030",  # later than said: a plan
        "Rent goes up to £1,425 from April",  # said in March: the coming April, a plan's start
        # an amount changed since a time: the time dates the change measured, not the fact
        "Weighed in at 85kg this morning, down 7 since January",
        "Up 2kg since February, I weigh 80kg",
    ],
)
def test_a_text_without_its_own_time_is_valid_from_when_said(text: str) -> None:
    assert JUDGE.valid_from(text, SAID) == SAID


def test_a_start_named_without_its_year_half_a_year_back_is_the_coming_one() -> None:
    """ "from Jan" said on 20 December is the coming January (a plan's start, so when said);
    "in Jan" is the one gone."""
    december = datetime(2025, 12, 20, 12, tzinfo=UTC).timestamp()
    for text in ("quoting £550/day for new clients from Jan", "Pro repriced to $39 from 1 Jan"):
        assert JUDGE.valid_from(text, december) == december, text
    assert _day(JUDGE.valid_from("moved to Leeds in Jan", december)) == "2025-01-01"


def test_a_weight_told_with_its_change_since_a_month_closes_the_earlier_weight() -> None:
    """broad b-b-u-0034: read from 1 January, the new weight started before the one it
    replaces (said 2 January) and closed nothing."""
    early = datetime(2026, 1, 2, 12, tzinfo=UTC).timestamp()
    old = TimedFact("m1", "I weigh 92kg", early, early)
    new = timed(None, "Weighed in at 85kg this morning, down 7 since January", LATER)
    assert [c.memory_id for c in JUDGE.supersedes(new, [old])] == ["m1"]


def test_a_fact_told_late_about_an_earlier_time_closes_no_latertimed() -> None:
    berlin = timed("berlin", "Alice lives in Berlin", SAID)
    rome = timed(None, "Alice lived in Rome in 2019", LATER)
    assert rome.valid_from < berlin.valid_from
    assert JUDGE.supersedes(rome, [berlin]) == []


@pytest.mark.parametrize(
    ("current", "late"),
    [
        ("Alice's favourite band is Queen", "In 2017, Alice's favourite band was ABBA"),
        ("Alice drives a Tesla Model 3", "Alice drove a Honda Civic in 2018"),
        ("Alice is married to Tom", "In 2016 Alice was dating Mark"),
        ("Alice lives in Berlin", "Alice used to live in Rome in 2019"),
        # a car with its colour, and a boss one works under, told of a decade or a set-off year
        ("Ray drives a Skoda Enyaq", "In the nineties Ray had a bright red Ford Capri"),
        ("Jonas reports to Mei", "In his first year at the firm, 2020, Jonas worked under Petra"),
    ],
)
def test_the_current_fact_closes_a_past_tense_fact_told_late(current: str, late: str) -> None:
    """Told after the current fact about an earlier year, the late fact holds until the
    current one: memex asks whether the current fact supersedes it, which needs the past
    tense read as the same attribute (before, 'was ABBA' read as nothing and stayed current)."""
    now = timed("now", current, SAID)
    told = timed("late", late, LATER)
    assert told.valid_from < now.valid_from
    assert [c.memory_id for c in JUDGE.supersedes(now, [told])] == ["late"]
    assert JUDGE.supersedes(told, [now]) == []


def test_a_change_dated_last_month_closes_a_fact_said_during_that_month() -> None:
    """ "Priya is pescatarian" said on 5 February, "Priya went keto last month" on 10 March:
    read from 1 February, keto would start before the fact it replaces and close nothing
    (and memex would let the pescatarian fact close keto instead)."""
    early = datetime(2026, 2, 5, 12, tzinfo=UTC).timestamp()
    pescatarian = timed("m1", "Priya follows a pescatarian diet", early)
    keto = timed(None, "Priya went keto last month", LATER)
    assert keto.valid_from > pescatarian.valid_from
    assert [c.memory_id for c in JUDGE.supersedes(keto, [pescatarian])] == ["m1"]
    assert JUDGE.supersedes(TimedFact(None, pescatarian.text, early, early), [keto]) == []


def test_an_undated_past_fact_closes_nothing() -> None:
    berlin = timed("berlin", "Alice lives in Berlin", SAID)
    assert JUDGE.supersedes(timed(None, "Alice used to live in Rome", LATER), [berlin]) == []


def test_a_dated_past_fact_closes_an_earlier_one() -> None:
    paris = TimedFact(
        "paris", "Alice lives in Paris", SAID - 3 * 365 * 86400, SAID - 3 * 365 * 86400
    )
    rome = timed(None, "Alice lived in Rome in 2025", LATER)
    assert [c.memory_id for c in JUDGE.supersedes(rome, [paris])] == ["paris"]


def test_a_new_fact_never_closes_one_valid_from_later() -> None:
    later = TimedFact("later", "Alice lives in Berlin", LATER, LATER)
    new = TimedFact(None, "Alice moved to Paris", SAID, LATER + 1)
    assert JUDGE.supersedes(new, [later]) == []


def test_a_closed_fact_is_not_closed_again() -> None:
    closed = TimedFact("old", "Alice lives in Paris", SAID, SAID, valid_until=SAID + 1)
    assert JUDGE.supersedes(timed(None, "Alice moved to Berlin", LATER), [closed]) == []
