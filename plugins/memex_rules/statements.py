"""First-person statements that carry a fact, rewritten in the third person.

``read_statement("Honestly, I prefer tea over coffee.")`` gives
``Statement("User prefers tea over coffee", hint="preference")``. Only a
sentence that *starts* (after an interjection such as "Oh," or "btw", or an
"I think") with one of these shapes is read; anything else gives ``None``:

- ``I [adverbs] [do not | no longer | never | cannot | did not] VERB ...`` for a
  fixed list of verbs (prefer, like, love, hate, live in, work at, plan to,
  moved to...), several of which need a particular object ("live in", "plan to");
- ``I will VERB ...`` (any verb but chat talk such as "try" or "check") and
  ``I would like to / love to / prefer ...``;
- ``I am | I was | I have been | I will be ...`` followed by a known predicate
  (allergic, vegetarian, from, based in, a software engineer, going to,
  planning to, learning...);
- ``My <name | wife | job | favourite X ...> is ...``;
- ``call me X``;
- ``remember that ...`` / ``don't forget that ...``: anything the user asks to
  be remembered is kept, first person or not.

Questions, code, hypotheticals ("If I ...": they never start with "I") and
statements about "it", "that" or "you" are dropped: they are conversation, not
facts. The hint names the default fact type the shape suggests. English only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PREFERENCE, DETAIL, PLAN = "preference", "personal_detail", "plan"
ACTIVITY, HEALTH, WORK, MISC = "activity_preference", "health", "professional", "misc"


@dataclass(frozen=True)
class Statement:
    """A fact read from one sentence: its third-person text and the fact type it suggests."""

    text: str
    hint: str


def _compile(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


def _squash(text: str) -> str:
    return " ".join(text.split())


def word_set(text: str) -> frozenset[str]:
    """The space-separated words of ``text`` as a set (keeps long word lists readable)."""
    return frozenset(text.split())


# --- the sentence, before its shape is read ----------------------------------------------------

_INTERJECTION = _compile(
    r"^(?:oh and|and also|oh|ah|well|yeah|yes|yep|no|nope|ok|okay|so|and|but|also|actually|"
    r"honestly|btw|by the way|fyi|for context|for the record|just so you know|personally|hi|"
    r"hey|hello|thanks|thank you|fun fact|anyway|anyways|haha|lol|um|uh|hmm|sure|right|"
    r"to be honest|tbh|in fact|plus|as you know|as i said|again)\b[\s,:;!.-]*"
)
#: "I think I prefer tea": the hedge goes, the statement stays.
_HEDGE = _compile(r"^I\s+(?:think|guess|suppose|believe|feel like|would say)\s+(?:that\s+)?(?=I\b)")
_CODE = _compile(r"`|\{|\}|=>|::|\(\)|\w\.\w+\(|</?\w+>|\bhttps?://")
_CONTRACTIONS = tuple(
    (_compile(p), r)
    for p, r in (
        (r"\bI'm\b", "I am"),
        (r"\bIm\b", "I am"),
        (r"\bI'll\b", "I will"),
        (r"\bI'd\b", "I would"),
        (r"\bI've\b", "I have"),
        (r"\bIve\b", "I have"),
        (r"\bdon'?t\b", "do not"),
        (r"\bdoesn'?t\b", "does not"),
        (r"\bdidn'?t\b", "did not"),
        (r"\bcan'?t\b", "cannot"),
        (r"\bcan not\b", "cannot"),
        (r"\bwon't\b", "will not"),
        (r"\bwouldn'?t\b", "would not"),
        (r"\bisn'?t\b", "is not"),
        (r"\baren'?t\b", "are not"),
        (r"\bwasn'?t\b", "was not"),
        (r"\bhaven'?t\b", "have not"),
    )
)
MAX_WORDS = 40


_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u02bc": "'", "\u201c": '"', "\u201d": '"'})
_STARTS_AS_STATEMENT = _compile(r"^(?:I|my)\s")
#: Where a sentence holds a second statement: "I love hiking and I'm vegetarian".
_NEXT_CLAUSE = _compile(r"\s*(?:,|;|,?\s+(?:and|but|so|because|while|although))\s+(?=(?:I|my)\b)")


def _prepare(sentence: str) -> str | None:
    """The sentence with contractions spelled out, interjections and end marks gone; or None."""
    text = sentence.strip().translate(_QUOTES)
    if not text or text.rstrip("\"') ").endswith("?") or _CODE.search(text):
        return None
    if len(text.split()) > MAX_WORDS:
        return None
    for pattern, replacement in _CONTRACTIONS:
        text = pattern.sub(replacement, text)
    while True:
        stripped = _HEDGE.sub("", _INTERJECTION.sub("", text, count=1)).lstrip()
        if stripped == text or not stripped:
            break
        text = stripped
    text = text.rstrip(" .!\u2026")
    return text or None


# --- the object: what follows the verb ---------------------------------------------------------

#: Objects that point back into the conversation instead of carrying a fact.
_DEICTIC = word_set(
    "it that this these those them you your yours him her here there so too what which "
    "one both all some something anything everything nothing the_following the_same when how "
    "the_way the_idea the_thought the_fact"
)
_BACK_REFERENCE = word_set("it that this these those them")
#: Verbs after "to" / "will" that describe the chat itself ("I want to fix this").
_CHATTER = word_set(
    "fix add change update debug check test run try see know understand ask make create write "
    "implement refactor remove delete rename get do paste share show send give look clarify "
    "confirm verify install continue keep let use modify edit help start reply answer explain "
    "go_ahead go_with double-check follow find figure mention point note say tell think read "
    "wait need have be_honest"
)
_PRONOUNS = tuple(
    (_compile(p), r)
    for p, r in (
        (r"\bI am\b", "they are"),
        (r"\bI was\b", "they were"),
        (r"\bI\b", "they"),
        (r"\bme\b", "them"),
        (r"\bmy\b", "their"),
        (r"\bmine\b", "theirs"),
        (r"\bmyself\b", "themselves"),
    )
)
# Where a statement's own clause ends: "; ", " - ", "(", ", so ", ", but ", ", which "...
_CLAUSE_CUT = _compile(
    r"\s*(?:;|(?:^|\s)[-\u2013\u2014]+\s|\(|\s:\s|,\s*(?:so|but|which|and it|it is|it's|"
    r"that is|that's|though|haha|lol)\b|^,).*$"
)
_TRAILING = _compile(
    r"[\s.,;:!\u2026~*_\"')\]]+$|\s+(?:lol|haha|:\)|:-\)|;\)|:D|too|as well|by the way)$"
)


def third_person(text: str) -> str:
    """Rewrite the user's own pronouns in ``text``: my -> their, me -> them, I am -> they are."""
    for pattern, replacement in _PRONOUNS:
        text = pattern.sub(replacement, text)
    return text


