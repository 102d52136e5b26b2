"""A measure of one thing changed: a new fact closes an earlier one when both give the same
thing a value of one measurable kind (an amount of money, a count, a time of day, a day or a
frequency) and the thing is named by a shared word, however the rest is worded.

"The platform team is 6 engineers" -> "the platform team is down to 4"; "We get 25 vacation
days a year" -> "Vacation allowance is 28 days from 2024"; "Sprint planning is Monday at 11"
-> "Planning is now on Wednesday afternoons"; "We hold a retro at the end of every sprint" ->
"Retros are monthly these days". The earlier fact closes when

- the two share a content word in lower case (a stem: "retro"/"retros", "hire"/"hiring"),
  not a name, not a word of time, unit or function; when the only shared words are verbs of
  a measure ("weigh", "open", "cost"), the two name no other thing ("I weigh 92kg" /
  "Weighed in at 85kg", but not "The gym opens at 6" / "The pool opens at 7 now");
- both give a value of one kind and the values differ;
- the new fact is told as a change ("now", "these days", "down to", "cut to", "moved",
  "from 2024"), or both are notes keyed by the same opening word that differ in one kind
  of value, not a bare count ("standup 9:45 in the huddle" / "standup 10:15", "council tax
  £148/month" / "council tax £156 a month for 23/24"); and the new fact is neither a
  question, a plan nor a wish.

Two facts of two things measured alike ("The platform team is 6 engineers" / "The search
team is 4 engineers now") share only the unit, which does not count. A shared word that
modifies a head the other fact does not name ("the launch party", "our standup notes"), two
kinds of it ("Sprint planning" / "Release planning"), another owner ("Priya's rent" / "My
rent"), another thing named first ("The bus ..." / "The train ...") or a second count that
differs ("5k PB" / "10k PB") keep the earlier fact open.

Counts may be in words ("down to four", "a dozen", "a couple of"); the noun counted ("4
coffees" / "one coffee") is a shared word when both facts have one teller (the user's own, or
the same opening word); a word that opens the sentence ("Platform is down to 4", "Rent's gone
up") is a word, not a name; two names of one price ("membership" / "fee", "allowance" /
"stipend") are one word when one of the facts names nothing else. The reading is a few
regular expressions and word sets per text, cached.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from memex_rules.rules_text import OPENING_POSSESSOR, RELATIVES, word_set
from memex_rules.wording import NUMBERS

_DAYS = {
    "mon": "monday", "tue": "tuesday", "tues": "tuesday", "wed": "wednesday", "weds": "wednesday",
    "thu": "thursday", "thur": "thursday", "thurs": "thursday", "fri": "friday",
    "sat": "saturday", "sun": "sunday",
}  # fmt: skip
_WHEN = re.compile(
    r"(?i)\b(?:(?P<day>monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?|"
    r"(?P<short>mon|tues?|weds?|thu(?:rs?)?|fri|sat|sun)\b(?!')|"
    r"(?P<often>daily|weekly|fortnightly|biweekly|monthly|quarterly|yearly|annually|"
    r"every\s+(?:other\s+|second\s+)?(?:day|week|weekday|sprint|month|quarter|year|morning|"
    r"evening|night)))"
)
_MONEY = re.compile(r"[£$€]\s?(?P<n>\d[\d,]*(?:\.\d+)?)\s?(?P<k>k|m|bn)?\b", re.IGNORECASE)
_CLOCK = re.compile(
    r"(?i)\b(?:(?P<hm>\d{1,2}:\d{2}|\d{1,2}\.\d{2}(?=\s?[ap]m))(?:\s?[ap]m)?|(?P<h>\d{1,2})\s?(?P<ap>[ap]m)|"
    r"(?<=\bat\s)(?P<at>\d{1,2})(?![\w:.])|(?P<word>noon|midday|midnight))"
)
_COUNT = re.compile(r"(?i)(?<![\w£$€.:/-])(?P<n>\d[\d,]*(?:\.\d+)?)(?P<unit>[a-z]{0,3})\b(?![:/])")
_UNIT = re.compile(r"(?i)\d[\d,.]*\s*([a-z]+)(?:\s+([a-z]+))?")
_UNIT_WORDS = word_set(
    "days day hours hour minutes mins weeks months years km miles kg people engineers staff"
)
_YEAR = re.compile(r"^(?:19|20)\d\d$")
#: A unit of time right after a bare number: "30 mins", "2 hours".
_DURATION = re.compile(r"(?i)\s+(min|mins|minutes?|hrs?|hours?|secs?|seconds?)\b")
#: A unit of a dose or a weight written apart from its number: "100 mg", "75 mcg".
_SPACED_UNIT = re.compile(r"(?i)\s+(mg|mcg|ml|kg|g|lbs?)\b")
_NEXT_WORD = re.compile(r"\s+([A-Za-z][A-Za-z-]*)")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
_DIGIT_OR_DAY = re.compile(
    r"(?i)\d|\b(?:dozen|couple|one|two|three|four|five|six|seven|eight|nine|ten|eleven|"
    r"twelve|twenty|thirty|forty|fifty|hundred|mon|tue|wed|thu|fri|sat|sun|daily|weekly|fortnightly|biweekly|monthly|"
    r"quarterly|yearly|annually|every|noon|midday|midnight)"
)

#: A new fact told as a change of its value.
_CHANGE = re.compile(
    r"(?i)\b(?:now|these\s+days|nowadays|any\s?more|no\s+longer|instead|moved|changed|switched|"
    r"rescheduled|pushed|bumped|revised|raised|reduced|increased|decreased|cut|dropped|"
    r"doubled|halved|tripled|upped|from\s+(?:today|tomorrow|tonight)|"
    r"(?:went|gone|goes|going|is|are|'s)\s+(?:up|down)|(?:up|down)\s+(?:to\b|[£$€]?\d)|back\s+to|"
    r"from\s+now\s+on|as\s+of|from\s+(?:next|this|(?:19|20)\d\d|january|february|march|april|"
    r"may|june|july|august|september|october|november|december)|since|new)\b|\u2192"
)
#: A new fact that does not hold a value: a question, a plan, a wish, a maybe.
_NOT_HELD = re.compile(
    r"(?i)\?|\b(?:if|might|maybe|perhaps|could|would|should|will|wants?|hoping|hope|"
    r"thinking|considering|plann(?:ing|ed)\s+to|plans?\s+to|going\s+to|wish|unless|whether|used\s+to)\b"
)

#: Words that name no thing: function words, time, units and counting nouns.
STOP_WORDS = word_set(
    "a an the i i'm i've i'd me my mine we we're we've our ours us it it's its they their them "
    "he she his her him you your is are was were be been being am has have had got get gets "
    "do does did to in on at into from for of by with as off out up down over about around "
    "via per and or but so then there here that this these those which who what where when "
    "also just very really about roughly around approx approximately only still again "
    "now days day week weeks weekly month months monthly year years yearly annual annually "
    "daily fortnightly quarterly every other each last first next end start today tonight "
    "yesterday tomorrow morning mornings afternoon afternoons evening evenings night nights "
    "lunchtime lunchtimes weekend weekends weekday weekdays time times hour hours minute "
    "minutes mins second seconds noon midday midnight "
    "monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays "
    "thursdays fridays saturdays sundays mon tue tues wed weds thu thur thurs fri sat sun "
    "january february march april may june july august september october november december "
    "spring summer autumn winter "
    "now instead anymore longer no not new current currently usually normally "
    "moved changed switched cut dropped raised reduced increased decreased revised bumped "
    "pushed rescheduled back gone went go goes going happen happens happened "
    "team teams people person persons folks staff members member total number amount "
    "km kms miles mile kg kgs lbs pounds stone percent k mo mth wk yr pcm pw pa "
    "one two three four five six seven eight nine ten twice once "
    "after before since until till because while the'"
)
#: Words of no thing that, right before a noun, name a kind of it ("weekday alarm",
#: "evening run", "Team plan"): two facts with two of them tell of two things.
_KIND_STOPS = word_set(
    "weekday weekdays weekend weekends morning mornings afternoon afternoons evening evenings "
    "night nights lunchtime summer winter spring autumn daily weekly monthly yearly team"
)
#: Verbs of a measure: shared alone, they do not say the two facts measure one thing.
_MEASURE_VERBS = word_set(
    "open opens opened close closes closed cost costs pay pays paid weigh weighs weighed "
    "run runs ran start starts started finish finishes finished meet meets take takes took "
    "make makes made earn earns earned spend spends spent charge charges charged hold holds "
    "held hit hits reached reach"
)


def _a_verb(word: str) -> bool:
    """ "upgraded", "slipped": a verb told of the word before, not a head it modifies."""
    return len(word) > 4 and word.islower() and word.endswith("ed")


def stem(word: str) -> str:
    """ "retros" and "retro", "hiring" and "hire", "meetings" and "meet": one stem."""
    word = word.lower().removesuffix("'s").rstrip("'")
    for end in ("s", "ing", "ed", "es", "e"):
        if word.endswith(end) and len(word) - len(end) >= 3:
            word = word[: -len(end)]
    return word


@dataclass(frozen=True)
class _Reading:
    values: dict[str, frozenset[str]]  # kind -> values
    low: frozenset[str]  # stems of content words told in lower case (or as an acronym)
    first: str  # the stem of a capitalised opening word, "" without one
    opening: str  # that word as written
    verbs: frozenset[str]  # the stems of the measure verbs among ``low``
    heads: frozenset[tuple[str, str]]  # (word, the content word right after it): "launch party"
    pairs: frozenset[tuple[str, str]]  # every such pair, a measure noun or verb after too
    lead: str  # the stem of an opening "X's" ("Rent's gone up"), "" without one
    counted: frozenset[str]  # the stems of nouns right after a count ("4 coffees")
    measured: str  # the stem of X in an opening "X is (down to) N" ("Platform is down to 4")


_NUMBER_WORDS = NUMBERS | {"thirty": "30", "forty": "40", "fifty": "50", "hundred": "100"}
#: A count in words before what it counts: "four coffees", "down to four", "a dozen eggs",
#: "a couple of drinks"; not "one of", "the one", "no one", "one day", "one more".
_IN_WORDS = re.compile(
    r"(?i)(?<!\bthe\s)(?<!\bthis\s)(?<!\bthat\s)(?<!\bno\s)(?<!\bany\s)(?<!\bevery\s)"
    r"(?<!\beach\s)(?<!\bwhich\s)\b(?P<n>(?:half\s+)?a\s+dozen|a\s+couple(?=\s+of\b)|"
    r"zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|"
    r"forty|fifty|a\s+hundred|hundred)\b(?!\s+(?:of|another|more|day|time|way|another)\b)(?!-)"
)


def _in_digits(match: re.Match[str]) -> str:
    said = " ".join(match["n"].lower().split())
    if said.endswith("dozen"):
        return "6" if said.startswith("half") else "12"
    if said == "a couple":
        return "2"
    return _NUMBER_WORDS[said.removeprefix("a ")]


#: A phone number ("07700 900461", "+44 7700 900461"): an identifier, not a count.
_PHONE = re.compile(r"(?:\+\d{1,3}[\s-]?|\b0)\d{2,4}[\s-]?\d{3}[\s-]?\d{3,4}\b")


def _values(text: str) -> dict[str, frozenset[str]]:
    found: dict[str, set[str]] = {}
    rest = text
    for match in _MONEY.finditer(text):
        found.setdefault("money", set()).add(match["n"].replace(",", "") + (match["k"] or ""))
    rest = _MONEY.sub(" ", rest)
    for match in _CLOCK.finditer(rest):
        value = (
            match["hm"] or match["word"] or (match["h"] or match["at"] or "") + (match["ap"] or "")
        )
        found.setdefault("clock", set()).add(value.replace(".", ":").lower())
    rest = _CLOCK.sub(" ", rest)
    for match in _WHEN.finditer(rest):
        if match["day"]:
            value = match["day"].lower()
        elif match["short"]:
            value = _DAYS[match["short"].lower()]
        else:
            value = " ".join(match["often"].lower().split())
        found.setdefault("when", set()).add(value)
    rest = _PHONE.sub(" ", _IN_WORDS.sub(_in_digits, rest))  # "07700 900461": no count
    for match in _COUNT.finditer(rest):
        number, unit = match["n"].replace(",", ""), match["unit"].lower()
        if _YEAR.match(number) and not unit:
            continue  # "from 2024": a time, not a count
        if unit in ("k", "m") and number.isdigit():  # "5k followers" / "1,000 followers"
            number, unit = str(int(number) * (1000 if unit == "k" else 1000000)), ""
        if unit in ("st", "nd", "rd", "th"):
            # "1st Thursday" / "4th floor": an ordinal counts the noun after it
            after = _NEXT_WORD.match(rest, match.end())
            kind = "ordinal " + (stem(after.group(1)) if after else "")
        elif not unit and (span := _DURATION.match(rest, match.end())):
            kind = "count " + span.group(1)[:3].lower()  # "30 mins": a duration, not a count
        elif not unit and (span := _SPACED_UNIT.match(rest, match.end())):
            kind = "count " + span.group(1).lower()  # "100 mg" as "100mg"
        else:
            kind = "count " + unit if unit else "count"
        found.setdefault(kind, set()).add(number)
    return {kind: frozenset(values) for kind, values in found.items()}


@lru_cache(maxsize=8192)
def _read(text: str) -> _Reading | None:
    text = text[:400]
    if not _DIGIT_OR_DAY.search(text):
        return None
    values = _values(text)
    if not values:
        return None
    words = _WORD.findall(_MONEY.sub(" ", text))
    after_counts = _UNIT.findall(_IN_WORDS.sub(_in_digits, text))
    units = {
        stem(unit)
        for unit, then in after_counts
        if then.lower() not in _UNIT_WORDS  # "25 vacation days": "vacation" names the thing
    }
    counted = {  # "4 coffees", "three cats": what is counted, not a unit of measure
        stem(unit) for unit, _ in after_counts if len(unit) >= 4 and unit.lower() not in STOP_WORDS
    }
    low: set[str] = set()
    first = opening = lead = ""
    heads: set[tuple[str, str]] = set()
    pairs: set[tuple[str, str]] = set()
    before = ""
    for at, word in enumerate(words):
        root = stem(word)
        root = _PRICE_NAMES.get(root, root)
        if word.lower() in STOP_WORDS or len(root) < 2 or root in units:
            # "weekday alarm" / "weekend alarm": a word of time names no thing, but a kind
            before = root if word.lower() in _KIND_STOPS else ""
            continue
        if before:
            pairs.add((before, root))
        if (
            before
            and root not in _MEASURE_STEMS
            and root not in _MEASURE_NOUNS
            and not _a_verb(word)
        ):
            heads.add((before, root))  # "launch party"; not "Cluster upgraded": a verb
        before = root
        if word.isupper() and len(word) >= 2:
            low.add(root)  # "PB", "GP": an acronym, not a name
        elif word[:1].islower():
            low.add(root)
        elif at == 0 and not word.endswith(("'s", "'")):
            first, opening = root, word
        elif at == 0:
            lead = root
    verbs = frozenset(word for word in low if word in _MEASURE_STEMS)
    told = _MEASURED.match(text)
    measured = stem(told.group(1)) if told else ""
    return _Reading(
        values, frozenset(low), first, opening, verbs, frozenset(heads), frozenset(pairs),
        lead, frozenset(counted), measured,
    )  # fmt: skip


#: An opening "X is N" ("Platform is down to 4", "Standup is at 9:45 now"): X is what is
#: measured, a word written capitalised because it opens the sentence, not a name.
_MEASURED = re.compile(
    r"^\s*([A-Z][\w-]*)\s+(?:is|are|was|were)\s+(?:now\s+|currently\s+)?"
    r"(?:(?:down|up|back)\s+to\s+|at\s+|on\s+)?[£$€]?\d"
)


#: Nouns of a measure itself: "Vacation allowance" names no other thing than "vacation days".
_MEASURE_NOUNS = frozenset(
    stem(word)
    for word in word_set(
        "allowance total rate level amount count figure size cap limit gate threshold target "
        "goal date"
    )
)
#: Names of one price or payment, read as one word: "membership" is the club's "fee".
_PRICE_NAMES = {
    stem(word): stem(group.split()[0])
    for group in ("fee fees membership subscription", "allowance stipend")
    for word in group.split()
}
_PRICES = frozenset(_PRICE_NAMES.values())
_OWNER = re.compile(
    r"^\s*(?:(?i:the|my|our)\s+)?(?:([A-Z][\w-]*)'s\b|((?i:kids|children|son|daughter|wife|"
    r"husband|partner|mum|mom|dad|boss|sister|brother))\b)"
)
_LEAD = re.compile(r"^\s*(?i:the|my|our|their|his|her|a|an)\s+([a-z][\w-]*)(?!')\b")
#: Someone or something named: a capitalised word past the first, or an opening one told of
#: in the third person ("Ana has 3 cats", "Tom's kids eat 2 eggs").
_NAMED = re.compile(r"\s[A-Z][a-z]|^\s*[A-Z][a-z][\w-]*(?:'s\s+\w+)?\s+\w+s\b")
#: An opening name told of in the third person: "Ana eats", "Ana has".
_DOER = re.compile(r"^\s*([A-Z][a-z][\w-]*)\s+(?!is\b|was\b)\w+s\b")
_WORD_LOWER = re.compile(r"\b[a-z][\w-]*")
_MINE = re.compile(r"(?i)\b(?:i|i'm|i've|my|mine|we|we're|our|us)\b")


def _one_teller(one: str, other: str) -> bool:
    """Whether both facts are the user's (or the team's) own, or open with the same word."""
    mine = [bool(_MINE.search(text)) or not _NAMED.search(text) for text in (one, other)]
    if all(mine):
        return True
    return one.split()[:1] == other.split()[:1] and one[:1].isupper()


def _other_owner(one: str, other: str) -> bool:
    """ "Priya's rent ..." against "My rent ...", "Ana eats 3 eggs" against "I eat 2 eggs":
    a named owner (or doer) and the user's own."""
    doer = _DOER.match(one)
    if doer and doer.group(1).lower() not in _WORD_LOWER.findall(other):
        theirs = OPENING_POSSESSOR.match(other)  # "Isla gets £3" / "finn's pocket money went up"
        if theirs and theirs.group(1).lower() not in one.lower():
            return True
        return bool(_MINE.search(other)) and not _DOER.match(other)
    owner = _OWNER.match(one)
    if not owner or (owner.group(1) or "").lower() in _WORD_LOWER.findall(other):
        return False  # "Rent's gone up" / "Our rent is ...": a word, not an owner
    said = _OWNER.match(other)
    if said is not None:
        return said.group(0).lower() != owner.group(0).lower()
    return bool(_MINE.search(other))


