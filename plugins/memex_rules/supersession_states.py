"""A person's state in a chain of life states changed: a new fact closes an earlier one that
gives the same person another state of the same chain.

Two chains are read: a relationship (single -> dating -> engaged -> married -> separated ->
divorced) and health (ill or in treatment -> recovering -> well). "Ben is single again" ->
"Ben's been dating a nurse called Chloe since the summer" -> "Ben and Chloe got engaged!";
"Ellie and I got engaged last night!" -> "We got married on Saturday"; "Fiona is on
radiotherapy now" -> "Fiona got the all-clear!". The earlier fact closes when

- both name one state of the same chain, and the states differ (any order: an engagement can
  end, an illness come back);
- both are about the same person: a capitalised name in both, or both told in the first
  person ("I", "we", "Ellie and I") with no "he", "she" or "they" beside;
- neither speaks of a relative or a friend ("my sister got married", "Ben's brother is
  engaged"): the state may be theirs;
- the new fact is neither a question, a plan, a wish nor negated.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from memex_rules.rules_text import RELATIVES, word_set

#: The states of each chain, each a pattern.
_BE = r"(?:is|am|are|was|were|been|be|'s|'m|'re|got|get|gets|getting|just|now|still|happily)\s+"
#: Not of people: "split up the monolith", "recovering the files", "a single node".
_THING = r"(?!\s+(?:the|our|my|your|their|its|it|a|an|this|that|data|files|app|apps)\b)"
_CHAINS = {
    "relationship": {
        "single": _BE + r"single(?:\s+again)?(?![\w-])",
        "dating": r"(?<!a\s)dating(?!\s+apps?\b)|seeing\s+(?:someone|somebody)|"
        r"going\s+out\s+with|in\s+a\s+relationship",
        "engaged": _BE + r"engaged(?!\s+(?:with|in|the|a|an|our|their|users?)\b)|"
        r"popped\s+the\s+question",
        "married": _BE + r"married|got\s+hitched|tied\s+the\s+knot|a\s+(?:husband|wife)\s+now",
        "separated": _BE + r"separated" + _THING + r"|(?:split|broke|broken)\s+up" + _THING,
        "divorced": _BE + r"divorced|divorce\s+(?:went|came)\s+through",
    },
    "health": {
        "ill": _BE + r"(?:ill|sick|unwell|poorly)(?![\w-])|in\s+hospital|"
        r"admitted\s+to\s+hospital|(?:started|having|on|doing)\s+"
        r"(?:chemo(?:therapy)?|radiotherapy|dialysis)|diagnosed\s+with",
        "recovering": r"recovering" + _THING + r"|on\s+the\s+mend|discharged\s+from|"
        r"home\s+from\s+(?:the\s+)?hospital|convalescing",
        "well": r"all-clear|all\s+clear|in\s+remission|cancer-free|fully\s+recovered|"
        r"back\s+to\s+full\s+health|fighting\s+fit",
    },
}
_STATE = re.compile(
    r"(?i)\b(?:"
    + "|".join(
        f"(?P<{chain}__{state}>{pattern})"
        for chain, states in _CHAINS.items()
        for state, pattern in states.items()
    )
    + r")\b"
)
_NOT_HELD = re.compile(
    r"(?i)\?|\b(?:if|might|(?-i:may)|maybe|perhaps|could|would|should|will|wants?|hoping|hope|"
    r"thinking|considering|going\s+to|plan(?:s|ning)?\s+to|wish|unless|whether|not|never|"
    r"no|isn't|aren't|wasn't|didn't|hasn't|haven't|used\s+to)\b"
)
#: Another person the state may belong to: "my sister", "Ben's brother", "a friend".
_OTHER = re.compile(
    r"(?i)(?:\b(?:my|our|his|her|their)\s+|'s\s+)" + RELATIVES + r"\b|"
    r"\ba\s+(?:friend|colleague|neighbou?r|cousin|mate)\b"
)
_FIRST_PERSON = re.compile(r"(?i)\b(?:i|i'm|i've|we|we're|we've|us|our)\b")
_THIRD_PERSON = re.compile(r"(?i)\b(?:he|she|they|he's|she's|they're|his|her|their|them)\b")
_NAME = re.compile(r"\b[A-Z][a-z][\w-]*")
#: Capitalised words that are not names of people.
_NOT_NAMES = word_set(
    "the a an i i'm i've we we're we've my our he she they it this that so and but just "
    "monday tuesday wednesday thursday friday saturday sunday january february march april "
    "may june july august september october november december vet gp nhs"
)


#: A word every state's pattern contains one of.
_TRIGGERS = word_set(
    "single dating seeing going relationship engaged popped married hitched knot husband wife "
    "separated split broke broken divorced divorce ill sick unwell poorly hospital chemo "
    "chemotherapy radiotherapy dialysis diagnosed recovering mend discharged convalescing "
    "all-clear clear remission cancer-free recovered health fit"
)
_WORDS = re.compile(r"[a-z][a-z-]*")


@dataclass(frozen=True)
class _Reading:
    chain: str
    state: str
    people: frozenset[str]  # lower-case names, "i" for the first person


@lru_cache(maxsize=8192)
def _read(text: str) -> _Reading | None:
    text = text[:400]
    if _TRIGGERS.isdisjoint(_WORDS.findall(text.lower())):
        return None  # most facts name no state: one pass over their words
    if _OTHER.search(text) or _NOT_HELD.search(text):
        return None
    found = {tuple(name.split("__", 1)) for name in _states(text)}
    if len(found) != 1:
        return None  # no state, or two ("split up and got engaged again"): not read
    ((chain, state),) = found
    people = {
        word.lower().removesuffix("'s")
        for word in _NAME.findall(text)
        if word.lower().removesuffix("'s") not in _NOT_NAMES
    }
    if _FIRST_PERSON.search(text) and not _THIRD_PERSON.search(text):
        people.add("i")  # "we went to Tom's wedding, he got married": his state, not ours
    return _Reading(chain, state, frozenset(people)) if people else None


def _states(text: str) -> list[str]:
    """The "chain__state" names of the states ``text`` names."""
    return [
        name
        for match in _STATE.finditer(text)
        for name, value in match.groupdict().items()
        if value
    ]


def state_changed(new_text: str, old_text: str) -> tuple[str, str] | None:
    """Why ``new_text`` closes ``old_text`` as another state of the same person's chain (see
    the module doc), as (key, reason), or None."""
    new = _read(new_text)
    if new is None:
        return None
    old = _read(old_text)
    if old is None or old.chain != new.chain or old.state == new.state:
        return None
    people = new.people & old.people
    if not people:
        return None
    who = "user" if "i" in people else sorted(people)[0]
    return f"{who}: {new.chain}", f"{who}'s {new.chain}: {old.state} -> {new.state}"
