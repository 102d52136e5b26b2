"""Choosing a fact type for a statement by keyword rules.

The order, first available type wins:

1. a custom type (not one of the seven defaults) whose *name* appears in the
   fact, or two of whose description/example words do ("pet" catches "User
   has a beagle called Rex" when an example mentions a beagle);
2. the default types, by the statement's shape and keywords: ``plan`` (I plan
   to, I am going to, I will), ``professional`` (I work as, I am an engineer),
   ``health`` (allergies, diets, fitness), ``professional`` again by keywords,
   ``personal_detail`` (names, family, where the user lives),
   ``activity_preference`` (hobbies, travel, dining), ``misc`` for favourite
   books and films, ``preference`` (I like, I prefer);
3. a custom type sharing one word with the fact;
4. ``misc``, or the last type given when ``misc`` is not among them.

Keywords are looked for in the fact's first eight words (its head), where
the subject, verb and object are. Only types among those given are chosen:
"I am allergic to nuts" goes to ``misc`` when ``health`` is not offered.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from memex_core.domain.contracts import FactType
from memex_core.domain.memory.facts import DEFAULT_FACT_TYPES, MISC, fact_tokens
from memex_rules.statement_types import (
    ACTIVITY,
    DETAIL,
    HEALTH,
    PLAN,
    PREFERENCE,
    WORK,
    Statement,
)


def _vocabulary(words: str) -> frozenset[str]:
    return frozenset(fact_tokens(words))


_HEALTH_WORDS = _vocabulary(
    "allergic allergy allergies intolerant intolerance vegetarian vegan pescatarian gluten "
    "lactose dairy-free celiac coeliac diabetic diabetes diet dietary keto paleo sober "
    "alcohol smoking medication medicine insulin vitamin supplements doctor therapist therapy "
    "anxiety depression asthma asthmatic migraine migraines pregnant gym workout workouts "
    "exercise fitness yoga pilates jogging marathon half-marathon triathlon sleep "
    "meditation meditate weight calories diagnosed health healthy injury physiotherapy "
    "blood pressure cholesterol"
)
_WORK_WORDS = _vocabulary(
    "work works worked job jobs career engineer developer programmer manager company employer "
    "startup colleague colleagues coworker coworkers boss office salary promotion promoted "
    "hired client clients profession professional consultant freelance freelancer designer "
    "scientist researcher analyst teacher nurse lawyer accountant founder ceo cto intern "
    "internship retired degree university college phd thesis employed unemployed "
    "self-employed standup codebase team"
)
_PERSONAL_WORDS = _vocabulary(
    "name called live lives lived living born birthday age old married engaged divorced wife "
    "husband partner girlfriend boyfriend fiance fiancee kids kid children child son daughter "
    "baby sister brother siblings mom mum mother dad father parents family grandmother "
    "grandfather grandma grandpa dog cat pet puppy kitten hometown speak speaks native "
    "anniversary neighbourhood neighborhood twin"
)
_ACTIVITY_WORDS = _vocabulary(
    "hiking hike hikes travel traveling travelling trip trips restaurant restaurants dining "
    "cuisine cooking cook camping climbing bouldering skiing snowboarding surfing cycling "
    "biking painting photography reading concerts concert hobby hobbies vacation vacations "
    "holiday holidays hotel hotels flight flights airline seat seats museum museums gardening "
    "fishing gaming chess guitar piano violin drums dancing knitting baking sailing "
    "swimming running board games sushi"
)
_MISC_FAVOURITES = _vocabulary(
    "book books novel novels author movie movies film films show shows series brand brands "
    "band bands song songs album albums podcast podcasts game games"
)
_FAVOURITE = _vocabulary("favourite favorite")
_GENERIC = _vocabulary(
    "a an the and or of to in on at for with is are was were be been has have had do does not "
    "no their they them it this that as by from about into over than very really also other "
    "any such user users like likes prefer preferences detail details information fact facts "
    "thing things kind type types include includes e g eg etc name names what which who when "
    "where how some more most"
)

#: How many leading words of a fact the keyword rules look at.
HEAD_WORDS = 8

_Rule = Callable[[set[str], str], bool]
_DEFAULT_RULES: tuple[tuple[str, _Rule], ...] = (
    (PLAN, lambda _w, hint: hint == PLAN),
    (WORK, lambda _w, hint: hint == WORK),
    (HEALTH, lambda w, hint: hint == HEALTH or bool(w & _HEALTH_WORDS)),
    (WORK, lambda w, _hint: bool(w & _WORK_WORDS)),
    (DETAIL, lambda w, hint: hint == DETAIL or bool(w & _PERSONAL_WORDS)),
    (ACTIVITY, lambda w, hint: hint == ACTIVITY or bool(w & _ACTIVITY_WORDS)),
    (MISC, lambda w, _hint: bool(w & _FAVOURITE) and bool(w & _MISC_FAVOURITES)),
    (PREFERENCE, lambda _w, hint: hint == PREFERENCE),
)
_DEFAULT_NAMES = frozenset(t.name for t in DEFAULT_FACT_TYPES)


def classify(statement: Statement, fact_types: Sequence[FactType]) -> str:
    """The name of the fact type ``statement`` belongs to, among ``fact_types`` (not empty)."""
    if not fact_types:
        raise ValueError("classify needs at least one fact type")
    # Keywords count in the statement's head only: in "User has been into dancing
    # since they were a kid", "kid" says nothing about what the fact is.
    tokens = [t for t in fact_tokens(statement.text) if t not in ("user", "users")]
    words = set(tokens[:HEAD_WORDS])
    names = {t.name for t in fact_types}
    custom = _custom_scores(words, [t for t in fact_types if t.name not in _DEFAULT_NAMES])
    if custom and custom[0][0] >= 2:
        return custom[0][1]
    for name, rule in _DEFAULT_RULES:
        if name in names and rule(words, statement.hint):
            return name
    if custom:
        return custom[0][1]
    return MISC if MISC in names else fact_types[-1].name


def _custom_scores(words: set[str], types: Sequence[FactType]) -> list[tuple[int, str]]:
    """Custom types that share words with the fact, best first (ties: the order given)."""
    scored: list[tuple[int, int, str]] = []
    for order, fact_type in enumerate(types):
        named = set(fact_tokens(fact_type.name.replace("_", " "))) - _GENERIC
        described = (
            set(fact_tokens(" ".join((fact_type.description, *fact_type.examples))))
            - _GENERIC
            - named
        )
        score = 2 * len(words & named) + len(words & described)
        if score:
            scored.append((-score, order, fact_type.name))
    return [(-negative, name) for negative, _order, name in sorted(scored)]
