"""Whether a new fact's change is plainly of another thing than the earlier fact: a veto on
every reading of the rules judge (:class:`memex_rules.supersession.RulesSupersessionJudge`),
whichever closed.

- the object a version bump names, or the value a change says it left, which the earlier
  fact does not hold ("bumped Kotlin to 1.9.22 in the android app" / "android app on Gradle
  8.4"; "migrated the web monorepo from yarn to pnpm" / "web monorepo on Node 20 LTS");
- two environments ("staging for billing-api upgraded to Node 22" / "billing-api prod runs
  Node 20");
- two sides of one thing, a word of a contrast before a shared word ("optician: left eye
  -1.75" / "right eye is -2.25"; "primary on-call this week: Jade" / "secondary on-call:
  Omar");
- two medicines dosed, when the new fact names no change ("Alfie: Calpol 10ml every 4-6
  hrs" / "Alfie: Nurofen 2.5ml, 3x a day max"; "switched Alfie to Nurofen" is a change);
- a kind the new fact opens with of the word the earlier one opens with bare ("cleaner is
  £15/hr" / "window cleaner's £25 a visit now", "the window cleaner's gone up to £25");
- a new fact that says it adds, not replaces ("Mum does pottery on Monday nights" / "mum
  has now started Pilates too, Thursdays"; "also", "as well", "too" ending a clause, in
  the new fact's first clause).

Two kinds of one thing named by a word before it ("web deployment" / "worker deployment")
are no veto here: the word is as often the value that changed ("product manager" ->
"engineering manager"; read as a veto it cost 145 of the 873 updates of 1,448 closed exactly on the
tuning splits, 2026-11-29). The measures reading, where the value is a number, reads them.
"""

from __future__ import annotations

import re

from memex_core.domain.memory.change_words import COMMON_WORDS, change_verbs, names_change
from memex_rules.supersession_announced import bumped_elsewhere, changed_from_elsewhere
from memex_rules.supersession_measures import STOP_WORDS, stem, two_doses

#: The environment a fact tells of, its first named: two facts of two are two things.
_ENVIRONMENT = re.compile(
    r"(?i)\b(?:prod|production|staging|stage|stg|preprod|pre-prod|uat|qa|sandbox|local)\b"
)
_SAME_ENV = {"production": "prod", "stage": "staging", "stg": "staging", "pre-prod": "preprod"}


#: Words that name one side of a thing against another: two facts with two of a group
#: before one word tell of two things.
_SIDES = tuple(
    frozenset(group.split())
    for group in (
        "left right",
        "primary secondary backup tertiary",
        "front back rear",
        "upper lower top bottom",
        "inbound outbound",
        "incoming outgoing",
        "upstairs downstairs",
        "home away",
    )
)
_SIDED = re.compile(r"(?i)\b([a-z]+)[\s-]+([a-z][a-z-]*)")


def _sided(text: str) -> dict[str, set[str]]:
    """Word -> the side words right before it in ``text`` ("left eye": eye -> {left})."""
    found: dict[str, set[str]] = {}
    for match in _SIDED.finditer(text.lower()):
        side, word = match.group(1), match.group(2)
        if any(side in group for group in _SIDES):
            found.setdefault(word, set()).add(side)
    return found


def two_sides(new: str, old: str) -> bool:
    """Whether the facts name two sides of one group before one shared word."""
    one, other = _sided(new), _sided(old)
    for word in one.keys() & other.keys():
        for group in _SIDES:
            mine, theirs = one[word] & group, other[word] & group
            if mine and theirs and not mine & theirs:
                return True
    return False


_OPENING_WORDS = re.compile(r"[A-Za-z][a-z-]*")


#: A new fact that says it is told beside the earlier ones: "also", "as well", "too" ending
#: a clause ("started Pilates too, Thursdays"; not "too expensive").
_ADDED = re.compile(r"(?i)\b(?:also|as\s+well)\b|\btoo\b(?=\s*(?:$|[,.;:!)]))")
#: Where a fact's first clause ends: an addition told in a later one is of something else
#: ("nate got a third turtle, they've got a bigger tank as well", "noah's on £8/week now
#: he's doing the bins too").
_FIRST_CLAUSE = re.compile(
    r"[,;.!?]|\s[-\u2013\u2014]\s|\s(?:now|and|but|so|because|since)\s"
    r"(?=(?:he|she|they|we|i|it|you)(?:'s|'re|'m|'ve|'d)?\b)",
    re.IGNORECASE,
)
#: Words before a fact's opening noun that do not change what it names ("the", "our").
_DETERMINERS = frozenset(("the", "a", "an", "our", "my"))


