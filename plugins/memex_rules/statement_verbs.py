"""The verbs a first-person statement may use, with the fact type and object each needs."""

from __future__ import annotations

import re
from dataclasses import dataclass

from memex_rules.rules_text import compile_pattern
from memex_rules.statement_types import ACTIVITY, DETAIL, HEALTH, MISC, PLAN, PREFERENCE, WORK

_ADVERBS = tuple(
    str.split(
        "really also usually always often generally normally mostly typically sometimes still "
        "absolutely totally actually definitely honestly personally just mainly currently now "
        "truly deeply genuinely kind_of kinda sort_of even rarely seldom occasionally recently "
        "never"
    )
)
ADVERB = r"(?:" + "|".join(a.replace("_", r"\s+") for a in _ADVERBS) + r")"


@dataclass(frozen=True)
class Verb:
    third: str  # third-person singular, or the past form (unchanged)
    hint: str
    needs: re.Pattern[str] | None = None  # what the object must start with
    past: bool = False
    alone: bool = False  # a fact without an object: "I do not surf"


TO = compile_pattern(r"to\s")
_NOT_THE = compile_pattern(r"(?!the\s|this\b|it\b|that\b)\S")
VERBS: dict[str, Verb] = {
    "prefer": Verb("prefers", PREFERENCE),
    "like": Verb("likes", PREFERENCE),
    "love": Verb("loves", PREFERENCE),
    "enjoy": Verb("enjoys", PREFERENCE),
    "hate": Verb("hates", PREFERENCE),
    "dislike": Verb("dislikes", PREFERENCE),
    "adore": Verb("adores", PREFERENCE),
    "detest": Verb("detests", PREFERENCE),
    "avoid": Verb("avoids", PREFERENCE),
    "stand": Verb("stands", PREFERENCE),  # only as "cannot stand"
    "drink": Verb("drinks", PREFERENCE),
    "eat": Verb("eats", PREFERENCE),
    "use": Verb("uses", PREFERENCE, _NOT_THE),
    "live": Verb(
        "lives",
        DETAIL,
        compile_pattern(r"(?:in|on|at|with|near|outside|abroad|alone|by|close to)\b"),
    ),
    "speak": Verb("speaks", DETAIL),
    "own": Verb("owns", DETAIL),
    "have": Verb(
        "has",
        DETAIL,
        compile_pattern(
            r"(?!(?:a|an|one|another|some|the|no|two|few)\s+(?:\w+\s+)?"
            r"(?:question|problem|issue|idea|bug|error|doubt|feeling|follow-up|suggestion|"
            r"request|file|script|function|class|method|project|repo|branch|test|look|"
            r"thought|concern|option|choice)s?\b)"
            r"(?!to\b|been\b|got\b|no\b|a\s+look\b)\S"
        ),
    ),
    "work": Verb(
        "works", WORK, compile_pattern(r"(?:at|as|for|in|remotely|from home|part-time|full-time)\b")
    ),
    "study": Verb("studies", WORK, _NOT_THE),
    "teach": Verb("teaches", WORK),
    "run": Verb("runs", ACTIVITY, compile_pattern(r"(?!the\s|this\b|it\b|into\b|out\b|that\b)\S")),
    "play": Verb("plays", ACTIVITY, compile_pattern(r"(?!the\s|with\b|around\b)\S")),
    "practice": Verb("practices", ACTIVITY),
    "practise": Verb("practises", ACTIVITY),
    "swim": Verb("swims", ACTIVITY, alone=True),
    "hike": Verb("hikes", ACTIVITY, alone=True),
    "cycle": Verb("cycles", ACTIVITY, alone=True),
    "climb": Verb("climbs", ACTIVITY, alone=True),
    "ski": Verb("skis", ACTIVITY, alone=True),
    "surf": Verb("surfs", ACTIVITY, alone=True),
    "paint": Verb("paints", ACTIVITY, alone=True),
    "cook": Verb("cooks", ACTIVITY, alone=True),
    "travel": Verb("travels", ACTIVITY, alone=True),
    "meditate": Verb("meditates", HEALTH, alone=True),
    "follow": Verb("follows", HEALTH, compile_pattern(r".*\bdiet\b")),
    "take": Verb(
        "takes",
        HEALTH,
        compile_pattern(r".*\b(?:medication|medicine|pills|vitamins|supplements|insulin)"),
    ),
    "plan": Verb("plans", PLAN, compile_pattern(r"(?:to|on)\s")),
    "intend": Verb("intends", PLAN, TO),
    "want": Verb("wants", PLAN, TO),
    "hope": Verb("hopes", PLAN, TO),
    "aim": Verb("aims", PLAN, TO),
    "moved": Verb(
        "moved", DETAIL, compile_pattern(r"(?:to|from|in|into|back|here|abroad|out)\b"), past=True
    ),
    "started": Verb(
        "started", MISC, compile_pattern(r"(?:\w+ing\b|a\s|an\s|my\s|at\s|as\s)"), past=True
    ),
    "joined": Verb("joined", MISC, _NOT_THE, past=True),
    "graduated": Verb(
        "graduated", WORK, compile_pattern(r"(?:from|in|with|last|this)\b"), past=True
    ),
    "adopted": Verb("adopted", DETAIL, past=True),
    "bought": Verb("bought", MISC, compile_pattern(r"(?:a|an|my|our|two|three|\d+)\s"), past=True),
    "quit": Verb("quit", MISC, compile_pattern(r"(?:my\s|\w+ing\b)"), past=True),
    "switched": Verb("switched", MISC, compile_pattern(r"(?:to|from)\s+(?!the\s)"), past=True),
    "stopped": Verb("stopped", MISC, compile_pattern(r"\w+ing\b"), past=True),
    "retired": Verb("retired", WORK, past=True),
    "married": Verb("married", DETAIL, past=True),
    "became": Verb("became", DETAIL, compile_pattern(r"(?:a|an)\s"), past=True),
    "got": Verb(
        "got",
        DETAIL,
        compile_pattern(
            r"(?:married|engaged|divorced|promoted|hired|diagnosed|a\s+(?:new\s+)?"
            r"(?:job|dog|cat|puppy|kitten|house|car|degree|promotion|tattoo|bike))\b"
        ),
        past=True,
    ),
}

#: Words after "I have" that make it a past event, not possession: "I have met", "I have done".
PARTICIPLE = compile_pattern(
    r"(?:\w+ed|met|had|done|gotten|got|heard|seen|been|put|made|known|taken|given|found|"
    r"written|gone|come|become|felt|thought|told|said|left|lost|won|bought|brought|kept|"
    r"spent|taught|read|run|built|begun|chosen|driven|eaten|fallen|forgotten|grown|held|"
    r"led|paid|sent|shown|sold|spoken|stood|understood|worn)$"
)
#: Present-perfect participles kept as facts: "I have lived in Oslo for years".
PARTICIPLES = {
    "lived": DETAIL,
    "worked": WORK,
    "studied": WORK,
    "used": PREFERENCE,
    "owned": DETAIL,
    "played": ACTIVITY,
    "loved": PREFERENCE,
    "hated": PREFERENCE,
    "liked": PREFERENCE,
}
