"""Readers for the language-of-change rules (:mod:`memex_rules.supersession_table_changes`).

A stage of a piece of work becomes a single-valued ``status`` slot whose subject is the work,
owned by whoever does it ("Caroline has applied to adoption agencies" -> ``caroline's
adoption agencies: status = applied``), compared loosely by
:func:`memex_rules.supersession_values.same_thing`; a tally becomes a count of one kind of
thing ("has won two video game tournaments" -> ``has won video game tournament = 2``).
:mod:`memex_rules.supersession_readers` dispatches to these by rule kind.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import Protocol

from memex_rules.rules_text import compile_pattern
from memex_rules.supersession_table_changes import ORDINALS, STAGES
from memex_rules.supersession_values import (
    NEG,
    Slot,
    normalise_subject,
    number,
    thing_name,
    tidy_value,
)


class Reading(Protocol):
    """What a reader sees of a rule's match (``supersession_readers._Match``)."""

    match: re.Match[str]
    groups: dict[str, str | None]
    subject: str | None
    change: bool

    def text(self, name: str) -> str: ...

    def slot(self, value: str, attribute: str | None = None, **more: object) -> Slot: ...


#: Where the name of a piece of work ends: a preposition, a clause, a time.
_OBJECT_END = compile_pattern(
    r"\s*(?:[,;:()]|\s(?:to|for|with|at|from|by|on|in|into|because|after|before|but|which|that|"
    r"so|while|when|until|since|and\s+(?:got|is|was|has|had|then|now|am|are|will)|last|this|"
    r"next|yesterday|today|tomorrow|again|now|already|recently)\b).*$"
)
#: Objects that name no piece of work of their own.
_VAGUE = compile_pattern(
    r"^(?:it|them|this|that|these|those|one|something|anything|everything|some|more|"
    r"a\s+lot|lots|work|home|time|help|advice|money|up|out|in|back|over)$"
)


def _stage(m: Reading) -> str | None:
    for index, (name, _verbs) in enumerate(STAGES):
        if m.groups.get(f"g{index}"):
            return name
    return None


def _work(raw: str) -> str:
    """ "her first full screenplay to a film festival" -> "first full screenplay"."""
    raw = re.sub(
        r"(?i)^(?:a|an|the|her|his|their|my|our|its|some|several|two|three|a\s+few)\s+",
        "",
        raw.strip(),
    )
    value = tidy_value(_OBJECT_END.sub("", " " + raw).strip())
    if not value or _VAGUE.match(value) or len(value.split()) > 5 or "@" in value:
        return ""
    return value


def _progress(m: Reading) -> list[Slot]:
    """ "Caroline has applied to adoption agencies": the agencies' status is ``applied``."""
    said = m.match.group(0)
    stage = _stage(m)
    who = normalise_subject(m.text("w"))
    work = _work(m.text("o"))
    if stage is None or who is None or not work or NEG in said.split():
        return []
    subject = work if who == "we" else f"{who}'s {work}"  # a team's work is its project
    return [Slot(subject, "status", stage, change=m.change)]


def _work_status(m: Reading) -> list[Slot]:
    """ "Joanna started writing her second screenplay" / "... finished her second screenplay"."""
    done = m.text("d").lower()
    value = "in progress" if not done else "cancelled" if done == "abandoned" else "done"
    if not m.subject:
        return []
    who = normalise_subject(m.text("w"))  # Mia's thesis is not her sister's
    if who in (None, "we"):
        return [m.slot(value)]
    return [replace(m.slot(value), subject=f"{who}'s {m.subject}")]


_PASSIVE_STAGE = {"turned down": "rejected", "picked up": "accepted", "opened": "open"}
_PASSIVE_STAGE |= {"complete": "done", "completed": "done", "finished": "done"}


def _progress_of(m: Reading) -> list[Slot]:
    """ "Joanna's latest screenplay was rejected by a production company"."""
    said = " ".join(m.text("v").lower().split())
    if m.subject is None or "'s " not in m.subject or NEG in m.match.group(0).split():
        return []
    owner, _, work = m.subject.rpartition("'s ")  # "Yuki's sister's visa" is the sister's
    work = _work(work)
    if not work:
        return []
    return [Slot(f"{owner}'s {work}", "status", _PASSIVE_STAGE.get(said, said), change=m.change)]


_ORDINAL_NUMBER = {word: index for index, word in enumerate(ORDINALS, start=2)}


def _count_of(word: str) -> int | None:
    word = word.lower()
    if word in _ORDINAL_NUMBER:
        return _ORDINAL_NUMBER[word]
    digits = re.match(r"(\d+)(?:st|nd|rd|th)$", word)
    if digits:
        return int(digits.group(1))
    return 12 if word == "a dozen" else number(word)


def _tally(m: Reading) -> list[Slot]:
    """ "Nate has won two video game tournaments": ``has won video game tournament = 2``."""
    count = _count_of(" ".join(m.text("c").split()))
    thing = " ".join(_singular(word) for word in _work(m.text("o")).split())
    if count is None or not thing or NEG in m.match.group(0).split():
        return []
    verb = {"ran": "run"}.get(m.text("t").lower(), m.text("t").lower())
    return [m.slot(str(count), f"has {verb} {thing}")]


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _ordinal_count(m: Reading) -> list[Slot]:
    """ "Nate got a third turtle": Nate has three turtles now."""
    count = _count_of(m.text("c"))
    return [m.slot(str(count), f"has {thing_name(m.text('a'))}")] if count else []


def _owner_handed(m: Reading) -> list[Slot]:
    """ "The growth team handed login over to the SRE team": login's owner is the SRE team."""
    thing = normalise_subject(m.text("s"))
    value, previous = tidy_value(m.text("v")), tidy_value(m.text("p"))
    if not thing or thing in ("user", "we") or not value or value == thing:
        return []
    return [Slot(thing, "owner", value, change=True, previous=previous)]


CHANGE_READERS: dict[str, Callable[[Reading], list[Slot]]] = {
    "progress": _progress,
    "progress_of": _progress_of,
    "work_status": _work_status,
    "tally": _tally,
    "ordinal_count": _ordinal_count,
    "owner_handed": _owner_handed,
}