def kind_first(new_text: str, old_text: str) -> bool:
    """Whether the new fact opens with a kind of the word the earlier one opens with bare,
    in lower case and not written in the earlier fact: "cleaner is £15/hr" / "window
    cleaner's £25 a visit now" (but "New parkrun PB" / "5k PB is 24:10" opens with no kind)."""
    new_words, old_words = _OPENING_WORDS.findall(new_text[:80]), _OPENING_WORDS.findall(old_text)
    while new_words and new_words[0].lower() in _DETERMINERS:
        new_words = new_words[1:]  # "the window cleaner's gone up to £25"
    while old_words and old_words[0].lower() in _DETERMINERS:
        old_words = old_words[1:]
    if len(new_words) < 2 or not old_words:
        return False
    kind, word = new_words[0], new_words[1]
    if kind in COMMON_WORDS or kind.endswith("ed") or word.endswith("ing") or change_verbs(kind):
        return False  # "upped sertraline to 100mg", "hot desking now": no kind
    return (
        kind.islower()
        and stem(word) == stem(old_words[0])
        and kind.lower() not in STOP_WORDS
        and stem(kind) not in {stem(w) for w in old_words}
    )


#: A time a fact gives: a weekday, a month, a clock time, an ordinal day, a frequency.
_TIME = re.compile(
    r"(?i)\b(?:mon|tue|tues|wed|thu|thurs|fri|sat|sun)(?:day)?s?\b|\b(?:jan|feb|mar|apr|jun|jul|"
    r"aug|sep|sept|oct|nov|dec)[a-z]*\b|\b\d{1,2}(?::\d{2})?\s?(?:am|pm)\b|\b\d{1,2}:\d{2}\b|"
    r"\b(?:daily|weekly|fortnightly|monthly|every)\b|\b\d{1,2}(?:st|nd|rd|th)?\s+may\b|"
    r"\b(?:19|20)\d\d\b|'\d\d\b"
)
#: A place in a building a fact gives: a room, a floor.
_PLACE = re.compile(r"(?i)\b(?:room|floor|building|hall|venue|upstairs|downstairs|basement)\b")


def time_and_place(new: str, old: str) -> bool:
    """Whether the earlier fact gives a time and no place and the new one a place and no
    time: "all hands is the 1st Thursday of the month" / "all hands now in the big room on
    4th floor" (not the other way: "office: 3rd floor" / "new office is 5 Hanover Sq, keys
    handed over Friday" moves the office, and says when in passing)."""
    new_time, old_time = bool(_TIME.search(new)), bool(_TIME.search(old))
    new_place, old_place = bool(_PLACE.search(new)), bool(_PLACE.search(old))
    return old_time and not old_place and new_place and not new_time


def of_another_thing(new: str, old: str) -> bool:
    """Whether the change ``new`` tells is plainly of a thing ``old`` does not hold (see the
    module doc)."""
    if bumped_elsewhere(new, old) or changed_from_elsewhere(new, old):
        return True
    one, other = _ENVIRONMENT.search(new), _ENVIRONMENT.search(old)
    if one and other and _env(one.group(0)) != _env(other.group(0)):
        return True
    if two_doses(new, old) and not names_change(new):
        return True  # "Alfie: Calpol 10ml every 4-6 hrs" / "Alfie: Nurofen 2.5ml, 3x a day"
    if _ADDED.search(_FIRST_CLAUSE.split(new, maxsplit=1)[0]):
        return True  # "mum has now started Pilates too, Thursdays": beside, not instead
    return two_sides(new, old) or kind_first(new, old) or time_and_place(new, old)


def _env(word: str) -> str:
    word = word.lower()
    return _SAME_ENV.get(word, word)
