"""Hostile queries and filters: the time-bound parser, filter building, time phrases in a
query, and whole searches. Only memex's own errors (:class:`MemexError`), never a traceback.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memex_core.api import Memex, make_filters
from memex_core.domain import SearchFilters
from memex_core.domain.time_bounds import (
    EARLIEST,
    LATEST,
    FilterValueError,
    TimeBoundError,
    parse_time_bound,
)
from memex_core.errors import MemexError
from memex_core.query_time_phrases import TimePhrase, extract_time_phrase
from tests.support.component_doubles import fast_memex
from tests.support.hostile_builders import ODD_NUMBERS, ODD_STRINGS, examples, tally, write_tallies

BOUND_EXAMPLES = 300
FILTER_EXAMPLES = 200
PHRASE_EXAMPLES = 300
SEARCH_EXAMPLES = 60

_AGES = st.builds(
    lambda n, unit: f"{n}{unit}",
    st.one_of(st.integers(min_value=0), st.floats(min_value=0, allow_nan=False)),
    st.sampled_from(list("smhdwySMHDWY")),
)

bounds = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(ODD_NUMBERS),
    st.text(max_size=40),
    st.sampled_from(ODD_STRINGS),
    _AGES,
    st.dates(),
    st.datetimes(timezones=st.one_of(st.none(), st.timezones())),
    st.datetimes().map(lambda d: d.isoformat()),
    st.dates().map(lambda d: d.isoformat()),
    st.lists(st.integers(), max_size=2),
    st.binary(max_size=8),
)


@pytest.fixture(autouse=True, scope="module")
def _write_tallies() -> Iterator[None]:
    yield
    write_tallies()


@examples(BOUND_EXAMPLES)
@given(value=bounds, end_of_day=st.booleans(), now=st.floats(min_value=0, max_value=4e9))
def test_time_bounds_are_times_or_memex_errors(value: Any, end_of_day: bool, now: float) -> None:
    tally("query parsers")
    try:
        moment = parse_time_bound(value, now=now, end_of_day=end_of_day)
    except TimeBoundError as exc:
        assert isinstance(exc, MemexError) and isinstance(exc, ValueError)
        assert "2024-05-01" in str(exc)  # says which forms work
        return
    if value is None:
        assert moment is None
    else:
        assert moment is not None and math.isfinite(moment) and EARLIEST <= moment <= LATEST


@pytest.mark.parametrize(
    "value", ["1e400", "nan", "inf", 10**400, float("nan"), "99999-01-01", 1e300, [1], b"7d"]
)
def test_impossible_times_say_so(value: Any) -> None:
    tally("query parsers")
    with pytest.raises(TimeBoundError):
        parse_time_bound(value)


def test_an_enormous_age_means_from_the_beginning() -> None:
    tally("query parsers")
    assert parse_time_bound("99999999999999999999y", now=0.0) == EARLIEST


filter_values = st.one_of(
    st.none(),
    st.text(max_size=20),
    st.sampled_from(ODD_STRINGS),
    st.lists(st.one_of(st.text(max_size=10), st.none(), st.integers()), max_size=3),
    st.integers(),
    st.floats(),
    st.binary(max_size=4),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.booleans(),
)


@examples(FILTER_EXAMPLES)
@given(
    source=filter_values,
    conversation=filter_values,
    role=filter_values,
    since=bounds,
    until=bounds,
    include_private=st.one_of(st.booleans(), st.none(), st.integers(), st.text(max_size=5)),
)
def test_make_filters_builds_or_says_which_value(
    source: Any, conversation: Any, role: Any, since: Any, until: Any, include_private: Any
) -> None:
    tally("query parsers")
    try:
        filters = make_filters(
            source=source,
            conversation=conversation,
            role=role,
            since=since,
            until=until,
            include_private=include_private,
        )
    except FilterValueError as exc:
        assert isinstance(exc, MemexError) and isinstance(exc, ValueError)
        return
    assert isinstance(filters, SearchFilters)
    for values in (filters.source_kinds, filters.conversation_ids, filters.roles):
        assert all(isinstance(v, str) for v in values)
    assert isinstance(filters.include_private, bool)


def test_a_private_switch_must_be_a_boolean() -> None:
    """``include_private="false"`` must not quietly turn private memory on."""
    tally("query parsers")
    with pytest.raises(FilterValueError, match="include_private"):
        make_filters(include_private="false")  # type: ignore[arg-type]


_PHRASE_WORDS = [
    "between", "and", "from", "to", "since", "before", "after", "until", "in", "on", "during",
    "last", "past", "this", "next", "ago", "the", "of", "today", "yesterday", "day", "days",
    "week", "weeks", "month", "months", "year", "years", "March", "may", "Dec.", "Monday",
    "9999", "0001", "1970", "2024", "99999", "12", "31st", "29", "february", "2024-02-30",
    "9999-12-31", "31.12.9999", "01/01/0001", "13-13-2024", "one", "twelve", "0", "10000",
    "9999 years ago", "last 9999 years", "between 3 March and 5 May 9999", "\x00", "\ud800",
]  # fmt: skip

_ZONES = [None, UTC, timezone(timedelta(hours=14)), timezone(timedelta(hours=-12))]
_ZONES += [ZoneInfo("America/Sao_Paulo"), ZoneInfo("Pacific/Kiritimati")]


@examples(PHRASE_EXAMPLES)
@given(
    words=st.lists(st.sampled_from(_PHRASE_WORDS), max_size=10),
    now=st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30)),
    zone=st.sampled_from(_ZONES),
)
def test_time_phrases_never_raise_even_at_the_ends_of_the_calendar(
    words: list[str], now: datetime, zone: Any
) -> None:
    tally("query parsers")
    query = " ".join(words)
    found = extract_time_phrase(query, now=now.replace(tzinfo=zone))
    if found is not None:
        assert isinstance(found, TimePhrase)
        for bound in (found.since, found.until):
            assert bound is None or math.isfinite(bound)
        found.describe()


@pytest.mark.parametrize(
    "query",
    [
        "before 01/01/0001",
        "until 0001-01-01",
        "after 9999-12-31",
        "since 31.12.9999",
        "between 01/01/0001 and 9999-12-31",
        "9999 years ago",
        "last 9999 years",
        "in 0001",
    ],
)
def test_phrases_at_the_ends_of_the_calendar(query: str) -> None:
    tally("query parsers")
    for now in (datetime(2024, 5, 1), datetime(1, 1, 2), datetime(9999, 12, 30)):
        found = extract_time_phrase(query, now=now)
        assert found is None or isinstance(found, TimePhrase)


@pytest.mark.parametrize("query", [None, 42, b"last week", ["last week"]])
def test_time_phrases_in_a_non_text_query_are_none(query: Any) -> None:
    tally("query parsers")
    assert extract_time_phrase(query) is None


# -- whole searches ------------------------------------------------------------------


@pytest.fixture(scope="module")
def mx(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memex]:
    memex = fast_memex(tmp_path_factory.mktemp("queries-home"))
    memex.ingest(Path(__file__).parents[1] / "fixtures" / "chatgpt" / "conversations.json")
    yield memex
    memex.close()


queries = st.one_of(
    st.text(max_size=60),
    st.sampled_from(ODD_STRINGS),
    st.lists(
        st.sampled_from(
            [
                *_PHRASE_WORDS,
                "sqlite",
                "WAL",
                "AND",
                "OR",
                "NOT",
                "NEAR",
                "*",
                '"',
                "(",
                ")",
                ":",
                "-",
                "^",
                "role:user",
                "'; DROP TABLE fragments; --",
                "%",
                "_",
                "\\",
            ]
        ),
        max_size=12,
    ).map(" ".join),
    st.integers(min_value=1000, max_value=50_000).map(lambda n: "sqlite " * n),
)


@examples(SEARCH_EXAMPLES)
@given(
    query=queries,
    mode=st.sampled_from(["keyword", "semantic", "hybrid", "nonsense"]),
    limit=st.one_of(st.integers(min_value=-5, max_value=500), st.sampled_from([0, 10**9])),
    since=st.one_of(st.none(), st.sampled_from(["7d", "2024-01-01", "nonsense", "1e400"])),
)
def test_searches_answer_or_raise_memex_errors(
    mx: Memex, query: str, mode: str, limit: int, since: str | None
) -> None:
    tally("searches")
    _, before = mx.query("SELECT COUNT(*) FROM fragments")
    try:
        results = mx.search(query, mode=mode, limit=limit, since=since)
        hits, _ = mx.compact_search(query, limit=max(limit, 0), mode=mode)
    except MemexError:
        return
    assert len(results) <= max(limit, 0) or limit >= 10**9
    assert all(isinstance(h.id, str) for h in hits)
    assert mx.query("SELECT COUNT(*) FROM fragments")[1] == before


@pytest.mark.parametrize("fragment_id", ["", "\x00", "\ud800", "x" * 100_000, "' OR 1=1 --", "%"])
def test_reading_by_odd_ids_finds_nothing(mx: Memex, fragment_id: str) -> None:
    tally("searches")
    assert mx.get([fragment_id]) == []
    with pytest.raises(MemexError):
        mx.timeline(fragment_id)


def test_dates_before_the_epoch_and_after_9999_are_handled() -> None:
    tally("query parsers", 2)
    assert parse_time_bound(date(1, 1, 1)) == EARLIEST
    assert parse_time_bound(datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC)) <= LATEST
