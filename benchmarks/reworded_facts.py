"""Deterministic facts about a few users, each also said a second time in other words.

A memory benchmark needs ground truth: which stored texts state the same fact.
:func:`generate` builds ``per_user`` distinct facts for each user from templates
(preferences, relatives and places, work, plans, health, hobbies, favourites),
each fact with a stable ``fact_id``, and one rewording of every fact. A
rewording keeps the meaning and changes the surface, one of :data:`KINDS`:

- ``punctuation_case``: case and punctuation only ("alice likes sushi.");
- ``subject``: the name becomes "The user" / "User" ("The user likes sushi");
- ``filler``: "actually", "By the way, ", "really" added;
- ``contraction``: "does not" -> "doesn't", "Alice is" -> "Alice's"...;
- ``synonym``: another verb or phrase ("Alice enjoys sushi");
- ``word_order``: the same words moved ("Sushi is something Alice likes");
- ``mixed``: a synonym or new order, plus a subject or filler change, plus punctuation.

Distinct facts are close on purpose ("Alice likes sushi" / "Alice likes ramen",
"Alice's sister lives in Porto" / "Alice's brother lives in Porto", favourite
book *Dune* / favourite film *Dune*): a consolidator that merges those loses a
fact. Facts of one user never contradict each other (single-valued attributes,
such as a relative's city or the job, get one value per user; likes and dislikes
draw from disjoint lists), so every fact must survive deduplication.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

NAMES = ("Alice", "Bob", "Chen", "Dana", "Emeka", "Fatima", "Goran", "Hana", "Ivan", "Julia")

PUNCTUATION_CASE, SUBJECT, FILLER, CONTRACTION = (
    "punctuation_case",
    "subject",
    "filler",
    "contraction",
)
SYNONYM, WORD_ORDER, MIXED = "synonym", "word_order", "mixed"
#: Rewording kinds, in report order.
KINDS = (PUNCTUATION_CASE, SUBJECT, FILLER, CONTRACTION, SYNONYM, WORD_ORDER, MIXED)
_KIND_WEIGHTS = {
    PUNCTUATION_CASE: 1,
    SUBJECT: 1,
    FILLER: 1,
    CONTRACTION: 1,
    SYNONYM: 2,
    WORD_ORDER: 1,
    MIXED: 1,
}
BASE = "base"


@dataclass(frozen=True)
class Phrasing:
    """A sentence pattern: ``{S}`` is the subject, ``{P}`` its possessive; ``tag`` says how it
    differs from the template's first phrasing (``base``, ``synonym`` or ``word_order``)."""

    pattern: str
    tag: str = BASE


@dataclass(frozen=True)
class Template:
    key: str
    category: str  # a default fact type name
    phrasings: tuple[Phrasing, ...]


def _p(pattern: str, tag: str = BASE) -> Phrasing:
    return Phrasing(pattern, tag)


