"""When a fact stopped holding by its own words: a closed past period.

``ended("Back in 2020 prod was still on Heroku", said_at)`` gives the end of 2020 when the
fact is told after 2020 ended: the fact says by its own words that it held in a period that
is over, so it is not current (it is still read by time: ``as_of`` inside 2020 finds it).
Read, in this order:

- a range: "from 2018 to 2021", "2018-2021", "2018-21", "between 2019 and 2021" -> the end
  of 2021;
- "until" / "till" / "through" a time: "until mid-2023", "till March" (past tense) -> then;
- "before" a time with a past tense: "Before 2022 our CI was on Travis" -> 1 January 2022
  (the start is unknown; ``valid_from`` keeps its own reading);
- a past *state* in a closed past period: "in 2020", "back in 2020", "in early 2022",
  "during 2023", "for most of 2021", "in the nineties", "last year" with "was", "were",
  "used to", "lived", "worked"... -> the end of that period; a holiday of a year ("at New
  Year 2022 I was 91 kg", "Xmas 2022", "Easter 2021") is a period too, and so is a season of
  a year ("summer '19 we had the old Fiesta": June to August 2019); a year may be written
  short ("till summer '21", "before '20").

Never: an open period ("since 2020", "from 2020"), a period not over when said ("in 2025"
said during 2025), a plan ("will", "going to"), a start or an event ("last year I started
running", "joined in 2021", "was born in 1990", "got married in 2019": still true, or a
memory of a moment rather than a state that ended), a present or perfect tense ("is",
"has been"). When unsure: no end. Pure Python and UTC, like :mod:`supersession_time`.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime

from memex_rules.rules_text import compile_pattern
from memex_rules.supersession_time import (
    _MONTHS,
    DECADE,
    HOLIDAY,
    MONTH,
    NUMBER_WORDS,
    SEASON,
    SEASON_WORD,
    back,
    decade,
    decade_span,
    holiday_span,
    last_season,
    named_year,
    season_span,
    short_year,
)

_YEAR = r"(?:1[89]\d\d|20\d\d)"
_PART = (
    r"(?:(?:the\s+)?(?:early|late|mid-?|end\s+of|start\s+of|beginning\s+of|middle\s+of|"
    r"summer\s+(?:of\s+)?|winter\s+(?:of\s+)?|spring\s+(?:of\s+)?|autumn\s+(?:of\s+)?|"
    r"fall\s+(?:of\s+)?|christmas|easter)\s*)?"
)
#: A time a period ends at: "mid-2023", "March 2021", "2020".
_WHEN = rf"{_PART}(?:(?P<m>{MONTH})\s+(?:of\s+)?)?(?:(?P<y>{_YEAR})|'(?P<wyy>\d\d))\b"
_RANGE = compile_pattern(
    rf"\b(?:(?P<between>between\s+)|(?P<inand>in\s+)|from\s+)?(?:about\s+|around\s+|roughly\s+)?"
    rf"(?:(?P<ma>{MONTH})\s+)?(?P<a>{_YEAR})\s*(?:-|\u2013|\u2014|to|until|till|through|(?P<and>and))\s*"
    rf"(?:(?:(?P<m>{MONTH})\s+)?(?P<y>{_YEAR})|(?P<yy>\d\d))\b(?!-\d)"
)
_UNTIL = compile_pattern(
    rf"(?<!not\s)\b(?:until|till|til|through|up\s+(?:to|until|till))\s+"
    rf"(?:(?P<part>{_PART}){_WHEN.removeprefix(_PART)}"
    rf"|(?P<bare>{MONTH})\b(?!\s+\d)|(?P<last>last\s+(?:year|month))|(?P<recent>recently|lately))"
)
_BEFORE = compile_pattern(rf"\bbefore\s+(?P<part>{_PART}){_WHEN.removeprefix(_PART)}")
#: A decade in brackets: the groups of :data:`DECADE` renamed, as one pattern holds both.
_BRACKET_DECADE = DECADE.replace("(?P<dp>", "(?P<bdp>").replace("(?P<dec>", "(?P<bdec>")
#: A closed period a past state is told in ("in 2020", "for most of 2021", "last year").
_PERIOD = compile_pattern(
    r"\b(?:(?:back\s+)?in|during|throughout|(?:all\s+)?through|around|circa|"
    r"for\s+(?:most|much|all|part)\s+of)\s+"
    rf"(?:{_PART}(?:(?P<m>{MONTH})\s+(?:of\s+)?)?(?P<y>{_YEAR})\b(?!\s*-\s*\d)"
    rf"|the\s+(?P<decade>{DECADE}))"
    rf"|\(\s*(?:the\s+)?{_BRACKET_DECADE}\s*\)"  # "as a kid (80s) Caroline had a pony"
    r"|\b(?P<last>last\s+(?:year|month))\b|\b(?P<season>(?:last|the\s+previous)\s+season)\b"
    rf"|,\s*(?P<set>{_YEAR})\s*(?=,)|\b(?:back\s+)?in\s+'(?P<yy>\d\d)\b(?!s)"
    # a year set in brackets, roughly or at the end: "originally (2019) billing was ...",
    # "used to row at uni, 2012-ish", "first home was Blogspot, 2009", "when he was 6, so 2018"
    rf"|\(\s*(?:in\s+|c\.\s*|circa\s+|around\s+)?(?P<paren>{_YEAR})\s*\)"
    rf"|\b(?P<ish>{_YEAR})-?ish\b"
    # a year opening the fact: "2019 I was on £48k at the agency"
    rf"|^\s*(?P<lead>{_YEAR})\b(?!\s*[-/\u2013]\s*\d)(?=,?\s+[A-Za-z])"
    # a year naming a thing of that year: "the 2019 price list", "my 2021 summer internship"
    # (not a model: "The 2019 MacBook Pro was a lemon")
    rf"|\b(?:the|my|our|his|her|their)\s+(?P<ymod>{_YEAR})\s+(?=(?-i:[a-z]))"
    rf"|,\s*(?:so\s+|around\s+|about\s+|circa\s+|c\.\s*|roughly\s+)?(?P<tail>{_YEAR})[\s.!)]*$"
    rf"|\bspent\s+(?:{_PART})?(?P<spent>{_YEAR})\b"
    rf"|\b(?:(?:back\s+)?in\s+)?(?P<q>Q[1-4])\s+(?:of\s+)?(?P<qy>{_YEAR})\b"
    r"|\b(?P<before_last>the\s+year\s+before\s+last)\b"
    # a holiday of a year: "at New Year 2022 I was 91 kg", "Xmas 2022 I was ..."
    rf"|\b(?P<holiday>{HOLIDAY})\s+(?:(?P<hy>{_YEAR})|'(?P<hyy>\d\d))\b"
    # a season of a year with no word before it: "summer '19 we had the old Fiesta"
    rf"|\b(?P<sseason>{SEASON})\s+(?:of\s+)?(?:(?P<sy>{_YEAR})|'(?P<syy>\d\d))\b(?!\s*-\s*\d)"
    r"|\b(?P<n>\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|twelve)\s+"
    r"(?P<u>day|week|month|year)s?\s+ago\b"
)
#: The groups of :data:`_PERIOD` that name a year alone, the whole year the period.
_YEAR_GROUPS = ("set", "paren", "ish", "tail", "spent", "ymod", "lead")
#: What "had" names that is an event, not a state held ("had a baby", "had surgery").
_HAD_EVENT = (
    r"(?:(?:a|an|the|my|our|his|her|their|some|twins|two|three)\s+)?(?:[\w-]+\s+)?"
    r"(?:baby|babies|son|daughter|child|kids?|twins|surgery|operation|accident|crash|fall|"
    r"stroke|heart\s+attack|covid|flu|cold|party|wedding|funeral|lunch|dinner|breakfast|"
    r"meal|meeting|call|chat|talk|word|fight|argument|row|go|look|break|holiday|trip|"
    r"visit|interview|idea|dream|chance|outage|incident|launch|birthday|scare|miscarriage)\b"
)
#: Words that say a past *state* (not an event): "was on Heroku", "used to be", "lived".
_PAST_STATE = compile_pattern(
    r"\b(?:(?P<be>was|were)(?:\s+(?:still|just|only|all|both|always|mostly))?\s+(?P<next>[$\u00a3\u20ac]?[\w'-]+)"
    rf"|had\s+(?:been\b|(?!to\b|[\w'-]+ed\b|{_HAD_EVENT}))"
    r"|used\s+to|lived|worked|kept|stayed|owned|rented|earned|led|managed|reported|banked|"
    r"tracked|weighed|studied|captained|coached|chaired|hosted|belonged|attended|taught|"
    r"dated|preferred|relied|used|drove\s+(?:a|an|the|my|his|her|their|our)|"
    r"came\s+from|covered|supplied|handled|"
    r"volunteered|ran\s+[\w.-]+(?:\s+[\w.-]+)?\s+(?:v?\d+|on)|"
    rf"spent\s+(?:{_PART})?{_YEAR})\b"
)
#: Participles after "was"/"were" that still say a state ("was priced at", "were based in").
_STATE_PARTICIPLES = frozenset(
    [
        "based",
        "located",
        "hosted",
        "owned",
        "priced",
        "coached",
        "managed",
        "run",
        "led",
        "kept",
        "stored",
        "employed",
        "paid",
        "called",
        "stationed",
        "housed",
        "registered",
        "deployed",
    ]
)
#: A start or an event: what began then may still hold ("started running", "joined").
_START = compile_pattern(
    r"\b(?:started|starting|began|begun|joined|moved|became|got|switched|adopted|bought|"
    r"took\s+up|picked\s+up|founded|launched|opened|signed|enrolled|hired|married|graduated|"
    r"born|converted|learned|learnt|met|retired|quit|left|finished|completed|won|visited|"
    r"introduced|created|built|released|established|promoted|appointed|elected|diagnosed|"
    r"sold|changed|migrated|upgraded|replaced|renamed)\b"
)
#: A clause that only dates the state by a start: "when Jonas joined in 2021 he reported...".
_WHEN_CLAUSE = compile_pattern(r"\b(?:when|after|once)\s+(?:[\w'-]+\s+){0,4}$")
_PRESENT = compile_pattern(
    r"\b(?:is|are|am|has|have|now|currently|nowadays|these\s+days|today|anymore)\b|'(?:s\s+been|re|m|ve)\b"
)
_FUTURE = compile_pattern(
    r"\b(?:will|shall|(?<!was\s)(?<!were\s)going\s+to|plans?\s+to|planning|next|scheduled|due|"
    r"until\s+further)\b|'ll\b"
)
_PASSIVE_EVENT = re.compile(r"(?:ed|en)$")
#: Every reading needs one of these: most facts have none and are read no further.
_ANY_TIME = compile_pattern(
    rf"{_YEAR}|\blast\s+(?:year|month|season)\b|\b(?:until|till|til|through)\b|\bago\b|'\d\d\b|"
    r"\bbefore\s+last\b|"
    r"(?:\bthe\s+|\(\s*(?:the\s+)?)(?:early\s+|late\s+|mid-?\s*)?'?(?:\d0'?s|(?:19|20)\d0s|"
    r"[a-z]+ties)\b|\bprevious\s+season\b"
)
_OPEN = compile_pattern(r"\bsince\b")
#: Where one clause ends and the next begins.
_CLAUSE_BREAK = re.compile(r"[,;:\u2014\u2013]|\s-\s|\bthen\b")
#: "that year", "that whole year": the one year the fact names.
_THAT_YEAR = compile_pattern(r"\bthat\s+(?:whole\s+|entire\s+)?year\b")
_A_YEAR = re.compile(rf"\b{_YEAR}\b")


def _midnight(day: date) -> float:
    return datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp()


def _next_month(year: int, month: int) -> date:
    return date(year + month // 12, month % 12 + 1, 1)


def _month(name: str) -> int:
    return _MONTHS[name.lower().rstrip(".")]


def _period_end(year: int, month: str | None) -> date:
    """The day after the period "<month> <year>" or "<year>" ends."""
    return _next_month(year, _month(month)) if month else date(year + 1, 1, 1)


def _point(part: str, year: int, month: str | None) -> date:
    """The time "until <part> <month> <year>" names: "mid-2023" is 1 July 2023, "early
    2022" 1 May 2022, "March 2021" the end of March, "2020" the end of 2020."""
    part = " ".join(part.lower().split())
    if month:
        return _period_end(year, month)
    if part.startswith(("mid", "the mid", "middle", "the middle", "summer", "the summer")):
        return date(year, 7, 1)
    if part.startswith(("early", "the early", "start", "the start", "beginning", "the begin")):
        return date(year, 5, 1)
    if part.startswith(("spring", "the spring", "easter")):
        return date(year, 6, 1)
    return date(year + 1, 1, 1)


