"""A role held by one person at a time, taken by another: a new fact closes an earlier one
when both name who holds the same one-holder role (a CTO, a tech lead, an admin, a best man,
the biggest customer) and the holders differ.

"Ravi is the tech lead on the search service" -> "Search's new tech lead is Olga"; "Marcus is
our CTO" -> "Marcus left, and Hana is acting CTO"; "Tom asked Luke to be his best man" ->
"Luke can't make it, so Tom's brother Alfie is best man". The earlier fact closes when

- both name a holder (a capitalised name) of one role of the list, in one of a few shapes
  ("X is (the|our|acting|new) ROLE", "SCOPE's new ROLE is X", "the ROLE is X", "made X ROLE",
  "asked X to be ROLE", "X overtook Y as ROLE", "X was confirmed as ROLE"), or by its verb
  ("Steve coaches the under-11s", "The under-11s have a new coach, Gemma", "Zoe babysits now");
- the holders differ, and the new fact does not also name the earlier holder in the role;
- neither names a scope the other does not ("the tech lead on search" / "the tech lead on
  payments" stay), nor a former holder ("ex-CTO"), a plan or a wish;
- or the same holder's acting role is confirmed ("Hana is acting CTO" -> "Hana was confirmed
  as CTO").

The reading is one word-set check, then a few regular expressions per text, cached.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from memex_rules.rules_text import word_set

#: Roles one person (or company) holds at a time, as written -> one name for each.
_ROLES = {
    "cto": "cto", "ceo": "ceo", "cfo": "cfo", "coo": "coo", "cpo": "cpo", "ciso": "ciso",
    "tech lead": "tech lead", "technical lead": "tech lead", "team lead": "team lead",
    "engineering manager": "engineering manager", "product owner": "product owner",
    "scrum master": "scrum master", "product manager": "product manager",
    "admin": "admin", "administrator": "admin", "chair": "chair", "chairperson": "chair",
    "treasurer": "treasurer", "captain": "captain", "head coach": "coach", "coach": "coach",
    "best man": "best man", "maid of honour": "maid of honour", "maid of honor": "maid of honour",
    "headteacher": "headteacher", "head teacher": "headteacher", "landlord": "landlord",
    "biggest customer": "biggest customer", "biggest client": "biggest customer",
    "biggest account": "biggest customer", "largest customer": "biggest customer",
    "main contact": "main contact", "point of contact": "main contact",
    "babysitter": "babysitter", "tutor": "tutor",
}  # fmt: skip
#: A role told by its verb ("Steve coaches the under-11s", "Zoe babysits now").
_DOING = {
    "coaches": "coach", "babysits": "babysitter", "tutors": "tutor", "chairs": "chair",
    "captains": "captain",
}  # fmt: skip
_ROLE = "|".join(sorted((re.escape(r) for r in _ROLES), key=len, reverse=True))
_DOES = "|".join(_DOING)
_ANY_ROLE = re.compile(rf"(?i)\b(?:{_ROLE}|{_DOES})\b")
_NAME = r"(?P<who>[A-Z][\w&.-]*(?:\s+[A-Z][\w&.-]*)?)"
_LEAD = r"(?:(?:the|our|my|his|her|their|its|acting|interim|new|current|permanent|now)\s+)*"
_SCOPE = r"(?:\s+(?:on|of|for|at|in)\s+(?:the\s+|our\s+)?(?P<scope>[A-Za-z][\w-]*))?"
_SHAPES = [
    re.compile(rf"{_NAME}\s+(?:is|'s|has\s+been|became|becomes)\s+(?:now\s+)?{_LEAD}"
               rf"(?P<role>(?i:{_ROLE}))\b{_SCOPE}"),
    re.compile(rf"{_NAME}\s+(?:was|got|has\s+been|is)\s+(?:now\s+)?(?:confirmed|appointed|made|"
               rf"named|promoted|elected|voted\s+in)\s+(?:as\s+)?{_LEAD}(?P<role>(?i:{_ROLE}))\b{_SCOPE}"),
    re.compile(rf"(?i:(?P<scope>[a-z][\w-]*)'s\s+)?{_LEAD}(?i:(?P<role>{_ROLE}))\s+"
               rf"(?:is|will\s+be)\s+(?:now\s+)?{_NAME}"),
    re.compile(rf"(?P<scope>[A-Z][\w-]*)\s+asked\s+{_NAME}\s+to\s+be\s+{_LEAD}"
               rf"(?P<role>(?i:{_ROLE}))\b"),  # "Tom asked Luke to be his best man": Tom's
    re.compile(rf"(?:made|asked|appointed|named)\s+{_NAME}\s+(?:to\s+be\s+)?{_LEAD}"
               rf"(?P<role>(?i:{_ROLE}))\b{_SCOPE}"),
    re.compile(rf"{_NAME}(?:\s+from\s+next\s+door)?\s+(?P<role>{_DOES})\b(?:\s+(?:for\s+)?"
               rf"(?:the\s+)?(?P<scope>[A-Za-z][\w-]*))?"),
    re.compile(rf"(?i:the\s+)?(?P<scope>[\w-]+)\s+(?:have|has|got)\s+a\s+new\s+"
               rf"(?P<role>(?i:{_ROLE})),?\s+{_NAME}"),
    re.compile(rf"{_NAME}\s+(?:overtook|replaced|took\s+over\s+from)\s+[A-Z][\w&.-]*\s+as\s+"
               rf"{_LEAD}(?P<role>(?i:{_ROLE}))\b{_SCOPE}"),
]  # fmt: skip
_NOT_NAMES = word_set(
    "the our my his her their its a an any every no it he she they we i this that who which "
    "what acting interim new"
)
_NOT_HELD = re.compile(
    r"(?i)\?|\b(?:if|might|maybe|perhaps|could|would|should|will\s+(?!be\b)|wants?|hoping|hope|"
    r"thinking|considering|plans?\s+to|going\s+to|wish|unless|whether|used\s+to|former|ex-|"
    r"previous|old|once|was\s+(?:our|the|my)|no\s+longer|not)\b"
)
_NO_SCOPE = word_set("the our us me them team company now every on at in")
_OURS = re.compile(r"(?i)\b(?:our|my|us|me)\b")
_ACTING = re.compile(r"(?i)\b(?:acting|interim|temporary|caretaker)\b")


@dataclass(frozen=True)
class _Held:
    role: str
    who: str
    scope: str
    acting: bool
    ours: bool  # "our CTO": the user's or the team's own, not one of a named other


@lru_cache(maxsize=8192)
def _held(text: str) -> tuple[_Held, ...]:
    text = text[:400]
    if not _ANY_ROLE.search(text):
        return ()
    found = []
    for shape in _SHAPES:
        for match in shape.finditer(text):
            who = match["who"]
            if who.split()[0].lower() in _NOT_NAMES:
                continue
            role = _ROLES.get(match["role"].lower()) or _DOING[match["role"].lower()]
            scope = (match["scope"] or "").lower()
            scope = "" if scope in _NO_SCOPE else scope.rstrip("s")
            acting = bool(_ACTING.search(text[max(0, match.start() - 20) : match.end()]))
            ours = bool(_OURS.search(match.group(0)))
            found.append(_Held(role, who.lower().removesuffix("'s"), scope, acting, ours))
    return tuple(found)


def role_changed(new_text: str, old_text: str) -> tuple[str, str] | None:
    """Why ``new_text`` closes ``old_text`` as another holder of a one-holder role (see the
    module doc), as (key, reason), or None."""
    new = _held(new_text)
    if not new:
        return None
    old = _held(old_text)
    if not old or _NOT_HELD.search(new_text[:400]) or _NOT_HELD.search(old_text[:400]):
        return None
    for earlier in old:
        same = [held for held in new if held.role == earlier.role]
        if not same or any(
            (held.scope and held.scope != earlier.scope)
            or (held.ours and earlier.scope)
            or (earlier.ours and held.scope)
            for held in same
        ):
            # "the tech lead on payments", "Sara's best man", "the CTO of Initech": another one
            continue
        holders = {held.who for held in same}
        if earlier.who not in holders:
            taker = sorted(holders)[0]
            return (
                f"fact: {earlier.role}",
                f"{earlier.role}: {earlier.who} -> {taker}",
            )
        if earlier.acting and not any(held.acting for held in same if held.who == earlier.who):
            return f"fact: {earlier.role}", f"{earlier.role}: {earlier.who}, acting -> confirmed"
    return None
