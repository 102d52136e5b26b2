"""What a fact is about: its subject, the attribute it sets and the value, read by rules.

``read_slots("Alice moved to Berlin")`` gives ``(Slot("alice", "lives in", "berlin",
change=True),)``; ``read_slots("Alice likes Berlin's museums")`` gives a slot of the
multi-valued attribute ``likes``, which another value never closes. The attributes are the
rules of :mod:`memex_rules.supersession_table` (personal facts) and
:mod:`memex_rules.supersession_table_projects` (plans, tools, names, purposes), their values
read by :mod:`memex_rules.supersession_readers`. Here the text is prepared (contractions
spelt out, every negation made one token, "I"/"we" verbs put in the third person, a leading
"After the wedding," dropped, time phrases set aside) and the rules run, on the whole text and
on each clause (a clause without a subject takes the first one's); the slots kept are those
with the shortest subject ("Alice" rather than "Alice moved to Berlin and"). Only the first
:data:`MAX_CHARS` characters are read. English only, no model; the same text always gives the
same slots.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache

from memex_rules.pattern_triggers import TriggerIndex, substitute_each
from memex_rules.rules_text import WHEN_STARTED, compile_pattern, squash, word_set
from memex_rules.statement_objects import third_singular
from memex_rules.supersession_open import read_open
from memex_rules.supersession_open_values import value_kind
from memex_rules.supersession_readers import read
from memex_rules.supersession_table import (
    ADVERB,
    ADVERB_WORDS,
    CHANGE_WORDS,
    PERSONAL_RULES,
    POSSESSED,
    Rule,
)
from memex_rules.supersession_table_changes import CHANGE_RULES
from memex_rules.supersession_table_projects import PROJECT_RULES
from memex_rules.supersession_time import without_times
from memex_rules.supersession_until import _START
from memex_rules.supersession_values import NEG, Slot, normalise_subject

_CARER = r"(?:my|the)\s+(?:gp|doctor|psychiatrist|consultant|specialist|nurse|dermatologist|physio)"
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u02bc": "'", "\u201c": '"', "\u201d": '"'})
_SPELL = tuple(
    (compile_pattern(pattern), replacement)
    for pattern, replacement in (
        (r"\bwon't\b", "will not"),
        (r"\bcan'?t\b|\bcannot\b", "can not"),
        (r"\b(she|he|it|that|there)'s\b", r"\1 is"),
        # "Rent's gone up", "Isla's up to 9 badges"
        (r"\b(\w+)'s\s+(?=(?:gone|been|got|risen|fallen|dropped|moved|changed)\b)", r"\1 has "),
        (r"\b(\w+)'s\s+(?=(?:up|down|now|at|on|in|a|an|not|still)\s)", r"\1 is "),
        (r"n't\b", " not"),
        (r"'re\b", " are"),
        (r"'ve\b", " have"),
        (r"'m\b", " am"),
        (r"'ll\b", " will"),
        # "we've joined Initech" reads as "we joined Initech": one form for every change verb
        (
            r"\b(?:has|have)\s+(?=(?:joined|relocated|switched|left|quit|retired|adopted|bought|"
            r"sold|moved|migrated|upgraded|married|divorced)\b)",
            "",
        ),
        (
            r"^(?:please\s+)?(?:remember|note|fyi|update|news|btw|ok|okay|so|well|also|actually)"
            r"(?:\s+that)?[:,]?\s+",
            "",
        ),
        # a heading: "The team reversed the decision: the frontend will use Vue"
        (r"^[\w' ]{0,40}\b(?:decision|plan|plans|update|news|change|minds?)\s*:\s+", ""),
        # "After the reorg I report to Femi": a circumstance without its comma
        (
            r"^(?:(?:after|following|since)\s+(?:the|a|my|our)\s+[\w-]+|these\s+days|nowadays|"
            r"lately)\s+(?=(?:I|we|my|our)\b)|^(?:from|starting|as\s+of)\s+(?:next\s+)?"
            r"(?:mon|tues|wednes|thurs|fri|satur|sun)day\s+(?=[a-z])",
            "",
        ),
        # "When Jonas joined in 2021 he reported to Tomasz": Jonas reported to Tomasz
        (WHEN_STARTED + r"(?:he|she|they)\s+", r"\g<who> "),
        (WHEN_STARTED, ""),
        # "...and now I'm enrolled in ...": the subject first, the "now" kept (a change)
        (r"^(?:and\s+|so\s+)?now\s+(?P<rest>(?:I|we)\s.*)$", r"\g<rest> now"),
        # "Before Ocado I spent two years at Deliveroo": a leading time named by a place or firm
        (
            r"^(?:before|after|until)\s+(?-i:[A-Z])[\w.&'-]*(?:\s+(?-i:[A-Z])[\w.&'-]*)?,?\s+"
            r"(?=(?:I|we|my|our)\b)",
            "",
        ),
        # a leading time or circumstance: "After the wedding, Omar's last name is Larsen"
        (
            r"^(?:after|since|as\s+of|from|starting|following|by|today|these\s+days|this\s+week|"
            r"change\s+of\s+plans?|in\s+the\s+end|at\s+last|finally|now)\b[^,:;]{0,40}[,:]\s+",
            "",
        ),
        # "During the first lockdown in 2020 my GP had me on citalopram": a leading period
        (r"^during\s+(?:the|a|my|our)\s+(?:[\w-]+\s+){0,4}?(?=(?:I|we|my|our)\b)", ""),
        # a treatment someone else set: "my GP has me on sertraline" is the user on it
        (rf"^{_CARER}\s+had\s+me\s+on(?:to)?\s+", "user was on "),
        (
            rf"^{_CARER}\s+(?:has\s+)?(?:has|put|started|switched|moved|kept)\s+me\s+on(?:to)?\s+",
            "user is on ",
        ),
        # how answers should be laid out, asked of the assistant: the user's preference
        (
            r"^(?:please\s+)?(?:always\s+)?(?:keep|write|give\s+me|format|put|lay\s+out)\s+(?:all\s+)?"
            r"(?:your|the)\s+(?:answers?|responses?|replies|output)\s+(?:in|as)\s+",
            "user prefers answers in ",
        ),
        (r"^my\s+", "user's "),
        (r"\bmy\s+(?=(?:new\s+)?(?:favou?rite|preferred|go-to)\b)", "user's "),
        (r"^the user's\s+", "user's "),
        (r"^the user\b", "user"),
    )
)
_NEG_VERB = compile_pattern(r"\b(?:does|do|did)\s+not\s+(?:really\s+|even\s+)?(\w+)")
_NEG_COPULA = compile_pattern(r"\b(is|are|was|has|have)\s+(?:not|no\s+longer)\b")
_NEG_WORD = compile_pattern(r"\b(?:no\s+longer|never)\b")
_NEG_GERUND = compile_pattern(r"\b(?:stopped|quit|gave\s+up)\s+(\w+?)ing\b")
_ANYMORE = compile_pattern(r"\s+(?:anymore|any\s+more)\b")


#: A note that starts with a verb in the past tense is the user's own news ("Moved to
#: Bristol last month", "Sold the Brompton and bought a Trek"), and so is one about the train
#: caught ("Catching the 8:12 these days").
_IMPLIED_I = re.compile(
    r"^(?=(?:[A-Z][a-z]{2,}ed|Got|Went|Sold|Bought|Left|Quit|Took|Gave|Began|Cut|Put|Upped|"
    r"Swapped|Dropped|Stopped|Shipped|Ported|Traded|Started|Finally|Just|Recently|Now|Also|"
    r"(?i:started|joined|reporting|first\s+(?:day|week|month)\s+at|went|got|moved|switched|"
    r"bought|sold|quit|took|dropped|stopped|upgraded|swapped|cancelled|finally)|"
    r"(?:Catching|Getting|Taking)(?=\s+the\s+\d))\s)"
)


#: A label ("Rent: £1,350", "New number: 07700 900456", "Standup -> 9:45") is the user's
#: attribute set to a value.
_LABEL = re.compile(
    r"^(?:(?:my|our|the|new)\s+)*(?P<a>[A-Za-z][a-z-]*(?:\s+[a-z][\w-]*){0,3})\s*"
    r"(?::|→|->|=>)\s+(?P<v>(?!(?:I|we|you|he|she|they|it)\b).+)$"
)


def _labelled(match: re.Match[str]) -> str:
    """ "Rent: £1,350" -> "user's Rent is now £1,350"; a status or a heading stays as it is."""
    if value_kind(match.group("v")) in ("", "word", "date"):
        return match.group(0)
    return f"user's {match.group('a')} is now {match.group('v')}"


def _verb_s(stem: str) -> str:
    """ "play" (from "playing") -> "plays"; "smok" (from "smoking") -> "smokes"."""
    if re.search(r"[^aeiou][aeiou][bcdgklmnprstvz]$", stem) and not stem.endswith(("en", "er")):
        stem += "e"
    return third_singular(stem)


@lru_cache(maxsize=1)
def _spelling() -> TriggerIndex[tuple[re.Pattern[str], str]]:
    return TriggerIndex(_SPELL, [pattern for pattern, _replacement in _SPELL])


@lru_cache(maxsize=8192)
def prepare(text: str) -> str:
    """The text with quotes made plain, contractions spelt out and negations made one token:
    "Alice doesn't live in Paris anymore" -> "Alice xneg lives in Paris"."""
    text = substitute_each(_spelling(), squash(text.translate(_QUOTES)).rstrip(" .!;"))
    text = _IMPLIED_I.sub("user ", text, count=1)
    text = _LABEL.sub(_labelled, text, count=1)
    text = _plural_verb(text)
    text = _NEG_VERB.sub(lambda m: f"{NEG} {third_singular(m.group(1))}", text)
    text = _NEG_COPULA.sub(lambda m: f"{NEG} {m.group(1)}", text)
    text = _NEG_WORD.sub(NEG, text)
    text = _NEG_GERUND.sub(lambda m: f"{NEG} {_verb_s(m.group(1))}", text)
    return _ANYMORE.sub("", text)


_PLURAL_SUBJECT = compile_pattern(
    rf"^(?P<who>I|we|user|(?-i:[A-Z])\w+\s+and\s+(?-i:[A-Z])\w+|the\s+(?-i:[A-Z])\w+s|"
    r"user's\s+(?:parents|grandparents|kids|children|sons|daughters|sisters|brothers|folks|"
    r"in-laws|neighbou?rs|friends|cousins))\s+"
    rf"(?P<adv>(?:(?:{ADVERB_WORDS}|no\s+longer|never)\s+)*)(?P<verb>[a-z]+)\b"
)
_KEEP_VERB = word_set("is was has will would can could should might must may had did does")


#: Irregular past forms: "I got", "we went" stay as they are.
_PAST = word_set(
    "got went became left quit sold bought took made met had did ran began came gave found "
    "lost won broke fell grew knew saw said told thought kept paid put set split wrote drove "
    "spent taught felt held led read sent stood understood wore"
)


def _plural_verb(text: str) -> str:
    """ "I live" / "we use" / "Ana and Joe live" -> "user lives" / "we uses" / "Ana and Joe
    lives": the rules read third-person verbs."""
    match = _PLURAL_SUBJECT.match(text)
    if match is None:
        return text
    said = match.group("who")
    who = {"we": "we", "i": "user", "user": "user"}.get(said.lower(), said)  # or "Ana and Joe"
    verb = match.group("verb")
    if said.lower() == "user" or (" " in who and verb.lower() in ("is", "has")):
        return text  # already third person ("User lives in Oslo")
    if " and " not in who and " " in who and verb.lower().endswith("s"):
        return text  # "the Okafors lives in ...": already the rules' form
    if verb.lower() not in _KEEP_VERB | _PAST and not verb.lower().endswith("ed"):
        verb = third_singular(verb)
    return f"{who} {match.group('adv')}{verb}{text[match.end() :]}"


