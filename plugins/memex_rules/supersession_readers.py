"""From a rule's match to slots: each rule *kind* checks its value and puts it in one wording.

A rule of :mod:`memex_rules.supersession_table` says which kind of value it reads ("place",
"employer", "date", "count"...); :func:`read` hands the match to that kind's reader, which
gives no slot when the value is not of its kind ("Alice moved to the design team" is no
place; "The launch is on Friday" is a date, "The launch is on track" is not).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from memex_rules.rules_text import compile_pattern
from memex_rules.supersession_readers_changes import CHANGE_READERS
from memex_rules.supersession_table import Rule
from memex_rules.supersession_time import without_times
from memex_rules.supersession_values import (
    ANY,
    JOB,
    NEG,
    NOT_PLACE,
    Slot,
    is_date,
    normalise_subject,
    number,
    thing_name,
    tidy_date,
    tidy_value,
    tool_category,
    tool_name,
)
from memex_rules.supersession_words import (
    CLUBS,
    DIETS,
    NOT_ACTIVITY,
    OWNED_THINGS,
    POSSESSED_OF,
    PURPOSE_STOP,
    PURPOSES,
    SCHOOLS,
    STATUS_OF,
)
from memex_rules.value_kinds import members
from memex_rules.wording import key


def _pairs(text: str) -> dict[str, str]:
    """ "a:b c:d" -> {"a": "b", "c": "d"}: keeps the small word tables one line each."""
    return dict(pair.split(":", 1) for pair in text.split())


class _Match:
    """A rule's match with what every reader needs: subject, polarity, groups."""

    def __init__(self, rule: Rule, match: re.Match[str], source: str, change: bool) -> None:
        groups = match.groupdict()
        self.rule = rule
        self.match = match
        self.source = source
        self.groups = groups
        self.subject = normalise_subject(groups.get("s") or "") if groups.get("s") else None
        self.positive = NEG not in (groups.get("adv") or "").split()
        self.change = change or rule.change

    def text(self, name: str) -> str:
        return self.groups.get(name) or ""

    def slot(self, value: str, attribute: str | None = None, **more: object) -> Slot:
        fields: dict[str, object] = {
            "single": self.rule.single,
            "positive": self.positive,
            "change": self.change,
            "past": self.rule.past,
        }
        fields.update(more)
        return Slot(self.subject or "", attribute or self.rule.attribute, value, **fields)  # type: ignore[arg-type]


def _plain(m: _Match) -> list[Slot]:
    value = tidy_value(m.text("v"))
    previous = tidy_value(m.text("p"))
    return [m.slot(value, previous=previous)] if value else []


def _clock(m: _Match) -> list[Slot]:
    """A service by its time ("the 7:42"), kept whole: a colon would cut a plain value."""
    return [m.slot(m.text("v").strip().replace(".", ":"))]


def _place(m: _Match) -> list[Slot]:
    raw = m.text("v")
    value = tidy_value(raw)
    if not value or NOT_PLACE.match(raw.strip()) or tool_category(value) or is_date(raw):
        return []
    if any(pattern.match(value) for _name, pattern in STATUS_OF) or value.startswith("in "):
        return []  # "moved to in review" is a status
    attribute = "address" if value[:1].isdigit() else None
    return [m.slot(value, attribute, previous=tidy_value(m.text("p")))]


def _ended(m: _Match) -> list[Slot]:
    value = tidy_value(re.sub(r"(?i)^(?:job|position|role)\s+(?:at|with)\s+", "", m.text("v")))
    if not value or value in ("job", "position", "role", "work"):
        return []
    return [m.slot(value, ANY, positive=False, ended=True, single=True)]


def _switch(m: _Match) -> list[Slot]:
    value, previous = tidy_value(m.text("v")), tidy_value(m.text("p"))
    if not value or not previous:
        return []
    slots = [m.slot(value, ANY, previous=previous)]
    traded = "traded in" in m.match.group(0).lower() and m.text("v")[:1].isupper()
    if traded and not tool_category(value):  # a car is traded in; a phone is a tool of its own
        slots.append(m.slot(value, "car", change=True))
    return slots


_EMPLOYER_CUT = compile_pattern(r"\s+(?:in|as|on|at|from|since|for)\s.*$")
_ROLE_CUT = compile_pattern(r"\s+(?:at|for|in|with|on|from)\s.*$")