TEMPLATES: dict[str, Template] = {
    t.key: t
    for t in (
        Template(
            "likes",
            "preference",
            (
                _p("{S} likes {thing}"),
                _p("{S} enjoys {thing}", SYNONYM),
                _p("{S} is fond of {thing}", SYNONYM),
                _p("{thing} is something {S} likes", WORD_ORDER),
            ),
        ),
        Template(
            "prefers",
            "preference",
            (
                _p("{S} prefers {a} over {b}"),
                _p("{S} would rather drink {a} than {b}", SYNONYM),
                _p("{S} likes {a} better than {b}", SYNONYM),
                _p("Over {b}, {S} prefers {a}", WORD_ORDER),
            ),
        ),
        Template(
            "dislikes",
            "preference",
            (
                _p("{S} does not like {thing}"),
                _p("{S} dislikes {thing}", SYNONYM),
                _p("{S} is not a fan of {thing}", SYNONYM),
                _p("{thing} is something {S} does not like", WORD_ORDER),
            ),
        ),
        Template(
            "relative_city",
            "personal_detail",
            (
                _p("{P} {relative} lives in {city}"),
                _p("{P} {relative} is based in {city}", SYNONYM),
                _p("{P} {relative} resides in {city}", SYNONYM),
                _p("The {relative} of {S} lives in {city}", WORD_ORDER),
            ),
        ),
        Template(
            "job",
            "professional",
            (
                _p("{S} works as a {job} at {company}"),
                _p("{S} is employed as a {job} at {company}", SYNONYM),
                _p("At {company}, {S} works as a {job}", WORD_ORDER),
            ),
        ),
        Template(
            "team_tool",
            "professional",
            (
                _p("{P} team uses {tool}"),
                _p("{P} team works with {tool}", SYNONYM),
                _p("{tool} is used by {P} team", WORD_ORDER),
            ),
        ),
        Template(
            "visit",
            "plan",
            (
                _p("{S} plans to visit {place} in {month}"),
                _p("{S} is planning a trip to {place} in {month}", SYNONYM),
                _p("{S} intends to visit {place} in {month}", SYNONYM),
                _p("In {month}, {S} plans to visit {place}", WORD_ORDER),
            ),
        ),
        Template(
            "learn",
            "plan",
            (
                _p("{S} wants to learn {skill}"),
                _p("{S} would like to learn {skill}", SYNONYM),
                _p("{S} hopes to learn {skill}", SYNONYM),
                _p("Learning {skill} is a goal of {S}", WORD_ORDER),
            ),
        ),
        Template(
            "allergy",
            "health",
            (
                _p("{S} is allergic to {allergen}"),
                _p("{S} has an allergy to {allergen}", SYNONYM),
                _p("{allergen} gives {S} an allergic reaction", WORD_ORDER),
            ),
        ),
        Template(
            "exercise",
            "health",
            (
                _p("{S} goes {activity} every {day}"),
                _p("{S} goes {activity} on {day}s", SYNONYM),
                _p("Every {day}, {S} goes {activity}", WORD_ORDER),
            ),
        ),
        Template(
            "supplement",
            "health",
            (
                _p("{S} takes {supplement} every morning"),
                _p("{S} has {supplement} each morning", SYNONYM),
                _p("Every morning {S} takes {supplement}", WORD_ORDER),
            ),
        ),
        Template(
            "instrument",
            "activity_preference",
            (
                _p("{S} plays the {instrument}"),
                _p("{S} can play the {instrument}", SYNONYM),
                _p("The {instrument} is an instrument {S} plays", WORD_ORDER),
            ),
        ),
        Template(
            "language",
            "personal_detail",
            (
                _p("{S} speaks {language}"),
                _p("{S} can speak {language}", SYNONYM),
                _p("{language} is one of the languages {S} speaks", WORD_ORDER),
            ),
        ),
        Template(
            "pet",
            "personal_detail",
            (
                _p("{S} has a {pet} named {pet_name}"),
                _p("{S} owns a {pet} called {pet_name}", SYNONYM),
                _p("{pet_name} is the name of {P} {pet}", WORD_ORDER),
            ),
        ),
        Template(
            "favourite",
            "misc",
            (
                _p("{P} favourite {kind} is {item}"),
                _p("{P} favorite {kind} is {item}", SYNONYM),
                _p("{item} is {P} favourite {kind}", WORD_ORDER),
            ),
        ),
    )
}