def _last(which: str, today: date) -> date:
    """The end of "last year" / "last month" said on ``today``."""
    if which.lower().split()[-1] == "year":
        return date(today.year, 1, 1)
    return today.replace(day=1)


def _past_state(text: str) -> bool:
    """Whether ``text`` tells a past state: a past-tense state verb, not an event's passive
    ("was born", "were founded"), and no start or change outside a "when ..." clause, but
    for one in a clause after the state's, which tells what ended it ("the 2020 paper
    supplier was Paperlinx, we switched after covid", "Q1 2023 I reported to Dan, then he
    left")."""
    state = next((match for match in _PAST_STATE.finditer(text) if _a_state(match)), None)
    if state is None:
        return False
    for match in _START.finditer(text):
        if _WHEN_CLAUSE.search(text[: match.start()]):
            continue
        if match.start() > state.end() and _CLAUSE_BREAK.search(text, state.end(), match.start()):
            continue
        return False
    return True


def _a_state(match: re.Match[str]) -> bool:
    """Whether a match of :data:`_PAST_STATE` says a state, not an event's passive."""
    after = match.group("next") or ""
    if not match.group("be") or after[:1].isupper() or not _PASSIVE_EVENT.search(after):
        return True
    return after.lower() in _STATE_PARTICIPLES


