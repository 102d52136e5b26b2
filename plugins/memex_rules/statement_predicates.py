"""What may follow "I am": the predicates and roles that make it a fact."""

from __future__ import annotations

import re

from memex_rules.rules_text import compile_pattern
from memex_rules.statement_objects import chatter_after_to
from memex_rules.statement_types import ACTIVITY, DETAIL, HEALTH, PLAN, PREFERENCE, WORK


def _nouns(hint: str, nouns: str) -> tuple[re.Pattern[str], str]:
    alternatives = "|".join(nouns.split())
    return compile_pattern(rf"(?:a|an)\s+(?:[\w-]+\s+){{0,4}}?(?:{alternatives})s?\b"), hint


_ROLES = (
    _nouns(PREFERENCE, "lover enthusiast"),
    _nouns(HEALTH, "vegetarian vegan runner cyclist climber swimmer"),
    _nouns(DETAIL, "parent mom mum dad mother father native speaker citizen resident twin"),
    _nouns(
        WORK,
        "engineer developer programmer designer teacher student doctor nurse manager scientist "
        "researcher writer artist lawyer consultant founder analyst architect accountant "
        "freelancer contractor intern professor lecturer chef pilot musician photographer "
        "member volunteer owner director lead specialist administrator admin officer "
        "assistant editor journalist therapist pharmacist dentist veteran entrepreneur coach "
        "trainer maintainer",
    ),
)
_PREDICATES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (compile_pattern(p), hint)
    for p, hint in (
        (
            r"(?:allergic|intolerant|vegetarian|vegan|pescatarian|gluten[- ]free|diabetic|"
            r"celiac|coeliac|lactose|pregnant|sober|asthmatic|diagnosed with)\b",
            HEALTH,
        ),
        (r"(?:married|engaged|divorced|single|widowed|left-handed|right-handed)\b", DETAIL),
        (r"(?:originally\s+)?from\s+\S", DETAIL),
        (r"based\s+(?:in|at|near|out of)\s", DETAIL),
        (r"born\s+(?:in|on)\s", DETAIL),
        (r"raised\s+(?:in|by)\s", DETAIL),
        (r"\d+(?:\s+years?\s+old)?$", DETAIL),
        (r"\d+\s+years?\s+old\b", DETAIL),
        (r"retired\b", WORK),
        (r"(?:working|employed)\s+(?:at|as|for|in)\s", WORK),
        (r"(?:self-employed|unemployed)\b", WORK),
        (r"(?:studying|learning)\s+(?!about\s|to\s|how\b|this\b|that\b|it\b|the\s)\S", ACTIVITY),
        (r"training\s+for\s", HEALTH),
        (r"(?:really\s+)?into\s+(?!it\b|this\b|that\b)\S", PREFERENCE),
        (
            r"(?:keen\s+on|interested\s+in|passionate\s+about|obsessed\s+with|crazy\s+about)"
            r"\s+(?!it\b|this\b|that\b|the\s+(?:code|error|bug|issue)\b)\S",
            PREFERENCE,
        ),
        (r"(?:going|planning|hoping|aiming)\s+to\s", PLAN),
        (r"planning\s+on\s", PLAN),
        (r"thinking\s+(?:of|about)\s+\w+ing\b", PLAN),
        (r"looking\s+forward\s+to\s", PLAN),
        (r"(?:moving|relocating|travell?ing|flying)\s+to\s", PLAN),
        (r"(?:visiting|getting\s+married|starting\s+a\s+new)\b", PLAN),
        (r"living\s+(?:in|with|near)\s", DETAIL),
        (
            r"(?:a\s+)?(?:big\s+|huge\s+|massive\s+)?fans?\s+of\s+"
            r"(?!it\b|this\b|that\b|them\b|those\b|these\b)\S",
            PREFERENCE,
        ),
    )
)


def predicate_hint(rest: str) -> str | None:
    """The hint for what follows "I am", or None when it is not a known predicate."""
    for pattern, hint in (*_PREDICATES, *_ROLES):
        if pattern.match(rest):
            if hint == PLAN and chatter_after_to(re.sub(r"^\w+\s+", "", rest)):
                return None  # "I am going to run the tests"
            return hint
    return None