def _employer(m: _Match) -> list[Slot]:
    value = tidy_value(m.text("v"), _EMPLOYER_CUT)
    if value in ("herself", "himself", "themselves", "myself"):
        value = "self-employed"  # "works for himself"
    if not value or value in ("home", "free"):
        return []
    slots = [m.slot(value)]
    role = tidy_value(m.text("r"), _ROLE_CUT)
    if role:
        slots.append(m.slot(role, "job"))
    return slots


def _joined(m: _Match) -> list[Slot]:
    raw = m.text("v").strip()
    value = tidy_value(raw, _EMPLOYER_CUT)
    if not value or not raw[:1].isupper() or CLUBS.search(value):
        return []
    return _employer(m)


def _no_employer(m: _Match) -> list[Slot]:
    said = m.match.group(0).lower()
    if "retired" in said:
        value = "retired"
    elif "self-employed" in said or "freelanc" in said:
        value = "self-employed"
    else:
        value = "none"
    return [m.slot(value, positive=True)]


def _role(m: _Match) -> list[Slot]:
    value = tidy_value(m.text("v"), _ROLE_CUT)
    return [m.slot(value)] if value else []


_JOB_PHRASE = compile_pattern(rf"^(?P<j>(?:[\w-]+\s+){{0,3}}?{JOB})\b")


def _job_noun(m: _Match) -> list[Slot]:
    found = _JOB_PHRASE.match(m.text("v").strip())
    if found is None:
        return []
    value = tidy_value(found.group("j"))
    return [m.slot(value)] if value else []


def _school(m: _Match) -> list[Slot]:
    value = tidy_value(m.text("v"))
    return [m.slot(value)] if value and SCHOOLS.search(value) else []


def _noun(text: str) -> str:
    words = text.lower().replace("favorite", "favourite").replace("color", "colour").split()
    if words and len(words[-1]) > 3 and words[-1].endswith("s") and not words[-1].endswith("ss"):
        words[-1] = words[-1][:-1]
    return " ".join(words)


def _favourite(m: _Match) -> list[Slot]:
    value = tidy_value(without_times(m.text("v")))
    noun = _noun(tidy_value(m.text("a")))
    if not value or not noun:
        return []
    positive = NEG not in m.match.group(0).split()
    return [m.slot(value, f"favourite {noun}", positive=positive)]


def _best(m: _Match) -> list[Slot]:
    value = tidy_value(m.text("v"))
    return [m.slot(value, "likes best")] if value else []


def _pair(m: _Match) -> list[Slot]:
    value, other = tidy_value(m.text("v")), tidy_value(m.text("o"))
    if not value or not other or value == other:
        return []
    return [m.slot(value, "prefers " + " / ".join(sorted((value, other))))]


def _multi(m: _Match) -> list[Slot]:
    value = tidy_value(m.text("v"))
    if not value or value.startswith(("to be called", "to be known")):
        return []
    return [m.slot(value)]


def _multi_not(m: _Match) -> list[Slot]:
    value = tidy_value(m.text("v"))
    return [m.slot(value, positive=False)] if value else []


def _thing_ended(m: _Match) -> list[Slot]:
    """ "Heroku was retired": whoever used it, the team or the user, no longer does."""
    value = tidy_value(m.text("v"))
    if not value or normalise_subject(m.text("v")) in (None, "user", "we"):
        return []
    return [
        Slot(who, ANY, value, positive=False, ended=True, change=True) for who in ("we", "user")
    ]


def _fixed(m: _Match) -> list[Slot]:
    return [m.slot(m.rule.value)]


_DATE_SUBJECT_END = compile_pattern(r"\s+(?:date|day|time)$")


def _date(m: _Match) -> list[Slot]:
    if m.subject in (None, "user", "we"):
        return []
    raw = re.sub(r"\s*(?:,|;|\s(?:and|but|because|instead|so|which)\s).*$", "", m.text("v"))
    raw = re.sub(rf"(?i)\s+(?:{NEG}|now|again|instead|anymore)$", "", raw.strip())
    if not is_date(raw):
        return []
    subject = _DATE_SUBJECT_END.sub("", m.subject or "")
    return [Slot(subject, "date", tidy_date(raw), change=m.change, positive=m.positive)]


_VERSION_STOP = {"version", "to", "from", "v", "the", "a", "an", "it", "them", "release"}


def _version(m: _Match) -> list[Slot]:
    tool = tool_name(re.sub(r"^(?:on|with)\s+", "", " ".join(m.text("a").lower().split())))
    if not tool or tool in _VERSION_STOP or tool.split()[-1] in ("to", "from"):
        return []
    if is_date(f"{tool} {m.text('v')}"):
        return []  # "moved to June 1" is a date
    subject = "we"  # one owner's tools: "we", "the project", "production" are the same
    previous = m.text("p").lower()
    return [
        Slot(subject, f"version of {tool}", m.text("v").lower(), change=True, previous=previous)
    ]