_MEASURE_STEMS = frozenset(stem(word) for word in _MEASURE_VERBS)
#: Words whose kinds tell no two things: a measure's own noun ("public API limit" / "public
#: API rate limit" is one limit) or verb.
_NOT_KINDS_OF = _MEASURE_NOUNS | _MEASURE_STEMS | {""}
#: An opening owner and the thing of theirs: "leo's new car seat", not "leo's up to 20kg"
#: ("Leo is") nor "leo's been ..." ("Leo has").
_POSSESSED = re.compile(
    r"^\s*([A-Za-z][\w-]*)'s\s+(?!(?:up|down|now|at|on|in|got|been|gone|going|back|still|"
    r"finally|a|an|the|not|over|under|just|off|out|moved|started|switched|doing|currently|"
    r"having|taking|getting|had|done|bumped|dropped|raised|cut|weighing|about|around|almost|"
    r"nearly|only|over|into|onto|staying|living|working|eating|doing|also|too)\b)[a-z]"
)


def _owner_only(one: str, other: str) -> frozenset[str]:
    """The opening owner of ``one`` when ``other`` tells of them, not of a thing of theirs:
    "leo's new car seat is rated up to 36kg" measures the seat, "Leo weighed 18kg" Leo."""
    found = _POSSESSED.match(one)
    if found is None or _POSSESSED.match(other):
        return frozenset()
    return frozenset({stem(found.group(1))})


