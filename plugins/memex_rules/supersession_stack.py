"""Jotted notes of what a part of the work runs on: "marketing site on Netlify" then
"marketing site deploys from Vercel", "billing svc: MySQL 5.7 on RDS" then "billing is on
Aurora Postgres since the migration", "web repo uses yarn 1" then "web repo -> pnpm".

Each note names one known tool (``supersession_values.TOOLS``: databases, clouds,
languages, package managers, CI...). A later note closes an earlier one when both open
with the same key word (what the note is about, not "we" or "I"), name one tool each, of
the same kind and not the same tool, as a thing held (not a trial or a plan). A note
naming two tools ("api: Go for the gateway, Rust for the parser"), another key ("frontend:
React" / "admin: Vue") or another part of the work ("ML training" / "ML inference") closes
nothing here; phones, laptops, drinks and music are kinds a person has several of, and
stay to the other readings.
"""

from __future__ import annotations

import re
from functools import lru_cache

from memex_rules.rules_text import word_set
from memex_rules.supersession_values import TOOLS

#: Kinds of tool a person or a team may keep several of at once.
_SEVERAL = frozenset({"drink", "phone", "laptop", "music"})
#: A note's key: a lower-case word or an acronym ("CI"), not a name nor anyone's ("Alice's
#: team uses Go" / "Alice's team uses Python": a team may use both; people are the other
#: readings' to judge).
_KEY = re.compile(r"^\s*(?:(?i:the|our|my)\s+)?([a-z][\w-]*|[A-Z]{2,}[\w-]*)\b(?!')")
#: Keys that are the teller, not a part of the work: "We use Jira" / "We use Linear" may
#: both hold (the other readings judge those).
_TELLERS = word_set("we i us they you it we're i'm")
_ARTICLES = word_set("the our my")
#: A note that does not hold yet: a trial, a plan, a maybe.
_NOT_YET = re.compile(
    r"(?i)\?|\b(?:might|maybe|perhaps|could|would|should|will|wants?|considering|evaluating|"
    r"trialling|trialing|trying|piloting|testing|thinking|planning|plan\s+to|going\s+to|"
    r"next\s+(?:year|quarter|month|sprint))\b"
)
_WORD = re.compile(r"[A-Za-z0-9][\w.+#-]*")
#: Words of a longer tool's name that name no tool alone ("gitlab ci", "visual studio code").
_PIECES = word_set(
    "ci actions code text studio visual cloud google microsoft apple music youtube issues mac os x"
)
#: Tool names that are everyday words too: a tool only when written with a capital ("Go").
_EVERYDAY = word_set(
    "go rust swift edge arc bear atom zed helix nano fish mint arch solid ember rest soap swarm "
    "bun teams linear notion chrome safari opera brave fly.io"
)
#: The longest tool name, in words ("visual studio code").
_LONGEST = 3
#: Parts of the work, each its own thing: "ML training runs on GCP" / "ML inference moved to
#: AWS" are two parts of ML.
_PARTS = word_set(
    "training inference staging prod production dev test qa frontend backend api web mobile "
    "ios android admin batch streaming analytics reporting search auth payments billing orders "
    "worker workers cron webhooks webhook lambdas lambda cache queue logs metrics reads writes"
)


@lru_cache(maxsize=8192)
def tools_named(text: str) -> dict[str, str]:
    """The known tools ``text`` names, each with its kind, longest names first."""
    written = _WORD.findall(text[:400])
    words = [word.lower() for word in written]
    found: dict[str, str] = {}
    at = 0
    while at < len(words):
        for size in range(_LONGEST, 0, -1):
            phrase = " ".join(words[at : at + size])
            if size == 1 and (
                phrase in _PIECES or (phrase in _EVERYDAY and written[at][:1].islower())
            ):
                continue
            if phrase in TOOLS:
                found[phrase] = TOOLS[phrase]
                at += size
                break
        else:
            at += 1
    return found


def _key(text: str) -> str:
    match = _KEY.match(text)
    key = match.group(1) if match else ""
    return "" if key in _ARTICLES else key.lower()


def tool_swapped(new_text: str, old_text: str) -> tuple[str, str] | None:
    """Why the note ``new_text`` closes ``old_text`` as another tool of the same kind for
    the same thing (see the module doc), as (key, reason), or None."""
    key = _key(new_text)
    new, old = tools_named(new_text), tools_named(old_text)
    if not key or key in _TELLERS or key != _key(old_text) or len(new) != 1 or len(old) != 1:
        return None
    if _NOT_YET.search(new_text[:400]):
        return None  # "We're evaluating GCP" / "We host on AWS"
    ((tool, kind),) = new.items()
    ((was, was_kind),) = old.items()
    if kind != was_kind or tool == was or kind in _SEVERAL or key in (tool, was):
        return None
    parts, old_parts = (_PARTS & set(_WORD.findall(t[:400].lower())) for t in (new_text, old_text))
    if parts - old_parts and old_parts - parts:
        return None  # "ML training runs on GCP TPUs" / "ML inference moved to AWS SageMaker"
    return f"we: {key} {kind}", f"{key}: {was} -> {tool}"
