"""The object of a statement (what follows its verb): cut, tidied, put in the third person,
or refused when it only points back into the conversation."""

from __future__ import annotations

import re

from memex_rules.rules_text import compile_pattern, word_set

#: Objects that point back into the conversation instead of carrying a fact.
_DEICTIC = word_set(
    "it that this these those them you your yours him her here there so too what which "
    "one both all some something anything everything nothing the_following the_same when how "
    "the_way the_idea the_thought the_fact"
)
_BACK_REFERENCE = word_set("it that this these those them")
#: Verbs after "to" / "will" that describe the chat itself ("I want to fix this").
CHATTER = word_set(
    "fix add change update debug check test run try see know understand ask make create write "
    "implement refactor remove delete rename get do paste share show send give look clarify "
    "confirm verify install continue keep let use modify edit help start reply answer explain "
    "go_ahead go_with double-check follow find figure mention point note say tell think read "
    "wait need have be_honest"
)
_PRONOUNS = tuple(
    (compile_pattern(p), r)
    for p, r in (
        (r"\bI am\b", "they are"),
        (r"\bI was\b", "they were"),
        (r"\bI\b", "they"),
        (r"\bme\b", "them"),
        (r"\bmy\b", "their"),
        (r"\bmine\b", "theirs"),
        (r"\bmyself\b", "themselves"),
    )
)
# Where a statement's own clause ends: "; ", " - ", "(", ", so ", ", but ", ", which "...
_CLAUSE_CUT = compile_pattern(
    r"\s*(?:;|(?:^|\s)[-\u2013\u2014]+\s|\(|\s:\s|,\s*(?:so|but|which|and it|it is|it's|"
    r"that is|that's|though|haha|lol)\b|^,).*$"
)
_TRAILING = compile_pattern(
    r"[\s.,;:!\u2026~*_\"')\]]+$|\s+(?:lol|haha|:\)|:-\)|;\)|:D|too|as well|by the way)$"
)


def third_person(text: str) -> str:
    """Rewrite the user's own pronouns in ``text``: my -> their, me -> them, I am -> they are."""
    for pattern, replacement in _PRONOUNS:
        text = pattern.sub(replacement, text)
    return text


def clean_object(rest: str) -> str | None:
    """The object of a statement, cut at a clause break and tidied.

    ``""`` when nothing is left ("I do not surf"), None when the object only
    points back into the conversation ("I love it", "I like your idea").
    """
    rest = _CLAUSE_CUT.sub("", rest.strip())
    previous = None
    while previous != rest:
        previous, rest = rest, _TRAILING.sub("", rest)
    words = [w.lower().strip(",") for w in rest.split()]
    if not words:
        return ""
    if words[0] in _DEICTIC or "_".join(words[:2]) in _DEICTIC:
        return None
    if len(words) <= 5 and words[-1] in _BACK_REFERENCE:  # "go with that", "reminders of it"
        return None
    return third_person(rest)


def chatter_after_to(rest: str) -> bool:
    """True for "to fix the tests", "to go ahead": the user talking about the chat itself."""
    words = [w.lower().strip(",.") for w in rest.split()]
    if not words or words[0] != "to":
        return False
    return is_chatter(words[1:])


def is_chatter(words: list[str]) -> bool:
    return bool(words) and (words[0] in CHATTER or "_".join(words[:2]) in CHATTER)


def third_singular(verb: str) -> str:
    """A present-tense verb for "User": like -> likes, go -> goes, study -> studies."""
    lower = verb.lower()
    if lower in ("will", "would", "can", "cannot", "could", "should", "must", "might", "may"):
        return verb
    if lower.endswith("ed") or lower in ("is", "was", "has"):
        return verb
    if lower in ("am", "are"):
        return "is"
    if lower == "were":
        return "was"
    if lower == "have":
        return "has"
    if re.search(r"[^aeiou]y$", lower):
        return verb[:-1] + "ies"
    if re.search(r"(?:s|sh|ch|x|z|o)$", lower):
        return verb + "es"
    return verb + "s"
