"""Changes read by a fact's shape: a new value and often the old one ("We switched the CI from
Jenkins to Buildkite", "replaced A with B", "Jenkins was replaced by Buildkite", "Dan took over
on-call from Priya", "Mrs Dunmore handed over to Colin", "We upgraded the cluster to 1.29",
"The rent went up to £1,400", "Isla's up to 9 badges"); see :mod:`memex_rules.supersession_open`.
"""

from __future__ import annotations

import re
from functools import lru_cache

from memex_rules.pattern_triggers import TriggerIndex
from memex_rules.rules_text import compile_pattern
from memex_rules.supersession_open_values import (
    _ADV,
    _QUANTITY,
    _SUBJECT,
    _THEIR,
    _UNITS,
    _owner,
    _value,
    attribute_of,
)
from memex_rules.supersession_values import Slot, normalise_subject

# --- changes -----------------------------------------------------------------------------------

_CHANGES = tuple(
    compile_pattern(pattern)
    for pattern in (
        # "We switched the CI from Jenkins to Buildkite"
        rf"^{_SUBJECT}\s+(?P<adv>{_ADV})(?:switched|moved|migrated|changed|went|converted|"
        rf"transitioned|upgraded|downgraded|swapped|shifted|ported)\s+(?:over\s+)?"
        rf"(?:(?:{_THEIR})\s+(?P<a>[a-z][\w -]*?)\s+)?from\s+(?P<p>.+?)\s+(?:to|over\s+to|onto|"
        rf"for|with)\s+(?P<v>.+)$",
        # "We replaced Jenkins with Buildkite"
        rf"^{_SUBJECT}\s+(?P<adv>{_ADV})(?:replaced|swapped(?:\s+out)?|traded(?:\s+in)?|"
        rf"exchanged|dropped|ditched|ditching|dumped|abandoned)\s+(?P<p>.+?)(?:\s+(?:in|out))?\s+(?:with|for|in\s+"
        rf"favou?r\s+of)\s+(?P<v>.+)$",
        # "I switched dentists, it's Dr Patel now", "We changed payment providers to Adyen"
        rf"^{_SUBJECT}\s+(?P<adv>{_ADV})(?:switched|changed)\s+(?P<a>[a-z][\w-]*(?:\s+[a-z][\w-]*)?s)"
        r"(?:\s*,\s*(?:it\s+is|they\s+are|now)?|\s+to|\s+and\s+(?:it\s+is|now\s+use\w*))\s+(?P<v>.+)$",
        # "We renamed master to main"
        rf"^{_SUBJECT}\s+(?P<adv>{_ADV})(?:renamed|rebranded)\s+(?!(?:the|our|my|his|her|their)\b)(?P<p>.+?)\s+(?:to|as)\s+(?P<v>.+)$",
        # "We now use Buildkite instead of Jenkins"
        rf"^{_SUBJECT}\s+(?P<adv>{_ADV})(?P<verb>[a-z]+s|is|are|has|have)\s+(?P<v>.+?)\s+"
        rf"(?:instead\s+of|rather\s+than|in\s+place\s+of)\s+(?P<p>.+)$",
    )
)
#: "Jenkins was replaced by Buildkite": the subject is the old value.
_REPLACED_BY = compile_pattern(
    r"^(?P<p>.+?)\s+(?:was|has\s+been|got|is\s+being|is|were|have\s+been)\s+(?:replaced|"
    r"superseded|succeeded|swapped\s+out)\s+(?:by|with|for)\s+(?P<v>.+)$"
)
#: "Dan took over on-call from Priya", "Buildkite replaced Jenkins": the subject is the new one.
_TOOK_OVER = compile_pattern(
    r"^(?P<v>.+?)\s+(?:now\s+)?(?:took\s+over|has\s+taken\s+over|is\s+taking\s+over|takes\s+over|"
    r"replaced|has\s+replaced|replaces|succeeded|has\s+succeeded)\s+(?:(?:as\s+)?(?P<a>[\w -]+?)"
    r"\s+)?(?:from\s+)?(?P<p>(?-i:[A-Z])[\w.-]*(?:\s+(?-i:[A-Z])[\w.-]*)?)"
    r"(?:\s+(?:at|in|on|after|last|this|when|as)\b.*)?$"
)
#: "Mrs Dunmore handed over to Colin as chair": the subject is the old value.
_HANDED_OVER = compile_pattern(
    r"^(?P<p>.+?)\s+(?:has\s+)?(?:handed|passed)\s+(?:over\s+)?(?:(?:the\s+|her\s+|his\s+|their\s+)?"
    r"(?P<a>[\w -]+?)\s+)?(?:over\s+)?to\s+(?P<v>(?-i:[A-Z])[\w.-]*(?:\s+(?-i:[A-Z])[\w.-]*)?)"
    r"(?:\s+as\s+(?P<b>[\w -]+))?$"
)
#: "We upgraded the cluster to 1.29", "She changed her number to ...", "Mum moved her
#: appointment to Friday": the subject's possessed noun set to a value.
_SET_TO = compile_pattern(
    rf"^{_SUBJECT}\s+(?P<adv>{_ADV})(?:(?:finished|started|began|are|is|have\s+been)\s+"
    r"(?:migrating|moving|switching|transferring)|upgraded|downgraded|bumped|updated|raised|lowered|upped|"
    r"increased|decreased|cut|reduced|changed|moved|pushed|set|extended|shortened|switched|"
    r"renewed|rescheduled|adjusted|put|lengthened|dropped|transferred|ported|swapped|shifted|"
    r"renamed)\s+"
    rf"(?:(?P<own>{_THEIR})\s+)?(?P<a>[\w-]+(?:\s+[\w-]+){{0,3}}?)\s+(?:up\s+|down\s+|back\s+|"
    r"over\s+)?(?:from\s+(?P<p>.+?)\s+)?(?:to|onto)\s+(?P<v>.+)$"
)
#: "The rent went up to £1,400", "Standup moved to 9:45", "The price was raised to $12".
_WENT_TO = compile_pattern(
    r"^(?:(?P<own>user's|our|the|this|(?-i:[A-Z])[\w-]*'s)\s+)?(?!(?:user|we|i|they|he|she)\b)"
    r"(?P<a>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,3}?)\s+(?:(?:went|has\s+gone|is\s+going|goes|will\s+go)"
    r"(?=\s+(?:up|down)\b)|rose|has\s+risen|fell|"
    r"has\s+fallen|dropped|has\s+dropped|increased|decreased|jumped|climbed|changed|has\s+changed|"
    r"moved|has\s+moved|was\s+moved|got\s+moved|shifted|was\s+shifted|was\s+changed|was\s+raised|"
    r"was\s+lowered|was\s+cut|was\s+reduced|was\s+increased|was\s+bumped|was\s+pushed|"
    r"was\s+upgraded|got\s+upgraded|was\s+updated|is\s+changing|is\s+(?:now\s+)?(?:up|down)|"
    r"upgraded|downgraded|bumped|raised|lowered|reduced|increased|extended|shortened|renamed|"
    r"moves|is\s+moving|swapped|switched|was\s+swapped|was\s+switched|migrated|was\s+migrated|"
    r"pushed|cut)\s+(?:up\s+|down\s+)?"
    r"(?:again\b)?\s*(?:(?:from\s+(?P<p>.+?)\s+)?to\s+(?P<v>.+?)|(?:,\s*|\s*(?:it|that)\s+is\s+|\s*now\s+)+"
    r"(?P<w>.+?))$"
)


