"""The ``rules`` supersession judge: which earlier facts a new one updates, without a model.

Each fact is read into slots (:mod:`memex_rules.supersession_slots`: subject, attribute,
value). A new fact closes an earlier one of the same subject when

- both set the same *single-valued* attribute (where someone lives, their employer, job,
  school, a favourite, a plan's date, a tool's version, a name, a relationship, a status,
  an age, a count, an email...) to different values ("Alice lives in Paris" -> "Alice moved
  to Berlin");
- the new one ends the earlier's value ("Alice no longer lives in Paris", "Alice left
  Google", "Alice sold her car", "switched from Vim to Emacs");
- a multi-valued attribute (likes, uses) flips for the same value ("Alice no longer likes
  jazz"), or a change moves to another tool of the same kind ("switched to Neovim" closes
  "uses Emacs"; plain "uses Neovim" does not);
- the rules read no attribute but the two texts say the same thing with opposite polarity
  ("Alice plays tennis" / "Alice stopped playing tennis");
- the new one says it is a change and names the earlier one's thing again ("ripped out
  Datadog, we're on Grafana Cloud" closes "monitoring is Datadog"), or continues its series
  of numbers ("Rent 1,450 from May" after "Rent is £1,320/month";
  :mod:`memex_rules.supersession_announced`, on with ``[supersession.rules]
  changes_named_again = true``; off by default).

Facts that share only a subject ("Alice lives in Berlin" / "Alice likes Berlin's museums")
stay current. A past-tense fact ("Alice lived in Rome") closes only when it names its time,
and never a fact valid from later than itself. :meth:`RulesSupersessionJudge.review` also
names the earlier facts of the same subject the rules could not read, for a judge with a
model to decide (the ``llm`` plugin's).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from memex_core.domain.memory.validity import Supersession, TimedFact
from memex_rules.rules_text import OPENING_POSSESSOR, RELATIVES
from memex_rules.supersession_announced import announced, next_point
from memex_rules.supersession_elsewhere import of_another_thing
from memex_rules.supersession_kinds import kind_changed
from memex_rules.supersession_levels import level_reached
from memex_rules.supersession_measures import measure_changed
from memex_rules.supersession_notes import note_restated
from memex_rules.supersession_open_changes import shaped_changes
from memex_rules.supersession_open_close import (
    FIRST_PERSON,
    OURS,
    household,
    left_values,
    moved_thing,
    names_left,
    open_closes,
    role_taken,
    same_but_value,
    trait,
)
from memex_rules.supersession_phases import step_taken
from memex_rules.supersession_replaced import replaced
from memex_rules.supersession_roles import role_changed
from memex_rules.supersession_slots import (
    MAX_CHARS,
    prepare,
    read_slots,
    rough_subject,
    shaped_slots,
)
from memex_rules.supersession_stack import tool_swapped
from memex_rules.supersession_table_changes import goes_back
from memex_rules.supersession_time import named_time, recent_period
from memex_rules.supersession_until import ended, period
from memex_rules.supersession_values import (
    ANY,
    NEG,
    Slot,
    same_subject,
    same_thing,
    same_value,
    tool_category,
)
from memex_rules.supersession_versions import version_changed
from memex_rules.wording import key, read_form

#: A fact dated less than this before it was said counts as undated (clock noise, same day).
_DATED = 12 * 3600.0


@dataclass(frozen=True)
class Review:
    """What the rules made of a new fact against the earlier ones.

    ``closes``: the facts the rules close. ``unsure``: earlier facts about the same subject
    the rules could not compare (one of the two texts had no attribute they know).
    """

    closes: list[Supersession] = field(default_factory=list)
    unsure: list[TimedFact] = field(default_factory=list)


class RulesSupersessionJudge:
    """Decides by text rules which earlier facts a new fact closes (see the module doc).

    ``changes_named_again``: whether the readings of
    :mod:`memex_rules.supersession_announced` close too; ``moved_subjects``: whether the
    subject a change verb moves ties two facts there (``[supersession.rules]``,
    :mod:`memex_rules.supersession_settings`)."""

    def __init__(self, *, changes_named_again: bool = False, moved_subjects: bool = False) -> None:
        self.changes_named_again = changes_named_again
        self.moved_subjects = moved_subjects

    def valid_from(self, text: str, said_at: float) -> float:
        """The time ``text`` names for its fact ("in 2019", "since May 2023", "two weeks
        ago"), or ``said_at``. A plan's date ("the launch is on May 3") is its value, not
        when it became true. A state or change dated by a recent period ("went keto last
        month") holds surely from the period's end; a past-tense fact ("lived in Rome last
        month") from its start."""
        found = named_time(text[:MAX_CHARS], said_at)
        slots = read_slots(text)
        if found is None:  # "2017 to 2021", "all through the 2010s": the closed period's start
            found = (period(text[:MAX_CHARS], said_at) or (None, None))[0]
        if found is None or any(slot.attribute == "date" for slot in slots):
            return said_at
        recent = recent_period(text[:MAX_CHARS], said_at)
        if recent and found == recent[0] and slots and not any(slot.past for slot in slots):
            # "Priya went keto last month": surely keto from the 1st of this month; a fact
            # said earlier in the month it names ("Priya is pescatarian") held until then
            return recent[1]
        return found

    def valid_until(self, text: str, said_at: float) -> float | None:
        """When ``text`` says its fact stopped holding: the end of a closed past period
        ("Back in 2020 prod was on Heroku", "until mid-2023", "from 2018 to 2021"), or None
        (:mod:`memex_rules.supersession_until`)."""
        return ended(text[:MAX_CHARS], said_at)

    def supersedes(self, new: TimedFact, earlier: Sequence[TimedFact]) -> list[Supersession]:
        """The facts among ``earlier`` that ``new`` closes, each with its key and reason."""
        return self.review(new, earlier).closes

    def review(self, new: TimedFact, earlier: Sequence[TimedFact]) -> Review:
        """The facts ``new`` closes, and the same-subject facts the rules cannot judge."""
        slots = read_slots(new.text)
        dated = new.valid_from < new.said_at - _DATED
        usable = [slot for slot in slots if dated or not slot.past]
        subject = _subject(new.text, slots)
        review = Review()
        for fact in earlier:
            if fact.memory_id is None or fact.valid_until is not None:
                continue
            if fact.valid_from > new.valid_from or _same_text(new.text, fact.text):
                continue
            old_slots = read_slots(fact.text)
            found = _closing(usable, old_slots)
            if found and ": version of " in found[0] and _two_things(new.text, fact.text, found[0]):
                found = None  # "Our Lambdas still run Node 18" / "The frontend builds on Node 20"
            if found and found[0].endswith(": job") and _two_scopes(new.text, fact.text):
                found = None  # "Kim is the scrum master for ads" / "... product owner for search"
            if found and _two_owners(new.text, fact.text):
                found = None  # "Our standup moved to Tuesdays" / "Ravi's standup is on Mondays"
            found = (
                found
                or _flipped(new.text, fact.text, subject)
                or _left(usable, fact.text, old_slots)
                or _gone(new.text, usable, fact.text)
                or kind_changed(new.text, fact.text)
                or measure_changed(new.text, fact.text)
                or version_changed(new.text, fact.text)
                or tool_swapped(new.text, fact.text)
                or note_restated(new.text, fact.text)
                or role_changed(new.text, fact.text)
                or step_taken(new.text, fact.text)
                or replaced(new.text, fact.text)
                or level_reached(new.text, fact.text)
                or self._named_again(new.text, fact.text)
            )
            if found is not None and of_another_thing(new.text, fact.text):
                found = None  # "bumped Kotlin to 1.9.22" / "android app on Gradle 8.4"
            if found is not None:
                key, reason = found
                review.closes.append(Supersession(fact.memory_id, key, reason))
            elif (
                subject
                and (not _by_table(slots) or not _by_table(old_slots))
                and same_subject(subject, _subject(fact.text, old_slots) or "")
            ):
                review.unsure.append(fact)
        return review

    def _named_again(self, new: str, old: str) -> tuple[str, str] | None:
        if not self.changes_named_again:
            return None
        return announced(new, old, moved_subjects=self.moved_subjects) or next_point(new, old)


#: Multi-valued attributes whose value a fact may end ("We dropped Redis", "gave up coffee").
_ENDED_MULTI = ("uses", "hobby", "has named", "consumes")


def _closing(new: Sequence[Slot], old: Sequence[Slot]) -> tuple[str, str] | None:
    for loose in (False, True):  # a slot of the very same subject first, for its key
        for slot in new:
            for earlier in old:
                reason = closes(slot, earlier, loose)
                if reason:
                    return earlier.key, reason
    return None


def closes(new: Slot, old: Slot, loose: bool = True) -> str | None:
    """Why slot ``new`` closes slot ``old``, or None when it does not. ``loose`` lets two
    statuses of one piece of work named in other words meet ("first screenplay" / "Joanna's
    first full screenplay")."""
    if old.attribute == ANY:
        return _switched_again(new, old)
    if new.kind:  # an attribute read by its shape, not the table's
        return open_closes(new, old)
    if new.subject == ANY:  # "Falcon was renamed Hawk", "Rex passed away": whoever's it was
        named = new.previous or new.value
        if old.attribute != new.attribute or not old.positive or named != old.value:
            return None
        return f"{old.subject}: {old.attribute} {old.value} no longer holds"
    if (
        not same_subject(new.subject, old.subject)
        and not household(new, old)
        and not (
            loose
            and new.attribute == old.attribute == "status"
            and same_thing(new.subject, old.subject)
        )
    ):
        return None
    who, what = old.subject, old.attribute
    if new.attribute == ANY:
        if not old.positive or not (old.single or old.attribute in _ENDED_MULTI):
            return None
        if new.previous and same_value(new.previous, old.value):
            return f"{who} {_verb(what)} {new.value} now, no longer {old.value}"
        if new.ended and same_value(_keyed(new.value, what), old.value):
            return f"{who} ended {old.value} ({what})"
        return None
    if new.attribute == "works at" and what == "job" and new.value in _NO_JOB and old.positive:
        return f"{who}: {what} {old.value} no longer holds ({new.value})"
    if (
        new.previous
        and old.positive
        and {new.attribute, what} <= _TOOLS
        and same_value(new.previous, old.value)
    ):  # "the frontend will use Svelte instead of React" after "the frontend uses React"
        return f"{who}: {what} changed from {old.value} to {new.value}"
    if new.attribute == "name" and what == "last name" and _new_surname(new, who):
        return f"{who}: {what} changed from {old.value} to {new.value}"
    if new.attribute != what:
        return None
    if new.previous and old.positive and same_value(new.previous, old.value):
        return f"{who}: {what} changed from {old.value} to {new.value}"
    if not new.positive:
        if old.positive and (not new.value or same_value(new.value, old.value)):
            return f"{who}: {what} {old.value} no longer holds"
        return None
    if not old.positive:
        if same_value(new.value, old.value):
            return f"{who}: {what} {new.value} holds again"
        return None
    if what == "status" and "'s " in new.subject + old.subject and goes_back(new.value, old.value):
        return None  # "Alice is looking for a car" after "Alice bought a car": another round
    # A change names the new value exactly ("nurse" -> "head nurse" is a promotion); a plain
    # statement may restate the old one with more words ("New York" / "New York City").
    if new.value == old.value or (not new.change and same_value(new.value, old.value)):
        return None
    if trait(new.value) != trait(old.value) and "colo" not in what:
        return None  # "My car is red" after "My car is a Tesla": a trait of it, not another car
    if new.single and old.single:
        return f"{who}: {what} changed from {old.value} to {new.value}"
    if what == "uses" and new.change:
        kind = tool_category(new.value)
        if kind and kind == tool_category(old.value):
            return f"{who}: {kind} changed from {old.value} to {new.value}"
    if (
        what == "likes"
        and new.change
        and (
            _same_head(new.value, old.value)
            or (tool_category(new.value) and tool_category(new.value) == tool_category(old.value))
        )
    ):
        # "now prefers light mode" after "prefers dark mode": one kind of thing, another choice
        return f"{who}: {what} changed from {old.value} to {new.value}"
    return None


#: The attributes that name a tool: what one uses, and what one uses for a purpose.
_TOOLS = {"uses", "tool"}
#: What "lost his job", "retired" leave of a job title: none.
_NO_JOB = ("none", "retired")


def _new_surname(new: Slot, who: str) -> bool:
    """ "Omar goes by Smith these days" after "Omar's surname is Haddad": a name told as a
    change that does not look like a short form of the first name ("Robert goes by Bob")."""
    value = new.value
    return (
        new.change
        and new.positive
        and value.isalpha()
        and len(value) >= 5
        and not value.endswith(("y", "ie"))
        and value[:1] != who[:1]
    )


def _left(new: Sequence[Slot], old_text: str, old: Sequence[Slot]) -> tuple[str, str] | None:
    """A change naming the value it left, and an earlier fact of the same subject that names
    it ("We replaced Jenkins with Buildkite" / "Jenkins builds our releases")."""
    if any(not slot.positive for slot in old):
        return None
    subject = old[0].subject if old else rough_subject(old_text)
    left = names_left(new, old_text, subject)
    if left is None:
        return None
    return f"{rough_subject(old_text) or 'fact'}: {left}", f"{left} was left"


def _by_table(slots: Sequence[Slot]) -> bool:
    """Whether an attribute of the table was read: a fact read only by its shape is one a
    judge with a model is still asked about."""
    return any(not slot.kind for slot in slots)


def _gone(new_text: str, new: Sequence[Slot], old_text: str) -> tuple[str, str] | None:
    """An earlier fact the new one closes by their shapes alone ("Raj is the new team lead" /
    "The team lead is Ana"); the user's (or the team's) earlier fact whose value the new one
    says was left ("Sold the Brompton and bought a Trek" / "I ride a Brompton"), or whose
    thing it changes ("Transferred the ISA to Vanguard" / "My ISA is with Trading 212")."""
    shaped = shaped_changes(prepare(new_text[:MAX_CHARS]))
    left = names_left(shaped, old_text, rough_subject(old_text)) if shaped else None
    if left:
        return f"we: {left}", f"{left} was left"
    for slot in (*shaped, *shaped_slots(new_text)):
        if slot in new:
            continue  # already tried
        for earlier in (*read_slots(old_text), *shaped_slots(old_text)):
            reason = open_closes(slot, earlier)
            if reason:
                return earlier.key, reason
    restated = same_but_value(new_text[:MAX_CHARS], old_text[:MAX_CHARS])
    if restated:
        return f"fact: {restated}", f"{restated} no longer holds"
    doer = role_taken(new_text[:MAX_CHARS], old_text[:MAX_CHARS])
    if doer:
        return f"fact: {doer.lower()}", f"{doer} no longer does it"
    owner, new_owner = prepare(old_text[:MAX_CHARS]), prepare(new_text[:MAX_CHARS])
    team_fact = any(slot.subject == "we" for slot in shaped_slots(old_text))
    thing = rough_subject(old_text)  # "We finished migrating prod to GCP" / "Prod is on AWS"
    team_fact = team_fact or (
        bool(FIRST_PERSON.match(new_owner))
        and any(slot.attribute == thing for slot in shaped if slot.subject in ("we", "user"))
    )
    if OURS.match(owner) or team_fact or _same_first(owner, new_owner):
        thing = moved_thing((*new, *shaped), new_text, old_text)
        if thing:
            return f"we: {thing}", f"{thing} changed"
    said = " " + " ".join(_stem(w) for w in _SAME.sub(" ", old_text.lower()).split()) + " "
    mine = bool(FIRST_PERSON.match(new_owner)) or _same_first(owner, new_owner)
    ours = FIRST_PERSON.match(owner) is not None or _same_first(owner, new_owner)
    if _no_one_named(old_text) and _no_one_named(new_text):
        mine = ours = True  # jotted notes ("van: white Transit" / "the transit went to auction")
    for value, how in left_values(new_text[:MAX_CHARS]):
        by_subject = how == 1
        if not (ours and (mine or by_subject)) and not (by_subject and _named_in(value, old_text)):
            continue  # "Ellie quit Monzo" says nothing of the user's Monzo
        left = f" {' '.join(_stem(w) for w in _SAME.sub(' ', value).split())} "
        if how == 2:  # "..., not Leeds": the value the earlier fact ends on
            said = " " + " ".join(said.split()[-2:]) + " "
        if _PARTED.search(new_text) and not _TOGETHER.search(old_text):
            continue  # "Tom and I split up" ends a couple, not "I play in a band with Tom"
        if left in said:
            return f"user: {value}", f"{value} was left"
    return None


#: Someone a fact is of: a pronoun, a relative, a name's thing ("Tom's gym"; an opening
#: possessive in any case is OPENING_POSSESSOR's), or an opening name told of ("Noah - St
#: Peter's", "Kayleigh: earlies", "Ellie quit Monzo").
_SOMEONE = re.compile(
    rf"(?i)^\s*(?:he|she|they|his|her|their|(?:my\s+|our\s+)?{RELATIVES}\b)"
    r"|\b(?-i:[A-Z])[\w-]*'s\s"
    r"|^\s*(?-i:[A-Z][a-z]+)(?:\s+-|:|\s+(?-i:[a-z]))"
)


def _no_one_named(text: str) -> bool:
    """Whether ``text`` is of no one but its teller: a jotted note of the user's own."""
    text = text[:MAX_CHARS]
    return _SOMEONE.search(text) is None and OPENING_POSSESSOR.match(text) is None


_PARTED = re.compile(r"(?i)\b(?:split\s+up|broke\s+up|separated|divorced)\b")
_TOGETHER = re.compile(
    r"(?i)\b(?:seeing|dating|going\s+out|partner|boyfriend|girlfriend|husband|wife|fianc|married|"
    r"engaged|together|relationship|living\s+with|moved\s+in)"
)


def _stem(word: str) -> str:
    """ "driving" and "drive", "cliftons" and "clifton": one stem."""
    for end in ("ing", "es", "s", "e"):
        if word.endswith(end) and len(word) - len(end) >= 3:
            return word[: -len(end)]
    return word


def _two_things(new_text: str, old_text: str, key: str) -> bool:
    """Two facts about two named things of the team ("the frontend", "our Lambdas"), neither
    the team nor the tool itself: one's versions do not close the other's."""
    one, other = rough_subject(new_text), rough_subject(old_text)
    if not one or not other or one == other:
        return False
    common = key.split(": version of ")[-1].split() + list(_COMMON_OWNERS)
    return not any(word in common for word in (*one.split(), *other.split()))


_SCOPE = re.compile(
    r"\b(?:for|on|in)\s+(?:the\s+)?(?P<x>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)"
    r"(?:\s+(?:team|service|squad|project|side))?\W*$"
)
_NOW_AT_END = re.compile(r"(?:,?\s+(?:now|these\s+days|nowadays|too))+\W*$")


def _two_scopes(new_text: str, old_text: str) -> bool:
    """Two roles, each for another part of the work ("Kim is the product owner for search" /
    "Kim is the scrum master for ads"): one may be held beside the other."""
    one, other = (_SCOPE.search(_NOW_AT_END.sub("", text.lower())) for text in (new_text, old_text))
    return bool(one and other and one.group("x") != other.group("x"))


#: "our standup", "my rent": a thing the teller owns, by the word after "our"/"my".
_OURS = re.compile(r"(?i)\b(?:our|my)\s+([a-z][\w-]*)")
#: "Ravi's standup": a thing a named person owns, by the word after the name.
_NAMED_OWNER = re.compile(r"\b(?-i:[A-Z])[\w-]*'s\s+([a-z][\w-]*)")


def _two_owners(new_text: str, old_text: str) -> bool:
    """One fact about the teller's own thing and the other about a named person's thing of the
    same name ("Our standup moved to Tuesdays" / "Ravi's standup is on Mondays"): two
    standups. Subjects drop "our" (so that "Our launch slipped" meets "The launch is on 3
    May"), which alone would let an unowned subject meet an owned one."""
    for one, other in ((new_text, old_text), (old_text, new_text)):
        ours = {m.group(1).lower() for m in _OURS.finditer(one)}
        if ours & {m.group(1).lower() for m in _NAMED_OWNER.finditer(other)}:
            return True
    return False


#: Owners that are the team's whole system, or an event of it, rather than one thing of it.
_COMMON_OWNERS = (
    "user", "we", "team", "project", "app", "codebase", "repo", "stack", "production", "prod",
    "services", "service", "upgrade", "update", "migration", "everything", "it",
)  # fmt: skip


def _same_first(one: str, other: str) -> bool:
    """Two facts that open with the same name ("Tom and Aisha booked..." / "Tom and Aisha
    moved the wedding...")."""
    a, b = one.split()[:1], other.split()[:1]
    return bool(a) and a == b and a[0][:1].isupper() and a[0].lower() not in ("the", "i", "we")


def _named_in(value: str, old_text: str) -> bool:
    """ "Dr Collins retired" / "Mum sees Dr Collins": a name the earlier fact holds as its
    value (not as its subject, which the fact would be about)."""
    at = old_text.lower().find(value)
    return at > 0 and old_text[at : at + 1].isupper()


def _keyed(value: str, attribute: str) -> str:
    """A hobby is stored by its word keys ("karate" -> "karat"): compare it the same way."""
    return " ".join(key(word) for word in value.split()) if attribute == "hobby" else value


def _switched_again(new: Slot, old: Slot) -> str | None:
    """ "Dana traded in her Ford for a Toyota", then "Dana sold the Toyota and bought a
    Honda": a switch's new value (what it holds now) ended or switched away from again."""
    if not old.previous or not old.positive or not old.value or new.attribute != ANY:
        return None
    if new.subject == ANY or not same_subject(new.subject, old.subject):
        return None
    gone = new.previous or (new.value if new.ended else "")
    if gone and same_value(gone, old.value):
        return f"{old.subject}: {old.value} no longer holds"
    return None


def _same_head(one: str, other: str) -> bool:
    """Two phrases of two or more words with the same last word ("dark mode", "light mode")."""
    a, b = one.split(), other.split()
    return len(a) >= 2 and len(b) >= 2 and a[-1] == b[-1] and a != b


def _verb(attribute: str) -> str:
    return "uses" if attribute == "uses" else attribute


_SAME = re.compile(r"[^a-z0-9@]+")


def _same_text(one: str, other: str) -> bool:
    return _SAME.sub(" ", one.lower()).strip() == _SAME.sub(" ", other.lower()).strip()


def _subject(text: str, slots: Sequence[Slot]) -> str | None:
    """The fact's subject: its slots', or the words before its first verb."""
    if slots:
        return slots[0].subject
    return rough_subject(text)


_CHANGE_WORDS = frozenset({"stopped", "quit", "anymore", "again", "now", "start", "started"})


def _flipped(new: str, old: str, subject: str | None) -> tuple[str, str] | None:
    """Same words, opposite polarity ("plays tennis" / "no longer plays tennis")."""
    one = read_form(prepare(new[:MAX_CHARS]).replace(NEG, "no longer"))
    other = read_form(prepare(old[:MAX_CHARS]).replace(NEG, "no longer"))
    if one.negated == other.negated:
        return None
    words, old_words = one.words - _CHANGE_WORDS, other.words - _CHANGE_WORDS
    if len(words) < 2 or words != old_words:
        return None
    said = " ".join(old.lower().split()).rstrip(".")
    if subject and said.startswith(subject + " "):
        said = said[len(subject) + 1 :]  # "alice: plays tennis"
    state = "no longer holds" if one.negated else "holds again"
    return f"{subject or 'fact'}: {said}", f"{old.strip()!r} {state}"
