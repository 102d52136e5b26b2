"""Whether a fact says, in its own words, that it is a change (issue 30).

"Priya is engineering manager for payments now", "Marco says to use marco@rossidesign.it
from now on", "The bakery moved to Square Mile for coffee": a fact worded as a change
announces that something told earlier no longer holds, whatever the supersession judge
made of it. Recall's newer-first ordering (:mod:`memex_core.services.newer_first`) lets
such a later fact join an earlier one it is less close to. A small general list of
English words for a change, not readings tuned on any wording: a word here that is not a
change ("the new office is nice") only loosens which facts are compared, and newer first
still needs the two to answer the question about alike and to be about one thing.
"""

from __future__ import annotations

import re

#: Words for the present, which both a fact told as a change and a question about how
#: things stand say.
_NOW = r"now|nowadays|these\s+days|currently"

#: Verbs that name the change itself: a move to another tool, owner, place, number or name.
_VERBS = (
    r"switched|moved|changed|promoted|went\s+(?:up|down)|revised|no\s+longer|started|"
    r"migrated|migration|ported|upgraded|downgraded|renamed|replaced|transferred|"
    r"handed\s+(?:[\w-]+\s+){0,3}(?:over|off)|took\s+over|reassigned|raised|lowered|upped|"
    r"cut\s+(?:to|down)|dropped|cancel+ed|ripped\s+out|stopped|quit|rescheduled|"
    r"postponed|pushed\s+back|delayed|slipp(?:ed|ing)|bumped|down\s+to|up\s+to|"
    r"bought|sold|swapped|gone|cut\s*over|swap|paused|going\s+by|re(?:mortgaged|booked|located)|"
    r"left(?!\s+(?:back|wing|on|in|at|over|for|to\s+(?:do|go|pay)|of)\b)|took"
)
#: An arrow from the old value to the new one ("Usual order → decaf oat latte", "ETA -> April 5").
_ARROW = r"->|\u2192|=>"
#: Words for the step a process has reached: a later step replaces the one told before
#: ("laptop order: dispatched", then "laptop delivered, left with neighbour").
_STEPS = (
    r"approved|accepted|rejected|dispatched|shipped|delivered|completed|exchanged|signed|"
    r"confirmed|granted|denied|retired|moving\s+(?:\w+\s+)?to"
)
#: A day, month, date or quarter a new state starts from ("Rent 1,450 from May", "Standup:
#: 10:15 from Monday", "From 1 March we're at 88 Shoreditch High St"); not a range's start
#: ("open from Monday to Friday").
_WHEN_STARTING = (
    r"(?:(?:mon|tue|tues|wed|weds|thu|thur|thurs|fri|sat|sun)(?:day)?s?|"
    r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|q[1-4]|"
    r"\d{1,2}(?:st|nd|rd|th)?\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*)"
)
_CHANGE = re.compile(
    rf"\b(?:{_NOW}|{_VERBS}|{_STEPS}|from\s+now\s+on|new|any\s*more|instead|finally|"
    r"back\s+on|as\s+of|from\s+(?:today|tomorrow|next\s+\w+|this\s+\w+))\b|"
    rf"\bfrom\s+(?:the\s+)?{_WHEN_STARTING}\b(?!\s*(?:-|\u2013|to\b|until\b|till\b|through\b))|"
    r"(?:'s|'re|\bis|\bare|\bam)\s+off\b|"
    rf"{_ARROW}",
    re.IGNORECASE,
)
_CHANGE_VERB = re.compile(rf"\b(?:{_VERBS}|{_STEPS})\b|{_ARROW}", re.IGNORECASE)
_NEW = re.compile(r"\bnew\b", re.IGNORECASE)


def announces_change(text: str, *, new_counts: bool = True) -> bool:
    """Whether ``text`` says it is a change: "now", "these days", "switched", "moved",
    "promoted", "from now on", "went up", "revised", "new", "no longer", "started",
    "instead", "migrated", "renamed", "handed over", "raised", "slipped", "cancelled",
    "down to", "cut over", "back on", "as of", "from today", "is off" and the like. Not
    "actually": a neighbour stated with it ("Bob actually goes hiking every Monday") passed
    the fact asked word for word in benchmark 9's set.
    ``new_counts=False`` leaves "new" out, the weakest of the words: "John found a new gym
    for basketball" tells of another thing more often than of a change."""
    if not new_counts:
        text = _NEW.sub(" ", text)
    return _CHANGE.search(text) is not None