def _clean_object(rest: str) -> str | None:
    """The object of a statement, cut at a clause break and tidied.

    ``""`` when nothing is left ("I do not surf"), None when the object only
    points back into the conversation ("I love it", "I like your idea").
    """
    rest = _CLAUSE_CUT.sub("", rest.strip())
    previous = None
    while previous != rest:
        previous, rest = rest, _TRAILING.sub("", rest)
    words = [w.lower().strip(",") for w in rest.split()]
    if not words:
        return ""
    if words[0] in _DEICTIC or "_".join(words[:2]) in _DEICTIC:
        return None
    if len(words) <= 5 and words[-1] in _BACK_REFERENCE:  # "go with that", "reminders of it"
        return None
    return third_person(rest)


def _chatter_after_to(rest: str) -> bool:
    """True for "to fix the tests", "to go ahead": the user talking about the chat itself."""
    words = [w.lower().strip(",.") for w in rest.split()]
    if not words or words[0] != "to":
        return False
    return _is_chatter(words[1:])


def _is_chatter(words: list[str]) -> bool:
    return bool(words) and (words[0] in _CHATTER or "_".join(words[:2]) in _CHATTER)


def _third_singular(verb: str) -> str:
    """A present-tense verb for "User": like -> likes, go -> goes, study -> studies."""
    lower = verb.lower()
    if lower in ("will", "would", "can", "cannot", "could", "should", "must", "might", "may"):
        return verb
    if lower.endswith("ed") or lower in ("is", "was", "has"):
        return verb
    if lower in ("am", "are"):
        return "is"
    if lower == "were":
        return "was"
    if lower == "have":
        return "has"
    if re.search(r"[^aeiou]y$", lower):
        return verb[:-1] + "ies"
    if re.search(r"(?:s|sh|ch|x|z|o)$", lower):
        return verb + "es"
    return verb + "s"


