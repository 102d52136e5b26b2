"""When a fact read by its shape (:mod:`memex_rules.supersession_open`) closes an earlier one.

- A change that names the old value closes the earlier fact holding it, whatever attribute
  the earlier fact was read into ("We replaced Jenkins with Buildkite" closes "Our CI is
  Jenkins"), and, when the earlier fact was not read at all, one of the same subject that
  names that value ("Jenkins builds our releases").
- Two open slots meet on the same subject, attribute and kind of value; a different value
  closes the earlier when both are single-valued or the new fact is told as a change ("Our
  sprints are now three weeks" after "Sprints are two weeks long").
- "We" and the user are one household for where they live, and for an open attribute told
  as "the"/"our" ("The rent is £1,350" / "My rent went up to £1,400").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from memex_rules.rules_text import word_set
from memex_rules.supersession_open_values import NEUTRAL, PRONOUN, value_kind
from memex_rules.supersession_values import ANY, Slot, same_subject, same_value

#: Attributes a household shares: "We moved to Philadelphia" after "I live in Denver".
_SHARED = frozenset({"lives in", "address"})
_CHANGED = "*changed"


#: Words before a name that do not change whom it names ("Uncle Ray" is "Ray").
_TITLE = re.compile(
    r"^(?:uncle|aunt|auntie|aunty|grandma|grandpa|gran|grandad|cousin|mr|mrs|ms|dr)\s+"
)


def _owners_meet(new: str, old: str, attribute: str, open_slot: bool) -> bool:
    if same_subject(new, old) or _TITLE.sub("", new) == _TITLE.sub("", old):
        return True
    if PRONOUN in (new, old):  # "Their rent is £1,350" after "Jess and Dom's rent is £1,200"
        return open_slot and "user" not in (new, old)
    return {new, old} == {"we", "user"} and (open_slot or attribute in _SHARED)


def open_closes(new: Slot, old: Slot) -> str | None:
    """Why the open slot ``new`` closes ``old`` (an open slot or one of the table), or None."""
    if not old.positive or old.attribute == ANY:
        return None
    if new.subject != ANY and not _owners_meet(new.subject, old.subject, old.attribute, True):
        return None
    who, what = old.subject, old.attribute
    named = new.previous and old.value and same_value(new.previous, old.value)
    if new.subject == ANY and not handed(new, f"{old.subject} {what} {old.value}"):
        return None  # "Bob handed the keys over to Ana": not what Bob owns
    if named and (new.attribute in (_CHANGED, what) or new.subject == ANY or old.single):
        return f"{who}: {what} changed from {old.value} to {new.value}"
    if new.subject == ANY or not same_attribute(new.attribute, what, new.change):
        return None
    if new.kind == "word" and not new.change:
        return None  # "My car is red" / "My car is fast": a plain word is a trait
    if trait(new.value) != trait(old.value) and "colo" not in what:
        return None  # "My car is a Tesla" after "My car is red": the same car, maybe
    if not old.kind and not old.single:
        return None  # a table attribute of many values ("uses"): only its own rules close it
    if old.kind and old.kind != new.kind and not (new.kind == "word" and new.change):
        return None
    if not new.positive:
        if not new.value or same_value(new.value, old.value):
            return f"{who}: {what} {old.value} no longer holds"
        return None
    if new.value == old.value or (not new.change and same_value(new.value, old.value)):
        return None
    if (new.single and old.single) or (new.change and old.single):
        return f"{who}: {what} changed from {old.value} to {new.value}"
    return None


#: Words that describe a thing rather than name it: a colour, or how it is.
_TRAITS = word_set(
    "red blue green black white grey gray silver yellow orange purple pink brown gold beige navy "
    "fast slow old big small huge tiny broken great nice good bad lovely amazing awful terrible "
    "brilliant rubbish expensive cheap noisy loud quiet clean dirty reliable unreliable comfy "
    "comfortable ugly beautiful gorgeous"
)


def trait(value: str) -> bool:
    """Whether ``value`` describes a thing ("red", "noisy") rather than names one."""
    return value in _TRAITS


def same_attribute(new: str, old: str, change: bool) -> bool:
    """The same attribute; told as a change, a wider or narrower name of it too ("Changed my
    login shell to fish" / "My shell is zsh"; "Arc is the default now" / "my default
    browser")."""
    if new == old:
        return True
    if not change or new == _CHANGED:
        return False
    one, other = set(new.split()), set(old.split())
    if new in NEUTRAL or old in NEUTRAL:
        return True
    return (one < other or other < one) and new.split()[-1] == old.split()[-1]


def handed(new: Slot, old: str) -> bool:
    """Whether what a handover or a replacement names ("took over the captaincy from Dev")
    is what the earlier fact is about ("Dev is the captain"); true when it names nothing."""
    if new.attribute in (_CHANGED, ANY):
        return True
    stems = {word[:5] for word in re.findall(r"[a-z0-9]{3,}", old.lower())}
    return any(word[:5] in stems for word in re.findall(r"[a-z0-9]{3,}", new.attribute))


def household(new: Slot, old: Slot) -> bool:
    """ "We moved to Philadelphia" / "I live in Denver": one home for both; "Standup: 9:45"
    (the user's standup) / "The standup is at 9:30": one standup."""
    if new.attribute != old.attribute:
        return False
    if {new.subject, old.subject} == {"we", "user"}:
        return new.attribute in _SHARED
    one, other = _unowned(new.subject), _unowned(old.subject)
    if one == other != "":
        return True
    # "The wedding got pushed back" / "Tom and Aisha's wedding is on 17 August": one has no owner
    a, b = new.subject, old.subject
    return new.attribute == "date" and (
        ("'s " not in a and "'s " in b and b.rpartition("'s ")[2] == a)
        or ("'s " not in b and "'s " in a and a.rpartition("'s ")[2] == b)
        or (new.change and _named_by_head(a, b))
    )


def _named_by_head(new: str, old: str) -> bool:
    """ "Freeze moved up to Dec 11" / "Code freeze starts Dec 15": one event, the later told by
    the last word of the earlier's name (a date told as a change; "release planning" and
    "sprint planning" stay two events)."""
    one, other = new.split(), old.split()
    if "'s" in new + old or len(one) == len(other) or min(len(one), len(other)) != 1:
        return False
    longer = one if len(one) > len(other) else other
    shorter = other if longer is one else one
    return len(longer) == 2 and longer[-1] == shorter[0] and shorter[0] not in ("we", "user")


def _unowned(subject: str) -> str:
    return subject.removeprefix("user's ")


_WORDS = re.compile(r"[a-z0-9@.+#-]+")


_OWNER_WORD = {"my": "user", "our": "we", "the": "we"}


def names_left(new: Sequence[Slot], old_text: str, old_subject: str | None) -> str | None:
    """The value a change of ``new`` says was left, when the earlier fact ``old_text`` (which
    the rules could not read) names it and is about the same subject, or None."""
    words = " " + " ".join(_WORDS.findall(old_text.lower())) + " "
    for slot in new:
        left = slot.previous or (slot.value if slot.ended else "")
        left = re.sub(r"^(?:old|previous|former)\s+", "", left)
        if not slot.change or len(left) < 3 or f" {left} " not in words:
            continue
        if slot.subject == ANY and not handed(slot, words):
            continue
        if slot.subject == ANY or (
            old_subject and _owners_meet(slot.subject, old_subject, "", True)
        ):
            return left
        owner = _OWNER_WORD.get(words.split()[0])  # "Our CI is Jenkins": ours
        if owner and _owners_meet(slot.subject, owner, "", True):
            return left
        if (
            slot.subject in ("we", "user")
            and old_subject
            and old_subject.split()[0] == left.split()[0]
        ):
            return left  # "Jenkins builds our releases", then we switched from it
        if slot.subject in ("we", "user") and slot.previous and _a_name_of_things(left, old_text):
            return left  # "Feature flags are in LaunchDarkly", then we swapped it for Unleash
    return None


#: Verbs that follow a person's name: "Priya uses Jenkins" is Priya's, not the team's.
_PERSON_VERB = re.compile(
    r"^(?-i:[A-Z])[\w'-]*\s+(?:uses|used|works|worked|lives|lived|likes|loves|prefers|runs|ran|"
    r"has|had|is|was|drives|owns|switched|moved|joined|left|plays|reads|says|said|thinks|wants|"
    r"got|went|does|did|manages|leads|sees|goes|takes|took|bought|sold)\b"
)


def _a_name_of_things(left: str, old_text: str) -> bool:
    """Whether the earlier fact names ``left`` (capitalised, not as its first word) and is
    about things rather than a person ("Feature flags are in LaunchDarkly", not "Priya uses
    LaunchDarkly")."""
    text = old_text.strip()
    if _PERSON_VERB.match(text):
        return False
    at = text.lower().find(left)
    return at > 0 and text[at : at + 1].isupper()


FIRST_PERSON = re.compile(r"(?i)^(?:i|i'm|i've|my|we|we're|our|user|user's)\b")
#: The user's, the team's, or a thing's of theirs ("The repo is hosted on GitHub").
OURS = re.compile(r"(?i)^(?:i|i'm|i've|my|we|we're|our|user|user's|the)\b")
_LOWER_WORDS = re.compile(r"[a-z0-9][\w.%-]*(?:\s+[a-z][\w-]*)?")


def _singular(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def moved_thing(new: Sequence[Slot], new_text: str, old_text: str) -> str | None:
    """ "Transferred the ISA to Vanguard" after "My stocks and shares ISA is with Trading 212":
    a change of the user's (or the team's) thing to a value, and an earlier fact of theirs
    that names the thing and a value of the same kind. The thing named in the new fact and
    the earlier value it replaces; None when the earlier fact names no such value."""

    said = [_singular(w) for w in _WORDS.findall(old_text.lower())]
    for slot in new:
        if not slot.kind or not slot.change or slot.subject == ANY:
            continue
        things = [_singular(w) for w in slot.attribute.split() if len(w) >= 2]
        if not any(thing in said for thing in things) or slot.value in old_text.lower():
            continue
        if not _same_head(things, said, old_text):
            continue  # "the data team" is not "the design team", "timeout" not "rate limit"
        if _names_kind(old_text, slot.kind, frozenset(things)):
            return slot.attribute
    return None


#: Words before a thing's name that say whose it is, not which one it is.
_OWNING = word_set("i we my our the your his her their its a an this that current s")
#: Verbs after a thing named without its head ("On-call pays £200": the on-call allowance).
_TOLD = word_set("is are was were pay cost get give take run")


def _same_head(things: Sequence[str], said: Sequence[str], old_text: str) -> bool:
    """Whether the earlier words ``said`` name the same thing as ``things`` (a name's words,
    its head last): the head itself ("contributions" / "contribute" too), not led by another
    modifier, a name or a lower-case kind ("travel budget" is neither "cloud budget" nor "AWS
    budget"), or a modifier told without a head ("On-call pays")."""
    head, modifiers = things[-1], things[:-1]
    stem = head[:7] if len(head) >= 8 else head
    at = next((i for i, word in enumerate(said) if word.startswith(stem)), -1)
    if at < 0:
        return any(
            word in modifiers and i + 1 < len(said) and said[i + 1] in _TOLD
            for i, word in enumerate(said)
        )
    if not modifiers:
        return True
    shared = at
    while shared and said[shared - 1] in modifiers:
        shared -= 1  # "the Berlin office rent": "office" is shared, "Berlin" is not
    before = said[shared - 1] if shared else ""
    if not before or before in _OWNING:
        return True
    # a word the new name lacks right before the head, or a name before the shared modifiers
    # ("the Berlin office rent" / "the London office rent"), makes another thing
    return shared < at and not _written_as_name(before, old_text)


def _written_as_name(word: str, text: str) -> bool:
    """Whether ``word`` (lower case) is written capitalised in ``text`` ("Berlin", "Slack")."""
    return any(
        found[:1].isupper() and found.lower() == word for found in re.findall(r"[\w'-]+", text)
    )


@lru_cache(maxsize=8192)
def _names_kind(text: str, kind: str, besides: frozenset[str]) -> bool:
    """Whether ``text`` names a value of ``kind`` other than the words ``besides``."""
    words = text.split()
    family = "number" if kind.startswith("quantity") else kind
    for start in range(1, len(words)):
        for size in (2, 1):
            raw = " ".join(words[start : start + size]).strip(",.;:!?")
            if not raw or _singular(raw.lower()) in besides or raw.lower() in ("i", "i'm"):
                continue
            found = value_kind(raw)
            if found.startswith("quantity"):
                found = "number"
            if found == family and found not in ("word", ""):
                return True
    return False


#: What a fact says was left: "cancelled PureGym", "Tom and I split up", "Bulb went bust".
_LEFT = (
    re.compile(
        r"(?i)\b(?:cancell?ed|dropped|ditched|sold|quit|left|gave\s+up|stopped\s+using|moved\s+off|"
        r"no\s+longer\s+(?:use|uses|using|run|runs|have|has)|"
        r"got\s+rid\s+of|uninstalled|deleted|closed|scrapped|binned|retired|switched\s+off|"
        r"turned\s+off|broke\s+up\s+with|split\s+(?:up\s+)?(?:with|from)|returned|returning|"
        r"handed\s+back|traded\s+in|part[\s-]exchanged)\s+(?:(?:my|the|our|his|"
        r"her|their|old)\s+)*(?P<x>[\w.+&'-]+(?:\s+(?!and\b|for\b|to\b|with\b|because\b|so\b)"
        r"[\w.+&'-]+){0,2})"
    ),
    re.compile(
        r"(?i)(?:^|(?<=[,;.!])\s*)(?:the\s+|my\s+|our\s+|old\s+)*"
        r"(?P<x>[\w.+&'-]+(?:\s+(?!was\b|were\b|got\b)[\w.+&'-]+)?)"
        r"\s+(?:and\s+I\s+"
        r"(?:split\s+up|broke\s+up)|(?:is|are|was)\s+(?:basically\s+|now\s+|finally\s+)?"
        r"(?:dormant|dead|gone|done|closed|over|finished|history|no\s+more)"
        r"(?=\s*(?:$|[,.;!-]|now\b|so\b|and\b|too\b))|went\s+(?:bust|under)|"
        r"shut\s+down|died|passed\s+away|stepped\s+down|resigned|retired|went\s+bust|"
        r"(?:was|were)\s+(?:dropped|sacked|fired|let\s+go|cancell?ed)|"
        r"(?:was\s+|got\s+)?(?:cancell?ed|scrapped|written\s+off|sold)(?=\s*(?:$|[,.;!]))|"
        r"went\s+(?:to\s+auction|for\s+scrap))\b"
    ),
    # what someone now does instead: "Karim firmed Manchester, not Leeds", "instead of driving"
    re.compile(
        r"(?i)(?:,\s*not|\binstead\s+of|\brather\s+than|\bin\s+place\s+of)\s+(?:the\s+|my\s+|our\s+)?"
        r"(?P<x>[\w.+&'-]+(?:\s+(?!and\b|for\b|to\b|with\b|because\b|so\b|anymore\b)[\w.+&'-]+)?)"
    ),
)


#: A day or a time after a value left: "returning the thinkpad fri".
_WHEN_AFTER = re.compile(
    r"(?:\s+(?:today|tomorrow|yesterday|tonight|mon|tue|tues|wed|weds|thu|thur|thurs|fri|sat|"
    r"sun|monday|tuesday|wednesday|thursday|friday|saturday|sunday|last|next|this))+$"
)


@lru_cache(maxsize=4096)
def left_values(text: str) -> tuple[tuple[str, int], ...]:
    """The values ``text`` says were left or ended, lower case, articles dropped; each with
    how it is told: 0 left by someone ("sold the Brompton"), 1 the sentence's subject ("Bulb
    went bust"), 2 what is done instead of it ("Manchester, not Leeds")."""
    found = []
    for how, pattern in enumerate(_LEFT):
        for match in pattern.finditer(text):
            if re.match(r"\s+for\s+(?!good\b)", text[match.end() :]) and "longer" in match.group(0):
                continue  # "no longer use Jenkins for builds": one use of it ended
            value = re.sub(r"[^\w.+&' -]", "", match.group("x").lower()).strip()
            value = _WHEN_AFTER.sub("", re.sub(r"'s$", "", value))
            if len(value) >= 3 and value not in ("job", "it", "that", "this", "them"):
                found.append((value, how))
    return tuple(found)


#: Words a restatement adds or drops around the same value ("now", "these days", "the").
_FILLER = re.compile(
    r"(?i)\b(?:now|currently|these\s+days|nowadays|still|again|anymore|any\s+more|finally|actually|"
    r"already|just|officially|the|a|an|our|my)\b"
)
_NUMBERED = re.compile(
    r"\S*\d\S*(?:\s+(?:am|pm|k|kg|km|mg|gb|tb|mb|%|percent|minutes?|hours?|days?|"
    r"weeks?|months?|years?|miles?|people|users?))?\b"
)


_TOLD_AS_CHANGE = re.compile(
    r"(?i)\b(?:now|these\s+days|nowadays|currently|anymore|any\s+more|from\s+now\s+on|as\s+of|"
    r"going\s+forward|instead)\b"
)


@lru_cache(maxsize=8192)
def template(text: str) -> tuple[str, tuple[str, ...]]:
    """``text`` with its numbered values taken out, and those values ("I go to the gym at 6am"
    -> ("i go to gym at #", ("6am",)))."""
    low = _FILLER.sub(" ", text.lower())
    values = tuple(m.group(0).strip(" .,") for m in _NUMBERED.finditer(low))
    shape = " ".join(re.sub(r"[^\w#\s]", " ", _NUMBERED.sub(" # ", low)).split())
    return shape, values


def same_but_value(new_text: str, old_text: str) -> str | None:
    """The same sentence with another number, time or version in it ("I go to the gym at 6am"
    -> "I go to the gym at 7am now"; "Default region is us-east-1" -> "... eu-west-1"): the
    old value, or None."""
    if not _TOLD_AS_CHANGE.search(new_text):
        return None  # "Table 6 is booked" after "Table 4 is booked": both may hold
    shape, values = template(new_text)
    old_shape, old_values = template(old_text)
    if len(shape.split()) < 3 or shape != old_shape or len(values) != 1 or values == old_values:
        return None
    return old_values[0]


_ROLE = re.compile(
    r"^(?P<who>(?:[A-Z][\w'-]*\s+){0,2}[A-Z][\w'-]*)\s+(?P<rest>(?:now\s+)?[a-z]+s\s+(?:the|our|my|for\s+us|"
    r"for\s+the)\b.*)$"
)


def role_taken(new_text: str, old_text: str) -> str | None:
    """ "Zoe babysits for us now" after "Hannah babysits for us on Fridays", "Gemma coaches the
    under-11s now" after "Steve coaches the under-11s": someone else does the same thing for
    the same people, told as a change. The earlier doer, or None."""
    if not _TOLD_AS_CHANGE.search(new_text):
        return None
    for clause in _SPLIT.split(new_text):  # "Hannah's gone off to uni so Zoe babysits now"
        doer = _role_taken(clause.strip(), old_text.strip())
        if doer:
            return doer
    return None


_SPLIT = re.compile(r"[,;]\s*|\s+(?:so|and|but)\s+")


def _role_taken(new_text: str, old_text: str) -> str | None:
    new, old = _ROLE.match(new_text), _ROLE.match(old_text)
    if not new or not old or new.group("who").lower() == old.group("who").lower():
        return None
    (shape, numbers), (old_shape, old_numbers) = (
        template(new.group("rest")),
        template(old.group("rest")),
    )
    a, b = shape.split(), old_shape.split()
    if not set(numbers) <= set(old_numbers):
        return None  # "the under-9s" is not "the under-11s"
    # the same verb and object; the earlier may say more of when ("on Fridays")
    if (len(a) >= 2 and a == b[: len(a)]) or (len(b) >= 2 and b == a[: len(b)]):
        return old.group("who")
    return None
