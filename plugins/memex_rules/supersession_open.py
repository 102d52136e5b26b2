"""Open attributes: what a fact sets when no attribute of the table reads it.

The table (:mod:`memex_rules.supersession_table`) knows a few dozen attributes by name. Real
facts have hundreds of kinds (a payment provider, the rent, a bedtime, the on-call person, a
sprint's length), so a fact the table cannot read is read here by its *shape*, without a list
of attributes:

- a possessed or definite noun and a copula: "My mobile is ...", "Priya's dentist is Dr Ng",
  "The rent is £1,350", "Our payment provider is Stripe", "Standup is at 9:45"; or a label:
  "Rent: £1,350", "Standup -> 9:45";
- a verb frame: "Dan reports to Priya", "The API runs on Fly.io", "We bank with Monzo";
- a change that names the new value and often the old: "We switched the CI from Jenkins to
  Buildkite", "replaced Jenkins with Buildkite", "swapped Jira for Linear", "upgraded the
  cluster to 1.29", "The rent went up to £1,400", "changed her number to ...", "Dan took over
  on-call from Priya".

Each reading is a :class:`~memex_rules.supersession_values.Slot` whose ``kind`` names the
type of its value (money, time, date, version, quantity, name, place, word). Two open slots
meet when they have the same subject, the same attribute and the same kind of value, so
"My bike is blue" never closes "My bike is a Brompton". A slot is single-valued only when its frame
is (a copula on a possessed noun that is not a relative, a friend or a pet; "reports to";
"runs on"); other frames close only on a change word or when the new fact names the old value.
"""

from __future__ import annotations

import re
from functools import lru_cache

from memex_rules.rules_text import compile_pattern, squash
from memex_rules.supersession_open_changes import _changes
from memex_rules.supersession_open_values import (
    _ADV,
    _ATTRIBUTE_WORD,
    _NAMED_VERSION,
    _STATE_START,
    _SUBJECT,
    _owner,
    _value,
    attribute_of,
    many_valued,
    value_kind,
)
from memex_rules.supersession_values import (
    JOB,
    NEG,
    Slot,
    normalise_subject,
    tidy_date,
    tidy_value,
)

# --- the readings ------------------------------------------------------------------------------

_OWNER = (
    r"(?P<own>user's|our|the|this|their|his|her|(?-i:[A-Z])[\w.-]*(?:\s+(?:and\s+)?(?-i:[A-Z])[\w-]*)?"
    r"'s|(?-i:[A-Z])[\w-]+s')"
)
_COPULA = compile_pattern(
    rf"^{_OWNER}\s+(?P<a>{_ATTRIBUTE_WORD}(?:\s+{_ATTRIBUTE_WORD}){{0,3}}?)\s+"
    rf"(?P<adv>{_ADV})(?:is|are|has\s+become|became|will\s+be|=)\s+(?P<adv2>{_ADV})(?P<v>.+)$"
)
#: "Standup is at 9:45": a bare noun needs a value of a clear type.
_BARE = compile_pattern(
    rf"^(?P<a>(?-i:[A-Z])[a-z][\w-]*(?:\s+(?!(?:and|or|but|with|to|of|in|at|on|for)\b)[a-z]"
    rf"[\w-]*(?<!ed)){{0,3}}?)\s+(?P<adv>{_ADV})(?:is|are)\s+"
    rf"(?P<adv2>{_ADV})(?P<v>.+)$"
)
#: Verb frames that hold one value at a time, with the attribute each sets.
_SINGLE_FRAMES = {
    "reports to": "reports to",
    "runs on": "runs on",
    "is running on": "runs on",
    "is hosted on": "hosted on",
    "is hosted at": "hosted on",
    "is hosted with": "hosted on",
    "is hosted by": "hosted on",
    "is deployed on": "hosted on",
    "is deployed to": "hosted on",
    "lives on": "hosted on",
    "is written in": "written in",
    "is built with": "built with",
    "is built on": "built with",
    "is managed by": "managed by",
    "is led by": "managed by",
    "is run by": "managed by",
    "is owned by": "managed by",
    "banks with": "banks with",
    "is insured with": "insured with",
    "is insured by": "insured with",
    "goes to bed at": "bedtime",
    "wakes up at": "wake time",
    "gets up at": "wake time",
    "starts at": "start time",
    "begins at": "start time",
    "ends at": "end time",
    "finishes at": "end time",
    "costs": "price",
    "is priced at": "price",
    "charges": "price",
    "weighs": "weight",
    "weighed in at": "weight",
    "plays for": "team",
    "is signed to": "team",
    "is signed with": "team",
    "goes off at": "when",
    "leaves at": "when",
    "opens at": "when",
    "closes at": "when",
    "earns": "pay",
    "is paid": "pay",
    "sees": "sees",
    "is on call": "on call",
}
_FRAME = compile_pattern(
    rf"^{_SUBJECT}\s+(?P<adv>{_ADV})(?P<f>"
    + "|".join(re.escape(f).replace(r"\ ", r"\s+") for f in sorted(_SINGLE_FRAMES, key=len)[::-1])
    + rf")\s+(?P<adv2>{_ADV})(?P<v>.+)$"
)
#: "We are on the Business plan", "The cluster is on 1.29": "on" a version, plan or tier.
_ON = compile_pattern(
    rf"^{_SUBJECT}\s+(?P<adv>{_ADV})(?:is|are)\s+(?P<adv2>{_ADV})(?:on|using)\s+(?P<v>.+)$"
)
_ON_NOUN = compile_pattern(
    r"^(?:the\s+|a\s+|an\s+)?(?P<q>.+?)\s+(?P<n>plan|tier|version|release|package|"
    r"subscription|contract|license|licence|shift|rota|diet|schedule|track|team|level|band)$"
)
#: "Kwame has been in Toronto since February": somewhere for a while, so living there.
_BEEN_IN = compile_pattern(
    rf"^{_SUBJECT}\s+(?P<adv>{_ADV})(?:has|have)\s+been\s+(?:living\s+|based\s+|staying\s+)?"
    r"in\s+(?P<v>(?-i:[A-Z])[\w.-]*(?:\s+(?-i:[A-Z])[\w.-]*){0,2})\s+(?:since|for)\b"
)

