"""Facts that change over time: when a memory held, and the contract that decides what a new
fact closes.

A memory record carries ``valid_from`` (when the fact became true: when it was said, the
conversation turn's time, or an explicit time), ``valid_until`` (``None`` while it holds) and
``superseded_by`` (the memory that replaced it). Nothing is deleted when a fact changes: the
earlier one is *closed* and stays readable with its history.

Which earlier facts a new one closes is decided by a :class:`SupersessionJudge`, a component
plugins register through the ``register_supersession_judges`` hook (the built-in ``rules``
judge needs no model; the ``llm`` judge asks a chat model about the hard cases).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

#: The ``valid_from`` of a fact whose start is unknown: the earliest time (the epoch), so
#: ``as_of`` any time before its end finds it. A fact whose own words give only its end
#: ("Until mid-2023 we paged through PagerDuty", told in 2024) is stored so, never with an
#: end before its start; JSON shows it as ``1970-01-01T00:00:00Z``, pages as "start unknown".
START_UNKNOWN = 0.0
#: The unknown start of a fact that ended before the epoch ("Grandma lived in Cork till
#: 1968"): the earliest time a date can show, 0001-01-01T00:00:00Z, so the end still comes
#: after the start. Pages show it as "start unknown" too.
START_UNKNOWN_BEFORE_1970 = -62135596800.0


def unknown_start(valid_until: float) -> float:
    """The start to store for a fact whose own words give only its end, ``valid_until``."""
    return START_UNKNOWN if valid_until >= START_UNKNOWN else START_UNKNOWN_BEFORE_1970


def start_unknown(valid_from: float | None) -> bool:
    """Whether a fact's ``valid_from`` says its start is unknown (:data:`START_UNKNOWN`, or
    :data:`START_UNKNOWN_BEFORE_1970`); a start named before 1970 ("born in 1931") is known."""
    return valid_from is not None and (
        valid_from == START_UNKNOWN or valid_from <= START_UNKNOWN_BEFORE_1970
    )


def read_start(valid_from: float, valid_until: float | None) -> float:
    """The start to read for a stored validity: an unknown start (:func:`unknown_start`)
    for a fact stored with its end before its start (a home written before this was
    guarded: its start was when it was said), so reading by time finds it and rewriting it
    stores it right."""
    if valid_until is not None and valid_until < valid_from:
        return unknown_start(valid_until)
    return valid_from


def check_interval(valid_from: float, valid_until: float | None) -> None:
    """Raise ``ValueError`` for a validity that ends before it starts (never stored)."""
    if valid_until is not None and valid_until < valid_from:
        raise ValueError(
            f"a fact cannot stop holding ({valid_until}) before it starts ({valid_from})"
        )


@dataclass(frozen=True)
class TimedFact:
    """A fact as a judge sees it: its text and when it held.

    ``memory_id`` is ``None`` for the new fact being written. Times are seconds since the
    epoch, UTC. ``said_at`` is when memex learned the fact (the record time); ``valid_from``
    may be earlier when the text itself dates the fact ("Alice lived in Rome in 2019").
    """

    memory_id: str | None
    text: str
    valid_from: float
    said_at: float
    valid_until: float | None = None


@dataclass(frozen=True)
class Supersession:
    """One earlier fact the new one closes, and why (shown by ``memex history`` and dry runs).

    ``key`` names what both facts are about, e.g. ``"alice: lives in"``; ``reason`` is a
    sentence for people.
    """

    memory_id: str
    key: str = ""
    reason: str = ""


@runtime_checkable
class SupersessionJudge(Protocol):
    """Decides which earlier facts a new fact updates or contradicts.

    Two facts are about the same thing when they share a subject and an attribute (where
    someone lives or works, a preference, a plan's date, a tool's version, a name, a
    relationship, a status). Facts that share only a subject ("Alice lives in Berlin" /
    "Alice likes Berlin's museums") both stay current.
    """

    def valid_from(self, text: str, said_at: float) -> float:
        """When ``text`` became true by its own words ("in 2019", "since May 2023", "last
        year" read against ``said_at``), or ``said_at`` when the text names no time."""
        ...

    def supersedes(self, new: TimedFact, earlier: Sequence[TimedFact]) -> list[Supersession]:
        """The facts among ``earlier`` (current facts of the same owner, closest first) that
        ``new`` closes. A judge never closes a fact whose ``valid_from`` is later than
        ``new.valid_from``: a fact told late about an earlier time does not end a later one.
        May be empty."""
        ...


@runtime_checkable
class AnsweringJudge(Protocol):
    """A judge that also reads *questions* into the subject and attribute they ask about,
    so a memory search finds the fact that answers even when the two share no word ("Where
    do I work?" / "I joined Airbus"). Optional: memex asks for it only when the judge in use
    has the method (``[supersession] use = "none"`` has none)."""

    def answering(self, question: str) -> Callable[[str], bool] | None:
        """A test of whether a stored fact's text sets what ``question`` asks about (the
        same subject and attribute, as :meth:`SupersessionJudge.supersedes` would compare
        them), or None when the question reads to no subject and attribute: the search is
        then left as it was."""
        ...


@runtime_checkable
class EndingJudge(Protocol):
    """A judge that also reads when a fact *stopped* holding by its own words: a fact told
    late about a closed past period ("Back in 2020 prod was still on Heroku", "Until mid-2023
    we paged through PagerDuty", "From 2018 to 2021 I lived in Oslo") is stored already
    ended, with no successor (``superseded_by`` empty), so it is not offered as current but
    is still read by time. Optional, like :class:`AnsweringJudge`: memex asks for it only
    when the judge in use has the method."""

    def valid_until(self, text: str, said_at: float) -> float | None:
        """When ``text`` says its fact stopped holding, read against ``said_at``: the end of
        the past period it names ("in 2020" told in 2024 -> 1 January 2021), or None when
        the period is open ("since 2020"), not over when said ("in 2025" said in 2025), a
        plan, a start that still holds ("last year I started running"), or unsure."""
        ...
