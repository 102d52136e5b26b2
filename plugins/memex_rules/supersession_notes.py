"""A note keyed by the same words given a new value: "van: white Transit" -> "van: Vivaro".

People keep facts as notes of a key and a value ("default branch: master", "team chat =
Slack", "flour -> Shipton Mill", "Clifton GM - Rosa"). A later note with the same key and
another value replaces the earlier one, whatever the value is: a name, a product, a place,
a number. The key is read only when both facts are such notes (a colon, "=", an arrow or
a spaced dash after one to four words, or "is" after two to four lower-case words with a
value of a few words: "payments on-call this wk is Aisha"), or when the new fact opens with
the key and says it changed ("default branch renamed to main", "energy now Octopus"; after
a note told with "is", only renamed, changed or switched to).

Never: a key that is a person or a pronoun alone ("Noah: loves dinosaurs" / "Noah: 7 in
May" tell two things of Noah), a key of a list ("allergies: peanuts" / "allergies:
shellfish" both hold), a note's marker ("todo:", "fyi:", "reminder:"), the same value, or a
new value told as an addition ("also ...", "+ ...").
"""

from __future__ import annotations

import re

from memex_rules.rules_text import RELATIVES, word_set
from memex_rules.supersession_measures import stem

#: A short key, then its separator, then the value: "team chat = Slack".
_NOTE = re.compile(
    r"^\s*(?P<key>[A-Za-z][\w'&/.-]*(?:\s+[\w'&/.-]+){0,3}?)\s*"
    r"(?::|=|->|\u2192|\s[-\u2013]\s)\s*(?P<value>\S.*)$"
)
#: A key of two to four lower-case words, then "is": "cli repo default branch is master".
_IS_NOTE = re.compile(
    r"^\s*(?P<key>[a-z][\w'&/.-]*(?:\s+[a-z][\w'&/.-]*){1,3}?)\s+(?:is|are)\s+(?P<value>\S.*)$"
)
#: The key opening a new fact that says it changed: "default branch renamed to main".
_CHANGED = re.compile(
    r"^\s*(?P<key>[A-Za-z][\w'&/.-]*(?:\s+[\w'&/.-]+){0,3}?)\s+"
    r"(?:(?:is|are|'s)\s+)?(?:now|renamed\s+to|changed\s+to|switched\s+to|moved\s+to|"
    r"(?:is|are)\s+now)\s+(?P<value>\S.*)$",
    re.IGNORECASE,
)
#: A key renamed, after a note told with "is" ("cli repo default branch is master"): "is"
#: tells what a thing is like too ("platform team is 6 engineers"), which "now owns the k8s
#: upgrade" does not replace.
_RENAMED = re.compile(
    r"^\s*(?P<key>[A-Za-z][\w'&/.-]*(?:\s+[\w'&/.-]+){0,3}?)\s+"
    r"(?:renamed|changed|switched)\s+to\s+(?P<value>\S.*)$",
    re.IGNORECASE,
)
#: Keys that are a note's marker, not a thing: "todo: call mum".
_MARKERS = word_set(
    "todo to-do note notes nb ps fyi reminder reminders idea ideas tip tips update re q "
    "question edit also btw correction important urgent tl;dr summary remember"
)
#: Keys of a list: each note adds to it.
_LISTS = frozenset(
    stem(word)
    for word in word_set(
        "allergies allergy hobbies hobby interests likes dislikes goals tags skills "
        "languages favourites favorites wishlist ideas"
    )
)
#: Keys that are a person or a pronoun alone: "me", "mum", "my sister".
_PRONOUNS = word_set("me i we us my our")
_RELATIVE = re.compile(rf"(?i){RELATIVES}")
#: Words of a key written short: "this wk" is "this week".
_SHORT = {"wk": "week", "wks": "weeks", "svc": "service", "fav": "favourite", "fave": "favourite"}
#: A value told as an addition: "also shellfish", "+ Notion".
_ADDED = re.compile(r"^(?:also|too|plus|and|another|\+|&)\b|^\+", re.IGNORECASE)


def _key(text: str, pattern: re.Pattern[str]) -> tuple[tuple[str, ...], str] | None:
    found = pattern.match(text)
    if found is None:
        return None
    words = found.group("key").split()
    if words[0][:1].isupper() and len(words) == 1 and not words[0].isupper():
        return None  # "Noah: loves dinosaurs": a person's notes
    lowered = [w.lower().strip("'.") for w in words]
    if lowered[0] in _MARKERS or all(w in _PRONOUNS or _RELATIVE.fullmatch(w) for w in lowered):
        return None
    if stem(lowered[-1]) in _LISTS:
        return None
    return tuple(stem(_SHORT.get(w, w)) for w in lowered), found.group("value").strip()


def note_restated(new_text: str, old_text: str) -> tuple[str, str] | None:
    """Why ``new_text`` closes ``old_text`` as a new value of the same note's key, as
    (key, reason), or None."""
    old = _key(old_text, _NOTE)
    told_with_is = old is None
    old = old or _is_note(old_text)
    if old is None:
        return None
    new = _key(new_text, _NOTE) or _is_note(new_text)
    if new is None and _bare(old[1]):
        # "logs -> Datadog" / "logs now ship to Grafana Loki"; not "ml-service: deps managed
        # with uv" / "ml-service moved to python 3.12": a key with a clause is a subject
        new = _key(new_text, _RENAMED if told_with_is else _CHANGED)
        if new is not None and _OWNED.match(new[1]):
            return None  # "data team: 5 FTEs" / "data team now has 2 contractors"
    if new is None or new[0] != old[0]:
        return None
    old_value, new_value = old[1], new[1]
    if _ADDED.search(new_value) or _same_value(old_value, new_value):
        return None
    key = " ".join(old[0])
    return f"note: {key}", f"{key}: {old_value[:40]} -> {new_value[:40]}"


def _is_note(text: str) -> tuple[tuple[str, ...], str] | None:
    """A note told with "is" ("payments on-call this wk is Aisha"): its key and a value of a
    few words, else None (a clause: "the api is slow because the cache is cold")."""
    found = _key(text, _IS_NOTE)
    return found if found is not None and _bare(found[1]) else None


#: A value that tells another thing the key has: "has 2 contractors".
_OWNED = re.compile(r"^(?:has|have|had|got|gets|is|are|also)\b", re.IGNORECASE)


def _bare(value: str) -> bool:
    """A value of a few words before any comma or bracket: "Datadog", "white Transit"."""
    return len(re.split(r"[,(;]", value)[0].split()) <= 3


def _same_value(one: str, other: str) -> bool:
    """ "Slack" / "slack, same as before": the value opens alike."""
    a, b = (re.findall(r"[a-z0-9]+", v.lower()) for v in (one, other))
    return not a or not b or a[0] == b[0]


__all__ = ["note_restated"]