def _until(text: str, today: date) -> date | None:
    match = _UNTIL.search(text)
    if match is None or re.search(r"(?i)\b(?:not|never)\b|n't\b", text[: match.start()]):
        return None
    if match.group("y") or match.group("wyy"):
        year = _year(match, "y", "wyy", today)
        return _point(match.group("part") or "", year, match.group("m"))
    if not _past_state(text) and not re.search(r"(?i)\b(?:was|were|had)\b", text):
        return None  # "I'm in Lisbon till March": a plan, not a time it stopped
    if match.group("last"):
        return _last(match.group("last"), today)
    if match.group("recent"):
        return today
    found = _next_month(today.year, _month(match.group("bare")))
    return found if found <= today else _next_month(today.year - 1, _month(match.group("bare")))


def _before(text: str, today: date) -> date | None:
    match = _BEFORE.search(text)
    if match is None or not _past_state(text):
        return None
    part = " ".join((match.group("part") or "").lower().split())
    year, month = _year(match, "y", "wyy", today), match.group("m")
    if month:
        return date(year, _month(month), 1)
    return date(year, 7, 1) if part.startswith(("mid", "the mid")) else date(year, 1, 1)


def _in_period(text: str, today: date) -> tuple[date, date] | None:
    """The start and end of the closed period a past state is told in (the latest if more)."""
    if not _past_state(text) or _PRESENT.search(text):
        return None
    spans = []
    for match in _PERIOD.finditer(text):
        if match.group("last"):
            end = _last(match.group("last"), today)
            a_year = match.group("last").lower().endswith("year")
            spans.append(
                (date(end.year - 1, 1, 1) if a_year else _next_month(end.year, end.month - 2), end)
            )
        elif match.group("decade"):
            spans.append(decade(match))
        elif match.group("bdec"):
            spans.append(decade_span(match.group("bdec"), match.group("bdp")))
        elif match.group("q"):
            year, first = int(match.group("qy")), 3 * int(match.group("q")[1]) - 2
            spans.append((date(year, first, 1), _next_month(year, first + 2)))
        elif match.group("season"):
            spans.append(last_season(today))
        elif year_named := next((match.group(g) for g in _YEAR_GROUPS if match.group(g)), None):
            year = int(year_named)
            spans.append((date(year, 1, 1), date(year + 1, 1, 1)))
        elif match.group("yy"):
            year = short_year(match.group("yy"), today)
            spans.append((date(year, 1, 1), date(year + 1, 1, 1)))
        elif match.group("holiday"):
            spans.append(holiday_span(match.group("holiday"), _year(match, "hy", "hyy", today)))
        elif match.group("sseason"):
            spans.append(season_span(match.group("sseason"), _year(match, "sy", "syy", today)))
        elif match.group("before_last"):
            spans.append((date(today.year - 2, 1, 1), date(today.year - 1, 1, 1)))
        elif match.group("u"):
            spans.append(_ago(match.group("n"), match.group("u"), today))
        else:
            year, month = int(match.group("y")), match.group("m")
            season = SEASON_WORD.search(match.group(0))
            if season and not month:  # "in winter 2021/22": December to February
                spans.append(season_span(season.group(0), year))
                continue
            began = date(year, _month(month), 1) if month else date(year, 1, 1)
            spans.append((began, _period_end(year, month)))
    years = set(_A_YEAR.findall(text))
    if not spans and len(years) == 1 and _THAT_YEAR.search(text):
        year = int(years.pop())  # "my 2019 P60: was on 31k that year"
        spans.append((date(year, 1, 1), date(year + 1, 1, 1)))
    return max(spans, key=lambda span: span[1]) if spans else None