_LEAD = rf"^(?P<s>[^,;:]{{1,60}}?)\s+(?P<adv>(?:{ADVERB}\s+)*)"


@lru_cache(maxsize=1)
def _compiled() -> tuple[tuple[Rule, re.Pattern[str]], ...]:
    return tuple(
        (rule, compile_pattern((rule.pattern if rule.whole else _LEAD + rule.pattern) + r"\s*$"))
        for rule in (*PERSONAL_RULES, *PROJECT_RULES, *CHANGE_RULES)
    )


@lru_cache(maxsize=1)
def _index() -> TriggerIndex[tuple[Rule, re.Pattern[str]]]:
    compiled = _compiled()
    return TriggerIndex(compiled, [pattern for _rule, pattern in compiled])


def _rules_for(prepared: str, plain: str) -> list[tuple[Rule, re.Pattern[str]]]:
    """The table's rules, in order, that can match ``prepared`` or ``plain``: a clause
    without any of a rule's trigger words ("lives", "moved", ...) is not tried on it."""
    return _index().candidates(prepared, plain)


_CHANGE = compile_pattern(CHANGE_WORDS)


#: Only a fact's first characters are read: a fact is a sentence or two, and a long note
#: (a pasted document) would cost time on every remember for nothing.
MAX_CHARS = 600