# --- verbs ---------------------------------------------------------------------------------------

_ADVERBS = tuple(
    str.split(
        "really also usually always often generally normally mostly typically sometimes still "
        "absolutely totally actually definitely honestly personally just mainly currently now "
        "truly deeply genuinely kind_of kinda sort_of even rarely seldom occasionally recently "
        "never"
    )
)
_ADVERB = r"(?:" + "|".join(a.replace("_", r"\s+") for a in _ADVERBS) + r")"


@dataclass(frozen=True)
class _Verb:
    third: str  # third-person singular, or the past form (unchanged)
    hint: str
    needs: re.Pattern[str] | None = None  # what the object must start with
    past: bool = False
    alone: bool = False  # a fact without an object: "I do not surf"


_TO = _compile(r"to\s")
_NOT_THE = _compile(r"(?!the\s|this\b|it\b|that\b)\S")
_VERBS: dict[str, _Verb] = {
    "prefer": _Verb("prefers", PREFERENCE),
    "like": _Verb("likes", PREFERENCE),
    "love": _Verb("loves", PREFERENCE),
    "enjoy": _Verb("enjoys", PREFERENCE),
    "hate": _Verb("hates", PREFERENCE),
    "dislike": _Verb("dislikes", PREFERENCE),
    "adore": _Verb("adores", PREFERENCE),
    "detest": _Verb("detests", PREFERENCE),
    "avoid": _Verb("avoids", PREFERENCE),
    "stand": _Verb("stands", PREFERENCE),  # only as "cannot stand"
    "drink": _Verb("drinks", PREFERENCE),
    "eat": _Verb("eats", PREFERENCE),
    "use": _Verb("uses", PREFERENCE, _NOT_THE),
    "live": _Verb(
        "lives", DETAIL, _compile(r"(?:in|on|at|with|near|outside|abroad|alone|by|close to)\b")
    ),
    "speak": _Verb("speaks", DETAIL),
    "own": _Verb("owns", DETAIL),
    "have": _Verb(
        "has",
        DETAIL,
        _compile(
            r"(?!(?:a|an|one|another|some|the|no|two|few)\s+(?:\w+\s+)?"
            r"(?:question|problem|issue|idea|bug|error|doubt|feeling|follow-up|suggestion|"
            r"request|file|script|function|class|method|project|repo|branch|test|look|"
            r"thought|concern|option|choice)s?\b)"
            r"(?!to\b|been\b|got\b|no\b|a\s+look\b)\S"
        ),
    ),
    "work": _Verb(
        "works", WORK, _compile(r"(?:at|as|for|in|remotely|from home|part-time|full-time)\b")
    ),
    "study": _Verb("studies", WORK, _NOT_THE),
    "teach": _Verb("teaches", WORK),
    "run": _Verb("runs", ACTIVITY, _compile(r"(?!the\s|this\b|it\b|into\b|out\b|that\b)\S")),
    "play": _Verb("plays", ACTIVITY, _compile(r"(?!the\s|with\b|around\b)\S")),
    "practice": _Verb("practices", ACTIVITY),
    "practise": _Verb("practises", ACTIVITY),
    "swim": _Verb("swims", ACTIVITY, alone=True),
    "hike": _Verb("hikes", ACTIVITY, alone=True),
    "cycle": _Verb("cycles", ACTIVITY, alone=True),
    "climb": _Verb("climbs", ACTIVITY, alone=True),
    "ski": _Verb("skis", ACTIVITY, alone=True),
    "surf": _Verb("surfs", ACTIVITY, alone=True),
    "paint": _Verb("paints", ACTIVITY, alone=True),
    "cook": _Verb("cooks", ACTIVITY, alone=True),
    "travel": _Verb("travels", ACTIVITY, alone=True),
    "meditate": _Verb("meditates", HEALTH, alone=True),
    "follow": _Verb("follows", HEALTH, _compile(r".*\bdiet\b")),
    "take": _Verb(
        "takes", HEALTH, _compile(r".*\b(?:medication|medicine|pills|vitamins|supplements|insulin)")
    ),
    "plan": _Verb("plans", PLAN, _compile(r"(?:to|on)\s")),
    "intend": _Verb("intends", PLAN, _TO),
    "want": _Verb("wants", PLAN, _TO),
    "hope": _Verb("hopes", PLAN, _TO),
    "aim": _Verb("aims", PLAN, _TO),
    "moved": _Verb(
        "moved", DETAIL, _compile(r"(?:to|from|in|into|back|here|abroad|out)\b"), past=True
    ),
    "started": _Verb("started", MISC, _compile(r"(?:\w+ing\b|a\s|an\s|my\s|at\s|as\s)"), past=True),
    "joined": _Verb("joined", MISC, _NOT_THE, past=True),
    "graduated": _Verb("graduated", WORK, _compile(r"(?:from|in|with|last|this)\b"), past=True),
    "adopted": _Verb("adopted", DETAIL, past=True),
    "bought": _Verb("bought", MISC, _compile(r"(?:a|an|my|our|two|three|\d+)\s"), past=True),
    "quit": _Verb("quit", MISC, _compile(r"(?:my\s|\w+ing\b)"), past=True),
    "switched": _Verb("switched", MISC, _compile(r"(?:to|from)\s+(?!the\s)"), past=True),
    "stopped": _Verb("stopped", MISC, _compile(r"\w+ing\b"), past=True),
    "retired": _Verb("retired", WORK, past=True),
    "married": _Verb("married", DETAIL, past=True),
    "became": _Verb("became", DETAIL, _compile(r"(?:a|an)\s"), past=True),
    "got": _Verb(
        "got",
        DETAIL,
        _compile(
            r"(?:married|engaged|divorced|promoted|hired|diagnosed|a\s+(?:new\s+)?"
            r"(?:job|dog|cat|puppy|kitten|house|car|degree|promotion|tattoo|bike))\b"
        ),
        past=True,
    ),
}