_SWITCH_VERB = compile_pattern(r"(?:switched|replaced|changed|transitioned|made\s+the\s+switch)")


def _tool(m: _Match) -> list[Slot]:
    value = tool_name(tidy_value(m.text("v")))
    previous = tool_name(tidy_value(m.text("p")))
    if not value:
        return []
    if m.rule.single and not (
        tool_category(value) or _SWITCH_VERB.search(m.match.group(0)) or previous
    ):
        return []
    if "@" in value:
        return [m.slot(value.split()[0], "email", single=True)]
    if previous and not tool_category(value) and not tool_category(previous):
        return [m.slot(value, ANY, previous=previous, single=True)]  # "changed from law to art"
    return [m.slot(value, previous=previous, single=False)]


def _name(m: _Match) -> list[Slot]:
    raw = re.sub(r"(?i)^(?:simply|just)\s+", "", m.text("v").strip())
    value = tidy_value(raw)
    if not value or value.startswith(("after ", "by ")):
        return []
    if "w" in m.groups and not raw[:1].isupper():
        return []  # "We call the app Nimbus" needs a name, not "we call the shots"
    return [m.slot(value, previous=tidy_value(m.text("p")))]


#: What a relationship word says of the status: "wife" -> married, "fiancée" -> engaged.
_STATUS_WORDS = _pairs(
    "married:married wed:married wife:married husband:married engaged:engaged fiance:engaged "
    "fiancé:engaged fiancee:engaged fiancée:engaged unmarried:single"
)


def _relationship(m: _Match) -> list[Slot]:
    if m.rule.pattern.startswith("(?:has\\s+been\\s+seeing") and not m.text("v")[:1].isupper():
        return []  # "is with her sister" is company, "is with Jonas" a partner
    status = (m.text("st") or "partner").lower()
    status = _STATUS_WORDS.get(status, status)
    if status in ("dating", "girlfriend", "boyfriend", "in a relationship"):
        status = "partner"
    name = tidy_value(re.sub(r"(?i)^(?:named|called)\s+", "", m.text("v")))
    return [m.slot(f"{status} {name}".strip())]


_BIRTH = compile_pattern(r"\b(?:baby|birth|son|daughter|twins|child|boy|girl)\b")


def _birth(m: _Match) -> list[Slot]:
    return [m.slot("no")] if _BIRTH.search(m.match.group(0)) else []


def _count(m: _Match) -> list[Slot]:
    count = number(m.text("c"))
    if count is None:
        return []
    thing = thing_name(m.text("a") or "children")
    slots = [m.slot(str(count), f"has {thing}")]
    named = _NAMED.search(m.match.group(0))
    if named and named.group("n")[:1].isupper():  # "a hamster named Pepper": Pepper may end
        slots.append(m.slot(named.group("n").lower(), "has named", single=False))
    return slots


_NAMED = compile_pattern(r"\b(?:named|called)\s+(?P<n>[\w-]+)")


def _count_end(m: _Match) -> list[Slot]:
    thing = thing_name(m.text("a"))
    return [m.slot("", f"has {thing}", positive=False, ended=True)]


def _status(m: _Match) -> list[Slot]:
    said = " ".join(m.text("v").lower().split())
    if m.subject in (None, "user"):
        return []
    for name, pattern in STATUS_OF:
        if pattern.match(said):
            return [m.slot(name)]
    return []


def _renamed(m: _Match) -> list[Slot]:
    """ "Falcon has been renamed to Hawk": whatever was called Falcon (any subject)."""
    value, previous = tidy_value(m.text("v")), tidy_value(m.text("p"))
    return [Slot(ANY, "name", value, change=True, previous=previous)] if value and previous else []


def _pet_gone(m: _Match) -> list[Slot]:
    """ "Rex passed away": the pet named Rex, whoever's it was."""
    name = m.text("v").lower()
    return [Slot(ANY, "has named", name, positive=False, ended=True, change=True)] if name else []


def _count_gone(m: _Match) -> list[Slot]:
    """ "Lena no longer has her parrot" (and only with the negation)."""
    return _count_end(m) if not m.positive else []


def _email_for(m: _Match) -> list[Slot]:
    return [m.slot(m.text("v").lower().rstrip(".,;"), "email", change=True)]