@lru_cache(maxsize=8192)
def read_slots(text: str) -> tuple[Slot, ...]:
    """Every slot the rules read in ``text``: in the whole sentence, then in each clause
    ("Julia left Denver; home is Cairo"), a clause without a subject taking the first's
    ("I broke up with Mia and am now dating Elena")."""
    text = text[:MAX_CHARS]
    slots = list(_read_clause(text))
    clauses = [c for c in _CLAUSES.split(squash(text)) if c]
    if len(clauses) > 1:
        subject = slots[0].subject if slots else _first_subject(clauses[0])
        for clause in clauses:
            found = _read_clause(clause)
            if subject and _STARTS_WITH_VERB.match(clause):
                # "...and am now dating Noor": the verb's subject is the first clause's
                found = _read_clause(_with_subject(subject, clause)) or found
            elif subject and _THEIR.match(clause):  # "...; her favourite film is Arrival"
                found = _read_clause(_THEIR.sub(f"{subject}'s ", clause)) or found
            elif not found and subject and _OWN_NOUN.match(clause):
                found = _read_clause(f"{subject}'s {clause}")  # "...; home is Cairo"
            slots.extend(slot for slot in found if slot not in slots)
    return tuple(slots)


@lru_cache(maxsize=8192)
def shaped_slots(text: str) -> tuple[Slot, ...]:
    """The slots :mod:`memex_rules.supersession_open` reads by shape alone in ``text`` and in
    each of its clauses, whatever the table read there ("Raj is the new team lead": the team
    lead is Raj, besides Raj's job)."""
    text = text[:MAX_CHARS]
    clauses = [c for c in _CLAUSES.split(squash(text)) if c]
    found: list[Slot] = []
    for clause in dict.fromkeys([text, *clauses]):
        prepared = prepare(clause)
        plain = without_times(prepared)
        for slot in read_open(prepared, plain, bool(_CHANGE.search(prepared))):
            if slot not in found and slot.kind:
                found.append(slot)
    return tuple(found)


