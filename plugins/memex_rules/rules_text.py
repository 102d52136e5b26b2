"""Text helpers the statement reader's parts share: case-blind patterns, word sets."""

from __future__ import annotations

import re


def compile_pattern(pattern: str) -> re.Pattern[str]:
    """``pattern`` compiled to match regardless of case, as every statement shape is."""
    return re.compile(pattern, re.IGNORECASE)


def squash(text: str) -> str:
    """``text`` with every run of whitespace made one space, and none at either end."""
    return " ".join(text.split())


#: The people a fact may be about besides its teller, as a regex alternation: "my sister",
#: "Ben's kids", "a colleague". One list, so every reading that asks "whose fact is this?"
#: hears the same relatives.
RELATIVES = (
    r"(?:sister|brother|mum|mom|dad|mother|father|son|daughter|wife|husband|partner|boyfriend|"
    r"girlfriend|fianc\w*|friends?|boss|neighbou?r|cousin|aunt|uncle|gran\w*|kids?|children|"
    r"parents?|colleague|niece|nephew|nan|nana|nanna)"
)


#: A leading clause that dates what follows by someone's start, without its comma: "Back when
#: I started in 2020 the team was on HipChat" tells of the team, not of the teller.
WHEN_STARTED = (
    r"^(?:back\s+)?when\s+(?P<who>I|we|he|she|they|(?-i:[A-Z])[\w-]+)\s+(?:first\s+)?(?:started|"
    r"joined|arrived|began|moved\s+here)(?:\s+(?:in|at|on|here|there)(?:\s+[\w-]+)?)?,?\s+"
)


#: A fact opening with someone's possessive, in any case ("finn's pocket money", "Ollie's
#: Calpol dose"): group 1 is the owner. Notes are typed in lower case, names too.
OPENING_POSSESSOR = re.compile(r"(?i)^\s*([a-z][\w-]*)'s\s")


def word_set(text: str) -> frozenset[str]:
    """The space-separated words of ``text`` as a set (keeps long word lists readable)."""
    return frozenset(text.split())