def _two_named(new: _Reading, old: _Reading, new_text: str, old_text: str) -> bool:
    """Whether each fact opens with its own name, which the other does not write: two things
    measured alike, not one thing's new value."""
    if not (new.first and old.first) or new.first == old.first:
        return False
    mine, theirs = new.opening.lower(), old.opening.lower()
    return mine not in old_text.lower() and theirs not in new_text.lower()


def _named(word: str, named: frozenset[str]) -> bool:
    """ "escalat" in "Escalation timeout": a word the new fact names, in any form."""
    return word in named or any(len(other) >= 5 and other.startswith(word) for other in named)


#: People a fact is of, not things it measures: a bare count of "mum's" counts something of hers.
_RELATIVE = re.compile(rf"(?i){RELATIVES}")


def _relatives_only(shared: set[str], text: str) -> bool:
    """Whether the words ``text`` shares (by stem) are all relatives ("at mum's")."""
    words = [w.lower().removesuffix("'s") for w in _WORD.findall(text) if stem(w) in shared]
    return bool(words) and all(_RELATIVE.fullmatch(word) for word in words)


#: How many words apart a bare count and the word it counts for may sit.
_NEAR = 5
_TOKEN = re.compile(r"[A-Za-z][\w'-]*|\d[\d,.]*(?:[kKmM]\b)?")