FOODS = (
    "sushi", "ramen", "dark chocolate", "spicy curry", "blueberries", "sourdough bread",
    "goat cheese", "mango", "falafel", "pho", "lasagna", "oysters", "kimchi", "tacos",
    "greek salad", "pancakes", "lemon tart", "hummus", "dumplings", "paella", "risotto",
    "miso soup", "strawberries", "pistachio ice cream", "grilled salmon", "banana bread",
    "olives", "fried plantain", "croissants", "peanut butter",
)  # fmt: skip
DISLIKED = (
    "horror films", "jazz", "reality TV", "cilantro", "crowded beaches", "early meetings",
    "country music", "long phone calls", "cold weather", "spicy food", "video games",
    "musicals", "camping", "loud restaurants", "opera", "board games", "snow",
    "small talk", "fast food", "public speaking",
)  # fmt: skip
DRINKS = (
    "green tea", "coffee", "black tea", "orange juice", "sparkling water", "hot chocolate",
    "lemonade", "espresso", "herbal tea", "red wine",
)  # fmt: skip
RELATIVES = (
    "sister", "brother", "mother", "father", "cousin", "aunt", "uncle", "best friend",
    "grandmother", "grandfather", "daughter", "son",
)  # fmt: skip
#: Few cities, so that several relatives of one user share one (a near-miss on purpose).
RELATIVE_CITIES = ("Lisbon", "Porto", "Berlin", "Toronto", "Nairobi", "Osaka")
JOBS = (
    ("data engineer", "Acme"), ("nurse", "St Mary's Hospital"), ("teacher", "Hillside School"),
    ("product designer", "Globex"), ("accountant", "Initech"), ("software engineer", "Umbrella"),
    ("pharmacist", "CityCare"), ("architect", "Studio North"), ("chef", "Bistro Verde"),
    ("lawyer", "Hart & Cole"),
)  # fmt: skip
TOOLS = (
    "Python", "Rust", "Go", "TypeScript", "Kubernetes", "Terraform", "PostgreSQL", "Kafka",
    "Airflow", "React", "Figma", "Jira", "GitLab", "Slack", "Notion", "Snowflake", "dbt",
    "Docker", "Grafana", "Spark",
)  # fmt: skip
PLACES = (
    "Japan", "Peru", "Iceland", "Morocco", "Vietnam", "Norway", "Chile", "Portugal", "Kenya",
    "New Zealand", "Mexico", "Greece", "Scotland", "Canada", "India", "Egypt", "Croatia",
    "Argentina", "Thailand", "Finland",
)  # fmt: skip
MONTHS = ("March", "April", "May", "June", "September", "October")
SKILLS = (
    "Spanish", "the piano", "pottery", "woodworking", "sailing", "calligraphy", "salsa dancing",
    "rock climbing", "sign language", "photography", "chess", "knitting", "baking bread",
    "scuba diving", "Mandarin", "watercolour painting", "surfing", "coding in Rust",
)  # fmt: skip
ALLERGENS = (
    "peanuts", "shellfish", "penicillin", "cats", "pollen", "dust mites", "latex", "eggs",
    "sesame", "bee stings", "walnuts", "soy",
)  # fmt: skip
ACTIVITIES = ("swimming", "running", "cycling", "hiking", "climbing", "rowing", "to yoga")
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
SUPPLEMENTS = ("vitamin D", "fish oil", "magnesium", "iron tablets", "vitamin C", "probiotics")
INSTRUMENTS = (
    "piano", "guitar", "violin", "cello", "drums", "flute", "saxophone", "ukulele", "trumpet",
    "harp",
)  # fmt: skip
LANGUAGES = (
    "French", "German", "Spanish", "Italian", "Japanese", "Swahili", "Portuguese", "Arabic",
    "Korean", "Dutch", "Polish", "Hindi",
)  # fmt: skip
PETS = (("dog", "Biscuit"), ("cat", "Miso"), ("dog", "Pepper"), ("cat", "Luna"),
        ("parrot", "Kiwi"), ("rabbit", "Clover"), ("cat", "Biscuit"), ("dog", "Luna"))  # fmt: skip
