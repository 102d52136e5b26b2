"""Read a time phrase in a search query ("last week", "in March", "since 3 May") as a range.

``extract_time_phrase("rust notes from last week")`` finds "last week", turns it
into ``since``/``until`` epoch seconds (local day boundaries, ``until``
exclusive) and hands back the query without it ("rust notes").

Small regexes here find the phrases and shape the ranges: relative ones
("yesterday", "last 3 days", "2 weeks ago") stand alone, calendar ones
("March", "2024", "3 March") only after a word that makes them a time ("in",
"on", "since", "before", "between ... and ..."), so "may I" or "march of
progress" stay plain text. Explicit dates ("3 March", "2024-03-03", "March 3rd,
2024") are read by dateparser, imported on first need: importing it takes about
0.1 s and its first English parse another 0.1 s (without ``languages=["en"]`` that
first parse loads every locale, about 1.7 s), and a query without a time word
never gets that far.

Not in :mod:`memex_core.domain` because it depends on a library.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, tzinfo
from functools import cache
from typing import Any

__all__ = ["TimePhrase", "extract_time_phrase"]


@dataclass(frozen=True)
class TimePhrase:
    """A time phrase found in a query and the range it stands for.

    ``since`` is inclusive and ``until`` exclusive, both epoch seconds at local
    midnight (the zone of the ``now`` the phrase was read against); either may be
    ``None`` ("since March" has no end). ``first_day``/``last_day`` are the same
    bounds as calendar days (``last_day`` inclusive), for display.
    """

    phrase: str
    query: str
    since: float | None
    until: float | None
    first_day: date | None = field(default=None, repr=False, compare=False)
    last_day: date | None = field(default=None, repr=False, compare=False)

    def describe(self) -> str:
        """Say how the phrase was read, e.g. ``'last week' read as 2026-11-09 to 2026-11-15``."""
        first, last = self.first_day, self.last_day
        if first is None and self.since is not None:
            first = datetime.fromtimestamp(self.since).date()
        if last is None and self.until is not None:
            last = datetime.fromtimestamp(self.until).date() - timedelta(days=1)
        if first is not None and last is not None:
            span = f"{first}" if first == last else f"{first} to {last}"
        elif first is not None:
            span = f"from {first} on"
        else:
            span = f"up to {last}"
        return f"{self.phrase!r} read as {span}"


#: A period: its first day and the day after its last.
_Period = tuple[date, date]
#: Resolves a pattern's match against (today, anchor) to a period, or None if it is not a date.
_Resolver = Callable[[re.Match[str], date, date], _Period | None]

# Written out rather than taken from `calendar`, whose names follow the locale.
_MONTH_NAMES = (
    "january february march april may june july august september october november december"
)
_WEEKDAY_NAMES = "monday tuesday wednesday thursday friday saturday sunday"
_NUMBER_NAMES = "one two three four five six seven eight nine ten eleven twelve"
_MONTHS = _MONTH_NAMES.split()
_MONTH_ABBREVIATIONS = {m[:3]: i for i, m in enumerate(_MONTHS, start=1)} | {"sept": 9}
_WEEKDAYS = _WEEKDAY_NAMES.split()
_NUMBER_WORDS = _NUMBER_NAMES.split()  # 1..12

# Building blocks (no capturing groups, so they can be combined freely).
_MONTH_FULL = "(?:" + "|".join(_MONTHS) + ")"
_MONTHS_BUT_MAY = "(?:" + "|".join(m for m in _MONTHS if m != "may") + ")"
# Full names first: alternation takes the first that fits, and "march" must beat "mar".
_MONTH_ANY = "(?:" + "|".join([*_MONTHS, *sorted(_MONTH_ABBREVIATIONS)]) + r")(?:\.(?!\w))?"
_WEEKDAY = "(?:" + "|".join(_WEEKDAYS) + ")"
# A year in a plausible range that is not part of a longer number ("2024.1", "2024-5")
# nor a count ("in 2000 lines", "in 2048 ms").
_YEAR = (
    r"(?:19[7-9][0-9]|20[0-9]{2})(?![0-9]|[-/.:,][0-9]|\s*%"
    r"|\s+(?:lines?|rows?|words?|chars?|characters?|tokens?|items?|bytes?|bits?|files?"
    r"|ms|s|px|kb|mb|gb|steps?|epochs?|iterations?|times|users?|records?|entries)\b)"
)
_DAY = r"[0-9]{1,2}(?:st|nd|rd|th)?(?![0-9])"
_COUNT = r"(?:[0-9]{1,4}|" + "|".join(_NUMBER_WORDS) + ")"
_UNIT = r"(?:day|week|month|year)s?"


def _strip_groups(pattern: str) -> str:
    return re.sub(r"\(\?P<\w+>", "(?:", pattern)


# -- date arithmetic ---------------------------------------------------------------


def _add_months(day: date, months: int) -> date:
    year, month0 = divmod(day.year * 12 + day.month - 1 + months, 12)
    last = calendar.monthrange(year, month0 + 1)[1]
    return date(year, month0 + 1, min(day.day, last))


def _month(year: int, month: int) -> _Period:
    first = date(year, month, 1)
    return first, _add_months(first, 1)


def _year(year: int) -> _Period:
    return date(year, 1, 1), date(year + 1, 1, 1)


def _week_start(day: date) -> date:
    return day - timedelta(days=day.weekday())  # weeks start on Monday


def _count(text: str) -> int:
    text = text.lower()
    if text in ("a", "an"):
        return 1
    if text in _NUMBER_WORDS:
        return _NUMBER_WORDS.index(text) + 1
    return int(text)


def _unit(text: str) -> str:
    return text.lower().rstrip("s")


def _month_number(text: str) -> int:
    text = text.lower().rstrip(".")
    return _MONTHS.index(text) + 1 if text in _MONTHS else _MONTH_ABBREVIATIONS[text[:4]]


# -- relative periods: these stand alone in a query --------------------------------


def _this_or_last(match: re.Match[str], today: date, _anchor: date) -> _Period:
    which, unit = match["which"].lower(), _unit(match["unit"])
    if which == "past":  # "past week": the 7 days up to today, not the calendar week
        return _rolling(1, unit, today)
    return _calendar_unit_back(0 if which in ("this", "current") else 1, unit, today)


def _calendar_unit_back(back: int, unit: str, today: date) -> _Period:
    """The calendar day, week (from Monday), month or year ``back`` units before today's."""
    if unit == "day":
        day = today - timedelta(days=back)
        return day, day + timedelta(days=1)
    if unit == "week":
        start = _week_start(today) - timedelta(weeks=back)
        return start, start + timedelta(weeks=1)
    if unit == "month":
        start = _add_months(today.replace(day=1), -back)
        return start, _add_months(start, 1)
    return _year(today.year - back)