def _near_number(text: str, shared: set[str]) -> bool:
    """Whether a number of ``text`` sits within :data:`_NEAR` words of a shared word: a bare
    count belongs to the thing named beside it ("the platform team is 6 engineers"), not to
    a word further off ("mum's house has a new boiler, ..., 10 year warranty")."""
    words = _TOKEN.findall(_IN_WORDS.sub(_in_digits, text[:400]))
    spots = [i for i, w in enumerate(words) if w[0].isdigit()]
    near = [i for i, w in enumerate(words) if not w[0].isdigit() and stem(w) in shared]
    return any(abs(i - j) <= _NEAR for i in spots for j in near)


def _one_kind_told_anew(kinds: list[str], new: _Reading, old: _Reading) -> bool:
    """Whether the two notes differ in one kind of value, which both give, with a unit or a
    kind of its own, or in the day and the time of one schedule: a bare count may count
    anything ("prod cluster is on k8s 1.30" / "prod cluster has 14 nodes")."""
    if set(kinds) == {"when", "clock"}:  # "retro fri 3pm" / "retro: every other wed 11:30"
        return all(kind in old.values for kind in kinds)
    return len(kinds) == 1 and kinds[0] != "count" and kinds[0] in old.values


#: The opening word of a note, what it keys its value by: "standup" of "standup 9:45 in the
#: huddle" and of "standup 10:15 - huddle link pinned".
_KEY = re.compile(r"^\s*(?:(?:the|our|my)\s+)?([a-z][a-z-]+)")