#: Favourite kinds and their candidates; some items fit two kinds ("Dune", "Blue") on purpose.
FAVOURITES = {
    "book": ("Dune", "Middlemarch", "Beloved", "The Hobbit", "Circe"),
    "film": ("Dune", "Amelie", "Parasite", "Alien", "Up"),
    "colour": ("blue", "green", "yellow", "purple"),
    "band": ("Blue", "Radiohead", "ABBA", "Queen"),
    "season": ("spring", "autumn", "winter", "summer"),
    "sport": ("tennis", "football", "basketball", "cricket"),
    "city": ("Lisbon", "Kyoto", "Paris", "Cape Town"),
    "dessert": ("lemon tart", "tiramisu", "baklava", "mango sticky rice"),
}


@dataclass(frozen=True)
class Fact:
    """One distinct fact about one user, in its base wording."""

    fact_id: str
    user: str  # the user id: the name in lower case
    name: str
    template: str
    category: str
    slots: tuple[tuple[str, str], ...]
    text: str


@dataclass(frozen=True)
class Wording:
    """A text to remember and the fact it states (``kind``: ``base`` or a rewording kind)."""

    fact_id: str
    user: str
    text: str
    kind: str


@dataclass(frozen=True)
class FactSet:
    facts: tuple[Fact, ...]
    base: tuple[Wording, ...]  # one per fact, in fact order
    reworded: tuple[Wording, ...]  # one per fact, in fact order

    @property
    def users(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(f.user for f in self.facts))

    def wordings(self) -> tuple[Wording, ...]:
        return self.base + self.reworded

    def by_id(self) -> dict[str, Fact]:
        return {f.fact_id: f for f in self.facts}

    def kinds(self) -> Counter[str]:
        return Counter(w.kind for w in self.reworded)


# -- candidate facts --------------------------------------------------------------------------