#: A place or time phrase after the old value ("the bus in Berlin", "Jenkins on prod").
_SETTING = re.compile(r"\s+(?:in|at|on|to|during)\s+.*$")


@lru_cache(maxsize=4096)
def shaped_changes(prepared: str) -> tuple[Slot, ...]:
    """The change ``prepared`` tells by its shape alone, whatever the table read in it
    ("Transferred the ISA to Vanguard": the user's ISA set to Vanguard)."""
    return tuple(_changes(prepared, True))


@lru_cache(maxsize=1)
def _index() -> TriggerIndex[re.Pattern[str]]:
    return TriggerIndex(_CHANGES, _CHANGES)


def _changes(prepared: str, change: bool) -> list[Slot]:
    for pattern in _index().candidates(prepared):  # those with a word of theirs in it
        match = pattern.match(prepared)
        if match:
            subject = normalise_subject(match.group("s"))
            if subject and match.groupdict().get("verb") and not change:
                continue  # "instead of" with a plain verb: a habit, read below
            named = match.groupdict().get("a")
            return _changed(subject, match, attribute_of(named) if named else None)
    match = _SET_TO.match(prepared)
    if match:
        subject = normalise_subject(match.group("s"))
        own = (match.group("own") or "").lower()
        if own in ("user's", "my"):
            subject = "user"
        attribute = attribute_of(match.group("a"))
        return _changed(subject, match, attribute)
    match = _WENT_TO.match(prepared)
    if match and match.group("a")[:1].isupper() and not match.group("own"):
        # "Isla's up to 9 badges": a name and its tally, not an attribute called "Isla"
        who, tally = normalise_subject(match.group("a")), _QUANTITY.match(match.group("v") or "")
        if who and tally and tally.group("u").endswith("s") and tally.group("u") not in _UNITS:
            number, unit = tally.group("n").replace(",", ""), tally.group("u")[:-1]
            return [Slot(who, f"number of {unit}", number, change=True, kind="number")]
        said = match.group("a")
        numeric = _value(match.group("v") or match.group("w") or "")[1] not in ("name", "word", "")
        if " " not in said and not said.isupper() and not numeric:
            return []  # "Alice is moving to Rome": a person going somewhere, not an attribute
    if match:
        attribute = attribute_of(match.group("a"))
        return _changed(_owner(match.group("own")), match, attribute)
    match = _REPLACED_BY.match(prepared)
    if match:
        return _changed("*", match, None)
    match = _HANDED_OVER.match(prepared)
    if match:
        named = match.group("a") or match.group("b")
        return _changed("*", match, attribute_of(named) if named else None)
    match = _TOOK_OVER.match(prepared)
    if match:
        attribute = attribute_of(match.group("a") or "") if match.group("a") else None
        return _changed("*", match, attribute)
    return []


def _changed(subject: str | None, match: re.Match[str], attribute: str | None) -> list[Slot]:
    """A change's slot: the new value, and the old one when the fact names it."""
    if not subject:
        return []
    groups = match.groupdict()
    value, kind = _value(groups.get("v") or groups.get("w") or "")
    if not groups.get("v") and kind in ("", "word", "name", "date", "when"):
        return []  # "The rent went up again, sadly": no value
    previous = _value(groups.get("p") or "")[0] if groups.get("p") else ""
    previous = re.sub(r"^(?:old|previous|former)\s+", "", previous)
    # the old value, not where or when the change is told: "the bus in Berlin" left the bus
    previous = _SETTING.sub("", previous)
    if not value or (not previous and not attribute):
        return []
    if kind in ("date", "time"):
        kind = "when"
    named = attribute_of(groups.get("a") or "") if groups.get("a") else None
    return [
        Slot(
            subject, attribute or named or "*changed", value, previous=previous,
            change=True, kind=kind or "word",
        )
    ]  # fmt: skip