def _rolling(count: int, unit: str, today: date) -> _Period:
    """The ``count`` units ending with today, today included ("last 7 days" = 7 days)."""
    end = today + timedelta(days=1)
    if unit == "day":
        return end - timedelta(days=count), end
    if unit == "week":
        return end - timedelta(weeks=count), end
    months = count if unit == "month" else 12 * count
    return _add_months(today, -months) + timedelta(days=1), end


def _last_n(match: re.Match[str], today: date, _anchor: date) -> _Period | None:
    count = _count(match["n"])
    return _rolling(count, _unit(match["unit"]), today) if count > 0 else None


def _ago(match: re.Match[str], today: date, _anchor: date) -> _Period:
    """The calendar day/week/month/year that was ``n`` units back ("2 weeks ago")."""
    return _calendar_unit_back(_count(match["n"]), _unit(match["unit"]), today)


def _days_back(days: int) -> _Resolver:
    def resolve(_match: re.Match[str], today: date, _anchor: date) -> _Period:
        day = today - timedelta(days=days)
        return day, day + timedelta(days=1)

    return resolve


def _last_month_name(match: re.Match[str], today: date, _anchor: date) -> _Period:
    """The most recent such month before this one ("last February" said in March 2026:
    February 2026; said in February 2026: February 2025). "in February" also counts the
    month under way; "last" never does."""
    month = _month_number(match["month"])
    return _month(today.year if month < today.month else today.year - 1, month)


