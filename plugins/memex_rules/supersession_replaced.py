"""What a new fact says it replaced: the earlier fact that holds that thing closes.

"These days I cycle in instead of driving" closes "I drive to work"; "GP swapped the ramipril
for amlodipine" closes "I'm on ramipril for my blood pressure"; "Actually I prefer full
paragraphs, not bullet lists" closes "Please keep your answers in bullet points"; "Ellie no
longer opens on Tuesdays" closes "Ellie's bakery is open Tuesday to Saturday". The rule: a new
fact that names a thing as replaced, ended or no longer so ("instead of Y", "swapped Y for",
"replaced Y with", "switched from Y", "no more Y", "no longer Y", ", not Y", "Y was dropped",
"finished the Y") closes an earlier fact that names Y, when the two are told of the same owner:

- a content word of Y (its stem, up to the first preposition: "walks with Finn" is "walks")
  is a word of the earlier fact; for an ending ("finished the Y"), every word of Y is (its
  first four letters will do), so "finished the half marathon" ends no "training for a
  marathon";
- the two facts share a capitalised name outside Y, or neither names a person the other does
  not (two names, "I" beside "Tom", "I" beside "he", "my sister" beside "I" are two owners);
- the new fact is neither a question, a plan nor a wish, the earlier fact is no one-off event
  of a past time ("I visited York in May last year" / "I live in Leeds, not York"), and the
  two are not for two things ("MySQL for billing" / "Postgres instead of MySQL for
  analytics"; a swap's "for" names the new thing, not what it is for).

One cue regular expression is tried first (most facts name no replacement), then the phrases.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from memex_rules.rules_text import RELATIVES, word_set
from memex_rules.supersession_measures import stem

_MAX = 400
#: A word that every replacement below holds; a text without one names nothing replaced.
_CUE = re.compile(
    r"(?i)\b(?:instead|swapped|swapping|replaced|replacing|switched|no\s+(?:more|longer)|not|"
    r"dropped|ditched|scrapped|finished|completed|quit|stopped|gave|cancel\w*|removed|deleted|"
    r"left|retired|resigned|passed|moved\s+away|went|off|out|split|broke|closed|dead)\b"
)
_END = r"(?=[,.;:!?()]|\s+-\s|\s+(?:and|but|so|because|as|since|now|these|anymore|any\s+more)\b|$)"
#: An ending: the ended thing is the whole of it ("the half marathon" is not "a marathon").
_ENDED = re.compile(
    r"(?i)\b(?:finished|completed|quit|stopped|gave\s+up)\s+(?:the|my|our)\s+(?P<y>.+?)" + _END
)
#: Where a clause opens: the text's start, a comma or dash, or a joining word.
_CLAUSE = r"(?:^|[,;:(!.?\u2014\u2013]\s*|\s-\s+|\b(?:and|but|so|since|as|because)\s+)"
#: A thing gone, told after it: "bitwarden cancelled", "poetry removed in #412", "the pip reqs
#: are deleted", "Sketch licences not renewed", "old system switched off", "Franco's closed".
_GONE_AFTER = re.compile(
    r"(?i)" + _CLAUSE + r"(?:(?:and|but|so|since|as|because)\s+)?(?:the\s+|our\s+|my\s+)?"
    r"(?:old\s+)?(?P<y>[^,.;:!?()]+?)\s+"
    r"(?:(?:is|are|was|were|got|has\s+been|have\s+been)\s+)?"
    r"(?:cancell?ed|removed|deleted|not\s+renewed|switched\s+off|turned\s+off|shut\s+down|"
    r"closed(?:\s+down)?)\b"
)
#: A thing gone, told before it: "cancelling Virgin", "we're off lastpass", "out of LastPass
#: into Bitwarden"; or an old one dead ("old gmail is dead": not "Paris is dead in August").
_GONE_BEFORE = [
    re.compile(r"(?i)\bcancell?(?:ed|ing)\s+(?:the\s+|our\s+|my\s+)?(?P<y>.+?)" + _END),
    re.compile(
        r"(?i)\b(?:we're|we\s+are|i'm|i\s+am|he's|she's|they're)\s+(?:now\s+)?off\s+"
        r"(?:the\s+)?(?P<y>.+?)" + _END
    ),
    re.compile(r"(?i)\bout\s+of\s+(?:the\s+|our\s+|my\s+)?(?P<y>.+?)\s+(?:into|to)\b"),
    re.compile(r"(?i)\bold\s+(?P<y>[^,.;:!?()]+?)(?:'s|\s+is)\s+dead\b"),
]
#: A person gone from the earlier fact's role: "grace left", "Julia left the clinic", "Okafor
#: retired", "Mr Adeyemi went to another trust". Only a role ends with them (see _ROLE).
_PERSON_LEFT = re.compile(
    r"(?i)" + _CLAUSE + r"(?:(?:mr|mrs|ms|dr|miss)\.?\s+)?(?P<y>[a-z][\w-]*)"
    r"(?:'s|\s+has|\s+had)?\s+(?:left|retired|resigned|moved\s+away|went\s+to\s+another)\b"
)
#: A person or a pet who died ("Kiwi passed in the spring"), a couple who split ("Leo and
#: Hannah split up"): whatever the earlier fact held of them ends.
_PERSON_ENDED = [
    re.compile(
        r"(?i)" + _CLAUSE + r"(?:(?:mr|mrs|ms|dr|miss)\.?\s+)?(?P<y>[a-z][\w-]*)(?:'s|\s+has)?\s+"
        r"passed(?:\s+away|\s+on)?(?=[,.;:!?()]|\s+(?:in|on|at|last|this|away)\b|$)"
    ),
    re.compile(r"(?i)\b(?:and|&)\s+(?P<y>[a-z][\w-]*)\s+(?:have\s+|had\s+)?(?:split|broke)\s+up\b"),
]
_PEOPLE = (_PERSON_LEFT, *_PERSON_ENDED)
_GONE = [_GONE_AFTER, *_GONE_BEFORE, *_PEOPLE]
#: The roles a person's leaving ends: "I report to Grace" ends when "Grace left"; "I play
#: tennis with Tom" does not.
_ROLE = re.compile(
    r"(?i)\b(?:manager|boss|lead|reports?\s+to|gp|doctor|dr|dentist|therap\w*|consultant|"
    r"physio\w*|childminder|nanny|babysitter|pick-?up|landlord|landlady|agent|coach|tutor|"
    r"teacher|mentor|contact|owner|on[- ]call|cleaner|vet|trainer|counsell?or|accountant|"
    r"solicitor|instructor)\b"
)
#: The replaced thing Y, as written, in each way of naming it.
_REPLACED = [
    re.compile(r"(?i)\binstead\s+of\s+(?P<y>.+?)" + _END),
    re.compile(
        r"(?i)\b(?:swapped|swapping|replaced|replacing)\s+(?:out\s+)?(?P<y>.+?)\s+(?:for|with|to)\b"
    ),
    re.compile(r"(?i)\bswitched\s+(?:over\s+)?from\s+(?P<y>.+?)\s+to\b"),
    re.compile(r"(?i)\bno\s+(?:more|longer)\s+(?!than\b)(?P<y>.+?)" + _END),
    re.compile(r"(?i),\s+not\s+(?P<y>.+?)" + _END),
    re.compile(
        r"(?i)^\s*(?:the\s+|our\s+|my\s+)?(?P<y>[^,.;!?]+?)\s+(?:was|were|has\s+been|have\s+been|"
        r"got)\s+(?:dropped|ditched|scrapped)\b"
    ),
    _ENDED,
]
NOT_HELD = re.compile(
    r"(?i)\?|\b(?:if|might|maybe|perhaps|could|would|should|will|wants?|hoping|hope|thinking|"
    r"considering|going\s+to|wish|unless|whether|plan|planning)\b|'ll\b"
)
#: Where Y stops being the thing: a preposition or a conjunction after its first word.
_CUT = re.compile(
    r"(?i)\s+(?:in|on|at|with|for|to|from|by|of|about|because|and|but|or|so|than|when|after|"
    r"before|every|each|last|this|yesterday|today|tonight|ago)\b.*"
)
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
_FIRST = re.compile(r"(?i)\b(?:i|i'm|i've|i'd|me|my|mine|we|we're|we've|us|our)\b")
_THIRD = re.compile(r"(?i)\b(?:he|she|they|him|her|his|hers|them|their)\b")
_KIN = re.compile(r"(?i)\b(?:my|our|[A-Z][a-z]+'s)\s+" + RELATIVES + r"\b")
#: An opening capitalised word told as the one who does something: "Ana drives", "Ana is".
_DOER = re.compile(r"\s*[A-Z][a-z]+\s+(?:is|was|has|got|[a-z]+ed|[a-z]+[^s\W]s)\b")
_NUMBERED = re.compile(r"\s*\d")
_STOP = word_set(
    "the a an and or but so to of for on in at by with from as is are was were be been being "
    "has have had got get his her their our my your its it he she they we i them him this that "
    "these those now still just day days week weeks month year time times thing things one some "
    "any all more less very really usual new old same other way ways"
)
_NOT_NAMES = word_set(
    "i i'm i've i'd the a an my our we this that these those actually please monday tuesday "
    "wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays fridays "
    "saturdays sundays january february march april may june july "
    "august september october november december"
)


def _thing_words(thing: str) -> list[str]:
    """The words that name a thing as written, up to the first preposition after its head
    ("walks with Finn" is "walks"), without small and common words."""
    head, _, rest = thing.strip().partition(" ")
    return [
        word
        for word in _WORD.findall(head + _CUT.sub("", " " + rest))
        if word.lower() not in _STOP and len(word) >= 3
    ]


class _Named(NamedTuple):
    """What a text names as replaced or gone: stems of the things replaced, its words as
    written, stems of what it ended ("finished the Google cert") and of the people gone
    ("grace left"); ``replacing``: whether a replaced or ended form named it (not only a
    form of a thing told gone)."""

    stems: frozenset[str]
    written: frozenset[str]
    ended: frozenset[str]
    people: frozenset[str]
    replacing: bool


@lru_cache(maxsize=8192)
def _replaced(text: str) -> _Named | None:
    """What ``text`` names as replaced, ended or gone (see :class:`_Named`), or None."""
    text = text[:_MAX]
    if not _CUE.search(text) or NOT_HELD.search(text):
        return None
    stems: set[str] = set()
    written: set[str] = set()
    ended: set[str] = set()
    people: set[str] = set()
    replacing = False
    for pattern in (*_REPLACED, *_GONE):
        for match in pattern.finditer(text):
            for word in _thing_words(match.group("y")):
                bag = ended if pattern is _ENDED else people if pattern in _PEOPLE else stems
                bag.add(stem(word))
                written.add(word.lower().removesuffix("'s"))
                replacing = replacing or pattern in _REPLACED
    if not stems and not ended and not people:
        return None
    return _Named(
        frozenset(stems), frozenset(written), frozenset(ended), frozenset(people), replacing
    )


def _holds(words: frozenset[str], ended: frozenset[str]) -> bool:
    """Whether every ended word is a word of the earlier fact (its first four letters will do:
    "cert" / "certificate"), so "finished the half marathon" ends no "marathon"."""
    return bool(ended) and all(
        word in words or any(other[:4] == word[:4] for other in words) for word in ended
    )


@lru_cache(maxsize=8192)
def _words(text: str) -> frozenset[str]:
    return frozenset(stem(word) for word in _WORD.findall(text[:_MAX]) if len(word) >= 3)


@lru_cache(maxsize=8192)
def _names(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """Capitalised words of ``text`` (lower case, "'s" dropped): all, and those after the first
    word (an opening word may be a sentence's capital, not a name)."""
    every, later = set(), set()
    text = text[:_MAX]
    for at, match in enumerate(_WORD.finditer(text)):
        word = match.group(0)
        name = word.lower().removesuffix("'s")
        if not word[:1].isupper() or name in _NOT_NAMES or (word.isupper() and len(word) <= 3):
            continue
        if _NUMBERED.match(text, match.end()):
            continue  # "Stage 3", "Year 7": a numbered thing, not a name
        if match.start() and text[match.start() - 1].isdigit():
            continue  # "350Mb", "1Password": a unit or a product glued to a number
        every.add(name)
        if at > 0 or word.lower().endswith("'s") or _DOER.match(text):
            later.add(name)
    return frozenset(every), frozenset(later)


def one_owner(
    new_text: str, old_text: str, thing: frozenset[str] = frozenset(), people_told: bool = False
) -> bool:
    """Whether two facts are told of one owner: a capitalised name both hold (outside
    ``thing``), or no person the other does not name (two names, "I" beside "Tom", "I" beside
    "he", "my sister" beside "I" are two owners). ``people_told``: the new fact tells of the
    earlier fact's person leaving, so a person it names is the one who comes after ("grace
    left, interim lead is Omar" / "I report to Grace Liu"), not a second owner."""
    new_all, new_later = _names(new_text)
    old_all, old_later = _names(old_text)
    if bool(_KIN.search(new_text[:_MAX])) != bool(_KIN.search(old_text[:_MAX])):
        return False  # "Tom is single" / "Tom's brother got married"
    if (new_all & old_all) - thing:
        return True  # "Ellie no longer opens on Tuesdays" / "Ellie's bakery is open ..."
    new_later, old_later = new_later - thing, old_later - thing
    if new_later and old_later:
        return False  # two people: "Tom cycles instead of driving" / "Ana drives to work"
    if people_told:
        return True
    new_first, old_first = bool(_FIRST.search(new_text)), bool(_FIRST.search(old_text))
    new_third, old_third = bool(_THIRD.search(new_text)), bool(_THIRD.search(old_text))
    if new_first and (old_later or old_third) and not old_first:
        return False
    return not (old_first and (new_later or new_third) and not new_first)


#: What a fact is for ("We use MySQL for billing"): two facts for two things are two facts.
_SCOPE = re.compile(r"(?i)\bfor\s+(?:the\s+|our\s+|my\s+|its\s+)?([a-z][\w-]*(?:\s+[a-z][\w-]*)?)")
#: A one-off event told of a past time ("I visited York in May last year"): nothing held.
EVENT = re.compile(
    r"(?i)\b(?:last\s+(?:year|week|month|summer|winter|spring|autumn|weekend|night)|yesterday|"
    r"ago)\b"
)
_SWAP = re.compile(r"(?i)\b(?:swapped|swapping|replaced|replacing|switched)\b")


def _scopes(text: str) -> frozenset[str]:
    return frozenset(
        stem(word)
        for match in _SCOPE.finditer(text[:_MAX])
        for word in match.group(1).split()
        if word.lower() not in _STOP
    )


def _two_scopes(new_text: str, old_text: str, thing: frozenset[str]) -> bool:
    """ "We use Postgres instead of MySQL for analytics" / "We use MySQL for billing"; not when
    the new fact's "for" names the replacement ("swapped the ramipril for amlodipine")."""
    if _SWAP.search(new_text[:_MAX]):
        return False
    new, old = _scopes(new_text) - thing, _scopes(old_text) - thing
    return bool(new and old and not new & old)


def _gone_people(people: frozenset[str], new_text: str, old_text: str) -> frozenset[str]:
    """The people gone whom the earlier fact holds as a value, not as its owner ("Alice left"
    ends no "Alice lives in Paris"), and in a role unless they died or split up."""
    opening = _WORD.match(old_text.strip())
    owner = stem(opening.group(0).lower().removesuffix("'s")) if opening else ""
    people = frozenset(person for person in people if person != owner)
    ended = any(pattern.search(new_text[:_MAX]) for pattern in _PERSON_ENDED)
    if people and not ended and not _ROLE.search(old_text[:_MAX]):
        return frozenset()
    return people


def _name_run(text: str, stems: frozenset[str]) -> frozenset[str]:
    """The capitalised words beside a person's name in ``text`` ("Grace Liu" for "grace"),
    lower case: one person's names, not a second person."""
    words = _WORD.findall(text[:_MAX])
    run: set[str] = set()
    for at, word in enumerate(words):
        if stem(word.lower().removesuffix("'s")) not in stems:
            continue
        for near in words[at + 1 : at + 3]:
            if not near[:1].isupper():
                break
            run.add(near.lower().removesuffix("'s"))
    return frozenset(run)


def names_replaced(text: str) -> bool:
    """Whether ``text`` names a thing as replaced or ended ("instead of the bus", "switched
    from Vim to"): then whether it closes a fact is this module's to say. A thing told gone
    ("cancelled Virgin", "grace left") is not counted: a fact this module leaves open for
    its owner may still be a change of another reading's."""
    found = _replaced(text)
    return found is not None and found.replacing


def people_left(text: str) -> frozenset[str]:
    """The people ``text`` tells left ("grace left", "Mensah retired"), lower case: whether
    a fact of theirs ends is this module's to say (only a role ends with them)."""
    return frozenset(
        word.lower().removesuffix("'s")
        for match in _PERSON_LEFT.finditer(text[:_MAX])
        for word in _thing_words(match.group("y"))
    )


def replaced(new_text: str, old_text: str) -> tuple[str, str] | None:
    """Why ``new_text`` closes ``old_text`` by naming what the earlier fact held as replaced
    (see the module doc), as (key, reason), or None."""
    found = _replaced(new_text)
    if found is None:
        return None
    stems, written, ended, people, _ = found
    words = _words(old_text)
    shared = (stems & words) | (ended if _holds(words, ended) else frozenset())
    gone = _gone_people(people & words, new_text, old_text)
    shared |= gone
    if gone:
        written = written | _name_run(old_text, gone)
    if not shared or not one_owner(new_text, old_text, written, people_told=shared == gone):
        return None
    if EVENT.search(old_text[:_MAX]) or _two_scopes(new_text, old_text, stems | ended):
        return None
    what = " ".join(sorted(shared))
    return f"replaced: {what}", f"the new fact names {what} as replaced"
