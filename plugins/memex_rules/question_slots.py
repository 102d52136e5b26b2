"""Which stored facts a question asks about: the question read into (subject, attribute) slots.

A question is turned into the statement that would answer it, with a stand-in value
("Where does Dana work?" -> "Dana works at Zorblat", "What is my address?" -> "my address is
Zorblat", "When is the launch?" -> "The launch is on May 3"), and that statement is read by
the same rules that read facts (:func:`memex_rules.supersession_slots.read_slots`). So a
question meets a fact exactly when the supersession judge would call the two facts about one
thing: the same subject and attribute, whatever their words ("Who is my partner?" finds "I am
with Elena these days"; "What is my job title?" finds "I am a data scientist").

Only the forms below are read (what/which/who/where/when questions about a possessed noun,
where someone lives or works, what someone does for a living, who someone is with, what is
used for something, a plan's date, a version, an owner, who coaches a team, what someone is
studying, and yes/no questions that
restate a fact: "Does Lena still work at Philips?"); any other question reads to no slot and
its search is left as it was. English only, no model; the same question always gives the same
slots.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache

from memex_rules.rules_text import compile_pattern, squash, word_set
from memex_rules.statement_objects import third_singular
from memex_rules.supersession import RulesSupersessionJudge
from memex_rules.supersession_kinds import asked_kinds, states_kind
from memex_rules.supersession_levels import level_asked
from memex_rules.supersession_slots import read_slots, shaped_slots
from memex_rules.supersession_values import ANY, Slot, same_subject, same_value

#: The stand-in value of a statement built from a question: a word no rule reads as a
#: place, tool, date or status, so each rule reads it as a plain name.
_VALUE = "Zorblat"

#: Attributes that answer the same question: where someone lives is also their address,
#: and what someone eats ("What do I eat?") their diet ("I'm pescatarian").
#: An uptime is what a service level agreement promises ("Our API SLA is 99.5% uptime").
_ALIKE = {
    "lives in": ("address",),
    "address": ("lives in",),
    "consumes": ("diet",),
    "uptime": ("sla",),
    "sla": ("uptime",),
}

_S = r"(?P<s>I|me|we|us|[\w'.-]+(?:\s+[\w'.-]+){0,3}?)"
_P = r"(?P<p>my|our|(?:the\s+)?[\w.-]+(?:\s+[\w.-]+){0,2}?'s?)"
_NOW = r"(?:\s+(?:now|these\s+days|currently|at\s+the\s+moment|today|right\s+now|nowadays))?"
_IS = r"(?:is|are|was|am|'s)"
_DO = r"(?:do|does|did)"
_ASKED = r"(?:now\s+|currently\s+|still\s+|actually\s+)?"
_THING = r"(?P<x>[\w.' -]+?)"


def _forms() -> tuple[tuple[re.Pattern[str], tuple[str, ...]], ...]:
    """(question pattern, statements that would answer it): ``{s}`` the subject, ``{p}`` its
    possessive, ``{x}`` the thing asked about, ``{V}`` the stand-in value; a statement
    starting with ``!`` names the value itself ("Is Trello still in use?")."""
    forms = (
        # where someone lives or works
        (
            rf"where\s+{_DO}\s+{_S}\s+{_ASKED}(?:live|reside|stay)(?:\s+now)?{_NOW}",
            ("{s} lives in {V}",),
        ),
        (rf"where\s+{_IS}\s+{_S}\s+{_ASKED}(?:based|living|located){_NOW}", ("{s} lives in {V}",)),
        (
            rf"(?:which|what)\s+(?:city|town|country|place)\s+{_IS}\s+{_S}\s+{_ASKED}"
            rf"(?:based|living)\s+in{_NOW}",
            ("{s} lives in {V}",),
        ),
        (
            rf"(?:which|what)\s+(?:city|town|country|place)\s+{_DO}\s+{_S}\s+{_ASKED}"
            rf"live\s+in{_NOW}",
            ("{s} lives in {V}",),
        ),
        (
            rf"where\s+should\s+(?:the\s+)?(?:parcels?|mail|post|letters?|packages?|deliveries)"
            rf"\s+(?:for|to)\s+{_S}\s+(?:go|be\s+sent)",
            ("{p} address is {V}",),
        ),
        (rf"where\s+{_DO}\s+{_S}\s+{_ASKED}work(?:\s+now)?{_NOW}", ("{s} works at {V}",)),
        (
            rf"(?:which|what)\s+(?:company|firm|employer|organi[sz]ation|business)\s+{_DO}\s+"
            rf"{_S}\s+{_ASKED}work\s+(?:for|at){_NOW}",
            ("{s} works at {V}",),
        ),
        (rf"who\s+{_DO}\s+{_S}\s+{_ASKED}work\s+for{_NOW}", ("{s} works at {V}",)),
        (
            rf"what\s+{_DO}\s+{_S}\s+{_ASKED}do(?:\s+for\s+(?:a\s+living|work|a\s+job))?{_NOW}",
            ("{s} works as a nurse",),
        ),
        (
            rf"where\s+{_DO}\s+{_S}\s+{_ASKED}(?:study|go\s+to\s+(?:school|college|university))",
            ("{s} studies at {V} University",),
        ),
        (rf"what\s+{_DO}\s+{_S}\s+{_ASKED}study{_NOW}", ("{s} studies {V}",)),
        (
            rf"what\s+{_IS}\s+{_S}\s+{_ASKED}(?:studying|doing\s+a\s+degree\s+in){_NOW}",
            ("{s} studies {V}",),
        ),
        # partners
        (
            rf"who\s+{_IS}\s+{_S}\s+{_ASKED}(?:dating|seeing|with|married\s+to|engaged\s+to|"
            rf"in\s+a\s+relationship\s+with|going\s+out\s+with){_NOW}",
            ("{s} is dating {V}",),
        ),
        # things someone has, follows, drives
        (
            rf"what\s+(?:kind\s+of\s+|type\s+of\s+)?diet\s+{_DO}\s+{_S}\s+{_ASKED}"
            rf"(?:follow|have|eat|keep){_NOW}",
            ("{s} is vegan",),
        ),
        (
            rf"what\s+(?:kind\s+of\s+|make\s+of\s+)?car\s+{_DO}\s+{_S}\s+{_ASKED}"
            rf"(?:drive|have|own){_NOW}",
            ("{s} drives a {V}",),
        ),
        (
            rf"(?:what|which)\s+(?:medications?|medicines?|meds|pills|tablets|drugs|"
            rf"prescriptions?|supplements?|vitamins)\s+{_DO}\s+{_S}\s+{_ASKED}(?:take|have|use)"
            rf"(?:\s+(?:every\s+day|daily|each\s+day|regularly))?{_NOW}",
            ("{s} takes {V}", "{s} is on {V}"),
        ),
        # the train or bus someone catches, by its time: "I get the 7:42 from Reading"
        (
            rf"(?:which|what)\s+(?:train|bus|tram|ferry|service)\s+{_DO}\s+{_S}\s+{_ASKED}"
            rf"(?:catch|get|take)(?:\s+(?:in\s+the\s+morning|to\s+work|home|into\s+town|"
            rf"every\s+day|most\s+days))?{_NOW}",
            ("{s} catches the 7:59",),
        ),
        # what someone promises: "What uptime do we promise?" asks for the SLA
        (
            rf"what\s+(?P<n>[\w-]+(?:\s+[\w-]+)?)\s+{_DO}\s+{_S}\s+{_ASKED}(?:promise|"
            rf"guarantee|commit\s+to|offer)(?:\s+(?:customers|clients|users|our\s+customers))?{_NOW}",
            ("{p} {n} is {V}",),
        ),
        (
            rf"what\s+(?:last\s+name|surname|family\s+name|name)\s+{_DO}\s+{_S}\s+{_ASKED}"
            r"(?:use|go\s+by|have)",
            ("{p} last name is {V}", "{p} name is {V}"),
        ),
        (
            rf"what\s+e-?mail(?:\s+address)?\s+(?:should|do|does|can)\s+(?:I|we|you|one|"
            rf"be\s+used)?\s*(?:use\s+)?(?:for|to\s+reach)\s+{_S}",
            ("{p} email is zorblat@example.org",),
        ),
        # tools, versions, owners, names, dates, status
        (
            rf"(?:what|which)\s+(?P<x>[\w.-]+(?:\s+[\w.-]+)?)\s+(?:{_DO}|are)\s+{_S}\s+{_ASKED}"
            rf"(?:use|using|run|running|rely\s+on)\s+for\s+(?P<y>.+?){_NOW}",
            ("{s} uses {V} for {y}",),
        ),
        (
            rf"(?:what|which)\s+(?:{_DO}|are)\s+{_S}\s+{_ASKED}(?:use|using|run|running|"
            rf"rely\s+on)\s+for\s+(?P<y>.+?){_NOW}",
            ("{s} uses {V} for {y}",),
        ),
        (
            rf"what\s+(?:did|have)\s+{_S}\s+(?:decide[d]?|pick(?:ed)?|choose|chosen|go\s+with|"
            rf"settle[d]?\s+on)\s+(?:on\s+)?for\s+(?P<y>.+?){_NOW}",
            ("{s} uses {V} for {y}",),
        ),
        (
            rf"(?:what|which)\s+(?:tool|service|product|app|system|platform)\s+(?:handles|is\s+"
            rf"used\s+for|do\s+we\s+use\s+for|runs|powers)\s+(?P<y>.+?){_NOW}",
            ("we use {V} for {y}",),
        ),
        (
            rf"(?:what|which)\s+version\s+of\s+(?P<t>[\w.+-]+)\s+(?:{_IS}|{_DO}\s+{_S}\s+"
            r"(?:use|run))\b.*",
            ("we run {t} 3.12",),
        ),
        (
            rf"(?:what|which)\s+(?P<t>[\w.+-]+)\s+version\s+(?:{_IS}|{_DO}\s+{_S}\s+"
            r"(?:use|run))\b.*",
            ("we run {t} 3.12",),
        ),
        (
            r"who\s+(?:owns|is\s+responsible\s+for|is\s+in\s+charge\s+of|maintains|looks\s+"
            rf"after|is\s+the\s+owner\s+of){_NOW}\s+(?P<x>.+?){_NOW}",
            ("{V} owns {x}", "{V} is responsible for {x}"),
        ),
        (rf"who\s+(?:coaches|trains){_NOW}\s+(?P<x>.+?){_NOW}", ("Zorblat coaches {x}",)),
        (
            rf"how\s+{_DO}\s+{_S}\s+(?:like|want|prefer)\s+(?:my\s+|the\s+|your\s+)?(?:answers?|"
            r"responses?|replies|output)(?:\s+(?:laid\s+out|formatted|written|presented|structured))?",
            ("{s} prefers answers in zorblat paragraphs",),
        ),
        (
            rf"what\s+{_IS}\s+{_THING}\s+(?:called|named){_NOW}",
            ("{x} is called {V}",),
        ),
        (rf"what\s+{_IS}\s+the\s+name\s+of\s+{_THING}", ("{x} is called {V}",)),
        (
            rf"(?:is|are)\s+{_THING}\s+{_ASKED}(?:in\s+use|used|running)(?:\s+here)?{_NOW}",
            ("!the team uses {x}",),
        ),
        (
            rf"(?:when|what\s+date|what\s+day|on\s+what\s+date)\s+{_IS}\s+{_THING}"
            r"(?:\s+(?:happening|scheduled|planned|due|set\s+for))?",
            ("{x} is on May 3",),
        ),
        (
            rf"when\s+(?:does|will|do)\s+{_THING}\s+(?:happen|start|take\s+place|ship|launch)",
            ("{x} is on May 3",),
        ),
        (
            rf"(?:what\s+{_IS}\s+the\s+status\s+of|where\s+{_DO}|how\s+{_IS}|how\s+far\s+along\s+"
            rf"{_IS})\s+{_THING}(?:\s+stand|\s+going|\s+coming\s+along|\s+at)?{_NOW}",
            ("{x} is in progress",),
        ),
        # where a possessed thing is: its place ("Ravi's offsite is in Lisbon") or its value
        (
            rf"where\s+{_IS}\s+{_P}\s+(?:current\s+|new\s+|next\s+)?(?P<n>[\w -]+?)"
            rf"(?:\s+(?:being\s+)?(?:held|happening|taking\s+place))?{_NOW}",
            ("{p} {n} is in {V}", "{p} {n} is {V}"),
        ),
        # a possessed noun: "What is my address?", "Who is Alice's partner?"
        (
            rf"(?:what|who|where|which|how|how\s+much|how\s+many|when)\s+{_IS}\s+{_P}\s+"
            rf"(?:current\s+|new\s+|present\s+|latest\s+)?(?P<n>[\w -]+?)"
            rf"(?:\s+(?:at|in|on|for|with|these)\s+(?:work|home|the\s+moment|the\s+minute|days))?{_NOW}",
            ("{p} {n} is {V}",),
        ),
        # a definite noun: "What is the rent?", "How much is the membership?"
        (
            rf"(?:what|who|which|how\s+much|how\s+many)\s+{_IS}\s+the\s+(?:current\s+)?"
            rf"(?P<n>(?:(?!\bof\b)[\w-]+\s+){{0,3}}[\w-]+){_NOW}",
            ("the {n} is {V}",),
        ),
        # on a plan or a tier: "Which Slack plan are we on?"
        (
            rf"(?:which|what)\s+(?P<x>[\w.-]+(?:\s+[\w.-]+){{0,2}})\s+(?:{_IS}|{_DO})\s+{_S}\s+"
            rf"{_ASKED}(?:on|using|subscribed\s+to){_NOW}",
            ("{s} is on the {V} {x}",),
        ),
        (
            rf"(?:what|who)\s+{_IS}\s+the\s+(?:current\s+)?(?P<n>[\w -]+?)\s+of\s+{_S}{_NOW}",
            ("{p} {n} is {V}",),
        ),
        # any verb and its preposition: "Who do I report to?", "Who do we bank with?"
        (
            rf"(?:who|what|which\s+[\w-]+|how\s+much|how\s+many\s+[\w-]+)\s+{_DO}\s+{_S}\s+"
            rf"{_ASKED}(?P<y>[a-z]+(?:\s+(?:to|with|at|on|in|for|from|by|into|up\s+at))?){_NOW}",
            ("{s} {Y} {V}",),
        ),
    )
    return tuple((compile_pattern(rf"^{pattern}$"), templates) for pattern, templates in forms)


_FORMS = _forms()
#: A yes/no question that restates a fact: "Does Lena still work at Philips?".
_YES_NO_DO = compile_pattern(rf"^(?P<aux>do|does|did)\s+{_S}\s+{_ASKED}(?P<v>[a-z]+)\b(?P<r>.*)$")
_YES_NO_BE = compile_pattern(rf"^(?P<aux>is|are|am)\s+{_S}\s+{_ASKED}(?P<r>.+)$")
#: "Is Priya vegetarian, vegan or something else?": the first choice is the statement.
_CHOICES = compile_pattern(r"\s*(?:,|\bor\b).*$")
_QUESTION_END = compile_pattern(r"[\s?!.]+$")
#: "What's my rent?" is "What is my rent?".
_CONTRACTED = compile_pattern(r"^(what|who|where|when|how|which)'s\b")


def _subject(said: str) -> tuple[str, str]:
    """The subject of a statement and its possessive ("I" -> "I", "my")."""
    word = said.strip()
    low = word.lower()
    if low in ("i", "me", "my"):
        return "I", "my"
    if low in ("we", "us", "our"):
        return "we", "our"
    if low.endswith("'s") or low.endswith("s'"):
        return word[:-2] if low.endswith("'s") else word[:-1], word
    return word, word + "'s"


def statements(question: str) -> list[tuple[str, bool]]:
    """The statements that would answer ``question``, each with whether it names the value
    asked about (a yes/no question's own statement does; the others hold a stand-in value);
    empty when the question is of no form read here."""
    text = _QUESTION_END.sub("", squash(question.replace("\u2019", "'")))
    text = _CONTRACTED.sub(r"\1 is", text)
    out: list[tuple[str, bool]] = []
    for pattern, templates in _FORMS:
        match = pattern.match(text)
        if match is None:
            continue
        groups = {k: v or "" for k, v in match.groupdict().items()}
        said = groups.get("s") or groups.get("p") or ""
        if said.lower() in ("you", "your"):
            continue  # the agent itself
        subject, possessive = _subject(said)
        # the templates are in the third person: "the user lives in ...", "the team uses ..."
        subject = {"I": "the user", "we": "the team"}.get(subject, subject)
        for template in templates:
            said_as = template.format(
                s=subject,
                p=possessive,
                x=groups.get("x", ""),
                y=groups.get("y", ""),
                t=groups.get("t", ""),
                n=groups.get("n", ""),
                Y=_third(groups.get("y", "")),
                V=_VALUE,
            )
            out.append((said_as.lstrip("!"), said_as.startswith("!")))
        if out:
            return out
    return _yes_no(text)


def _third(verb: str) -> str:
    """ "report to" -> "reports to": the statements are in the third person."""
    first, _, rest = verb.partition(" ")
    return f"{third_singular(first)} {rest}".strip() if first else ""


def _yes_no(text: str) -> list[tuple[str, bool]]:
    match = _YES_NO_DO.match(text)
    if match is not None:
        subject, _ = _subject(match.group("s"))
        verb = match.group("v")
        if match.group("aux").lower() == "does" and subject not in ("I", "we"):
            verb = third_singular(verb)
        return [(f"{subject} {verb}{_CHOICES.sub('', match.group('r'))}", True)]
    match = _YES_NO_BE.match(text)
    if match is not None:
        subject, _ = _subject(match.group("s"))
        rest = _CHOICES.sub("", match.group("r"))
        verb = "am" if subject == "I" else "are" if subject == "we" else "is"
        return [(f"{subject} {verb} {rest}", True)] if rest else []
    return []


@lru_cache(maxsize=1024)
def read_question(question: str) -> tuple[tuple[str, str, str], ...]:
    """The (subject, attribute, value) slots ``question`` asks about; the value is empty
    unless the question names it ("Do we still use Trello?"). Empty when the question reads
    to none (then no stored fact is offered for it)."""
    asked: list[tuple[str, str, str]] = []
    for statement, names_value in statements(question):
        for slot in _slots(statement):
            if slot.attribute == ANY or not slot.subject:
                continue
            if slot.kind and not _owned_by_asker(slot.subject, question):
                continue  # "What is the capital of France?" asks no one's attribute
            named = slot.value if names_value else ""
            for attribute in (slot.attribute, *_ALIKE.get(slot.attribute, ())):
                if (slot.subject, attribute, named) not in asked:
                    asked.append((slot.subject, attribute, named))
    return tuple(asked)


def _slots(text: str) -> tuple[Slot, ...]:
    """What the judge reads in ``text``: the table's slots and those of its shape."""
    return read_slots(text) + tuple(s for s in shaped_slots(text) if s not in read_slots(text))


def _owned_by_asker(subject: str, question: str) -> bool:
    """An attribute read by its shape is asked of the user, the team or someone named with a
    possessive ("Who is Priya's dentist?"), not of a thing ("the capital of France")."""
    return subject in ("user", "we") or f"{subject}'s" in question.lower().replace("\u2019", "'")


def _meets(slot: Slot, subject: str, attribute: str, value: str) -> bool:
    """Whether a fact's ``slot`` sets what a question's slot asks about. A question that
    names its value ("Do we still use Trello?") is also met by the facts that end that value
    ("We dropped Trello"); of an attribute with many values (uses, likes) only the facts of
    that value meet it."""
    if slot.attribute == ANY:
        return (
            bool(value)
            and same_value(value, slot.value)
            and (slot.subject == ANY or same_subject(subject, slot.subject))
        )
    if attribute == "has pet" and slot.attribute.removeprefix("has ") in _ANIMALS:
        return same_subject(subject, slot.subject)  # "Do I have a pet?": the tortoise, or its end
    if not _same_attribute(slot.attribute, attribute) or not same_subject(subject, slot.subject):
        return False
    return slot.single or not value or same_value(value, slot.value)


def _same_attribute(told: str, asked: str) -> bool:
    """The fact's attribute is the one asked, or a kind of it that a word before its head
    names ("What is our SLA?" / "Our API SLA is 99.9%"); not the other way round ("What is
    our API SLA?" is not met by any SLA)."""
    return told == asked or (told.endswith(f" {asked}") and asked in _HEADS)


#: Heads whose modified forms answer a question about the plain one.
_HEADS = frozenset({"sla", "uptime"})


#: The animals a "has <animal>" slot names that answer "Do I have a pet?" (singular, as read).
_ANIMALS = word_set(
    "dog puppy cat kitten fish goldfish bird parrot hamster rabbit bunny horse pony snake "
    "turtle tortoise gecko lizard iguana ferret chinchilla gerbil mouse rat budgie "
    "canary cockatiel chicken hen goat frog axolotl hedgehog pet"
) | {"guinea pig"}


def answers(question: str, texts: Sequence[str]) -> list[int]:
    """The positions in ``texts`` of the facts that set what ``question`` asks about (the
    same subject and attribute); empty when the question reads to no slot."""
    answering = RulesJudge().answering(question)
    return [i for i, text in enumerate(texts) if answering(text)] if answering else []


class RulesJudge(RulesSupersessionJudge):
    """The ``rules`` supersession judge, which also reads questions
    (:class:`memex_core.domain.memory.validity.AnsweringJudge`)."""

    def answering(self, question: str) -> Callable[[str], bool] | None:
        """A test of whether a fact's text sets what ``question`` asks about, or None when
        the question reads to no slot."""
        asked = read_question(question)
        kinds, owner = asked_kinds(question)
        level = level_asked(question)
        if not asked and not kinds and level is None:
            return None

        def answers_it(text: str) -> bool:
            # the slots the question reads, a value of the kind it asks for ("Where do we
            # track tickets?" / "Tickets live in Linear these days"), or a level of the ladder
            # it asks about ("What grade do I boulder at?" / "I'm climbing V3 at the wall")
            return (
                any(_meets(slot, *wanted) for slot in _slots(text) for wanted in asked)
                or (bool(kinds) and states_kind(text, kinds, owner))
                or (level is not None and level(text))
            )

        return answers_it