#: Words after "I have" that make it a past event, not possession: "I have met", "I have done".
_PARTICIPLE = _compile(
    r"(?:\w+ed|met|had|done|gotten|got|heard|seen|been|put|made|known|taken|given|found|"
    r"written|gone|come|become|felt|thought|told|said|left|lost|won|bought|brought|kept|"
    r"spent|taught|read|run|built|begun|chosen|driven|eaten|fallen|forgotten|grown|held|"
    r"led|paid|sent|shown|sold|spoken|stood|understood|worn)$"
)
#: Present-perfect participles kept as facts: "I have lived in Oslo for years".
_PARTICIPLES = {
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

# --- "I am ..." predicates ------------------------------------------------------------------------


def _nouns(hint: str, nouns: str) -> tuple[re.Pattern[str], str]:
    alternatives = "|".join(nouns.split())
    return _compile(rf"(?:a|an)\s+(?:[\w-]+\s+){{0,4}}?(?:{alternatives})s?\b"), hint


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
    (_compile(p), hint)
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


def _predicate_hint(rest: str) -> str | None:
    """The hint for what follows "I am", or None when it is not a known predicate."""
    for pattern, hint in (*_PREDICATES, *_ROLES):
        if pattern.match(rest):
            if hint == PLAN and _chatter_after_to(re.sub(r"^\w+\s+", "", rest)):
                return None  # "I am going to run the tests"
            return hint
    return None


# --- the shapes ----------------------------------------------------------------------------------

_REMEMBER = _compile(
    r"^(?:please\s+|also\s+)?(?:remember|do not forget|never forget)"
    r"(?:\s+that\b|\s*:)\s*(?P<rest>.+)$"
)
_CALL_ME = _compile(
    r"^(?:you can\s+|please\s+|just\s+|everyone\s+|friends\s+)?call me\s+(?P<name>[^,;!]+)"
)
_MY = _compile(
    r"^my\s+(?P<head>(?:(?:favou?rite|preferred|go-to)\s+[\w-]+(?:\s+[\w-]+)?)|"
    r"(?:full\s+|first\s+|last\s+|nick)?name|birthday|age|wife|husband|partner|girlfriend|"
    r"boyfriend|fianc[ée]e?|son|daughter|kids|children|child|baby|sister|brother|mom|mum|"
    r"mother|dad|father|parents|family|dog|cat|pet|job|role|title|employer|company|team|boss|"
    r"manager|hometown|home town|city|diet|allergy|allergies|goal|goals|plan|plans|"
    r"native language|first language|timezone|time zone|pronouns|doctor|office|school|"
    r"university|major|degree)"
    r"(?:'s\s+[\w-]+)?\s+(?:is|are|was|were|has|have|lives|works|will be)\s+\S"
)
_FAVOURITE = _compile(r"(?:favou?rite|preferred|go-to)\b")
_I_SENTENCE = _compile(rf"^I\s+(?P<adverbs>(?:{_ADVERB}\s+)*)(?P<rest>.+)$")
_COPULA = _compile(
    r"^(?P<cop>am|was|have\s+been|will\s+be)\s+(?P<neg>not\s+)?"
    rf"(?P<adverbs>(?:{_ADVERB}\s+)*)(?P<rest>.+)$"
)
_COPULA_OUT = {"am": "is", "was": "was", "have been": "has been", "will be": "will be"}
_COPULA_NOT = {
    "am": "is not",
    "was": "was not",
    "have been": "has not been",
    "will be": "will not be",
}
_AUX = _compile(
    r"^(?P<aux>do\s+not|did\s+not|no\s+longer|cannot|will\s+not|will|would\s+not|would|"
    r"have\s+not|have)\s+"
    rf"(?P<adverbs>(?:{_ADVERB}\s+)*)(?P<rest>.+)$"
)
_VERB = _compile(r"^(?P<verb>[a-z]+)\b\s*(?P<rest>.*)$")


def read_statements(sentence: str) -> list[Statement]:
    """The facts ``sentence`` states about the user, in the third person, in order.

    A sentence may hold several: "I love hiking and I'm vegetarian" gives
    "User loves hiking" and "User is vegetarian".
    """
    text = _prepare(sentence)
    if text is None:
        return []
    remember = _REMEMBER.match(text)
    if remember:
        statement = _remembered(remember.group("rest"))
        return [statement] if statement else []
    # Only a sentence that starts as a statement is split: in "If I move, I will need a
    # visa" the second clause depends on the first.
    clauses = _NEXT_CLAUSE.split(text) if _STARTS_AS_STATEMENT.match(text) else [text]
    found = []
    for clause in clauses:
        clause = _prepare(clause) if clause else None
        statement = _first_person(clause, strict=True) if clause else None
        if statement is not None:
            found.append(statement)
    return found


def read_statement(sentence: str) -> Statement | None:
    """The first fact ``sentence`` states about the user, or None."""
    found = read_statements(sentence)
    return found[0] if found else None


def _remembered(rest: str) -> Statement | None:
    """Whatever follows "remember that": read as a statement if it is one, else kept as said."""
    inner = _prepare(rest)
    if inner is None:
        return None
    statement = _first_person(inner, strict=False)
    if statement is not None:
        return statement
    # No "I" or "my" to start with, so "their" would have no one to refer to.
    inner = _OWNER.sub("the user's", inner)
    cleaned = _clean_object(inner)
    if not cleaned:
        return None
    subject = re.match(r"^they\s+(\w+)\b", cleaned)
    if subject:  # "I am on Windows" -> "they are on Windows" -> "User is on Windows"
        cleaned = f"User {_third_singular(subject.group(1))}{cleaned[subject.end() :]}"
    cleaned = re.sub(r"^their\b", "User's", cleaned)
    return Statement(cleaned[0].upper() + cleaned[1:], MISC)


_OWNER = _compile(r"\b(?:my|mine)\b")


def _first_person(text: str, *, strict: bool) -> Statement | None:
    call = _CALL_ME.match(text)
    if call:
        name = _clean_object(call.group("name"))
        return Statement(f"User wants to be called {name}", DETAIL) if name else None
    # Outside "remember that", only "my <known thing> is ..." is a fact ("my code is..." is not).
    my = _MY.match(text) if strict else _compile(r"^my\s+(?P<head>\S+)\s").match(text)
    if my:
        whole = _clean_object(text[3:])
        if not whole:
            return None
        head = my.group("head").lower()
        hint = PLAN if head.startswith(("goal", "plan")) else DETAIL
        hint = PREFERENCE if _FAVOURITE.match(head) else hint
        return Statement(f"User's {whole}", hint)
    sentence = _I_SENTENCE.match(text)
    if not sentence:
        return None
    adverbs = _squash(sentence.group("adverbs"))
    rest = sentence.group("rest")
    copula = _COPULA.match(rest)
    if copula:
        return _copula(copula, adverbs)
    aux = _AUX.match(rest)
    if aux:
        return _auxiliary(aux, adverbs)
    return _verb_phrase(rest, adverbs, aux=None)


_IDLE = word_set("honest right back quick brief careful happy glad done fine ok okay able sure")


def _idle_future(rest: str) -> bool:
    """True for "I will be honest", "I will be testing it": talk about the chat, not a plan."""
    first = rest.split()[0].lower().strip(",.") if rest.split() else ""
    if first in _IDLE:
        return True
    if first.endswith("ing"):
        stem = first[:-3]
        return any(v in _CHATTER for v in (stem, stem + "e", stem[:-1]))
    return False


def _join(*parts: str, hint: str) -> Statement:
    return Statement(" ".join(p for p in parts if p), hint)


def _copula(match: re.Match[str], adverbs: str) -> Statement | None:
    """``I am <predicate>``: "I am allergic to nuts" -> "User is allergic to nuts"."""
    rest = match.group("rest")
    cop = _squash(match.group("cop")).lower()
    # "I will be in Tokyo next week": any future state is a plan; "I am ..." needs a predicate.
    if cop == "will be":
        hint: str | None = None if _idle_future(rest) else PLAN
    else:
        hint = _predicate_hint(rest)
    obj = _clean_object(rest) if hint else None
    if hint is None or not obj:
        return None
    verb = (_COPULA_NOT if match.group("neg") else _COPULA_OUT)[cop]
    return _join("User", adverbs, verb, _squash(match.group("adverbs")), obj, hint=hint)


def _auxiliary(match: re.Match[str], adverbs: str) -> Statement | None:
    """``I <auxiliary> ...``: negations, the future, the present perfect."""
    aux = _squash(match.group("aux")).lower()
    more = _squash(match.group("adverbs"))
    rest = match.group("rest")
    verb = _VERB.match(rest)
    if verb is None:
        return None
    word = verb.group("verb").lower()
    after = verb.group("rest")
    if aux in ("have", "have not"):
        if word not in _PARTICIPLES:
            if aux == "have not" or _PARTICIPLE.match(word):
                return None  # "I have met...", "I have tried...": events, not kept
            return _verb_phrase(f"have {rest}", adverbs, aux=None)  # "I have two kids"
        obj = _clean_object(after)
        has = "has not" if aux == "have not" else "has"
        if not obj:
            return None
        return _join("User", adverbs, has, more, word, obj, hint=_PARTICIPLES[word])
    if aux in ("will", "will not"):
        if _is_chatter([w.lower() for w in rest.split()]):
            return None  # "I will try that", "I'll go ahead"
        obj = _clean_object(after)
        if not obj:
            return None
        return _join("User", adverbs, aux, more, word, obj, hint=PLAN)
    if aux in ("would", "would not"):
        if word == "prefer":
            return _verb_phrase(rest, adverbs, aux=aux, more=more)
        if word in ("like", "love") and _TO.match(after) and not _chatter_after_to(after):
            obj = _clean_object(after)
            return _join("User", adverbs, aux, more, word, obj, hint=PLAN) if obj else None
        return None  # "I would like a coffee", "I would say": requests and opinions
    return _verb_phrase(rest, adverbs, aux=aux, more=more)


def _verb_phrase(rest: str, adverbs: str, *, aux: str | None, more: str = "") -> Statement | None:
    """``VERB object`` after "I [adverbs] [aux] [adverbs]", conjugated for "User"."""
    match = _VERB.match(rest)
    if match is None:
        return None
    word = match.group("verb").lower()
    verb = _VERBS.get(word)
    if verb is None or (word == "stand" and aux != "cannot"):
        return None
    if verb.past and aux is not None:
        return None
    after = match.group("rest")
    if verb.needs is not None and not verb.needs.match(after):
        return None
    if verb.hint == PLAN and _chatter_after_to(after):
        return None
    obj = _clean_object(after)
    if obj is None or (not obj and not verb.alone):
        return None
    if aux is None:
        auxiliary, form = "", verb.third
    elif aux == "do not":
        auxiliary, form = "does not", word
    elif aux == "no longer":
        auxiliary, form = "no longer", verb.third
    else:  # did not, cannot, would (not)
        auxiliary, form = aux, word
    return _join("User", adverbs, auxiliary, more, form, obj, hint=verb.hint)
