"""The kind of answer a question asks for, and whether a fact carries one (issue 30).

"How many followers does Ellie's bakery have?" asks for a number, "When does the residents'
association meet?" for a time. Two facts of one owner that both carry an answer of that kind
("Ellie's bakery just hit 1,000 followers", "The bakery account is at 12,400") answer the
question alike, however far apart their words are from it: recall's newer-first ordering
(:mod:`memex_core.services.newer_first`) may then compare them looser. Only numbers and
times: a place or a person is read from capitals, which any fact has.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_ASKS_NUMBER = re.compile(
    r"\bhow\s+(?:many|much|old|heavy|tall|long|far|big|often|fast)\b|\bwhat(?:'s|\s+is)\s+"
    r"(?:the\s+)?(?:price|cost|count|number|total|score|weight|rent|salary)\b",
    re.IGNORECASE,
)
_ASKS_TIME = re.compile(
    r"^\s*(?:when|until\s+when|since\s+when)\b|\bwhat\s+(?:time|day|date)\b|\bwhich\s+day\b",
    re.IGNORECASE,
)
_NUMBER = re.compile(
    r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|"
    r"forty|fifty|hundred|thousand|million|dozen|half|once|twice)\b",
    re.IGNORECASE,
)
_TIME = re.compile(
    r"\d|\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|\b(?:january|february|march|april|"
    r"may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|"
    r"sep|sept|oct|nov|dec)\b|\b(?:noon|midday|midnight|morning|afternoon|evening|night|"
    r"tonight|tomorrow|weekend|weekly|fortnightly|monthly|daily|week|month|year|spring|"
    r"summer|autumn|fall|winter)s?\b",
    re.IGNORECASE,
)


def answer_kind(question: str) -> Callable[[str], bool] | None:
    """The test of a fact carrying the kind of answer ``question`` asks for (a number for
    "how many", "how much", "how old"; a time for "when", "what time", "which day"), or
    None for a question that asks for neither."""
    if _ASKS_NUMBER.search(question):
        return _carries(_NUMBER)
    if _ASKS_TIME.search(question):
        return _carries(_TIME)
    return None


def _carries(kind: re.Pattern[str]) -> Callable[[str], bool]:
    def test(text: str) -> bool:
        return kind.search(text) is not None

    return test


__all__ = ["answer_kind"]