_CLAUSES = compile_pattern(
    r"(?<!\bdr)(?<!\bmr)(?<!\bms)(?<!\bmrs)(?<!\bst)[.!?]+\s+|\s*;\s*|\s*,\s+(?:and\s+|but\s+)?|\s+(?:and|but|then)\s+"
    r"|\s+[-\u2013\u2014]+\s+"
)
_STARTS_WITH_VERB = compile_pattern(
    rf"^(?:(?:{ADVERB_WORDS}|no\s+longer|never)\s+)*(?:am|is|are|was|has|have|had|got|"
    r"moved|went|started|joined|bought|sold|lives?|works?|uses?|now|picked|switched|"
    r"became|dropped|quit|left|took|adopted|does|do|did|drives?|owns?)\b"
)


_THEIR = compile_pattern(r"^(?:her|his|their|its)\s+")
_OWN_NOUN = compile_pattern(rf"^{POSSESSED}\s+(?:is|are)\b")


def _first_subject(clause: str) -> str | None:
    found = _read_clause(clause)
    return found[0].subject if found else rough_subject(clause)


#: Without slots, the subject is the first word (with its determiner or possessed noun).
_ROUGH_SUBJECT = compile_pattern(r"^(?P<s>(?:(?:the|our|my)\s+)?[\w-]+(?:'s\s+[\w-]+)?)\s")