def _age(m: _Match) -> list[Slot]:
    years = number(m.text("v"))
    if years is None or not 0 < years < 125:
        return []
    return [m.slot(str(years))]


def _contact(m: _Match) -> list[Slot]:
    value = m.text("v").strip().lower().rstrip(".")
    if "@" in value:
        return [m.slot(value.split()[0], "email")]
    digits = re.sub(r"\D", "", value)
    return [m.slot(digits, "phone")] if len(digits) >= 6 else []


def _possessed(m: _Match) -> list[Slot]:
    noun = " ".join(m.text("a").lower().split())
    attribute = next((name for name, pattern in POSSESSED_OF if pattern.match(noun)), noun)
    raw = m.text("v")
    if attribute == "date" or noun.endswith("date"):
        date = re.sub(r"\s*(?:,|;|\s(?:and|but|because|instead)\s).*$", "", raw).strip()
        if not is_date(date):
            return []
        return [m.slot(tidy_date(date), "date" if attribute == "date" else noun)]
    raw = without_times(raw)
    if attribute == "version":
        tool = m.subject.split("'")[0] if m.subject else ""
        return [Slot("we", f"version of {tool}", raw.strip().lower())] if tool else []
    if attribute == "age":
        years = number(raw.split()[0]) if raw.split() else None
        return [m.slot(str(years), "age")] if years is not None else []
    if attribute == "email":
        return [m.slot(raw.strip().lower().split()[0], "email")] if raw.strip() else []
    if attribute == "phone":
        digits = re.sub(r"\D", "", raw)
        return [m.slot(digits, "phone")] if digits else []
    if attribute == "relationship":
        status = _STATUS_WORDS.get(noun, "partner")
        value = tidy_value(raw)
        if noun.endswith("status"):
            return [m.slot(value, "relationship")] if value else []
        return [m.slot(f"{status} {value}", "relationship")] if value else []
    if attribute == "status":
        m.groups["v"] = raw
        return _status(m)
    employer = re.match(r"(?i)(?:at|with|for)\s+(?P<v>.+)", raw.strip())
    if attribute == "job" and employer:  # "User's new job is at Globex"
        return _employer_value(m, employer.group("v"))
    value = tidy_value(raw)
    return [m.slot(value, attribute)] if value else []


def _employer_value(m: _Match, raw: str) -> list[Slot]:
    value = tidy_value(raw, _EMPLOYER_CUT)
    return [m.slot(value, "works at")] if value else []


_PURPOSE_TAIL = compile_pattern(r"\s+(?:instead|now|too|again|as\s+well|from\s+now\s+on)$")


def _purpose(m: _Match) -> list[Slot]:
    raw_subject = _PURPOSE_TAIL.sub("", (m.text("s") or "").strip())
    if not raw_subject or PURPOSE_STOP.match(raw_subject.lower()):
        return []
    first = m.rule.kind == "purpose_first"
    words = raw_subject.split()
    previous = tidy_value(m.text("p"))
    if first and not PURPOSES.match(words[-1].lower()) and not previous:
        return []  # "Alice is on vacation", "My sister lives in Rome": no purpose
    subject = normalise_subject(raw_subject)
    if subject in (None, "user", "we"):
        return []
    value = tidy_value(re.sub(r"(?i)^(?:using|to\s+use)\s+", "", m.text("v")))
    if not value or value == subject:
        return []
    return [Slot(subject, m.rule.attribute, value, change=m.change, previous=previous)]


#: The purpose a verb names: "we host on AWS" -> hosting (spaces written as "_").
_PURPOSE_OF_VERB = {
    verb.replace("_", " "): purpose.replace("_", " ")
    for verb, purpose in _pairs(
        "host:hosting deploy:deployment build:builds test:testing monitor:monitoring log:logging "
        "track_bugs:issue_tracking track_issues:issue_tracking chat:team_chat store_data:storage"
    ).items()
}


def _purpose_verb(m: _Match) -> list[Slot]:
    """ "We host on AWS" -> hosting: aws; "we now deploy with GitHub Actions" -> deployment."""
    verb = " ".join(
        w[:-1] if w.endswith("s") and w != "bugs" else w for w in m.text("s").lower().split()
    )
    verb = verb.replace("issue", "issues") if verb.endswith("issue") else verb
    purpose = _PURPOSE_OF_VERB.get(verb)
    value = tidy_value(m.text("v"))
    if purpose is None or not value or is_date(m.text("v")):
        return []
    return [Slot(purpose, "tool", value, change=m.change)]


