"""A level reached: a higher numbered level of the same ladder closes the earlier one.

"Maya is on Stage 3 at swimming" -> "Maya got moved up to Stage 5 on Saturday"; "Noah got a
merit in Grade 2" -> "Grade 3 passed - Noah is thrilled"; "I'm climbing V3 at the wall" ->
"I'm projecting V5s now". The rule: two facts of one owner that name a level of the same ladder
(a stage, grade, level, year, band, belt colour is not read; a climbing grade "V3") with a
number, the new fact's highest number above the earlier fact's highest, close the earlier one.
A lower number stays (a second child's grade, a repeat told later is not a step up), as do a
question, a plan, a wish, and facts of two owners (:func:`memex_rules.supersession_replaced.
one_owner`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from memex_rules.supersession_replaced import one_owner

_MAX = 400
_LEVEL = re.compile(
    r"\b(?:(?P<word>stage|grade|level|year|band)\s+(?P<n>\d{1,2})(?![\d:.,]\d)|"
    r"(?P<v>V)(?P<vn>\d{1,2})s?)\b",
    re.IGNORECASE,
)
_NOT_HELD = re.compile(
    r"(?i)\?|\b(?:if|might|maybe|perhaps|could|would|should|will|wants?|hoping|hope|hopes|"
    r"aiming|aims?|target|goal|thinking|considering|going\s+to|wish|unless|whether|plan|"
    r"planning|next)\b|'ll\b"
)


@lru_cache(maxsize=8192)
def _levels(text: str) -> dict[str, int]:
    """Each ladder ``text`` names, with the highest number it gives it."""
    found: dict[str, int] = {}
    for match in _LEVEL.finditer(text[:_MAX]):
        if match.group("v"):
            if match.group("v") != "V":
                continue  # "v3" in lower case is a version, not a climbing grade
            ladder, number = "v grade", int(match.group("vn"))
        else:
            ladder, number = match.group("word").lower(), int(match.group("n"))
        found[ladder] = max(number, found.get(ladder, 0))
    return found


def level_reached(new_text: str, old_text: str) -> tuple[str, str] | None:
    """Why ``new_text`` closes ``old_text`` as a higher level of the same ladder (see the
    module doc), as (key, reason), or None."""
    new = _levels(new_text)
    if not new:
        return None
    old = _levels(old_text)
    ladders = [ladder for ladder in new if ladder in old and new[ladder] > old[ladder]]
    if not ladders or _NOT_HELD.search(new_text[:_MAX]) or _NOT_HELD.search(old_text[:_MAX]):
        return None
    if not one_owner(new_text, old_text):
        return None
    ladder = ladders[0]
    return f"level: {ladder}", f"{ladder} {old[ladder]} -> {new[ladder]}"


_ASKED = re.compile(r"(?i)^\s*(?:what|which)\s+(?P<word>grade|level|stage|band|year)\b")


def level_asked(question: str) -> Callable[[str], bool] | None:
    """For a question asking which level of a ladder someone is at ("What grade do I boulder
    at?", "What stage is Maya on?"), a test of whether a fact names a level of that ladder for
    the same owner (held, not wished); None for any other question."""
    match = _ASKED.match(question)
    if match is None:
        return None
    word = match.group("word").lower()
    ladders = {word, "v grade"} if word == "grade" else {word}

    def names_level(text: str) -> bool:
        return (
            bool(ladders & set(_levels(text)))
            and not _NOT_HELD.search(text[:_MAX])
            and one_owner(question, text)
        )

    return names_level