def _same_key(new_text: str, old_text: str) -> bool:
    """Whether two notes open with the same word naming a thing (lower case: no name; no
    word of time or function): a new value of one kind for it needs no word of change
    ("council tax £148/month" / "council tax £156 a month for 23/24")."""
    keys = [_KEY.match(text) for text in (new_text, old_text)]
    words = [key.group(1) for key in keys if key is not None]
    return (
        len(words) == 2
        and not any(word in STOP_WORDS for word in words)
        and stem(words[0]) == stem(words[1])
    )


#: What may follow a note's key when the new fact tells that thing's new value, not a kind
#: of it: "netflix went up to £12.99", "netflix is £12.99 a month now".
_PLAIN_AFTER = word_set("is are 's went gone goes going now just has up down put rose jumped")
_AFTER_KEY = re.compile(r"^\s*(?:(?:the|our|my)\s+)?[a-z][a-z-]+(?:'s)?\s+([a-z']+)")


def _plain_key(new_text: str, old_text: str) -> str:
    """The stem of the key two notes open with when the new fact names no kind of it ("netflix
    standard £10.99" / "netflix went up to £12.99": the old note's "standard" is a detail of
    the one Netflix), else "" (not a person's: "isla's learning french" / "isla's started")."""
    if not _same_key(new_text, old_text) or OPENING_POSSESSOR.match(old_text):
        return ""
    after = _AFTER_KEY.match(new_text)
    if after is None or after.group(1) not in _PLAIN_AFTER:
        return ""
    key = _KEY.match(new_text)
    return stem(key.group(1)) if key else ""


