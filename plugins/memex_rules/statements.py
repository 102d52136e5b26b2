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

from memex_rules.rules_text import compile_pattern, squash, word_set
from memex_rules.statement_objects import (
    CHATTER,
    chatter_after_to,
    clean_object,
    is_chatter,
    third_singular,
)
from memex_rules.statement_predicates import predicate_hint
from memex_rules.statement_types import DETAIL, MISC, PLAN, PREFERENCE, Statement
from memex_rules.statement_verbs import ADVERB, PARTICIPLE, PARTICIPLES, TO, VERBS

# --- the sentence, before its shape is read ----------------------------------------------------

_INTERJECTION = compile_pattern(
    r"^(?:oh and|and also|oh|ah|well|yeah|yes|yep|no|nope|ok|okay|so|and|but|also|actually|"
    r"honestly|btw|by the way|fyi|for context|for the record|just so you know|personally|hi|"
    r"hey|hello|thanks|thank you|fun fact|anyway|anyways|haha|lol|um|uh|hmm|sure|right|"
    r"to be honest|tbh|in fact|plus|as you know|as i said|again)\b[\s,:;!.-]*"
)
#: "I think I prefer tea": the hedge goes, the statement stays.
_HEDGE = compile_pattern(
    r"^I\s+(?:think|guess|suppose|believe|feel like|would say)\s+(?:that\s+)?(?=I\b)"
)
_CODE = compile_pattern(r"`|\{|\}|=>|::|\(\)|\w\.\w+\(|</?\w+>|\bhttps?://")
_CONTRACTIONS = tuple(
    (compile_pattern(p), r)
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
_STARTS_AS_STATEMENT = compile_pattern(r"^(?:I|my)\s")
#: Where a sentence holds a second statement: "I love hiking and I'm vegetarian".
_NEXT_CLAUSE = compile_pattern(
    r"\s*(?:,|;|,?\s+(?:and|but|so|because|while|although))\s+(?=(?:I|my)\b)"
)


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


# --- the shapes ----------------------------------------------------------------------------------

_REMEMBER = compile_pattern(
    r"^(?:please\s+|also\s+)?(?:remember|do not forget|never forget)"
    r"(?:\s+that\b|\s*:)\s*(?P<rest>.+)$"
)
_CALL_ME = compile_pattern(
    r"^(?:you can\s+|please\s+|just\s+|everyone\s+|friends\s+)?call me\s+(?P<name>[^,;!]+)"
)
_MY = compile_pattern(
    r"^my\s+(?P<head>(?:(?:favou?rite|preferred|go-to)\s+[\w-]+(?:\s+[\w-]+)?)|"
    r"(?:full\s+|first\s+|last\s+|nick)?name|birthday|age|wife|husband|partner|girlfriend|"
    r"boyfriend|fianc[ée]e?|son|daughter|kids|children|child|baby|sister|brother|mom|mum|"
    r"mother|dad|father|parents|family|dog|cat|pet|job|role|title|employer|company|team|boss|"
    r"manager|hometown|home town|city|diet|allergy|allergies|goal|goals|plan|plans|"
    r"native language|first language|timezone|time zone|pronouns|doctor|office|school|"
    r"university|major|degree)"
    r"(?:'s\s+[\w-]+)?\s+(?:is|are|was|were|has|have|lives|works|will be)\s+\S"
)
_FAVOURITE = compile_pattern(r"(?:favou?rite|preferred|go-to)\b")
_I_SENTENCE = compile_pattern(rf"^I\s+(?P<adverbs>(?:{ADVERB}\s+)*)(?P<rest>.+)$")
_COPULA = compile_pattern(
    r"^(?P<cop>am|was|have\s+been|will\s+be)\s+(?P<neg>not\s+)?"
    rf"(?P<adverbs>(?:{ADVERB}\s+)*)(?P<rest>.+)$"
)
_COPULA_OUT = {"am": "is", "was": "was", "have been": "has been", "will be": "will be"}
_COPULA_NOT = {
    "am": "is not",
    "was": "was not",
    "have been": "has not been",
    "will be": "will not be",
}
_AUX = compile_pattern(
    r"^(?P<aux>do\s+not|did\s+not|no\s+longer|cannot|will\s+not|will|would\s+not|would|"
    r"have\s+not|have)\s+"
    rf"(?P<adverbs>(?:{ADVERB}\s+)*)(?P<rest>.+)$"
)
_VERB = compile_pattern(r"^(?P<verb>[a-z]+)\b\s*(?P<rest>.*)$")


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
    cleaned = clean_object(inner)
    if not cleaned:
        return None
    subject = re.match(r"^they\s+(\w+)\b", cleaned)
    if subject:  # "I am on Windows" -> "they are on Windows" -> "User is on Windows"
        cleaned = f"User {third_singular(subject.group(1))}{cleaned[subject.end() :]}"
    cleaned = re.sub(r"^their\b", "User's", cleaned)
    return Statement(cleaned[0].upper() + cleaned[1:], MISC)


_OWNER = compile_pattern(r"\b(?:my|mine)\b")


def _first_person(text: str, *, strict: bool) -> Statement | None:
    call = _CALL_ME.match(text)
    if call:
        name = clean_object(call.group("name"))
        return Statement(f"User wants to be called {name}", DETAIL) if name else None
    # Outside "remember that", only "my <known thing> is ..." is a fact ("my code is..." is not).
    my = _MY.match(text) if strict else compile_pattern(r"^my\s+(?P<head>\S+)\s").match(text)
    if my:
        whole = clean_object(text[3:])
        if not whole:
            return None
        head = my.group("head").lower()
        hint = PLAN if head.startswith(("goal", "plan")) else DETAIL
        hint = PREFERENCE if _FAVOURITE.match(head) else hint
        return Statement(f"User's {whole}", hint)
    sentence = _I_SENTENCE.match(text)
    if not sentence:
        return None
    adverbs = squash(sentence.group("adverbs"))
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
        return any(v in CHATTER for v in (stem, stem + "e", stem[:-1]))
    return False


def _join(*parts: str, hint: str) -> Statement:
    return Statement(" ".join(p for p in parts if p), hint)


def _copula(match: re.Match[str], adverbs: str) -> Statement | None:
    """``I am <predicate>``: "I am allergic to nuts" -> "User is allergic to nuts"."""
    rest = match.group("rest")
    cop = squash(match.group("cop")).lower()
    # "I will be in Tokyo next week": any future state is a plan; "I am ..." needs a predicate.
    if cop == "will be":
        hint: str | None = None if _idle_future(rest) else PLAN
    else:
        hint = predicate_hint(rest)
    obj = clean_object(rest) if hint else None
    if hint is None or not obj:
        return None
    verb = (_COPULA_NOT if match.group("neg") else _COPULA_OUT)[cop]
    return _join("User", adverbs, verb, squash(match.group("adverbs")), obj, hint=hint)


def _auxiliary(match: re.Match[str], adverbs: str) -> Statement | None:
    """``I <auxiliary> ...``: negations, the future, the present perfect."""
    aux = squash(match.group("aux")).lower()
    more = squash(match.group("adverbs"))
    rest = match.group("rest")
    verb = _VERB.match(rest)
    if verb is None:
        return None
    word = verb.group("verb").lower()
    after = verb.group("rest")
    if aux in ("have", "have not"):
        if word not in PARTICIPLES:
            if aux == "have not" or PARTICIPLE.match(word):
                return None  # "I have met...", "I have tried...": events, not kept
            return _verb_phrase(f"have {rest}", adverbs, aux=None)  # "I have two kids"
        obj = clean_object(after)
        has = "has not" if aux == "have not" else "has"
        if not obj:
            return None
        return _join("User", adverbs, has, more, word, obj, hint=PARTICIPLES[word])
    if aux in ("will", "will not"):
        if is_chatter([w.lower() for w in rest.split()]):
            return None  # "I will try that", "I'll go ahead"
        obj = clean_object(after)
        if not obj:
            return None
        return _join("User", adverbs, aux, more, word, obj, hint=PLAN)
    if aux in ("would", "would not"):
        if word == "prefer":
            return _verb_phrase(rest, adverbs, aux=aux, more=more)
        if word in ("like", "love") and TO.match(after) and not chatter_after_to(after):
            obj = clean_object(after)
            return _join("User", adverbs, aux, more, word, obj, hint=PLAN) if obj else None
        return None  # "I would like a coffee", "I would say": requests and opinions
    return _verb_phrase(rest, adverbs, aux=aux, more=more)


def _verb_phrase(rest: str, adverbs: str, *, aux: str | None, more: str = "") -> Statement | None:
    """``VERB object`` after "I [adverbs] [aux] [adverbs]", conjugated for "User"."""
    match = _VERB.match(rest)
    if match is None:
        return None
    word = match.group("verb").lower()
    verb = VERBS.get(word)
    if verb is None or (word == "stand" and aux != "cannot"):
        return None
    if verb.past and aux is not None:
        return None
    after = match.group("rest")
    if verb.needs is not None and not verb.needs.match(after):
        return None
    if verb.hint == PLAN and chatter_after_to(after):
        return None
    obj = clean_object(after)
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
