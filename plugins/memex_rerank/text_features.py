"""What the rerank reads off the question and a candidate's text: cheap word-level cues.

The question's kind (when, where, who, how many, why, would), the share of its content
words the turn holds (alone, and with the candidates next to it), and what the turn is:
a question itself, one holding a number or a time word, one sharing a photo. Pure
Python and a few microseconds per candidate.
"""

from __future__ import annotations

import re
from collections.abc import Set as AbstractSet
from functools import lru_cache

_WORD = re.compile(r"[a-z0-9]+")
#: The question's kinds, each a one-hot feature (first match wins, "what"/other: none).
KINDS = {
    "when": re.compile(r"\b(when|what (year|month|date|day|time))\b"),
    "how_many": re.compile(r"\bhow (many|much|long|often)\b"),
    "where": re.compile(r"\bwhere\b"),
    "who": re.compile(r"\bwho(m|se)?\b"),
    "why": re.compile(r"\bwhy\b"),
    "would": re.compile(r"\b(would|could|likely|might)\b"),
}
#: Words that carry no subject: dropped before counting what the turn shares with the question.
_STOP_WORDS = """a about after again all also am an and any are as at be been before being
    but by can
    could did do does doing during each for from had has have having he her here hers him
    his how i if in into is it its just kind many me more most much my of on once only or
    other our out over own same she should so some such than that the their them then there
    these they this those through to too type under until up very was we were what when
    where which while who whom whose why will with would you your likely might ever"""
_STOP = frozenset(_STOP_WORDS.split())
_TIME_TEXT = """yesterday today tonight tomorrow last next ago week weekend month year years january
    february march april may june july august september october november december monday
    tuesday wednesday thursday friday saturday sunday summer winter spring fall autumn
    recently since"""
_TIME_WORDS = frozenset(_TIME_TEXT.split())
_NUMBER_TEXT = "one two three four five six seven eight nine ten twice once"
_NUMBER_WORDS = frozenset(_NUMBER_TEXT.split())
_YEAR = re.compile(r"\b(19|20)\d\d\b")
_DIGITS = re.compile(r"\b\d+\b")  # a number standing alone ("3pm" is none)


def stem(word: str) -> str:
    """A crude stem (the first five letters): "painting" and "paintings" meet, cheaply."""
    return word[:5]


def content_words(text: str, drop: frozenset[str] = frozenset()) -> set[str]:
    """The stems of ``text``'s words that say something (no stopwords, no ``drop``)."""
    return {stem(w) for w in _WORD.findall(text.lower()) if w not in _STOP and w not in drop}


def kind_of(question: str) -> list[float]:
    """One-hot over :data:`KINDS` (all zero for "what"/"which" and the rest)."""
    lowered = question.lower()
    for name, pattern in KINDS.items():
        if pattern.search(lowered):
            return [float(n == name) for n in KINDS]
    return [0.0] * len(KINDS)


def overlap(asked: AbstractSet[str], text: AbstractSet[str]) -> float:
    """Share of the question's content words in ``text`` (0 when the question has none)."""
    return len(asked & text) / len(asked) if asked else 0.0


@lru_cache(maxsize=65_536)
def read_turn(text: str) -> tuple[frozenset[str], tuple[float, ...]]:
    """A turn's content stems (:func:`content_words`) and its cues, from one pass over its
    words: whether it asks a question, names a time, holds a number, shares a photo.
    Cached by text: a memex's turns recur from one search to the next."""
    words = set(_WORD.findall(text.lower()))
    stems = frozenset(stem(w) for w in words if w not in _STOP)
    digits = _DIGITS.search(text) is not None
    cues = (
        float("?" in text),
        float(bool(words & _TIME_WORDS) or (digits and _YEAR.search(text) is not None)),
        float(digits or bool(words & _NUMBER_WORDS)),
        float("[shares" in text),
    )
    return stems, cues


def turn_cues(text: str) -> list[float]:
    """Whether the turn asks a question, names a time, holds a number, shares a photo."""
    return list(read_turn(text)[1])


__all__ = ["KINDS", "content_words", "kind_of", "overlap", "read_turn", "stem", "turn_cues"]