def _last_weekday(match: re.Match[str], today: date, _anchor: date) -> _Period:
    wanted = _WEEKDAYS.index(match["weekday"].lower())
    day = today - timedelta(days=(today.weekday() - wanted) % 7 or 7)
    return day, day + timedelta(days=1)


# Longest forms first: inside a combined pattern the first alternative that fits wins.
_RELATIVE: list[tuple[str, _Resolver]] = [
    (r"(?:the\s+)?day\s+before\s+yesterday", _days_back(2)),
    (
        rf"(?:last|past|previous)\s+(?P<n>{_COUNT})\s+(?P<unit>{_UNIT})",
        _last_n,
    ),
    (rf"(?P<n>{_COUNT}|an?)\s+(?P<unit>{_UNIT})\s+ago", _ago),
    (
        r"(?P<which>this|current|last|previous|past)\s+(?P<unit>week|month|year)",
        _this_or_last,
    ),
    (rf"last\s+(?P<weekday>{_WEEKDAY})", _last_weekday),
    # "the last may be..." is no month: May only with its capital.
    (rf"(?:last|previous)\s+(?P<month>{_MONTHS_BUT_MAY}|(?-i:May))", _last_month_name),
    (r"today", _days_back(0)),
    (r"yesterday", _days_back(1)),
]


# -- calendar periods: only after "in", "on", "since", "between"... -------------------


def _explicit_date(match: re.Match[str], _today: date, anchor: date) -> _Period | None:
    day = _parse_date(match[0], anchor)
    return (day, day + timedelta(days=1)) if day is not None else None


def _month_of_year(match: re.Match[str], _today: date, _anchor: date) -> _Period:
    return _month(int(match["year"]), _month_number(match["month"]))


def _bare_month(match: re.Match[str], _today: date, anchor: date) -> _Period:
    """The most recent such month that has begun ("in December" said in November: last year's)."""
    month = _month_number(match["month"])
    return _month(anchor.year if month <= anchor.month else anchor.year - 1, month)


def _bare_year(match: re.Match[str], _today: date, _anchor: date) -> _Period:
    return _year(int(match["year"]))


def _weekday(match: re.Match[str], _today: date, anchor: date) -> _Period:
    """The most recent such weekday, today included ("since Monday" on a Monday: today)."""
    wanted = _WEEKDAYS.index(match["weekday"].lower())
    day = anchor - timedelta(days=(anchor.weekday() - wanted) % 7)
    return day, day + timedelta(days=1)


_CALENDAR: list[tuple[str, _Resolver]] = [
    (r"[0-9]{4}[-/.][0-9]{1,2}[-/.][0-9]{1,2}(?![0-9])", _explicit_date),
    (r"[0-9]{1,2}[-/.][0-9]{1,2}[-/.][0-9]{4}(?![0-9])", _explicit_date),
    (rf"(?:the\s+)?{_DAY}(?:\s+of)?\s+{_MONTH_ANY}(?:,?\s+{_YEAR})?", _explicit_date),
    (rf"{_MONTH_ANY}\s+(?:the\s+)?{_DAY}(?:,?\s+{_YEAR})?", _explicit_date),
    (rf"(?P<month>{_MONTH_ANY})(?:\s+of)?,?\s+(?P<year>{_YEAR})", _month_of_year),
    (rf"(?P<month>{_MONTH_FULL})", _bare_month),
    (rf"(?P<year>{_YEAR})", _bare_year),
    (rf"(?P<weekday>{_WEEKDAY})", _weekday),
]

_FLAGS = re.IGNORECASE
_ANY_RELATIVE = "|".join(_strip_groups(p) for p, _ in _RELATIVE)
_ANY_CALENDAR = "|".join(_strip_groups(p) for p, _ in _CALENDAR)
_ANY = f"{_ANY_CALENDAR}|{_ANY_RELATIVE}"


def _resolve(text: str, today: date, anchor: date | None = None) -> _Period | None:
    """Read one period expression; ``anchor`` (default today) places yearless dates and months."""
    for pattern, resolver in _compiled().periods:
        match = pattern.fullmatch(text)
        if match:
            try:
                return resolver(match, today, anchor or today)
            except (ValueError, OverflowError):  # "9999 years ago" runs off the calendar
                return None
    return None