#: "Zed is my daily driver now", "Arc is the default now": a name set as the attribute.
_NAMED_AS = compile_pattern(
    rf"^(?P<v>(?-i:[A-Z])[\w.+-]*(?:\s+(?-i:[A-Z0-9])[\w.+-]*){{0,2}})\s+(?P<adv>{_ADV})(?:is|are)\s+"
    rf"(?P<adv2>{_ADV})(?P<own>user's|my|our|the)\s+(?P<a>[a-z][\w-]*(?:\s+[a-z][\w-]*){{0,2}})$"
)

_PLACE_VALUE = compile_pattern(r"^(?:in|at)\s+(?P<v>(?-i:[A-Z]).+)$")
_PREP_VALUE = compile_pattern(r"^(?:at|on|for|in|from|every|by)\s+(?P<v>.+)$")


def _copula(subject: str, attribute: str, raw: str, positive: bool, change: bool) -> list[Slot]:
    place = _PLACE_VALUE.match(raw)
    if place:
        attribute, raw = f"{attribute} place", place.group("v")
    elif _PREP_VALUE.match(raw):
        inner = _PREP_VALUE.match(raw)
        assert inner is not None
        if value_kind(inner.group("v")) not in ("time", "date", "money"):
            return []
        raw = inner.group("v")
    value, kind = _value(raw)
    if not value or not kind:
        return []
    if kind in ("date", "time"):
        if subject == "we" and not place:  # "Standup is at 9:30": the table's date of a thing
            return [Slot(attribute, "date", value, positive=positive, change=change)]
        kind = "when"
    many = many_valued(attribute)
    if many and kind == "word":
        return []
    return [
        Slot(
            subject, attribute, value, single=not many, positive=positive, change=change,
            kind=kind if not place else "place",
        )
    ]  # fmt: skip


_DANGLING = compile_pattern(r"\s+(?:as\s+of|from|since|until|till|by|starting|effective)$")


_ASKED_START = r"^(?:(?:actually|please|just|and|so|from\s+now\s+on|going\s+forward|now),?\s+)*"
_ASKED_END = r",?(?:\s+(?:please|from\s+now\s+on|now|going\s+forward|instead))*\W*$"
#: What the user asks of the assistant: the language of its replies, the name to call them.
_ASKED = (
    (
        "reply language",
        compile_pattern(
            rf"{_ASKED_START}(?:reply|respond|answer|write|talk|speak)\s+(?:back\s+)?(?:to\s+)?"
            rf"(?:me\s+)?in\s+(?P<v>(?-i:[A-Z])[a-z]+){_ASKED_END}"
        ),
    ),
    (
        "called",
        compile_pattern(
            rf"{_ASKED_START}(?:call\s+me|(?:i|user)\s+(?:now\s+)?(?:go|goes)\s+by)\s+"
            rf"(?P<v>(?-i:[A-Z])[a-z]+){_ASKED_END}"
        ),
    ),
)