def _two_kinds(word: str, new: _Reading, old: _Reading, depth: int = 3) -> bool:
    """ "Sprint planning" / "Release planning": each names its own kind of the shared word;
    so do two kinds of a shared modifier ("the Berlin office rent" / "the London office
    rent", "Slack seat count" / "Notion seat count")."""
    one = {before for before, head in new.pairs if head == word}
    other = {before for before, head in old.pairs if head == word}
    if not (one and other):
        return False
    if not one & other:
        return True
    return depth > 0 and all(_two_kinds(shared, new, old, depth - 1) for shared in one & other)


#: A count and the lower-case noun it counts, right after it: "5 FTEs", "3 open reqs".
_COUNTED = re.compile(r"(?i)(?<![\w.,])\d+(?:[.,]\d+)*\s+([a-z][a-z-]{3,})\b")
#: Nouns that count the same people: "4 engineers" / "6 devs" count one team.
_PEOPLE = frozenset(
    stem(word)
    for word in word_set(
        "engineers engineer devs dev developers developer people persons staff ftes fte "
        "members folks heads hires employees"
    )
)


def _counted(text: str) -> frozenset[str]:
    nouns = set()
    for match in _COUNTED.finditer(text[:400]):
        word = match.group(1)
        if word[:1].isupper() and word[1:2].islower():
            continue  # "4 Ferndale Rd": a name, not a noun counted
        root = stem(word)
        if word.lower() in STOP_WORDS and root not in _PEOPLE:
            continue  # "14 Sept", "3 days": time, not a thing counted
        nouns.add("people" if root in _PEOPLE else root)
    return frozenset(nouns)