def _slug(value: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", value.lower()).strip("-")


def _candidates(user_index: int, rng: random.Random) -> Iterator[tuple[str, dict[str, str]]]:
    """Every fact one user may have, as (template, slots). Single-valued attributes get one
    value here, so no two candidates of a user contradict each other."""
    for thing in FOODS:
        yield "likes", {"thing": thing}
    for thing in DISLIKED:
        yield "dislikes", {"thing": thing}
    for i, a in enumerate(DRINKS):
        for b in DRINKS[i + 1 :]:
            first, second = (a, b) if rng.random() < 0.5 else (b, a)  # never both orders
            yield "prefers", {"a": first, "b": second}
    for relative in RELATIVES:
        yield "relative_city", {"relative": relative, "city": rng.choice(RELATIVE_CITIES)}
    job, company = JOBS[user_index % len(JOBS)]
    yield "job", {"job": job, "company": company}
    for tool in TOOLS:
        yield "team_tool", {"tool": tool}
    for place in PLACES:
        yield "visit", {"place": place, "month": rng.choice(MONTHS)}
    for skill in SKILLS:
        yield "learn", {"skill": skill}
    for allergen in ALLERGENS:
        yield "allergy", {"allergen": allergen}
    for activity in ACTIVITIES:
        for day in rng.sample(DAYS, 3):
            yield "exercise", {"activity": activity, "day": day}
    for supplement in SUPPLEMENTS:
        yield "supplement", {"supplement": supplement}
    for instrument in INSTRUMENTS:
        yield "instrument", {"instrument": instrument}
    for language in LANGUAGES:
        yield "language", {"language": language}
    for pet, pet_name in dict.fromkeys(PETS):
        yield "pet", {"pet": pet, "pet_name": pet_name}
    for kind, items in FAVOURITES.items():
        yield "favourite", {"kind": kind, "item": rng.choice(items)}


def candidate_count() -> int:
    """How many distinct facts one user can have (the most ``per_user`` can be)."""
    return sum(1 for _ in _candidates(0, random.Random(0)))


# -- rendering --------------------------------------------------------------------------------


def render(pattern: str, slots: dict[str, str], name: str, subject: str = "name") -> str:
    """``pattern`` with its slots, the subject as the name (``name``), "the user"
    (``the user``) or "user" (``user``, only at the start of a sentence), and a capital
    first letter."""
    at_start = pattern.startswith(("{S}", "{P}"))
    if subject == "name":
        who = name
    elif subject == "user" and at_start:
        who = "user"
    else:
        who = "the user"
    text = pattern.format(S=who, P=f"{who}'s", **slots)
    lead = re.match(r"\{(\w+)\} (is|gives) ", pattern)
    if lead and lead.group(1) in _NOUN_SLOTS and _plural(slots[lead.group(1)]):
        verb = lead.group(2)
        text = text.replace(f" {verb} ", " are " if verb == "is" else " give ", 1)
    return text[0].upper() + text[1:]


#: Slots holding common nouns, whose number the verb after them follows ("Oysters are ...").
_NOUN_SLOTS = ("thing", "allergen")


def _plural(value: str) -> bool:
    """Rough English number of a noun phrase: "oysters", "bee stings" (not "hummus", "glass")."""
    last = value.rsplit(" ", 1)[-1]
    return last.endswith("s") and not last.endswith(("ss", "us", "is"))


_CONTRACTIONS = (
    (re.compile(r"\bdoes not\b"), "doesn't"),
    (re.compile(r"\bis not\b"), "isn't"),
    (re.compile(r"\bwould like\b"), "'d like"),
    (re.compile(r"^(\w+) is\b"), r"\1's"),
    (re.compile(r"^(\w+(?:'s)? \w+(?: \w+)?) is\b"), r"\1's"),
)


def contract(text: str) -> str | None:
    """``text`` with its first contractible phrase contracted, or None if it has none."""
    for pattern, replacement in _CONTRACTIONS:
        if pattern.search(text):
            out = pattern.sub(replacement, text, count=1).replace(" 'd", "'d")
            if out != text:
                return out
    return None


def _punctuate(text: str, rng: random.Random) -> str:
    choice = rng.randrange(5)
    if choice == 0:
        return text + "."
    if choice == 1:
        return text.lower() + "."
    if choice == 2:
        return text + "!"
    if choice == 3:
        return "  " + text.replace(" ", "  ", 1) + " ."
    return text.upper()


_PREFIXES = ("Actually, ", "By the way, ", "Just so you know, ", "FYI: ", "As it turns out, ")
_INSERTS = ("actually", "really", "still")


def _add_filler(
    pattern: str, slots: dict[str, str], name: str, subject: str, rng: random.Random
) -> str:
    if pattern.startswith("{S} ") and rng.random() < 0.5:
        word = rng.choice(_INSERTS)
        return render(pattern.replace("{S} ", "{S} " + word + " ", 1), slots, name, subject)
    text = render(pattern, slots, name, subject)
    keep_capital = any(text.startswith(v) for v in (name, *slots.values()))
    return rng.choice(_PREFIXES) + (text if keep_capital else text[0].lower() + text[1:])


def _other_subject(rng: random.Random) -> str:
    return rng.choice(("the user", "user"))


def reword(fact: Fact, kind: str, rng: random.Random) -> tuple[str, str]:
    """A rewording of ``fact`` of ``kind`` (or of a kind that applies to it, when ``kind``
    does not: a fact without "is" or "does not" cannot be contracted). Returns (text, kind)."""
    template = TEMPLATES[fact.template]
    slots = dict(fact.slots)
    base = template.phrasings[0].pattern
    by_tag = {
        tag: [p.pattern for p in template.phrasings if p.tag == tag]
        for tag in (SYNONYM, WORD_ORDER)
    }
    if kind == PUNCTUATION_CASE:
        return _punctuate(fact.text, rng), kind
    if kind == SUBJECT:
        return render(base, slots, fact.name, _other_subject(rng)), kind
    if kind == FILLER:
        return _add_filler(base, slots, fact.name, "name", rng), kind
    if kind == CONTRACTION:
        # The base wording if it has something to contract, else the first synonym that does.
        for text in [fact.text] + [render(p, slots, fact.name) for p in by_tag[SYNONYM]]:
            contracted = contract(text)
            if contracted is not None:
                return contracted, kind
        kind = SYNONYM
    if kind == WORD_ORDER and not by_tag[WORD_ORDER]:
        kind = SYNONYM
    if kind in (SYNONYM, WORD_ORDER):
        return render(rng.choice(by_tag[kind]), slots, fact.name), kind
    # MIXED: another phrasing, another subject or filler, then punctuation.
    pattern = rng.choice(by_tag[SYNONYM] + by_tag[WORD_ORDER])
    if rng.random() < 0.5:
        text = render(pattern, slots, fact.name, _other_subject(rng))
    else:
        text = _add_filler(pattern, slots, fact.name, "name", rng)
    return _punctuate(text, rng), MIXED


# -- the set ----------------------------------------------------------------------------------


def generate(users: int = 5, per_user: int = 200, seed: int = 4) -> FactSet:
    """``per_user`` distinct facts for each of the first ``users`` names, and one rewording of
    each. Same arguments, same output."""
    if not 1 <= users <= len(NAMES):
        raise ValueError(f"users must be 1..{len(NAMES)}, got {users}")
    most = candidate_count()
    if not 1 <= per_user <= most:
        raise ValueError(f"per_user must be 1..{most} (the distinct facts a user can have)")
    rng = random.Random(seed)
    kinds, weights = list(_KIND_WEIGHTS), list(_KIND_WEIGHTS.values())
    facts: list[Fact] = []
    reworded: list[Wording] = []
    for index, name in enumerate(NAMES[:users]):
        user = name.lower()
        pool = list(_candidates(index, rng))
        for template_key, slots in rng.sample(pool, per_user):
            template = TEMPLATES[template_key]
            fact = Fact(
                fact_id=f"{user}:{template_key}:" + "/".join(_slug(v) for v in slots.values()),
                user=user,
                name=name,
                template=template_key,
                category=template.category,
                slots=tuple(slots.items()),
                text=render(template.phrasings[0].pattern, slots, name),
            )
            facts.append(fact)
            text, kind = reword(fact, rng.choices(kinds, weights)[0], rng)
            reworded.append(Wording(fact.fact_id, user, text, kind))
    base = tuple(Wording(f.fact_id, f.user, f.text, BASE) for f in facts)
    _check(facts, reworded)
    return FactSet(tuple(facts), base, tuple(reworded))


def _check(facts: Sequence[Fact], reworded: Sequence[Wording]) -> None:
    """The ground truth must be sound: ids and base texts unique, rewordings really differ."""
    ids = [f.fact_id for f in facts]
    if len(set(ids)) != len(ids):
        raise AssertionError("fact ids repeat: a candidate list holds a value twice")
    texts = {(f.user, f.text) for f in facts}
    if len(texts) != len(facts):
        raise AssertionError("two facts of one user share a base text")
    for fact, wording in zip(facts, reworded, strict=True):
        if wording.text == fact.text:
            raise AssertionError(f"rewording of {fact.fact_id} equals its base text")


def interleaved(facts: FactSet, user: str, seed: int = 4) -> list[Wording]:
    """All of ``user``'s wordings (base and reworded) in a seeded random order: repeats
    come at any distance, sometimes before the base wording, as in a real conversation
    history."""
    mine = [w for w in facts.wordings() if w.user == user]
    random.Random(f"{seed}:{user}").shuffle(mine)
    return mine


def near_miss_pairs(facts: Sequence[Fact]) -> int:
    """Pairs of distinct facts of one user from one template that differ in exactly one
    slot value ("likes sushi" / "likes ramen"): the pairs a consolidator must keep apart."""
    groups: Counter[tuple[str, str, int, tuple[tuple[str, str], ...]]] = Counter()
    for fact in facts:
        for position in range(len(fact.slots)):
            rest = tuple(s for i, s in enumerate(fact.slots) if i != position)
            groups[(fact.user, fact.template, position, rest)] += 1
    return sum(n * (n - 1) // 2 for n in groups.values())