def _owner(m: _Match) -> list[Slot]:
    subject = m.subject or ""
    if not OWNED_THINGS.search(subject):
        return []
    value = tidy_value(m.text("v"))
    return [Slot(subject, "owner", value, change=m.change)] if value else []


def _email_to_me(m: _Match) -> list[Slot]:
    return [Slot("user", "email", m.text("v").lower().rstrip(".,;"), change=True)]


def _favourite_of(m: _Match) -> list[Slot]:
    value, noun = tidy_value(m.text("v")), _noun(m.text("a"))
    return [m.slot(value, f"favourite {noun}")] if value and noun else []


def _diet(m: _Match) -> list[Slot]:
    value, previous = m.text("v").lower(), m.text("p").lower()
    if value not in DIETS or (previous and previous not in DIETS):
        return []
    return [m.slot(value, previous=previous)]


def _car(m: _Match) -> list[Slot]:
    raw = m.text("v").strip()
    value = tidy_value(raw)
    if not raw[:1].isupper() or not value:
        return []
    if m.text("adj") and not any("car" in member.kinds for member in members(value)):
        return []  # "a bright red Ford Capri" is a car; "a lovely Labrador" is not
    return [m.slot(value)]


_HOBBY_TAIL = compile_pattern(
    r"\s+(?:lessons?|classes|class|practice|sessions?|training|club|every\s+\w+|"
    r"each\s+\w+|twice\s+a\s+\w+|once\s+a\s+\w+|regularly|weekly|daily|on\s+\w+days?)$"
)


def _hobby(m: _Match) -> list[Slot]:
    alone = m.text("w")  # "Omar climbs", "Omar xneg climbs": the verb is the activity
    value = tidy_value(m.text("v") or alone)
    previous = None
    while previous != value:
        previous, value = value, _HOBBY_TAIL.sub("", value)
    if not value or is_date(value) or value.startswith(("to ", "it", "that", "this")):
        return []
    if alone and (
        value in NOT_ACTIVITY
        or not value.endswith(("s", "ing"))
        or len(m.text("s").split()) > 2  # "Julia bought a Ford Focus" is no activity "focus"
    ):
        return []
    # "climbing" / "climbs" / "climb" are one activity (the consolidator's word keys)
    return [m.slot(" ".join(key(word) for word in value.split()))]


_READERS: dict[str, Callable[[_Match], list[Slot]]] = {
    "plain": _plain,
    "place": _place,
    "ended": _ended,
    "switch": _switch,
    "employer": _employer,
    "joined": _joined,
    "no_employer": _no_employer,
    "role": _role,
    "job_noun": _job_noun,
    "school": _school,
    "favourite": _favourite,
    "best": _best,
    "pair": _pair,
    "multi": _multi,
    "multi_not": _multi_not,
    "fixed": _fixed,
    "thing_ended": _thing_ended,
    "date": _date,
    "version": _version,
    "tool": _tool,
    "name": _name,
    "relationship": _relationship,
    "birth": _birth,
    "count": _count,
    "count_end": _count_end,
    "status": _status,
    "age": _age,
    "renamed": _renamed,
    "pet_gone": _pet_gone,
    "count_gone": _count_gone,
    "email_for": _email_for,
    "contact": _contact,
    "possessed": _possessed,
    "purpose": _purpose,
    "purpose_first": _purpose,
    "purpose_verb": _purpose_verb,
    "owner": _owner,
    "email_to_me": _email_to_me,
    "favourite_of": _favourite_of,
    "diet": _diet,
    "car": _car,
    "clock": _clock,
    "hobby": _hobby,
}


def read(rule: Rule, match: re.Match[str], source: str, change: bool) -> list[Slot]:
    """The slots ``rule``'s match stands for; none when its value is not of the rule's kind."""
    found = _Match(rule, match, source, change)
    if found.subject is None and rule.kind not in (
        "version",
        "email_to_me",
        "thing_ended",
        "purpose_verb",
        "renamed",
        "pet_gone",
        "progress",
    ):
        return []
    slots = (_READERS.get(rule.kind) or CHANGE_READERS[rule.kind])(found)
    if found.subject and " and " in found.subject and "'s " not in found.subject:  # each of them
        parts = [normalise_subject(part) for part in found.subject.split(" and ")]
        slots = [
            replace(slot, subject=part)
            for slot in slots
            for part in (parts if slot.subject == found.subject else [slot.subject])
            if part
        ]
    return slots