def _two_counted(new_text: str, old_text: str) -> bool:
    """Whether each fact counts a noun the other does not: "data team: 5 FTEs" / "data team
    now has 2 contractors" (but "4 engineers" / "6 devs" count the same people)."""
    new, old = _counted(new_text), _counted(old_text)
    return bool(new and old and not new & old)


#: A dose and the word right beside it, the medicine's: "5mg amlodipine", "atorvastatin 20mg".
_DOSE = re.compile(
    r"(?i)(?:\b([a-z][a-z-]{2,})\s+)?\d+(?:\.\d+)?\s?(?:mg|mcg|ml|iu)\b"
    r"(?:\s+(?:of\s+)?([a-z][a-z-]{2,}))?"
)


def _dosed(text: str) -> frozenset[str]:
    return frozenset(
        stem(word)
        for match in _DOSE.finditer(text[:400])
        for word in match.groups()
        if word and word.lower() not in STOP_WORDS and word.lower() not in _DOSE_WORDS
    )


_DOSE_WORDS = word_set("takes take taking dose doses tablet tablets pill pills daily once twice")


def two_doses(new_text: str, old_text: str) -> bool:
    """Whether the two facts dose two medicines: "Mum takes 5mg amlodipine" / "mum's new
    statin is atorvastatin 20mg" (but "GP upped dad's amlodipine to 10mg" doses the same)."""
    new, old = _dosed(new_text), _dosed(old_text)
    return bool(new and old and not new & old)


