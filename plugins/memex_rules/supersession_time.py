"""When a fact became true by its own words: "in 2019", "since May 2023", "two weeks ago".

``named_time("Alice lived in Rome in 2019", said_at)`` gives the start of 2019 (UTC);
a text that names no time gives ``None``. Only phrases that date a state are read: a year or
a month needs a word before it that makes it a time ("in", "since", "from", "back in"...), so
"Visual Studio 2019" or "Postgres 15" stay values, and a time later than ``said_at`` is a
plan's date ("the launch is on June 1"), not when the fact began, so it is left out too.

A phrase stands for the start of the period it names ("last year" is 1 January of last year,
"in May 2023" is 1 May 2023); "for 5 years" after "has lived" / "has been" counts back from
``said_at``. A season or a holiday of a year needs no word before it ("summer '19 we had
a Fiesta", "at Christmas 2021 I joined the Gym Group"), unless the word before makes it an
end ("till summer '21"). Pure Python and UTC throughout: it runs on every ``remember``.

:func:`without_times` removes the same phrases, so the fact's value ("Rome") reads alone.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from functools import lru_cache

from memex_rules.pattern_triggers import TriggerIndex
from memex_rules.rules_text import compile_pattern

_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            "january jan",
            "february feb",
            "march mar",
            "april apr",
            "may",
            "june jun",
            "july jul",
            "august aug",
            "september sept sep",
            "october oct",
            "november nov",
            "december dec",
        ),
        start=1,
    )
    for name in names.split()
}
#: Number words as counts ("two weeks ago", "two kids"); the supersession values share it.
NUMBER_WORDS = {
    word: number
    for number, words in enumerate(
        (
            "zero",
            "a an one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
        )
    )
    for word in words.split()
}
_COUNTS = {**NUMBER_WORDS, "a few": 3, "a couple of": 2, "a couple": 2, "several": 3}
_COUNTS |= {"fifteen": 15, "twenty": 20, "thirty": 30}
MONTH = r"(?:" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_COUNT = r"(?:\d+|" + "|".join(sorted(_COUNTS, key=len, reverse=True)) + r")"
_UNIT = r"(?:day|week|month|year|decade)s?"
_YEAR = r"(?:1[89]\d\d|20\d\d)"
_DAY = r"(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?"
#: Words that make a bare year or month a time ("in 2019", "since May").
_TIME_WORD = (
    r"(?:back\s+in|in|since|from|during|around|circa|as\s+of|starting(?:\s+in)?|"
    r"beginning(?:\s+in)?|of|on)"
)
#: The seasons and the holidays a year's time may be told by ("summer '19", "Xmas 2022").
SEASON = r"(?:summer|winter|spring|autumn|fall)"
SEASON_WORD = re.compile(rf"(?i)\b{SEASON}\b")
SEASON_MONTH = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}
#: A holiday, or a month-long challenge named for its month ("Veganuary 2021", "Movember").
HOLIDAY = (
    r"(?:new\s+year(?:'s)?|christmas|xmas|easter|veganuary|dry\s+january|movember|stoptober|"
    r"sober\s+october|black\s+friday|cyber\s+monday|thanksgiving)"
)
_PART = rf"(?:(?:early|late|mid-?|the\s+(?:{SEASON}|end|start|beginning|middle)\s+of|{SEASON})\s*)?"

#: A decade, with the part of it named: "the nineties", "the early 2000s", "the '80s".
DECADE = (
    r"(?P<dp>early|late|mid-?)?\s*'?(?P<dec>(?:19|20)?\d0'?s|sixties|seventies|eighties|"
    r"nineties|noughties)\b"
)
_DECADES = {"sixties": 1960, "seventies": 1970, "eighties": 1980, "nineties": 1990}
_DECADES["noughties"] = 2000
#: Where a part of a decade starts and ends, in years from its start ("the late 80s": 1986-1990).
_DECADE_PARTS = {"early": (0, 4), "mid": (3, 7), "late": (6, 10)}


def decade(match: re.Match[str]) -> tuple[date, date]:
    """The first day of the decade (or part of it) ``match`` (of :data:`DECADE`) names, and
    the first day after it."""
    return decade_span(match.group("dec"), match.group("dp"))


def decade_span(named: str, part: str | None = None) -> tuple[date, date]:
    """The first day of the decade ``named`` ("80s", "1990s", "eighties"), or of its
    ``part`` ("early", "mid", "late"), and the first day after it."""
    word = named.lower().replace("'", "")
    first = _DECADES.get(word)
    if first is None:
        digits = word.rstrip("s")
        first = (
            int(digits) if len(digits) == 4 else (1900 if int(digits) >= 30 else 2000) + int(digits)
        )
    start, end = _DECADE_PARTS.get((part or "").lower().rstrip("-"), (0, 10))
    return date(first + start, 1, 1), date(first + end, 1, 1)


def short_year(digits: str, today: date) -> int:
    """ "'19" said on ``today``: 2019, or 1999 when 2099 would be after it."""
    year = 2000 + int(digits)
    return year if year <= today.year else year - 100


def holiday_span(name: str, year: int) -> tuple[date, date]:
    """The span a holiday of ``year`` names: New Year's first month, Christmas's last,
    Easter's spring, Black Friday's November."""
    name = " ".join(name.lower().split())
    if name.startswith(("new", "veganuary", "dry")):
        return date(year, 1, 1), date(year, 2, 1)
    if name in ("stoptober", "sober october"):
        return date(year, 10, 1), date(year, 11, 1)
    if name in ("movember", "black friday", "cyber monday", "thanksgiving"):
        return date(year, 11, 1), date(year, 12, 1)
    if name == "easter":
        return date(year, 3, 1), date(year, 5, 1)
    return date(year, 12, 1), date(year + 1, 1, 1)


def season_span(name: str, year: int) -> tuple[date, date]:
    """The three months a season of ``year`` names: winter from its December on."""
    began = date(year, SEASON_MONTH[name.lower()], 1)
    total = began.year * 12 + began.month + 2  # three months on, as months since year 0
    return began, date(total // 12, total % 12 + 1, 1)


def named_year(full: str | None, short: str | None, today: date) -> int:
    """The year written in four digits (``full``), else short (``short``: "19" of "'19")."""
    return int(full) if full else short_year(short or "", today)


def last_season(today: date) -> tuple[date, date]:
    """ "Last season" said on ``today``: a year-long season (a league's, a summer's) that
    ended within the past year, read as the year centred a year back (18 to 6 months ago)."""
    return back(today, 18, "month"), back(today, 6, "month")


#: (pattern, reader) pairs, most specific first; each reader gives the date the phrase names.
_PHRASES = (
    ("iso", rf"\b(?:on\s+|since\s+|from\s+)?(?P<y>{_YEAR})-(?P<m>[01]\d)-(?P<d>[0-3]\d)\b"),
    (
        "day_month_year",
        rf"\b(?:{_TIME_WORD}\s+)?(?:the\s+)?(?P<d>{_DAY})\s+(?:of\s+)?(?P<m>{MONTH}),?\s+(?P<y>{_YEAR})\b",
    ),
    (
        "month_day_year",
        rf"\b(?:{_TIME_WORD}\s+)?(?P<m>{MONTH})\s+(?:the\s+)?(?P<d>{_DAY}),?\s+(?P<y>{_YEAR})\b",
    ),
    # a range of months of a year: "during lockdown (Jan-Mar 2021)" began in January
    (
        "month_range",
        rf"\b(?P<m>{MONTH})\s*(?:-|\u2013|to|till|until|through)\s*{MONTH},?\s+(?P<y>{_YEAR})\b",
    ),
    ("month_year", rf"\b(?:{_TIME_WORD}\s+)?{_PART}(?P<m>{MONTH}),?\s+(?:of\s+)?(?P<y>{_YEAR})\b"),
    ("day_month", rf"\b(?:{_TIME_WORD}\s+)(?:the\s+)?(?P<d>{_DAY})\s+(?:of\s+)?(?P<m>{MONTH})\b"),
    ("month_day", rf"\b(?:{_TIME_WORD}\s+)(?P<m>{MONTH})\s+(?:the\s+)?(?P<d>{_DAY})\b(?!:)"),
    # a season or a holiday of a year needs no word before it: "summer '19 we had a Fiesta",
    # "at Christmas 2021 I joined the Gym Group"
    (
        "season_year",
        rf"\b(?:the\s+)?(?P<s>{SEASON})\s+(?:of\s+)?(?:(?P<y>{_YEAR})|'(?P<yy>\d\d))\b(?!\s*-\s*\d)",
    ),
    ("holiday", rf"\b(?P<h>{HOLIDAY})\s+(?:(?P<y>{_YEAR})|'(?P<yy>\d\d))\b(?!\s*-\s*\d)"),
    ("year", rf"\b{_TIME_WORD}\s+{_PART}(?P<y>{_YEAR})\b(?!\s*-\s*\d)"),
    ("month", rf"\b(?:{_TIME_WORD})\s+{_PART}(?P<m>{MONTH})\b(?!\s+\d)"),
    ("until", rf"\b(?:until|till|through|to)\s+{_PART}(?:{MONTH}\s+)?(?:{_YEAR}|'\d\d)\b"),
    # a year opening the fact: "2019 I was on £48k at the agency"
    ("lead_year", rf"^\s*(?P<y>{_YEAR})\b(?!\s*[-/\u2013]\s*\d)(?=,?\s+[A-Za-z])"),
    # a year set off by commas: "In his first year at the company, 2020, Jonas ..."
    ("set_off", rf",\s*(?P<y>{_YEAR})\s*(?=,)"),
    # only after a word that makes it a time: "music from the eighties" is a kind of music
    ("decade", rf"\b(?:(?:back\s+)?in|during|throughout|(?:all\s+)?through)\s+the\s+{DECADE}"),
    ("ago", rf"\b(?P<n>{_COUNT})\s+(?P<u>{_UNIT})\s+ago\b"),
    ("for", rf"\bfor\s+(?:the\s+(?:last|past)\s+)?(?P<n>{_COUNT})\s+(?P<u>{_UNIT})\b"),
    ("last", r"\b(?:(?:since|from|in)\s+)?(?:last|the\s+previous)\s+(?P<u>week|month|year)\b"),
    ("before_last", r"\b(?:in\s+)?the\s+year\s+before\s+last\b"),
    ("short_year", r"\b(?:back\s+)?in\s+'(?P<yy>\d\d)\b(?!s)"),
    ("this", r"\b(?:earlier\s+)?this\s+(?P<u>year|month|week)\b"),
    ("season", r"\b(?:last|this\s+past)\s+(?P<s>summer|winter|spring|autumn|fall)\b"),
    ("last_season", r"\b(?:last|the\s+previous)\s+season\b"),
    ("yesterday", r"\byesterday\b"),
)
#: The words before a time that make it an end, not a start.
_ENDS_AT = compile_pattern(r"\b(?:until|till|til|through|to|before)\s+(?:the\s+)?$")
_COMPILED = tuple((name, compile_pattern(pattern)) for name, pattern in _PHRASES)
#: "for 5 years" dates a state only after a perfect tense: "has lived in Oslo for 5 years".
_PERFECT = compile_pattern(r"\b(?:has|have|had)\s+(?:been|lived|worked|used|studied|owned)\b")


def _count(text: str) -> int:
    text = " ".join(text.lower().split())
    return int(text) if text.isdigit() else _COUNTS.get(text, 1)


def back(day: date, count: int, unit: str) -> date:
    """``day`` less ``count`` units ("day", "weeks", "year", "decade")."""
    unit = unit.lower().rstrip("s")
    if unit == "day":
        return day - timedelta(days=count)
    if unit == "week":
        return day - timedelta(weeks=count)
    months = count * {"month": 1, "year": 12, "decade": 120}[unit]
    total = day.year * 12 + day.month - 1 - months
    year, month = divmod(total, 12)
    return date(year, month + 1, min(day.day, 28))


def _read(name: str, match: re.Match[str], today: date, text: str) -> date | None:
    groups = match.groupdict()
    if name in ("iso", "day_month_year", "month_day_year", "day_month", "month_day"):
        month = groups["m"].lower().rstrip(".")
        month_number = int(month) if month.isdigit() else _MONTHS[month]
        day = int(re.sub(r"\D", "", groups["d"]))
        year = int(groups["y"]) if groups.get("y") else today.year
        try:
            found = date(year, month_number, day)
        except ValueError:
            return None
        if not groups.get("y") and found > today and "since" in match.group(0).lower():
            found = found.replace(year=year - 1)
        if not groups.get("y") and _coming(match.group(0), found, today):
            return None  # "from 1 Jan" said in December: the coming one, a plan's start
        return found
    if name in ("month_year", "month_range") and _ENDS_AT.search(text[: match.start()]):
        return None  # "ran on MongoDB until March 2022": when it ended, not began
    if name in ("month_year", "month_range"):
        return date(int(groups["y"]), _MONTHS[groups["m"].lower().rstrip(".")], 1)
    if name == "before_last":
        return date(today.year - 2, 1, 1)
    if name == "short_year":
        return date(short_year(groups["yy"], today), 1, 1)
    if name in ("season_year", "holiday") and _ENDS_AT.search(text[: match.start()]):
        return None  # "on CircleCI till summer '21": when it ended, not began
    if name in ("season_year", "holiday"):
        year = named_year(groups.get("y"), groups.get("yy"), today)
        if name == "holiday":
            return holiday_span(groups["h"], year)[0]
        return season_span(groups["s"], year)[0]
    if name in ("set_off", "lead_year"):
        return date(int(groups["y"]), 1, 1)
    if name == "decade":
        return decade(match)[0]
    if name == "last_season":
        return last_season(today)[0]
    if name == "year":
        season = SEASON_WORD.search(match.group(0))
        month = SEASON_MONTH[season.group(0).lower()] if season else 1
        return date(int(groups["y"]), month, 1)
    if name == "month":
        found = date(today.year, _MONTHS[groups["m"].lower().rstrip(".")], 1)
        if found > today and re.match(r"(?i)since|back", match.group(0)):
            found = found.replace(year=today.year - 1)
        if _coming(match.group(0), found, today):
            return None  # "from Jan" said in December: the coming January, a plan's start
        return found
    if name == "ago":
        return back(today, _count(groups["n"]), groups["u"])
    if name == "for":
        return back(today, _count(groups["n"]), groups["u"]) if _PERFECT.search(text) else None
    if name == "last":
        unit = groups["u"].lower()
        if unit == "year":
            return date(today.year - 1, 1, 1)
        if unit == "month":
            return back(today.replace(day=1), 1, "month")
        return today - timedelta(days=today.weekday() + 7)
    if name == "this":
        unit = groups["u"].lower()
        if unit == "year":
            return date(today.year, 1, 1)
        if unit == "month":
            return today.replace(day=1)
        return today - timedelta(days=today.weekday())
    if name == "season":
        month = SEASON_MONTH[groups["s"].lower()]
        year = today.year if month < today.month else today.year - 1
        return date(year, month, 1)
    if name == "yesterday":
        return today - timedelta(days=1)
    return None


#: A start to come: "from Jan", "starting 1 March", "as of April" (not "since", not "back in").
_STARTING = compile_pattern(r"^(?:from|starting|beginning|as\s+of)\b")


def _coming(phrase: str, found: date, today: date) -> bool:
    """Whether a start named without its year ("from Jan" said on 20 December) is the coming
    one: read in this year it would lie more than half a year back."""
    return bool(_STARTING.match(phrase.strip())) and (today - found).days > 183


def _midnight(day: date) -> float:
    return datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp()


@lru_cache(maxsize=1)
def _index() -> TriggerIndex[tuple[str, re.Pattern[str]]]:
    return TriggerIndex(_COMPILED, [pattern for _name, pattern in _COMPILED])


#: An amount changed since a time ("down 7 since January", "up 2kg since March"): the time
#: dates the change measured, not the fact ("Weighed in at 85kg this morning, down 7 since
#: January" holds from this morning).
_MEASURED_SINCE = compile_pattern(
    r"\b((?:down|up|lost|gained|dropped|put\s+on)\s+(?:by\s+)?(?:another\s+)?[\d.,]+\s*"
    r"(?:[a-z%]+\s+)?)since\b"
)


def named_time(text: str, said_at: float) -> float | None:
    """The time ``text`` says its fact began, read against ``said_at``; None when it names none
    (or only a time after ``said_at``: a plan's date, not when the fact began)."""
    today = datetime.fromtimestamp(said_at, UTC).date()
    text = _MEASURED_SINCE.sub(r"\1by", text)
    for name, pattern in _index().candidates(text):  # the phrases with a word of theirs in it
        for match in pattern.finditer(text):
            found = _read(name, match, today, text)
            if found is None:
                continue
            when = _midnight(found)
            if when <= said_at:
                return when
    return None


_ADVERBS = compile_pattern(
    r"\b(?:recently|lately|nowadays|these\s+days|at\s+the\s+moment|currently|now|today|"
    r"anymore|any\s+more|again|so\s+far)\b"
)


@lru_cache(maxsize=8192)  # a clause's slots and its shape read the same text
def without_times(text: str) -> str:
    """``text`` without its time phrases and time adverbs ("in 2019", "now", "anymore")."""
    # a phrase taken out leaves a space, so the words left are pieces of the text's words: a
    # phrase that could not match the text can not match what is left of it either
    for _name, pattern in _index().candidates(text):
        text = pattern.sub(" ", text)
    return " ".join(_ADVERBS.sub(" ", text).split())


_RECENT = compile_pattern(r"(?<!since\s)(?<!from\s)\blast\s+(?P<u>week|month)\b")


def recent_period(text: str, said_at: float) -> tuple[float, float] | None:
    """Start and end of the recent period ``text`` dates itself by ("last week", "last
    month"; not "since last month"), or None. A change told that way ("Priya went keto last
    month") happened at some point of it, so it surely holds from the end: a fact said
    within that period (before the change) stays true until then."""
    match = _RECENT.search(text)
    if match is None:
        return None
    today = datetime.fromtimestamp(said_at, UTC).date()
    if match.group("u").lower() == "week":
        end = today - timedelta(days=today.weekday())
        return _midnight(end - timedelta(days=7)), _midnight(end)
    end = today.replace(day=1)
    return _midnight(back(end, 1, "month")), _midnight(end)