def rough_subject(text: str) -> str | None:
    """The subject of a fact the rules cannot read: its first word ("Alice keeps bees")."""
    match = _ROUGH_SUBJECT.match(prepare(text))
    return normalise_subject(match.group("s")) if match else None


def _with_subject(subject: str, clause: str) -> str:
    """ "am now dating Elena" with the subject "user" -> "user is now dating Elena"."""
    clause = re.sub(r"(?i)^(am|are)\b", "is", clause)
    return _plural_verb(f"we {clause}").replace("we ", f"{subject} ", 1)


#: Past forms of the verbs that state a standing fact, read as their present ("In 2017,
#: Alice's favourite band was ABBA" as "... is ABBA") when the text reads no other way, so a
#: fact told late about an earlier time meets the current fact of the same attribute.
_PAST_STATE = {
    "was": "is", "were": "are", "had": "has", "lived": "lives", "worked": "works",
    "drove": "drives", "owned": "owns", "used": "uses", "studied": "studies",
    "preferred": "prefers", "loved": "loves", "liked": "likes", "played": "plays",
    "attended": "attends", "taught": "teaches", "dated": "dates", "ran": "runs",
    "managed": "manages", "led": "leads", "kept": "keeps", "wore": "wears",
}  # fmt: skip
_PAST_STATE_WORD = compile_pattern(
    rf"(?:\b(?P<who>I|we)(?P<gap>\s+(?:{ADVERB}\s+)*))?"
    r"\b(?:used\s+to\s+(?P<base>[a-z]+)|(?P<past>" + "|".join(_PAST_STATE) + r"))\b"
)
#: A regular past tense right after a clause's subject ("Jonas reported to Tomasz"), not a
#: participle after an auxiliary ("were coached by", "has moved").
_REGULAR_PAST = compile_pattern(
    rf"^(?P<s>[^,;:]{{1,60}}?)(?<!\bis)(?<!\bare)(?<!\bwas)(?<!\bwere)(?<!\bbe)(?<!\bbeen)"
    rf"(?<!\bhas)(?<!\bhave)(?<!\bhad)(?<!\bgot)(?<!\bget)(?<!\bgets)"
    rf"\s+(?P<adv>(?:{ADVERB}\s+)*)(?P<v>[a-z]{{3,}}(?:[^e]ed|eed|ied))\b"
)
_WHEN_LEAD = compile_pattern(WHEN_STARTED)
#: "I"/"we" before a verb put in the third person: the subject the rules read ("user works",
#: "the team uses"), so the reading does not put the verb in the third person again.
_THIRD_PERSON = {"i": "user", "we": "the team"}
_LAST_PRONOUN = compile_pattern(r"(?:^|(?<=\W))(?P<who>I|we)$")