def measure_changed(new_text: str, old_text: str) -> tuple[str, str] | None:
    """Why ``new_text`` closes ``old_text`` as another measure of the same thing (see the
    module doc), as (key, reason), or None."""
    new, old = _read(new_text), _read(old_text)
    if new is None or old is None:
        return None
    common = set(new.low & old.low) | ({new.first} & old.low) | ({old.first} & new.low)
    common |= ({new.lead} & old.low) | ({old.lead} & new.low)  # "Rent's gone up" / "our rent"
    if _one_teller(new_text, old_text):  # "I drink four coffees" / "Cut back to one coffee"
        common |= new.counted & old.counted  # but not "I have 2 cats" / "Ana has 3 cats"
    if new.measured and new.measured == old.measured:
        common.add(new.measured)  # "Platform is down to 4" / "Platform is up to 7 now"
    if new.first == old.first and new.opening != old.opening:
        common.add(new.first)  # "Demo day ..." / "Demos happen ...": inflected, not a name
    if _other_owner(new_text, old_text) or _other_owner(old_text, new_text):
        return None  # "Priya's rent is £900" / "My rent is £1,200 now"
    if _two_named(new, old, new_text, old_text):
        return None  # "Linear is $8 per seat" / "Notion went up to $10 per seat"
    common -= _owner_only(new_text, old_text) | _owner_only(old_text, new_text)
    if _two_counted(new_text, old_text) or two_doses(new_text, old_text):
        return None  # "data team: 5 FTEs" / "data team now has 2 contractors": two counts
    named, old_named = new.low | {new.first}, old.low | {old.first}
    plain = _plain_key(new_text, old_text)
    shared = {
        word
        for word in common - {""}
        if (word == plain or all(_named(h, named) for w, h in old.heads if w == word))
        and all(_named(h, old_named) for w, h in new.heads if w == word)
    }
    shared = {word for word in shared if not _two_kinds(word, new, old)}
    if not shared or any(_two_kinds(word, new, old) for word in common - _NOT_KINDS_OF):
        return None  # "api deployment runs 6 replicas" / "worker deployment scaled to 12"
    if shared <= _PRICES and all((r.low | {r.first}) - shared - {""} for r in (new, old)):
        return None  # "The gym membership is £40" / "The club's fee is £310": two prices
    if shared <= new.verbs | old.verbs and (new.low - new.verbs) != (old.low - old.verbs):
        return None  # "The gym opens at 6" / "The pool opens at 7 now": two things open
    kinds = [kind for kind, values in new.values.items() if old.values.get(kind, values) != values]
    leads = [_LEAD.match(text) for text in (new_text, old_text)]
    if all(leads) and not {stem(lead.group(1)) for lead in leads if lead} & shared:
        return None  # "The bus to work takes 40 minutes" / "The train to work takes 25 now"
    if len(kinds) > 1 and any(kind.startswith("count") for kind in kinds):
        return None  # "My 5k PB is 24:10" / "My 10k PB is 52:00 now": which is the measure?
    if not kinds or _NOT_HELD.search(new_text[:400]):
        return None
    if not _CHANGE.search(new_text[:400]) and not (
        _same_key(new_text, old_text) and _one_kind_told_anew(kinds, new, old)
    ):
        return None
    kind = kinds[0]
    if kind == "count" and _relatives_only(shared, old_text):
        return None  # "keysafe at mum's is 9083" / "alarm code at mum's changed to 2716"
    if (
        kind == "count"
        and not new.counted & old.counted
        and not (_near_number(new_text, shared) and _near_number(old_text, shared))
    ):
        return None  # "laptop is a MacBook Pro M2 14"" / "a new laptop ..., Dell XPS 13"
    thing = " ".join(sorted(shared))
    before, after = (", ".join(sorted(v)) for v in (old.values[kind], new.values[kind]))
    return f"fact: {thing} ({kind.split()[0]})", f"{thing}: {before} -> {after}"