# -- explicit dates, through dateparser ----------------------------------------------

_HAS_YEAR = re.compile(r"(?<![0-9])[0-9]{4}(?![0-9])")


def _parse_date(text: str, anchor: date) -> date | None:
    """Parse one explicit date; without a year, the most recent such day up to ``anchor``.

    dateparser parses strictly (day, month and year all present) when the text
    has a year; without one it must still find a day and a month, and
    PREFER_DATES_FROM=past picks the year.
    """
    import dateparser  # slow import (~0.1 s): only once a date needs reading

    text = re.sub(r"^the\s+", "", text.strip(), flags=re.IGNORECASE)
    iso = re.fullmatch(r"[0-9]{4}[-/.]([0-9]{1,2})[-/.]([0-9]{1,2})", text)
    settings: dict[str, Any] = {
        "PREFER_DATES_FROM": "past",
        "RELATIVE_BASE": datetime(anchor.year, anchor.month, anchor.day, 12),
        "RETURN_AS_TIMEZONE_AWARE": False,
    }
    if _HAS_YEAR.search(text):
        settings["STRICT_PARSING"] = True
        if iso:
            settings["DATE_ORDER"] = "YMD"
    else:
        settings["REQUIRE_PARTS"] = ["day", "month"]
    try:
        parsed = dateparser.parse(text, languages=["en"], settings=settings)
    except Exception:  # dateparser can fail on odd input; an unreadable date is no date
        return None
    if parsed is None:
        return None
    if iso and (parsed.month, parsed.day) != (int(iso[1]), int(iso[2])):
        return None  # dateparser reads 2024-13-01 as 13 January; in ISO order it is no date
    return parsed.date()


# -- finding the phrase in a query ---------------------------------------------------

_B, _E = r"(?<!\w)", r"(?!\w)"


@dataclass(frozen=True)
class _Patterns:
    periods: list[tuple[re.Pattern[str], _Resolver]]
    between: re.Pattern[str]  # between X and Y
    from_to: re.Pattern[str]  # from X to Y
    bound: re.Pattern[str]  # since X, before X...
    within: re.Pattern[str]  # in/on/during X (X a calendar period)
    bare: re.Pattern[str]  # a relative period on its own
    dangling: re.Pattern[str]  # words left hanging once a bare phrase is cut out


@cache
def _compiled() -> _Patterns:
    """Compile the phrase patterns once, on the first query with a time word (~30 ms)."""
    return _Patterns(
        periods=[(re.compile(p, _FLAGS), r) for p, r in (*_RELATIVE, *_CALENDAR)],
        between=re.compile(rf"{_B}between\s+(?P<a>{_ANY})\s+and\s+(?P<b>{_ANY}){_E}", _FLAGS),
        from_to=re.compile(
            rf"{_B}from\s+(?P<a>{_ANY})\s+(?:to|until|till|through|thru)\s+(?P<b>{_ANY}){_E}",
            _FLAGS,
        ),
        bound=re.compile(
            rf"{_B}(?P<op>since|after|before|until|till|prior\s+to)\s+(?P<p>{_ANY}){_E}", _FLAGS
        ),
        within=re.compile(
            rf"{_B}(?:in|during|on|from|throughout)\s+(?:the\s+(?:month\s+of|year)\s+)?"
            rf"(?P<p>{_ANY_CALENDAR}){_E}",
            _FLAGS,
        ),
        bare=re.compile(rf"{_B}(?:earlier\s+)?(?P<p>{_ANY_RELATIVE})(?:['\u2019]s)?{_E}", _FLAGS),
        # "notes from (the) [last 3 days]"
        dangling=re.compile(
            r"(?<!\w)(?:(?:from|in|on|during|over|within|for|of|throughout)\s+)?(?:the\s+)?$",
            _FLAGS,
        ),
    )


