"""A new fact worded as a change that names a thing of the earlier fact closes it.

"ripped out Datadog, we're on Grafana Cloud" closes "monitoring is Datadog"; "retro's in the
Atlas room from now on (4B is being refitted)" closes "Retro in Room 4B"; "Zoe's on
fexofenadine now, cetirizine made her drowsy" closes "zoe takes cetirizine for her
hayfever"; "Aarav's gone to Google. Lead mobile dev is now Chen" closes "Aarav is lead on
mobile". People word most changes so: the change said outright ("now", "from now on",
"switched", "moved", "cancelled", "instead", an arrow; not "new" alone: "John found a new
gym" is another thing, not a change of "John plays shooting guard") and the old fact's
thing named again, with no attribute the slot readings know.

The rule, tried after every reading of attributes (:mod:`memex_rules.supersession`):

- the new fact says it is a change
  (:func:`memex_core.domain.memory.change_words.announces_change`, "new" left out), and is
  no question, plan or wish ("thinking of switching to Zed" keeps "I code in VS Code"), nor
  names what it replaced (:mod:`memex_rules.supersession_replaced` judges those);
- the two share a content word, compared by stem, that is not a word of either's subject:
  "Datadog", "room", "cetirizine"; a subject alone ties nothing ("Ellie's bakery is open
  Wednesday to Sunday" / "Ellie's bakery has four staff now") unless it is what the change
  verb moves ("billing moved to Platform", "switched the frontend to pnpm"); a unit, a day, an
  attribute's verb or where the change goes to ties nothing either ("Alice moved to Berlin"
  keeps "Alice likes Berlin's museums");
- they are no two things of one name ("our cloud budget" / "the travel budget"), no two
  people ("Omar's sister lives in Paris" / "Omar now lives in Nairobi", "Marcus is captain" /
  "Dev is vice-captain now") and no two owners ("Ravi's standup" / "Our standup");
- the earlier fact is no one-off event of a past time ("visited York last year").

A second reading, :func:`next_point`, closes an earlier fact whose series of numbers the new
one continues ("Rent 1,450 from May" after "Rent is £1,320/month"), under the same guards.
``[supersession.rules] changes_named_again = true`` turns both on; they are off by default
(:mod:`memex_rules.supersession_settings` says why).

Chosen on benchmark 21's dev, test, broad, blind and blind2 splits (docs/concepts/memory.md
gives the figures, 2026-11-29).
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import pairwise

from memex_core.domain.memory.change_words import (
    COMMON_WORDS,
    announces_change,
    change_verbs,
    content_words,
)
from memex_core.domain.memory.quantity_series import same_series
from memex_rules.rules_text import OPENING_POSSESSOR, RELATIVES, word_set
from memex_rules.supersession_replaced import EVENT, NOT_HELD, names_replaced, people_left
from memex_rules.supersession_slots import MAX_CHARS, read_slots, rough_subject

_SUBJECT_WORD = re.compile(r"[a-z][a-z0-9+#.-]*[a-z0-9+#]|[a-z]")
#: "Omar's sister ...": a relative of the one named, told at the fact's opening.
_RELATIVE = re.compile(rf"^\s*(?:my\s+)?([a-z]+)'s\s+(?:best\s+)?{RELATIVES}\b", re.IGNORECASE)
_OPENER = re.compile(r"^\s*([a-z]+)", re.IGNORECASE)
#: A fact opening with someone's name as the one it tells of: "Marcus is captain", "Mrs
#: Dunmore is treasurer", "Colin chairs the residents' association", "Ellie quit Monzo".
_NAMED = re.compile(
    r"^\s*(?:(?:Mrs?|Ms|Dr|Prof)\.?\s+)?([A-Z][a-z]+)(?:\s+[A-Z][a-z]+)?\s+"
    r"(?:(?:now|still|just|also|finally)\s+)?(?:is|was|has|had|"
    r"chairs|leads|runs|plays|lives|works|manages|owns|does|takes|coaches|teaches|quit|left|"
    r"got|went|took|joined|[a-z]+ed|[a-z]{2,}[^s\W]s)\b"
)
_FIRST_PERSON = re.compile(r"(?i)\b(?:i|i'm|i've|me|my|we|we're|our|us)\b")
#: A fact told of one's relatives, by its opening: "The kids go to bed at 8".
_OF_RELATIVES = re.compile(rf"(?i)^\s*(?:the|my|our)\s+{RELATIVES}\b")
#: A part of the earlier thing, not a change of it: "One of my coffees is decaf now".
_PART = re.compile(r"(?i)^\s*(?:one|some|half|most|none|two|both)\s+of\b")
#: The new thing a change goes to ("Alice moved to Berlin"): naming it again in an earlier
#: fact ("Alice likes Berlin's museums") ties nothing.
_DESTINATION = re.compile(
    r"(?i)\b(?:to|onto|into)\s+((?:(?:the|a|an|my|our)\s+)?[\w'+#.-]+(?:\s+[\w'+#.-]+)?)"
)
#: The old thing named beside another ("We use Jira and Linear now"): it is still held.
_BESIDE = r"(?:and|&|plus|as\s+well\s+as)"
#: Words that tie no two facts to one thing: the verbs an attribute is told with ("User
#: prefers tea" / "User now prefers dark mode"), units of time and count ("a week", "people")
#: and the calendar ("Code freeze starts Dec 15" / "Launch moved to Dec 20").
_LOOSE_TIES = word_set(
    "prefers prefer likes like loves love uses opens open closes takes take works work drives "
    "drive "
    "lives live drinks drink eats eat runs run goes go plays play owns own costs cost pays "
    "pay starts start ends finishes earns weighs ships ship written built made based week "
    "weeks month months year years day daily weekly monthly hour hours minute minutes min "
    "mins second seconds sec secs ms people person engineers staff team teams group morning "
    "mornings evening evenings night nights time times today tomorrow weekend jan feb mar "
    "apr jun jul aug sep sept oct nov dec january february march april may june july august "
    "september october november december monday tuesday wednesday thursday friday saturday "
    "sunday mondays tuesdays wednesdays thursdays fridays saturdays sundays mon tue tues wed "
    "weds thu thur thurs fri sat sun days every per utc gmt bst cet pst est user users seat "
    "seats editor editors"
)
_OPENING = re.compile(r"[a-z][a-z0-9'+#.-]*")
#: How many opening words a fact's subject is read in ("Our cloud budget", "The gym
#: subscription"): a word later on is its value ("retro's in the Atlas room").
_SUBJECT_SPAN = 3
#: A thing said to have ended, as a clause of its own ("..., Okafor retired", "Franco's
#: closed"): the earlier fact's thing, even when the new fact's slots read it as a subject.
_ENDED_CLAUSE = re.compile(
    r"(?i)\b([a-z][\w-]*)(?:'s)?\s+(?:has\s+|had\s+|just\s+)?(?:retired|left|closed|quit|"
    r"shut|died|passed\s+away|sold\s+up|got\s+(?:nicked|stolen)|is\s+(?:gone|closing|shut))\b"
)


def _ended_here(text: str) -> frozenset[str]:
    return frozenset(word.lower() for word in _ENDED_CLAUSE.findall(text))


#: Words that say nothing of which thing a subject's head names ("the", "our"); another word
#: right before the head does ("the design team" / "the data team").
_NOT_MODIFIERS = word_set(
    "the a an my our your his her their its this that these those in on at to of for from "
    "by with and or is are was were be been now new old same other s"
)


#: Heads that name no other thing than the word before them ("the billing service" is
#: billing).
_GENERIC_HEADS = word_set(
    "service services app system project repo server account plan lesson lessons class "
    "classes session sessions"
)
_COPULAS = word_set("is are was were has have had will be")


#: A change verb's way on: a preposition after it ("billing moved to Platform": the subject
#: is what changed) or its object before one ("switched the frontend to pnpm").
_ONWARD = re.compile(r"^\s*(?:over\s+|back\s+|up\s+|down\s+)?(?:to|onto|into|from|->|\u2192)\b")
_OBJECT = re.compile(
    r"^\s*(?:the|our|my|his|her|their|its|your)?\s*"
    # up to four words, none a preposition: "bumped the public API request timeout to 30s"
    r"(?P<thing>[\w:./+#-]+(?:\s+(?!(?:off|of|for|in|on|at|with|by)\b)[\w:./+#-]+){0,3}?)"
    r"\s+(?:(?:up|down|back)\s+)?(?:to|onto|into|from|over\s+to|->|\u2192)(?:\s|$)"
)
_BEFORE = re.compile(r"(?:^|[,;(]\s*)(?P<thing>(?:[\w:./+#'-]+\s+){0,2}[\w:./+#'-]+)\s*$")
_DETERMINERS = frozenset({"the", "our", "my", "his", "her", "their", "its", "your", "we", "i"})


#: "handed JIRA-4412 off": the thing handed sits inside the verb's words.
_HANDED = re.compile(r"(?i)^handed\s+(?P<thing>.+?)\s+(?:over|off)$")
#: An owner before the thing ("Lily's swimming"): the owner is not what changed.
_OWNED = re.compile(r"\b[\w-]+'s\s+")
_LOWER_WORD = re.compile(r"(?<![\w'])[a-z][a-z0-9:./+#-]*[a-z0-9+#]|(?<![\w'])[a-z]")


_NAME = re.compile(r"(?<![\w'])[A-Z][a-z]+")
#: A fact opening with its owner: "Priya's rent", "My rent", "Our rent".
_OWNER = re.compile(
    r"(?i)^\s*(my|our|his|her|their|[a-z]+'s(?=\s+(?!(?:on|in|at|off|now|been|got|gone|going|"
    r"doing|a|an|the|with|back|still|not|just|also|started|moved|into|up|down|out|all|"
    r"finally|new|no)\b)))\s"
)
_OTHERS = re.compile(r"^(?:his|her|their|[a-z]+'s)$")


@lru_cache(maxsize=8192)
def _subject_words(text: str) -> frozenset[str]:
    """The words of ``text``'s subject, as its slots read it and as its opening words do
    ("pipeline runs on Python 3.11": "pipeline")."""
    slots = read_slots(text)
    said = " ".join(
        part for part in (slots[0].subject if slots else "", rough_subject(text) or "") if part
    )
    return frozenset(_SUBJECT_WORD.findall(said.lower()))


def _modifier(text: str, word: str) -> str | None:
    """The content word right before ``word`` among the opening words of ``text``, its
    subject ("design" of "The design team is 5 people"), or None."""
    words = _OPENING.findall(text.lower())[:_SUBJECT_SPAN]
    for before, after in pairwise(words):
        if after != word or before in _NOT_MODIFIERS or before in COMMON_WORDS:
            continue
        if not before.endswith("ed") and not announces_change(before):
            return before  # "joined PureGym" / "cancelled puregym": a verb, not a kind
    return None


@lru_cache(maxsize=1)
def _stemmer() -> object:
    import Stemmer  # PyStemmer, a core dependency; imported late to keep import cheap

    return Stemmer.Stemmer("english")


def _stems(words: set[str]) -> dict[str, str]:
    ordered = sorted(words)
    return dict(zip(ordered, _stemmer().stemWords(ordered), strict=True))  # type: ignore[attr-defined]


def _shared_words(new: str, old: str) -> set[str]:
    """The content words of ``new`` whose stem a content word of ``old`` has ("swim
    lessons" / "swimming"), as ``new`` writes them."""
    new_stems = _stems(content_words(new))
    kept = set(_stems(content_words(old)).values())
    return {word for word, stem in new_stems.items() if stem in kept}


def _two_things(new: str, old: str, shared: set[str]) -> bool:
    """Whether a word both facts open with is set apart by another word in each: "Our cloud
    budget is $40k" / "The travel budget was cut to $5k", "The Berlin office rent" / "The
    London office rent": two things, whatever else they share."""
    for word in shared:
        before_new, before_old = _modifier(new, word), _modifier(old, word)
        if before_new and before_old and before_new != before_old:
            return True
    return False


def _same_head(new: str, old: str, word: str) -> bool:
    """Whether ``word`` heads the same thing in both facts: no other noun follows it in the
    earlier one ("The launch party is on May 3" / "Launch moved to June 1": two things)."""
    head = _head_after(old, word)
    return head is None or head in _GENERIC_HEADS or head == _head_after(new, word)


def _head_after(text: str, word: str) -> str | None:
    """The noun right after ``word`` among the opening words of ``text`` ("party" of "The
    launch party is on May 3"), or None: a verb, a copula or nothing follows."""
    words = _OPENING.findall(text.lower())[: _SUBJECT_SPAN + 1]
    for this, after in pairwise(words):
        if this != word:
            continue
        if after in _COPULAS or after in COMMON_WORDS or after in _LOOSE_TIES:
            return None  # "demo mon 10am": a day, not another thing
        if after.endswith("ed") or any(ch.isdigit() for ch in after):
            return None
        if announces_change(after) or (after.endswith("s") and not after.endswith("ss")):
            return None  # "Launch moved", "billing moves": a verb, not a head
        return after
    return None


def _ties(new: str, shared: set[str]) -> set[str]:
    """The shared words that may name one thing in both facts: none of the loose ones, not
    where the change goes to, not the change's own word, not one named beside another."""
    gone_to = {w for phrase in _DESTINATION.findall(new.lower()) for w in phrase.split()}
    ties = set()
    for word in shared - _LOOSE_TIES - gone_to:
        if announces_change(word):
            continue  # "accepted", "moved": the change's own word names no thing
        beside = rf"\b{re.escape(word)}\s+{_BESIDE}\b|\b{_BESIDE}\s+{re.escape(word)}\b"
        if re.search(beside, new, re.IGNORECASE):
            continue  # "We use Jira and Linear now": Jira still held
        ties.add(word)
    return ties


def _two_people(new: str, old: str) -> bool:
    """ "Omar's sister lives in Paris" / "Omar now lives in Nairobi"; "Marcus is captain" /
    "Dev is vice-captain now" (neither name in the other fact); "Ellie quit Monzo" / "I work
    at Monzo"."""
    new_open, old_open = _OPENER.match(new), _OPENER.match(old)
    if (
        new_open
        and old_open
        and new_open.group(1).lower() == old_open.group(1).lower()
        and bool(_RELATIVE.match(new)) != bool(_RELATIVE.match(old))
    ):
        return True
    for one, other in ((new, old), (old, new)):
        kin = _OF_RELATIVES.match(one) or _RELATIVE.match(one)
        if kin and not _OF_RELATIVES.match(other) and _FIRST_PERSON.search(other):
            return True  # "The kids go to bed at 8" / "I go to bed at 11 now"
    new_name, old_name = _NAMED.match(new), _NAMED.match(old)
    for name, other in ((new_name, old), (old_name, new)):
        if name and name.group(1).lower() not in other.lower() and _FIRST_PERSON.search(other):
            return True
    if new_name is None or old_name is None:
        return False
    one, other = new_name.group(1).lower(), old_name.group(1).lower()
    return one != other and one not in old.lower() and other not in new.lower()


def announced(
    new_text: str, old_text: str, *, moved_subjects: bool = False
) -> tuple[str, str] | None:
    """Why ``new_text``, worded as a change, closes ``old_text`` by naming its thing again
    (see the module doc), as (key, reason), or None. ``moved_subjects``: a subject both facts
    share ties them when it is what the change verb moves ("billing moved to Platform" /
    "billing service owned by Team Payments"); off by default, for its wrong closings
    ("the office moved to King's Cross" / "team office days are Tue/Thu")."""
    new, old = new_text[:MAX_CHARS], old_text[:MAX_CHARS]
    if not announces_change(new, new_counts=False) or NOT_HELD.search(new) or EVENT.search(old):
        return None
    if names_replaced(new) or _PART.match(new) or _BESIDE_EARLIER.search(new):
        return None  # "the tram instead of the bus in Berlin", "one of my coffees", "... too"
    both = _shared_words(new, old)
    if _two_things(new, old, both) or _two_people(new, old):
        return None
    if _two_owners(new, old):
        return None  # "Ravi's standup is on Mondays" / "Our standup moved to Tuesdays now"
    if _moved_elsewhere(new, old):
        return None  # "upgraded Django to 5.0 in the shop backend" / "shop backend ... 3.11"
    changed = {w for w in _changed_thing(new, old) if _same_head(new, old, w)}
    subjects = (_subject_words(new) - _ended_here(new)) | _subject_words(old)
    if moved_subjects:
        subjects -= changed
    shared = _ties(new, both - subjects)
    if not shared or shared <= people_left(new):
        return None  # "Tom left" ends a role of Tom's (supersession_replaced), no pastime
    what = " ".join(sorted(shared))
    return f"changed: {what}", f"the new fact says it is a change and names {what} again"


def _changed_thing(new: str, old: str) -> frozenset[str]:
    """The words of what a change verb of ``new`` moves: its subject when the verb goes on
    to where ("billing moved to Platform", "Retro -> Thursday 2pm", "api port changed to
    8000"), its object when one stands before the preposition ("switched the frontend to
    pnpm", "handed JIRA-4412 off to Dmitri"). Not a doer's ("The payments team handed the
    laptop over to IT" changes the laptop), not an owner's ("Lily's swimming moved"), and
    not a name, a word neither fact writes in lower case ("Alice moved to Berlin": Alice
    ties no fact of hers to the move)."""
    words: set[str] = set()
    for start, end in change_verbs(new):
        verb, rest, before = new[start:end], new[end:], new[:start]
        inside = _HANDED.match(verb)
        if inside:
            words |= set(_SUBJECT_WORD.findall(inside.group("thing").lower()))
        elif verb.strip() in ("->", "\u2192", "=>") or _ONWARD.match(rest):
            found = _BEFORE.search(before)
            if found:
                words |= set(_SUBJECT_WORD.findall(_OWNED.sub("", found.group("thing")).lower()))
        elif found := _OBJECT.match(rest):
            words |= set(_SUBJECT_WORD.findall(_OWNED.sub("", found.group("thing")).lower()))
    lowered = set(_LOWER_WORD.findall(new)) | set(_LOWER_WORD.findall(old))
    return frozenset(w for w in words - _DETERMINERS if w in lowered)


def _moved_elsewhere(new: str, old: str) -> bool:
    """Whether the object a change verb of ``new`` moves is a thing ``old`` does not hold
    ("upgraded Django to 5.0 in the shop backend" / "shop backend targets python 3.11"), or
    another kind of it ("upgraded my road bike" / "commuter bike: Brompton"). A subject that
    moved is not read so: "api port changed to 8000" updates "api listens on 8080"."""
    held = _stems(content_words(old))
    for start, end in change_verbs(new):
        verb, rest = new[start:end], new[end:]
        found = None if _HANDED.match(verb) else _OBJECT.match(rest)
        if found is None or _ONWARD.match(rest):
            continue
        words = [w for w in _thing_words(found.group("thing")) if w not in _NOT_THINGS]
        if not words or words[-1] in _GENERIC_HEADS or words[-1] in _LOOSE_TIES:
            continue
        stems = _stems(set(words))
        if stems[words[-1]] not in held.values():
            return True
        kind = words[-2] if len(words) > 1 else None
        if kind and _another_kind(kind, old, words[-1], new):
            return True
    return False


#: "from X to Y": the old value a change names.
_FROM_TO = re.compile(
    r"(?i)\bfrom\s+(?:the\s+|our\s+|my\s+)?(?P<x>[\w.+#/-]+(?:\s+[\w.+#/-]+)?)\s+(?:to|into|->|\u2192)\s"
)


#: A version bumped: "bumped Kotlin to 1.9.22", "upgraded Django to 5.0".
_BUMPED = re.compile(
    r"(?i)\b(?:bumped|upgraded|downgraded|updated|pinned)\s+(?:the\s+|our\s+)?"
    r"(?P<x>[a-z][\w.+#-]*)\s+(?:to|from)\s+v?\d"
)


def bumped_elsewhere(new: str, old: str) -> bool:
    """Whether ``new`` bumps the version of a thing ``old`` does not name ("bumped Kotlin to
    1.9.22 in the android app" / "android app on Gradle 8.4")."""
    lowered = old.lower()
    return any(
        re.search(rf"\b{re.escape(found.group('x').lower())}", lowered) is None
        for found in _BUMPED.finditer(new)
    )


def changed_from_elsewhere(new: str, old: str) -> bool:
    """Whether ``new`` names the old value it changed from ("migrated the web monorepo from
    yarn to pnpm") and ``old`` holds no word of it ("web monorepo on Node 20 LTS"): the
    change is of another thing."""
    held = set(_stems(content_words(old)).values()) | set(re.findall(r"[\w.]+", old.lower()))
    for found in _FROM_TO.finditer(new):
        words = [w for w in re.findall(r"[\w.+#-]+", found.group("x").lower()) if len(w) > 1]
        words = [w for w in words if w not in _DETERMINERS and w not in _NOT_MODIFIERS]
        if not words:
            continue
        stems = _stems({w for w in words if w.isalpha()})
        if not any(w in held or stems.get(w) in held for w in words):
            return True
    return False


def _another_kind(kind: str, old: str, head: str, new: str) -> bool:
    """Whether ``old`` tells of another kind of ``head`` than ``kind``: a different word in
    lower case right before it, neither written in the other fact ("road bike" /
    "commuter bike"; not "reading goal" / "Goodreads goal", a name)."""
    old_kind = _modifier_any(old, head)
    if old_kind is None or re.search(rf"\b{re.escape(old_kind)}\b", old) is None:
        return False  # none, or written with a capital: a name's
    stems = _stems({kind, old_kind})
    if stems[kind] == stems[old_kind]:
        return False  # "payments bugs" / "payment bugs"
    return kind not in old.lower() and old_kind not in new.lower()


#: Words an object slot may hold that name no thing: pronouns and particles ("rebooked us
#: onto", "moved out to").
_NOT_THINGS = word_set("us them it me him her everyone everything out over back up down in")


def _thing_words(thing: str) -> list[str]:
    """The content words of a thing as a change verb names it, owner and determiners left
    out ("my road bike": road, bike)."""
    words = _SUBJECT_WORD.findall(_OWNED.sub("", thing).lower())
    skipped = _DETERMINERS | _NOT_MODIFIERS | _COPULAS | _AUXILIARIES
    return [w for w in words if w not in skipped]


_AUXILIARIES = word_set("been got just all finally officially now also still")


def _modifier_any(text: str, word: str) -> str | None:
    """The content word right before ``word`` anywhere in ``text`` ("commuter" of
    "commuter bike: Brompton"), or None."""
    words = _OPENING.findall(text.lower())
    for before, after in pairwise(words):
        if after == word and before not in _NOT_MODIFIERS and before not in COMMON_WORDS:
            return before
    return None


def _owners(text: str) -> frozenset[str]:
    """The one whose thing a fact opens with, in any case ("ollie's on 6ml ...")."""
    found = OPENING_POSSESSOR.match(text)
    return frozenset({found.group(1).lower()}) if found else frozenset()


def _names(text: str) -> frozenset[str]:
    """The capitalised words of ``text`` after its first (a sentence's capital: "Rent is
    £1,320"), lower case: a person's name ties no two numbers."""
    return frozenset(m.group(0).lower() for m in _NAME.finditer(text) if m.start() > 0)


def _two_owners(new: str, old: str) -> bool:
    """ "Priya's rent is £900" / "My rent is £1,200 now" (or "Rent's gone up to £1,000"):
    two owners named at the facts' openings, or another's at one and none at the other."""
    new_owner, old_owner = _OWNER.match(new), _OWNER.match(old)
    if new_owner is None and old_owner is None:
        return False
    one = new_owner.group(1).lower() if new_owner else ""
    other = old_owner.group(1).lower() if old_owner else ""
    if one and other:
        return one != other  # "My rent is £1,200" / "Their rent is £1,350"
    owner, bare = (one, old) if one else (other, new)
    if owner.endswith("'s") and bare.lower().lstrip().startswith(owner):
        return False  # "Dad's dentist is Dr Mensah" / "Dad's been moved to Dr Ortiz"
    return bool(_OTHERS.match(owner))


#: A fact told beside the earlier one, not instead of it: "dad also on atorvastatin 20mg".
_BESIDE_EARLIER = re.compile(
    r"(?i)\b(?:also|too|as\s+well|another|second|both|plus|alongside|on\s+top\s+of)\b"
)


def next_point(new_text: str, old_text: str) -> tuple[str, str] | None:
    """Why ``new_text`` closes ``old_text`` as a new point of the series of numbers it told
    (:func:`memex_core.domain.memory.quantity_series.same_series`: "Rent 1,450 from May"
    after "Rent is £1,320/month", "staging upgraded to 1.28" after "staging EKS 1.26"), as
    (key, reason), or None. The two must share a word other than a name (a change word alone
    ties nothing: "My Netflix subscription is £11" / "The gym fee went up to £13"), and be no
    two things, people or owners ("Priya's rent" / "My rent"), nor a fact told beside the
    earlier one ("also", "too", "another"); a question, plan or wish on either side closes
    nothing."""
    new, old = new_text[:MAX_CHARS], old_text[:MAX_CHARS]
    if not same_series(old, new) or NOT_HELD.search(new) or NOT_HELD.search(old):
        return None
    if EVENT.search(old) or _BESIDE_EARLIER.search(new) or _two_owners(new, old):
        return None
    if _moved_elsewhere(new, old):
        return None  # "upgraded helm to 3.14 on the prod runners" / "prod cluster on k8s 1.29"
    both = content_words(new) & content_words(old) - _owners(new) - _owners(old)
    if _two_things(new, old, both) or _two_people(new, old):
        return None
    if not both - _LOOSE_TIES - _names(new) - _names(old):
        return None  # "My Netflix subscription is £11" / "The gym fee went up to £13"
    return "series: next point", "the new fact tells a new point of the earlier one's numbers"