def _past_base(past: str) -> str:
    """ "reported" -> "report", "managed" -> "manage", "studied" -> "study", "planned" ->
    "plan": the verb a regular past tense is of."""
    word = past.lower()
    if word.endswith("ied"):
        return past[:-3] + "y"
    if word.endswith("eed"):
        return past[:-1]  # "agreed"
    stem = past[:-2]
    if re.search(r"([bdgklmnprt])\1$", stem.lower()) and not stem.lower().endswith(("ll", "ss")):
        return stem[:-1]  # "planned", "preferred"
    if re.search(
        r"(?:[^aeiou][aeiou][cgvsz]|[^aeiouy][aeiou][bdkmnpt]|[uv]|[^aeiou][aeiou]r|rg|nc|dg|ng|lv|rs)$",
        stem.lower(),
    ):
        return stem + "e"  # "managed", "lived", "dated", "used"
    return stem


def _presented(text: str) -> str:
    """``text`` with past forms of state verbs in the present ("used to live" -> "lives",
    "Jonas reported to" -> "reports to"; "I worked as" -> "user works as")."""

    def present(match: re.Match[str]) -> str:
        who = match.group("who")
        said = f"{_THIRD_PERSON[who.lower()]}{match.group('gap')}" if who else ""
        if match.group("base"):
            return said + third_singular(match.group("base"))
        verb = _PAST_STATE[match.group("past").lower()]
        return said + ("is" if who and verb == "are" else verb)  # "we were" -> "the team is"

    lead = _WHEN_LEAD.match(text)  # "When Jonas joined in 2021 he reported to ...": the rest
    kept, text = (lead.group(0), text[lead.end() :]) if lead else ("", text)
    folded = _PAST_STATE_WORD.sub(present, text)
    regular = _REGULAR_PAST.match(folded)
    if regular is not None and not _START.fullmatch(regular.group("v")):  # not "switched"
        subject = _LAST_PRONOUN.sub(lambda m: _THIRD_PERSON[m.group("who").lower()], regular["s"])
        verb = third_singular(_past_base(regular.group("v")))
        folded = f"{subject} {regular['adv']}{verb}{folded[regular.end('v') :]}"
    return kept + folded


@lru_cache(maxsize=8192)
def _read_clause(text: str) -> tuple[Slot, ...]:
    """The slots of one clause, for the shortest subject any rule found; a clause in the past
    tense that reads no other way is read in the present, its slots marked ``past``."""
    found = _read_present(text)
    if found:
        return found
    presented = _presented(text)
    if presented == text:
        return ()
    return tuple(replace(slot, past=True) for slot in _read_present(presented))


def _read_present(text: str) -> tuple[Slot, ...]:
    prepared = prepare(text)
    plain = without_times(prepared)
    change = bool(_CHANGE.search(prepared))
    found: list[tuple[int, Rule, Slot]] = []
    for rule, pattern in _rules_for(prepared, plain):
        match = pattern.match(prepared if rule.keeps_times else plain)
        if match is None:
            continue
        subject = match.groupdict().get("s") or ""
        length = len(subject) if not rule.whole else 0
        for slot in read(rule, match, prepared, change):
            found.append((length, rule, slot))
    if not found:
        return read_open(prepared, plain, change)
    lengths = [length for length, rule, _slot in found if not rule.whole]
    shortest = min(lengths) if lengths else 0
    chosen = [(rule, slot) for length, rule, slot in found if length == shortest or rule.whole]
    if any(not rule.weak for rule, _slot in chosen):
        chosen = [(rule, slot) for rule, slot in chosen if not rule.weak]
    slots: list[Slot] = []
    if all(rule.weak for rule, _slot in chosen):
        # only a weak reading ("salary goes up to £54k" as a hobby): its shape too
        slots.extend(read_open(prepared, plain, change))
    for _rule, slot in chosen:
        if slot not in slots and slot.subject:
            slots.append(slot)
    return tuple(slots)