# Cheap gate: a query without any of these words has no time phrase we could read.
_TIME_WORD = re.compile(
    rf"{_B}(?:today|yesterday|{_UNIT}|ago|{_MONTH_FULL}|{'|'.join(_MONTH_ABBREVIATIONS)}"
    rf"|{_WEEKDAY}|[0-9]{{4}}|[0-9]{{1,2}}[-/.][0-9]{{1,2}}[-/.][0-9]{{4}}){_E}",
    _FLAGS,
)


@dataclass(frozen=True)
class _Candidate:
    start: int
    end: int
    phrase: str
    first: date | None
    end_day: date | None  # exclusive
    tidy_before: bool = False


def _candidates(query: str, today: date) -> list[_Candidate]:
    found: list[_Candidate] = []
    patterns = _compiled()

    def add(match: re.Match[str], first: date | None, end: date | None, tidy: bool = False) -> None:
        if first is not None and first > today:
            return  # wholly in the future: nothing can match, most likely not a date at all
        if first is not None and end is not None and first >= end:
            return
        start, stop = match.span("p") if tidy else match.span()
        found.append(_Candidate(match.start(), match.end(), query[start:stop], first, end, tidy))

    for pattern in (patterns.between, patterns.from_to):
        for match in pattern.finditer(query):
            later = _resolve(match["b"], today)
            if later is None:
                continue
            # "between 3 March and 5 May 2024": a yearless start is read up to the end.
            anchor = min(today, later[1] - timedelta(days=1))
            earlier = _resolve(match["a"], today, anchor)
            if earlier is not None:
                (a_first, a_end), (b_first, b_end) = earlier, later
                add(match, min(a_first, b_first), max(a_end, b_end))
    for match in patterns.bound.finditer(query):
        resolved = _resolve(match["p"], today)
        if resolved is None:
            continue
        (first, end), op = resolved, match["op"].lower()
        if op == "since":
            add(match, first, None)
        elif op == "after":
            add(match, end, None)
        elif op in ("until", "till"):
            add(match, None, end)
        else:  # before, prior to
            add(match, None, first)
    for pattern in (patterns.within, patterns.bare):
        for match in pattern.finditer(query):
            resolved = _resolve(match["p"], today)
            if resolved is not None:
                add(match, *resolved, tidy=pattern is patterns.bare)
    return found


def _without(query: str, candidate: _Candidate) -> str:
    """The query with the phrase cut out and the seams tidied."""
    left, right = query[: candidate.start], query[candidate.end :]
    if candidate.tidy_before:
        left = _compiled().dangling.sub("", left)
    text = re.sub(r"\s+", " ", f"{left} {right}")
    text = re.sub(r" ([,.;:!?])", r"\1", text)
    text = re.sub(r"([,;:])(?:[,;:])+", r"\1", text)
    return text.strip(" ,;:-")


def _midnight(day: date, zone: tzinfo | None) -> float:
    # A naive datetime's timestamp() uses the local zone's rules for that date (DST included).
    return datetime(day.year, day.month, day.day, tzinfo=zone).timestamp()


def extract_time_phrase(query: str, now: datetime | None = None) -> TimePhrase | None:
    """Find the first time phrase in ``query`` and read it; ``None`` when there is none.

    ``now`` (default: the current local time) fixes "today" and the zone whose
    midnights bound the range; a naive ``now`` is local time (with its summer
    time rules). An aware ``now`` with a fixed offset applies that offset to every
    date; give it a ``ZoneInfo`` for bounds that follow summer time. Never raises
    on any string.
    """
    if not isinstance(query, str) or not _TIME_WORD.search(query):
        return None
    now = now if now is not None else datetime.now()
    today = now.date()
    candidates = _candidates(query, today)
    if not candidates:
        return None
    # The earliest phrase wins; at the same place, the longest ("between X and Y" over "X").
    best = min(candidates, key=lambda c: (c.start, -(c.end - c.start)))
    zone = now.tzinfo
    try:
        since = _midnight(best.first, zone) if best.first is not None else None
        until = _midnight(best.end_day, zone) if best.end_day is not None else None
        last = best.end_day - timedelta(days=1) if best.end_day is not None else None
    except (ValueError, OverflowError):  # "before 01/01/0001" runs off the calendar
        return None
    return TimePhrase(best.phrase, _without(query, best), since, until, best.first, last)