def _asked(prepared: str, change: bool) -> list[Slot]:
    """ "Reply to me in English" / "answer me in German"; "Call me Daniel" / "I go by Dan"."""
    for attribute, pattern in _ASKED:
        match = pattern.match(prepared)
        if match and value_kind(match.group("v")) == "name":
            value = match.group("v").lower()
            return [Slot("user", attribute, value, change=change, kind="name")]
    return []


@lru_cache(maxsize=8192)  # a clause's slots and its shape read the same clause
def read_open(prepared: str, plain: str, change: bool) -> tuple[Slot, ...]:
    """The open slots of one clause: ``prepared`` as :func:`~memex_rules.supersession_slots.
    prepare` gives it, ``plain`` the same without its time phrases; ``change`` when the
    clause has a change word."""
    plain = _DANGLING.sub("", plain)  # "as of" left by a time phrase taken out
    found = (
        _changes(prepared, change) or _asked(prepared, change) or _states(plain, prepared, change)
    )
    return tuple(found)


def _positive(*adverbs: str | None) -> bool:
    return not any(NEG in (adv or "").split() for adv in adverbs)


def _states(plain: str, prepared: str, change: bool) -> list[Slot]:
    been = _BEEN_IN.match(prepared)
    if been:
        subject = normalise_subject(been.group("s"))
        value = tidy_value(been.group("v"))
        if subject and value:
            return [Slot(subject, "lives in", value, change=True)]
    scheduled = _scheduled(prepared, change)  # its date is a time phrase: read before cut
    if scheduled:
        return scheduled
    for read in (_count, _lasting, _titled, _named_as, _copula_of, _frame, _on, _bare):
        found = read(plain, change)
        if found:
            return found
    return []


_COUNT = compile_pattern(
    rf"^{_SUBJECT}\s+(?P<adv>{_ADV})(?P<verb>has(?:\s+got)?|have(?:\s+got)?|is\s+(?:up|down)\s+to|"
    r"is\s+at|hit|has\s+hit|reached|has\s+reached|passed|crossed|got\s+to|is\s+on)\s+"
    r"(?P<n>\d[\d,.]*k?|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+"
    r"(?:[\w-]+\s+)?(?P<u>[a-z]{3,}s)$"
)


def _count(plain: str, change: bool) -> list[Slot]:
    """ "Isla has 4 Brownie badges" -> "Isla's up to 9 badges": a tally of one kind of thing."""
    match = _COUNT.match(plain)
    if not match:
        return []
    subject = normalise_subject(match.group("s"))
    if not subject:
        return []
    moved = not match.group("verb").lower().startswith(("has", "have"))
    number = match.group("n").lower().replace(",", "")
    attribute = f"number of {match.group('u').lower()[:-1]}"
    return [Slot(subject, attribute, number, change=change or moved, kind="number")]


_TITLED = compile_pattern(
    rf"^(?P<s>user|(?-i:[A-Z])[\w-]+)\s+(?P<adv>{_ADV})is\s+(?P<adv2>{_ADV})"
    rf"(?P<v>(?:(?-i:[A-Z])[\w-]*\s+){{0,3}}{JOB})$"
)


_SCHEDULED = compile_pattern(
    rf"^{_SUBJECT}\s+(?P<adv>{_ADV})(?:is|are)\s+(?:scheduled|due|set|planned|expected|slated)\s+to\s+"
    r"[a-z]+(?:\s+(?:out|live))?\s+(?:on|in|for|by)\s+(?P<v>.+)$"
)


def _scheduled(plain: str, change: bool) -> list[Slot]:
    """ "Falcon is scheduled to launch on June 12": the thing's date, as the table has it."""
    match = _SCHEDULED.match(plain)
    if not match:
        return []
    subject, value = normalise_subject(match.group("s")), match.group("v").strip()
    if not subject or subject in ("user", "we") or value_kind(value) != "date":
        return []
    return [Slot(subject, "date", tidy_date(value), change=change)]