def _two_years_running(match: re.Match[str]) -> bool:
    """ "in 2021 and 2022": two years running told as one period (not "2019 and 2021")."""
    return bool(match.group("inand")) and _range_end(match) == int(match.group("a")) + 1


def _range_end(match: re.Match[str]) -> int:
    """The year a range ends in: "2016-17" ends in 2017 (its start's century)."""
    short = match.group("yy")
    return int(match.group("a")[:2] + short if short else match.group("y"))


def _year(match: re.Match[str], full: str, short: str, today: date) -> int:
    """The year of a match's four-digit group ``full``, or of its "'19" group ``short``."""
    return named_year(match.group(full), match.group(short), today)


def _ago(count: str, unit: str, today: date) -> tuple[date, date]:
    """ "Two years ago" said on ``today``: the unit that many back, as a period (a state
    told in the past tense of "a year ago" held then, and was over a unit later)."""
    number = int(count) if count.isdigit() else NUMBER_WORDS.get(count.lower(), 1)
    return back(today, number, unit), back(today, number - 1, unit)


def period(text: str, said_at: float) -> tuple[float | None, float] | None:
    """When the closed past period ``text`` tells its fact in began (None when its words
    do not say: "until mid-2023", "before 2022") and ended; None when the text names no
    closed past period, or one not over at ``said_at`` (see the module doc)."""
    if not _ANY_TIME.search(text) or _FUTURE.search(text) or _OPEN.search(text):
        return None
    today = datetime.fromtimestamp(said_at, UTC).date()
    match = next(
        (
            m
            for m in _RANGE.finditer(text)
            if (
                bool(m.group("and")) == bool(m.group("between"))
                or (bool(m.group("and")) and _two_years_running(m))
            )
            and int(m.group("a")) <= _range_end(m)
        ),
        None,
    )
    began: date | None = None
    if match is not None:
        first = match.group("ma")
        began = date(int(match.group("a")), _month(first) if first else 1, 1)
        end_year = _range_end(match)
        end: date | None = _period_end(end_year, match.group("m"))
        ends_this_year = end is not None and end > today and end_year == today.year
        if ends_this_year and _past_state(text) and not _PRESENT.search(text):
            end = today  # "Maya was at Greenfield Primary 2019-2024", said in 2024: over
    else:
        end = _until(text, today) or _before(text, today)
        if end is None and (span := _in_period(text, today)) is not None:
            began, end = span
    if end is None or _midnight(end) > said_at:
        return None
    return (None if began is None else _midnight(began)), _midnight(end)


def ended(text: str, said_at: float) -> float | None:
    """When ``text`` says its fact stopped holding (see the module doc), or None: no closed
    past period, or one not over at ``said_at``."""
    found = period(text, said_at)
    return None if found is None else found[1]
