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

from memex_rules.supersession_values import ANY, Slot, same_subject, same_value

#: Attributes a household shares: "We moved to Philadelphia" after "I live in Denver".
_SHARED = frozenset({"lives in", "address"})
_CHANGED = "*changed"


def _owners_meet(new: str, old: str, attribute: str, open_slot: bool) -> bool:
    if same_subject(new, old):
        return True
    return {new, old} == {"we", "user"} and (open_slot or attribute in _SHARED)


def open_closes(new: Slot, old: Slot) -> str | None:
    """Why the open slot ``new`` closes ``old`` (an open slot or one of the table), or None."""
    if not old.positive or old.attribute == ANY:
        return None
    if new.subject != ANY and not _owners_meet(new.subject, old.subject, old.attribute, True):
        return None
    who, what = old.subject, old.attribute
    named = new.previous and old.value and same_value(new.previous, old.value)
    if named and (new.attribute in (_CHANGED, what) or new.subject == ANY or old.single):
        return f"{who}: {what} changed from {old.value} to {new.value}"
    if new.attribute != what or new.subject == ANY:
        return None
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


def household(new: Slot, old: Slot) -> bool:
    """ "We moved to Philadelphia" / "I live in Denver": one home for both; "Standup: 9:45"
    (the user's standup) / "The standup is at 9:30": one standup."""
    if new.attribute != old.attribute:
        return False
    if {new.subject, old.subject} == {"we", "user"}:
        return new.attribute in _SHARED
    return _unowned(new.subject) == _unowned(old.subject) != ""


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
    return None