_LASTING = compile_pattern(
    rf"^{_SUBJECT}\s+(?P<adv>{_ADV})(?:do|does|have|has|run|runs|hold|holds)\s+(?P<n>\d+|one|two|"
    r"three|four|five|six|ten|fifteen|thirty|forty-five)-(?P<u>minute|hour|day|week|month)\s+"
    r"(?P<a>[a-z][\w-]*s)$"
)


def _lasting(plain: str, change: bool) -> list[Slot]:
    """ "We do two-week sprints": how long each of a kind of thing lasts, as "Sprints are three
    weeks long" says it."""
    match = _LASTING.match(plain)
    subject = normalise_subject(match.group("s")) if match else None
    attribute = attribute_of(match.group("a")) if match else None
    if not match or not subject or not attribute:
        return []
    value, kind = _value(f"{match.group('n')} {match.group('u')}s")
    if not value or not kind.startswith("quantity"):
        return []
    return [Slot(subject, attribute, value, change=change, kind=kind)]


def _titled(plain: str, change: bool) -> list[Slot]:
    """ "I'm Lead Analyst": a job title in capitals, without an article."""
    match = _TITLED.match(plain)
    if not match or not match.group("v")[:1].isupper():
        return []
    subject = normalise_subject(match.group("s"))
    value = tidy_value(match.group("v"))
    return [Slot(subject, "job", value, change=change)] if subject and value else []


def _named_as(plain: str, change: bool) -> list[Slot]:
    return _owned_copula(_NAMED_AS.match(plain), change)


def _copula_of(plain: str, change: bool) -> list[Slot]:
    match = _COPULA.match(plain)
    return [] if match and _STATE_START.match(match.group("v")) else _owned_copula(match, change)


def _owned_copula(match: re.Match[str] | None, change: bool) -> list[Slot]:
    """The slot of "<owner's> <attribute> is <value>" as ``_NAMED_AS`` or ``_COPULA`` read it."""
    if not match:
        return []
    subject, attribute = _owner(match.group("own")), attribute_of(match.group("a"))
    if not subject or not attribute:
        return []
    positive = _positive(match.group("adv"), match.group("adv2"))
    return _copula(subject, attribute, match.group("v"), positive, change)


def _bare(plain: str, change: bool) -> list[Slot]:
    match = _BARE.match(plain)
    if not match or _STATE_START.match(match.group("v")):
        return []
    attribute = attribute_of(match.group("a"))
    kind = value_kind(re.sub(r"(?i)^(?:at|on|every)\s+", "", match.group("v")))
    typed = kind in ("time", "date", "money", "version") or kind.startswith("quan")
    if not attribute or not (typed or (kind == "name" and " " in attribute)):
        return []
    positive = _positive(match.group("adv"), match.group("adv2"))
    return _copula("we", attribute, match.group("v"), positive, change)


def _frame(plain: str, change: bool) -> list[Slot]:
    match = _FRAME.match(plain)
    if not match:
        return []
    subject = normalise_subject(match.group("s"))
    frame = _SINGLE_FRAMES[squash(match.group("f").lower())]
    value, kind = _value(match.group("v"))
    if not subject or not value or not kind or (kind == "word" and not change):
        return []
    positive = _positive(match.group("adv"), match.group("adv2"))
    if frame == "when" and kind in ("date", "time"):  # "The alarm goes off at 6:30"
        return [Slot(subject, "date", value, positive=positive, change=change)]
    if kind in ("date", "time"):
        kind = "when"
    return [Slot(subject, frame, value, positive=positive, change=change, kind=kind)]


def _on(plain: str, change: bool) -> list[Slot]:
    match = _ON.match(plain)
    if not match:
        return []
    subject = normalise_subject(match.group("s"))
    raw = match.group("v")
    if not subject:
        return []
    positive = _positive(match.group("adv"), match.group("adv2"))
    if subject != "we" and value_kind(raw) == "money":  # "I'm on £48k": what someone is paid
        value, _kind = _value(raw)
        return [Slot(subject, "salary", value, positive=positive, change=change, kind="money")]
    noun = _ON_NOUN.match(raw)
    if noun:
        value, kind = _value(noun.group("q"))
        if value and kind in ("name", "word", "version", "money"):
            attribute = noun.group("n").lower()
            return [Slot(subject, attribute, value, positive=positive, change=change, kind="on")]
        return []
    named = _NAMED_VERSION.match(raw.strip())
    if named:
        return []  # "We are on Postgres 16": the table's versions read it
    value, kind = _value(raw)
    if kind != "version":
        return []
    return [Slot(subject, "on version", value, positive=positive, change=change, kind=kind)]
