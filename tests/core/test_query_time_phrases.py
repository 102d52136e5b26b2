"""Time phrases in queries ("last week", "in March", "since 3 May") read as since/until ranges."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memex_core.query_time_phrases import TimePhrase, extract_time_phrase

#: A Wednesday. Tests read phrases against this moment, in UTC unless they say otherwise.
NOW = datetime(2026, 11, 18, 10, 30, tzinfo=UTC)


def at(day: str) -> float:
    return datetime.fromisoformat(day).replace(tzinfo=UTC).timestamp()


def read(query: str) -> TimePhrase:
    found = extract_time_phrase(query, NOW)
    assert found is not None, f"{query!r} was not recognised"
    return found


@pytest.mark.parametrize(
    ("query", "first", "end"),
    [
        # relative days
        ("today", "2026-11-18", "2026-11-19"),
        ("yesterday", "2026-11-17", "2026-11-18"),
        ("the day before yesterday", "2026-11-16", "2026-11-17"),
        ("3 days ago", "2026-11-15", "2026-11-16"),
        ("last friday", "2026-11-13", "2026-11-14"),
        ("last wednesday", "2026-11-11", "2026-11-12"),  # today is a Wednesday: a week back
        # "last <month>": the most recent such month before this one (never this one)
        ("last February", "2026-02-01", "2026-03-01"),
        ("last february", "2026-02-01", "2026-03-01"),
        ("previous October", "2026-10-01", "2026-11-01"),
        ("last November", "2025-11-01", "2025-12-01"),  # this month is under way: a year back
        ("last December", "2025-12-01", "2026-01-01"),
        ("last May", "2026-05-01", "2026-06-01"),
        # calendar weeks start on Monday
        ("this week", "2026-11-16", "2026-11-23"),
        ("last week", "2026-11-09", "2026-11-16"),
        ("previous week", "2026-11-09", "2026-11-16"),
        ("2 weeks ago", "2026-11-02", "2026-11-09"),
        ("a week ago", "2026-11-09", "2026-11-16"),
        # calendar months and years
        ("this month", "2026-11-01", "2026-12-01"),
        ("last month", "2026-10-01", "2026-11-01"),
        ("a month ago", "2026-10-01", "2026-11-01"),
        ("11 months ago", "2025-12-01", "2026-01-01"),
        ("this year", "2026-01-01", "2027-01-01"),
        ("last year", "2025-01-01", "2026-01-01"),
        ("one year ago", "2025-01-01", "2026-01-01"),
        # rolling windows end with today, today included
        ("last 3 days", "2026-11-16", "2026-11-19"),
        ("past 7 days", "2026-11-12", "2026-11-19"),
        ("last 1 day", "2026-11-18", "2026-11-19"),
        ("last two weeks", "2026-11-05", "2026-11-19"),
        ("past week", "2026-11-12", "2026-11-19"),
        ("last 3 months", "2026-08-19", "2026-11-19"),
        ("past year", "2025-11-19", "2026-11-19"),
        # months and years after in/during: the most recent such month that has begun
        ("in March", "2026-03-01", "2026-04-01"),
        ("in November", "2026-11-01", "2026-12-01"),
        ("during December", "2025-12-01", "2026-01-01"),
        ("in the month of May", "2026-05-01", "2026-06-01"),
        ("in March 2024", "2024-03-01", "2024-04-01"),
        ("in March of 2024", "2024-03-01", "2024-04-01"),
        ("in Sept 2024", "2024-09-01", "2024-10-01"),
        ("in February 2024", "2024-02-01", "2024-03-01"),
        ("in 2024", "2024-01-01", "2025-01-01"),
        ("in the year 2019", "2019-01-01", "2020-01-01"),
        ("from 2025", "2025-01-01", "2026-01-01"),
        # single dates, read by dateparser
        ("on 3 March", "2026-03-03", "2026-03-04"),
        ("on March 3", "2026-03-03", "2026-03-04"),
        ("on the 3rd of March", "2026-03-03", "2026-03-04"),
        ("on 18 November", "2026-11-18", "2026-11-19"),  # today is not the future
        ("on 19 November", "2025-11-19", "2025-11-20"),  # tomorrow is: last year's
        ("on 29 February", "2024-02-29", "2024-03-01"),  # the last year that had one
        ("on 2024-03-03", "2024-03-03", "2024-03-04"),
        ("on March 3rd, 2024", "2024-03-03", "2024-03-04"),
        ("on 3 Mar 2024", "2024-03-03", "2024-03-04"),
        ("on Monday", "2026-11-16", "2026-11-17"),
        ("on Wednesday", "2026-11-18", "2026-11-19"),
        ("on Thursday", "2026-11-12", "2026-11-13"),
        # ranges
        ("between March and May 2024", "2024-03-01", "2024-06-01"),
        ("between 3 March and 5 May 2024", "2024-03-03", "2024-05-06"),
        ("between December and February", "2025-12-01", "2026-03-01"),
        ("between 2023 and 2024", "2023-01-01", "2025-01-01"),
        ("between May 2024 and March 2024", "2024-03-01", "2024-06-01"),  # reversed: reordered
        ("between last month and yesterday", "2026-10-01", "2026-11-18"),
        ("from March to May", "2026-03-01", "2026-06-01"),
        ("from 2024-01-15 until 2024-02-15", "2024-01-15", "2024-02-16"),
    ],
)
def test_phrases_with_both_bounds(query: str, first: str, end: str) -> None:
    found = read(query)
    assert (found.since, found.until) == (at(first), at(end))
    assert found.phrase == query and found.query == ""


@pytest.mark.parametrize(
    ("query", "since", "until"),
    [
        ("since 3 May", "2026-05-03", None),
        ("since March", "2026-03-01", None),
        ("since December", "2025-12-01", None),
        ("since 2024", "2024-01-01", None),
        ("since last week", "2026-11-09", None),
        ("since yesterday", "2026-11-17", None),
        ("since Monday", "2026-11-16", None),
        ("after 3 March", "2026-03-04", None),
        ("after 2024", "2025-01-01", None),
        ("before 2024-03-03", None, "2024-03-03"),
        ("before March", None, "2026-03-01"),
        ("before last year", None, "2025-01-01"),
        ("prior to 2020", None, "2020-01-01"),
        ("until yesterday", None, "2026-11-18"),
        ("till March 2024", None, "2024-04-01"),
    ],
)
def test_open_ended_phrases(query: str, since: str | None, until: str | None) -> None:
    found = read(query)
    assert found.since == (at(since) if since else None)
    assert found.until == (at(until) if until else None)


@pytest.mark.parametrize(
    ("query", "phrase", "rest"),
    [
        ("rust notes from last week", "last week", "rust notes"),
        ("what did I do yesterday?", "yesterday", "what did I do?"),
        ("Yesterday: chroma errors", "Yesterday", "chroma errors"),
        ("last month's invoices", "last month", "invoices"),
        ("show me the last 7 days", "last 7 days", "show me"),
        ("notes in the last 3 days about chroma", "last 3 days", "notes about chroma"),
        ("chroma errors, earlier this week", "this week", "chroma errors"),
        ("tokio panics during the past week", "past week", "tokio panics"),
        ("notes on March 3rd, 2024 about x", "on March 3rd, 2024", "notes about x"),
        ("Deploy plan since March", "since March", "Deploy plan"),
        ("bug between March and May 2024 in prod", "between March and May 2024", "bug in prod"),
        ("what we said IN MARCH about sqlite", "IN MARCH", "what we said about sqlite"),
        ("sqlite, 2 weeks ago, locking", "2 weeks ago", "sqlite, locking"),
        ("yesterday and last week", "yesterday", "and last week"),  # the first phrase wins
        ("trip plans from last February", "last February", "trip plans"),
        ("what did I cook last March?", "last March", "what did I cook?"),
    ],
)
def test_phrase_is_cut_from_the_query(query: str, phrase: str, rest: str) -> None:
    found = read(query)
    assert (found.phrase, found.query) == (phrase, rest)


@pytest.mark.parametrize(
    "query",
    [
        "",
        "rust async runtimes",
        "may I ask about tokio",
        "March of progress",
        "the march of progress",
        "second opinion on the design",
        "the 90s band",
        "week numbers in python",
        "how many days in a year",
        "the last day of the month",
        "weekly report template",
        "monday blues",
        "python 2024 roadmap",
        "rendered in 2000 ms",
        "a diff in 2000 lines",
        "upgrade to 2024.1 in 2024.2",
        "on 4 cores",
        "in 2 weeks",  # the future is not searchable
        "in 2030",
        "in December 2026",  # has not begun
        "next week",
        "on 2024-13-01",
        "on 31 April",
        "since 2024-02-30",
        "last 0 days",
        "9999 years ago",
        "last 9999 years",
        "since 1.2",
        "in sept",  # abbreviations only count next to a number
        "the last may be the best",  # "may" is a month only as "May"
        "last feb",
    ],
)
def test_no_phrase(query: str) -> None:
    assert extract_time_phrase(query, NOW) is None


def test_describe() -> None:
    assert read("last week").describe() == "'last week' read as 2026-11-09 to 2026-11-15"
    assert read("yesterday").describe() == "'yesterday' read as 2026-11-17"
    assert read("since March").describe() == "'since March' read as from 2026-03-01 on"
    assert read("before 2024-03-03").describe() == "'before 2024-03-03' read as up to 2024-03-02"
    # Built by hand, without days: read back in local time, like the bounds were made.
    by_hand = TimePhrase(
        "x", "", datetime(2024, 1, 1).timestamp(), datetime(2024, 1, 3).timestamp()
    )
    assert by_hand.describe() == "'x' read as 2024-01-01 to 2024-01-02"


def test_bounds_are_midnights_in_the_zone_of_now() -> None:
    berlin = ZoneInfo("Europe/Berlin")
    found = extract_time_phrase("in March 2024", datetime(2026, 11, 18, 10, tzinfo=berlin))
    assert found is not None
    assert found.since == datetime(2024, 3, 1, tzinfo=berlin).timestamp()
    assert found.until == datetime(2024, 4, 1, tzinfo=berlin).timestamp()
    assert found.until - found.since == 31 * 86400 - 3600  # summer time began on 31 March


def test_today_is_the_date_in_the_zone_of_now() -> None:
    # 23:30 UTC on the 18th is already the 19th in Tokyo.
    tokyo = ZoneInfo("Asia/Tokyo")
    found = extract_time_phrase(
        "today", datetime(2026, 11, 18, 23, 30, tzinfo=UTC).astimezone(tokyo)
    )
    assert found is not None and found.first_day == date(2026, 11, 19)
    assert found.since == datetime(2026, 11, 19, tzinfo=tokyo).timestamp()


def test_naive_now_is_local_time() -> None:
    found = extract_time_phrase("yesterday", datetime(2026, 11, 18, 10))
    assert found is not None
    assert found.since == datetime(2026, 11, 17).timestamp()
    assert found.until == datetime(2026, 11, 18).timestamp()


def test_default_now_is_the_local_today() -> None:
    before = datetime.now().date()
    found = extract_time_phrase("yesterday")
    after = datetime.now().date()
    assert found is not None
    starts = {
        datetime.combine(d - timedelta(days=1), datetime.min.time()).timestamp()
        for d in (before, after)
    }
    assert found.since in starts


def test_dateparser_is_imported_only_to_read_an_explicit_date() -> None:
    script = textwrap.dedent(
        """
        import sys
        from memex_core.query_time_phrases import extract_time_phrase as read
        for query in ("rust async", "notes from last week", "in March 2024", "may I"):
            read(query)
        print("dateparser" in sys.modules)
        read("on 3 March")
        print("dateparser" in sys.modules)
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == ["False", "True"]


# Words to build near-phrases from, including impossible dates and numbers off the calendar.
WORDS = """
    in on during since before after until between and from to the of last past this
    ago day days week weeks month months year years today yesterday earlier 's ,
    march may december sept monday friday 3 3rd 29 31 0 12 9999 2024 1969 2030
    february 2024-02-30 2024-13-01 03/04/2024 1.2.2024 two a an ? - .
"""
VOCABULARY = WORDS.split()


def check_result(query: str) -> None:
    found = extract_time_phrase(query, NOW)
    if found is None:
        return
    assert found.phrase and found.phrase in query
    assert found.since is not None or found.until is not None
    if found.since is not None and found.until is not None:
        assert found.since < found.until
    assert isinstance(found.describe(), str)


@settings(deadline=None, max_examples=300)
@given(st.text())
def test_never_raises_on_any_text(query: str) -> None:
    check_result(query)


@settings(deadline=None, max_examples=500)
@given(st.lists(st.sampled_from(VOCABULARY), max_size=8).map(" ".join))
def test_never_raises_on_time_words_in_any_order(query: str) -> None:
    check_result(query)