#: Words too common to tie two facts to one thing.
_COMMON_WORDS = (
    "the and for with from this that these those are was were been has have had not now "
    "new just our your their his her its who what which where when how why does did all "
    "any out off over one two some more most very still also into onto than then them "
    "they you she him get got use used using"
)
COMMON_WORDS = frozenset(_COMMON_WORDS.split())
_WORD = re.compile(r"[a-z][a-z0-9+#.-]*[a-z0-9+#]|[a-z]")


def content_words(text: str) -> set[str]:
    """The words of ``text`` that can tie it to another fact ("datadog", "jira-4412"), lower
    case, none of :data:`COMMON_WORDS` and none of two letters or fewer."""
    return {w for w in _WORD.findall(text.lower()) if len(w) > 2 and w not in COMMON_WORDS}


#: Kinds of value a person or thing has one of at a time: an email address, a web address,
#: a phone number, a handle.
_CONTACTS = (
    re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"),
    re.compile(r"\bhttps?://\S+|\bwww\.\S+"),
    re.compile(r"(?<!\w)\+?\d[\d ()-]{7,}\d\b"),
    re.compile(r"(?<![\w@])@[A-Za-z_]\w{2,}"),
)


def echoes_change(question: str, earlier: str, later: str) -> bool:
    """Whether ``later`` says it is a change (:func:`announces_change`) and names a word of
    ``earlier`` that ``question`` does not hold: "ripped out Datadog, we're on Grafana Cloud"
    after "monitoring is Datadog", asked "What do we use for monitoring?". Naming the
    earlier fact's own value ties the two to one thing however far apart their words sit
    from the question's. So does giving a new email address, web address, phone number or
    @handle where ``earlier`` gave one ("use marco@rossidesign.it from now on" after
    "Marco's email is marco.rossi@gmail.com"): a contact is had one at a time."""
    if not announces_change(later):
        return False
    if any(kind.search(earlier) and kind.search(later) for kind in _CONTACTS):
        return True  # a new address, number or handle for the one the earlier fact gave
    return bool((content_words(earlier) & content_words(later)) - content_words(question))


def names_change(text: str) -> bool:
    """Whether ``text`` names its change with a verb ("migrated", "switched", "renamed",
    "handed over", "cancelled", "slipped", "down to"), the step a process reached
    ("approved", "delivered") or an arrow, not only the present ("now", "these days") or
    "new": the stronger of the two signs :func:`announces_change` reads."""
    return _CHANGE_VERB.search(text) is not None


def change_verbs(text: str) -> list[tuple[int, int]]:
    """Where ``text`` names its change with a verb, a step or an arrow
    (:func:`names_change`), as (start, end) character spans, in order."""
    return [match.span() for match in _CHANGE_VERB.finditer(text)]


#: A question that asks how things stand now: progress ("yet", "so far", "how is ...
#: going", "where is X with"), a running count or sum ("how many", "how much"), or the
#: present said outright ("now", "these days", "currently", "latest", "still").
_STANDING = re.compile(
    rf"\b(?:{_NOW}|yet|so\s+far|at\s+the\s+moment|latest|"
    r"still|status|how\s+many|how\s+much)\b|\bhow(?:\s+is|\s+are|'s)\b.*\bgoing\b|"
    r"\bwhere\s+(?:is|are|'s)\b.*\bwith\b",
    re.IGNORECASE,
)


def asks_how_things_stand(question: str) -> bool:
    """Whether ``question`` asks how something stands now, which the latest of several facts
    about it tells: "Has Leo found a job yet?", "How is Dad's recovery going?", "How much
    has Sam raised?", "Where is Caroline with the adoption?", "What do we use now?"."""
    return _STANDING.search(question) is not None


__all__ = [
    "COMMON_WORDS",
    "announces_change",
    "asks_how_things_stand",
    "change_verbs",
    "content_words",
    "echoes_change",
    "names_change",
]
