"""What the learned update detector reads of a pair of facts of one owner: an earlier current
fact A and a new fact B, as numbers (:data:`NAMES`), cheaply and without needing the rules
to have read a slot of either (issue 30: the rules fit the wording they were written for;
these features are meant to carry over to wording nobody wrote a rule for).

The study that fits a model over them and scores it beside the rules is
``python -m benchmarks.fact_updates_train``. Not shipped: the gain it found at remember's
precision is small (section 21d of docs/benchmarks.md).
"""

from __future__ import annotations

import re
from functools import lru_cache

from memex_rules.supersession_slots import read_slots, rough_subject
from memex_rules.wording import key

#: The features, in the order :func:`features` gives them and the model's weights are kept.
NAMES = (
    "cosine",  # MiniLM cosine of A and B (the memory search's own vectors)
    "overlap",  # Jaccard of the stemmed content words
    "shared",  # stemmed content words in common (capped at 4, over 4)
    "same_subject",  # the rough subject (first word, possessive kept) is the same
    "same_head",  # a content word of A's first three is among B's first three
    "cue_new",  # B says a change ("now", "moved", "switched", "no longer", "from X to Y")
    "cue_old",  # A says a change itself
    "ends_new",  # B ends something ("no longer", "stopped", "quit", "left", "anymore")
    "number_both",  # both hold a number
    "name_both",  # both hold a capitalised name past their first word
    "value_new",  # B holds a number or a name A does not
    "past_new",  # B is told in the past tense ("was", "used to", "-ed" verb first)
    "future_new",  # B is a plan ("will", "going to", "next ...")
    "dated_new",  # B's own words date it earlier than it was said (a fact told late)
    "same_attribute",  # the rules read the same attribute in both (a partial reading)
    "unsure",  # the rules found the same subject but could not compare the two
    "adds_new",  # B adds beside A ("too", "as well", "also", "another", "both")
    "new_opener",  # B opens with a name A does not hold (another person's fact)
)

_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*|\d+(?:[.,:]\d+)?")
_STOP_WORDS = """
a an the and or but of to in on at for with by from as is are was were be been
being am do does did has have had i we you he she they it my our your his her
their its me us him them this that these those there here now not no so very
just also still then than into over about after before up down out off new old
some any all more most much many one two will would can could should may might
going get got gets really
"""
_STOP = frozenset(_STOP_WORDS.split())
_CUE = re.compile(
    r"\b(?:now|nowadays|moved|moving|switched|switching|no\s+longer|anymore|any\s+more|these\s+"
    r"days|new|instead|changed|changing|became|become|promoted|pushed|postponed|moved\s+up|"
    r"down\s+to|up\s+to|from\s+\S+(?:\s+\S+)?\s+to|replaced|replacing|started|starting|"
    r"took\s+over|transferred|upgraded|downgraded|renamed|raised|dropped|cut|bumped|"
    r"since|as\s+of|from\s+(?:now|monday|next)|after\s+the|got|joined|left|quit)\b",
    re.IGNORECASE,
)
_ENDS = re.compile(
    r"\b(?:no\s+longer|anymore|any\s+more|stopped|quit|left|gave\s+up|dropped|sold|"
    r"ended|cancelled|canceled|broke\s+up|retired|not\s+\w+ing\s+any)\b",
    re.IGNORECASE,
)
_PAST = re.compile(r"\b(?:was|were|used\s+to|had\s+been|back\s+in|back\s+then)\b", re.IGNORECASE)
_FUTURE = re.compile(
    r"\b(?:will|going\s+to|plans?\s+to|planning|next\s+(?:week|month|year|quarter|sprint)|"
    r"soon|tomorrow)\b",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"\d")
_ADDS = re.compile(r"\b(?:too|as\s+well|also|another|both|either|second)\b", re.IGNORECASE)
_OPENER = re.compile(r"^(?:(?:Mrs?|Ms|Dr)\.?\s+)?([A-Z][a-z]+)")
_DATED = 12 * 3600.0  # as the rules judge: a fact dated less than this before it was said


@lru_cache(maxsize=8192)
def _read(text: str) -> tuple[frozenset[str], tuple[str, ...], frozenset[str], str, bool]:
    """Content word keys, the first three of them, names, rough subject, has a number."""
    words = _WORD.findall(text)
    content = [key(w.lower()) for w in words if w.lower() not in _STOP]
    names = frozenset(w.lower() for w in words[1:] if w[:1].isupper() and w.lower() not in _STOP)
    return (
        frozenset(content),
        tuple(content[:3]),
        names,
        (rough_subject(text) or "").lower(),
        bool(_NUMBER.search(text)),
    )


@lru_cache(maxsize=8192)
def _attributes(text: str) -> frozenset[str]:
    return frozenset(slot.attribute for slot in read_slots(text))


def _numbers(text: str) -> frozenset[str]:
    return frozenset(re.findall(r"\d+(?:[.,:]\d+)?", text))


def features(
    old: str,
    new: str,
    similarity: float,
    *,
    new_dated: bool = False,
    unsure: bool = False,
) -> list[float]:
    """The pair's features, in :data:`NAMES` order. ``similarity``: the cosine of the two
    facts' vectors; ``new_dated``: the new fact's own words date it earlier than it was
    said; ``unsure``: the rules found the two of one subject and could not compare them."""
    a_words, a_head, a_names, a_subject, a_number = _read(old)
    b_words, b_head, b_names, b_subject, b_number = _read(new)
    shared = len(a_words & b_words)
    union = len(a_words | b_words) or 1
    new_values = (b_names - a_names) or (_numbers(new) - _numbers(old))
    return [
        float(similarity),
        shared / union,
        min(shared, 4) / 4,
        float(bool(a_subject) and a_subject == b_subject),
        float(bool(set(a_head) & set(b_head))),
        float(bool(_CUE.search(new))),
        float(bool(_CUE.search(old))),
        float(bool(_ENDS.search(new))),
        float(a_number and b_number),
        float(bool(a_names) and bool(b_names)),
        float(bool(new_values)),
        float(bool(_PAST.search(new))),
        float(bool(_FUTURE.search(new))),
        float(new_dated),
        float(bool(_attributes(old) & _attributes(new))),
        float(unsure),
        float(bool(_ADDS.search(new))),
        float(_new_opener(old, new)),
    ]


def _new_opener(old: str, new: str) -> bool:
    """ "Dev is vice-captain" against "Marcus is captain": B's opening name is not in A."""
    match = _OPENER.match(new.strip())
    if not match or match.group(1).lower() in _STOP:
        return False
    return match.group(1).lower() not in old.lower()


def dated(valid_from: float, said_at: float) -> bool:
    """Whether a fact's own words date it earlier than it was said (told late)."""
    return valid_from < said_at - _DATED
