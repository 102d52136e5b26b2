"""Open attributes: what a fact sets when no attribute of the table reads it.

The table (:mod:`memex_rules.supersession_table`) knows a few dozen attributes by name. Real
facts have hundreds of kinds (a payment provider, the rent, a bedtime, the on-call person, a
sprint's length), so a fact the table cannot read is read here by its *shape*, without a list
of attributes:

- a possessed or definite noun and a copula: "My mobile is ...", "Priya's dentist is Dr Ng",
  "The rent is £1,350", "Our payment provider is Stripe", "Standup is at 9:45"; or a label:
  "Rent: £1,350", "Standup -> 9:45";
- a verb frame: "Dan reports to Priya", "The API runs on Fly.io", "We bank with Monzo";
- a change that names the new value and often the old: "We switched the CI from Jenkins to
  Buildkite", "replaced Jenkins with Buildkite", "swapped Jira for Linear", "upgraded the
  cluster to 1.29", "The rent went up to £1,400", "changed her number to ...", "Dan took over
  on-call from Priya".

Each reading is a :class:`~memex_rules.supersession_values.Slot` whose ``kind`` names the
type of its value (money, time, date, version, quantity, name, place, word). Two open slots
meet when they have the same subject, the same attribute and the same kind of value, so
"My car is red" never closes "My car is a Tesla". A slot is single-valued only when its frame
is (a copula on a possessed noun that is not a relative, a friend or a pet; "reports to";
"runs on"); other frames close only on a change word or when the new fact names the old value.
"""

from __future__ import annotations

import re
from functools import lru_cache

from memex_rules.rules_text import compile_pattern, squash, word_set
from memex_rules.supersession_values import NEG, Slot, is_date, normalise_subject, tidy_value

# --- the kind of a value ---------------------------------------------------------------------

_MONEY = compile_pattern(
    r"^(?:about\s+|around\s+|roughly\s+)?(?:[$£€¥₹]\s?\d[\d,.]*\s*(?:k|m|bn)?|\d[\d,.]*\s*(?:k\b)?\s*"
    r"(?:dollars|euros|pounds|usd|eur|gbp|bucks|quid|yen|rupees|chf|sek|nok|dkk|aud|cad)\b)"
)
_TIME = compile_pattern(
    r"^(?:at\s+)?(?:\d{1,2}(?::\d\d)?\s*(?:am|pm|a\.m\.|p\.m\.)|\d{1,2}[:.h]\d\d|noon|midnight)\b"
)
_VERSION = compile_pattern(r"^(?:version\s+|v)?\d+(?:\.\d+)+\w*$|^v\d+\w*$|^version\s+\d+\w*$")
_NAMED_VERSION = compile_pattern(r"^(?P<t>[a-z][\w.+#-]*)\s+v?(?P<n>\d+(?:\.\d+)*\w*)$")
_QUANTITY = compile_pattern(
    r"^(?P<n>\d[\d,.]*|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"fifteen|twenty|thirty|forty|fifty|sixty|a\s+hundred|half\s+an?)\s*-?\s*(?P<u>[a-z%]+)"
)
_UNITS = word_set(
    "mg g ml mcg l kb mbps gbps kw kwh minute minutes min mins hour hours hr hrs day days week "
    "weeks month months year years "
    "people person members engineers seats users gb tb mb kg kgs lb lbs km miles mile % percent "
    "times sessions episodes pages cups servings steps k hours-long"
)
_EMAIL = compile_pattern(r"^\S+@\S+\.\w+$")
_PHONE = compile_pattern(r"^\+?[\d][\d\s().-]{5,}\d$")
_URL = compile_pattern(r"^(?:https?://)?[\w-]+(?:\.[\w-]+)*\.(?:com|io|org|net|dev|app|co|ai)\b")
#: Words that open a value which is a state, not a thing ("is moving", "is hosted on").
_STATE_START = compile_pattern(
    r"^(?:\w+ing|\w+ed|been|being|not|very|too|so|really|quite|pretty)\b"
)
_LOWER_WORD = re.compile(r"^[a-z][a-z' -]*$")


def value_kind(raw: str) -> str:
    """The type of a value as written ("£1,350" money, "9:45" time, "Stripe" name...)."""
    raw = raw.strip(" .,!")
    bare = re.sub(r"(?i)^(?:an?|the|some)\s+", "", raw)
    low = bare.lower()
    if not bare:
        return ""
    if _EMAIL.match(bare):
        return "email"
    if _URL.match(low) and " " not in low:
        return "url"
    if _MONEY.match(low):
        return "money"
    if _VERSION.match(low):
        return "version"
    if _TIME.match(low):
        return "time"
    if _PHONE.match(bare) and sum(c.isdigit() for c in bare) >= 7:
        return "phone"
    quantity = _QUANTITY.match(low)
    if quantity and (quantity.group("u") in _UNITS or quantity.group("u").endswith("s")):
        unit = quantity.group("u").rstrip("s") or quantity.group("u")
        return f"quantity {_UNIT_SAME.get(unit, unit)}"
    if is_date(low):
        return "date"
    if re.fullmatch(r"\d[\d,.]*", low):
        return "number"
    first = re.sub(r"(?i)^(?:dr|mr|mrs|ms|prof)\.?\s+", "", bare).split()[0]
    if first[:1].isupper() or any(c.isdigit() for c in first) or re.search(r"[a-z][A-Z]", first):
        return "name"
    if _LOWER_WORD.match(low) and len(low.split()) <= 3 and not _STATE_START.match(low):
        return "word"
    return ""


_UNIT_SAME = {"min": "minute", "mins": "minute", "hr": "hour", "hrs": "hour", "kgs": "kg"}
_UNIT_SAME |= {"lbs": "lb", "percent": "%", "mile": "mile", "person": "people", "member": "people"}

# --- attributes --------------------------------------------------------------------------------

#: Words that say nothing about which attribute a noun names ("my new phone" is "my phone").
NEUTRAL = _NEUTRAL = word_set(
    "new current main primary usual regular present latest actual official default go-to "
    "preferred own daily weekly monthly"
)
#: Possessed nouns that hold many values at once: one sister does not replace another.
_MANY = word_set(
    "friend friends brother brothers sister sisters cousin cousins kid kids child children son "
    "sons daughter daughters pet pets dog dogs cat cats colleague colleagues coworker "
    "coworkers neighbour neighbours neighbor neighbors teammate teammates hobby hobbies "
    "interest interests language languages skill skills project projects client clients "
    "customer customers uncle uncles aunt aunts nephew nephews niece nieces grandchild "
    "grandchildren roommate roommates parent parents favourite favorite thing things idea "
    "ideas problem problems issue issues concern concerns question questions "
    "fear fears dream dreams hero heroes book books song songs movie movies "
    "film films show shows game games team teams guest guests member members student "
    "students patient patients user users feature features task tasks"
)
#: Nouns too vague to be an attribute ("the thing is ...", "the problem is ...").
_VAGUE = word_set(
    "thing problem issue point idea reason question answer truth fact result news "
    "catch trick key deal worst best rest way one ones same other others bottom fun hope "
    "difference situation story weather"
)
_ATTRIBUTE_WORD = r"[a-z][\w-]*"


def attribute_of(words: str) -> str | None:
    """A noun phrase as an attribute ("new payment providers" -> "payment provider"), or None
    when it is vague ("the thing") or not a noun phrase."""
    said = words.lower().split()
    kept = [w for w in said if w not in _NEUTRAL] or said[-1:]
    if not kept or len(kept) > 4 or kept[-1] in _VAGUE:
        return None
    last = kept[-1]
    if len(last) > 3 and last.endswith("s") and not last.endswith(("ss", "us", "is")):
        kept[-1] = last[:-1]  # "sprints" -> "sprint"
    phrase = " ".join(kept)
    return _SAME_ATTRIBUTE.get(phrase, phrase)


#: A few open attributes said in other words, put in one ("pay" is "salary").
_SAME_ATTRIBUTE = {
    "pay": "salary", "income": "salary", "wage": "salary", "wages": "salary",
    "mobile": "phone", "mobile number": "phone", "phone number": "phone", "number": "phone",
    "cell": "phone", "gp": "doctor", "line manager": "boss", "manager": "boss",
}  # fmt: skip


def many_valued(attribute: str) -> bool:
    return any(word in _MANY for word in attribute.split()[-1:])


# --- the readings ------------------------------------------------------------------------------

_ADV = rf"(?:(?:now|currently|still|officially|actually|finally|already|just|{NEG})\s+)*"
_OWNER = (
    r"(?P<own>user's|our|the|this|their|his|her|(?-i:[A-Z])[\w.-]*(?:\s+(?:and\s+)?(?-i:[A-Z])[\w-]*)?"
    r"'s|(?-i:[A-Z])[\w-]+s')"
)
_COPULA = compile_pattern(
    rf"^{_OWNER}\s+(?P<a>{_ATTRIBUTE_WORD}(?:\s+{_ATTRIBUTE_WORD}){{0,3}}?)\s+"
    rf"(?P<adv>{_ADV})(?:is|are|has\s+become|became|will\s+be|=)\s+(?P<adv2>{_ADV})(?P<v>.+)$"
)
#: "Standup is at 9:45": a bare noun needs a value of a clear type.
_BARE = compile_pattern(
    rf"^(?P<a>(?-i:[A-Z])[a-z][\w-]*(?:\s+(?!(?:and|or|but|with|to|of|in|at|on|for)\b)[a-z]"
    rf"[\w-]*(?<!ed)){{0,3}}?)\s+(?P<adv>{_ADV})(?:is|are)\s+"
    rf"(?P<adv2>{_ADV})(?P<v>.+)$"
)
_SUBJECT = r"(?P<s>[\w'.-]+(?:\s+[\w'.-]+){0,3}?)"
#: Verb frames that hold one value at a time, with the attribute each sets.
_SINGLE_FRAMES = {
    "reports to": "reports to",
    "runs on": "runs on",
    "is running on": "runs on",
    "is hosted on": "hosted on",
    "is hosted at": "hosted on",
    "is hosted with": "hosted on",
    "is hosted by": "hosted on",
    "is deployed on": "hosted on",
    "is deployed to": "hosted on",
    "lives on": "hosted on",
    "is written in": "written in",
    "is built with": "built with",
    "is built on": "built with",
    "is managed by": "managed by",
    "is led by": "managed by",
    "is run by": "managed by",
    "is owned by": "managed by",
    "banks with": "banks with",
    "is insured with": "insured with",
    "is insured by": "insured with",
    "goes to bed at": "bedtime",
    "wakes up at": "wake time",
    "gets up at": "wake time",
    "starts at": "start time",
    "begins at": "start time",
    "ends at": "end time",
    "finishes at": "end time",
    "costs": "price",
    "is priced at": "price",
    "charges": "price",
    "weighs": "weight",
    "weighed in at": "weight",
    "plays for": "team",
    "is signed to": "team",
    "is signed with": "team",
    "goes off at": "when",
    "leaves at": "when",
    "opens at": "when",
    "closes at": "when",
    "earns": "pay",
    "is paid": "pay",
    "pays": "pays",
    "sees": "sees",
    "is on call": "on call",
}
_FRAME = compile_pattern(
    rf"^{_SUBJECT}\s+(?P<adv>{_ADV})(?P<f>"
    + "|".join(re.escape(f).replace(r"\ ", r"\s+") for f in sorted(_SINGLE_FRAMES, key=len)[::-1])
    + rf")\s+(?P<adv2>{_ADV})(?P<v>.+)$"
)
#: "We are on the Business plan", "The cluster is on 1.29": "on" a version, plan or tier.
_ON = compile_pattern(
    rf"^{_SUBJECT}\s+(?P<adv>{_ADV})(?:is|are)\s+(?P<adv2>{_ADV})(?:on|using)\s+(?P<v>.+)$"
)
_ON_NOUN = compile_pattern(
    r"^(?:the\s+|a\s+|an\s+)?(?P<q>.+?)\s+(?P<n>plan|tier|version|release|package|"
    r"subscription|contract|license|licence|shift|rota|diet|schedule|track|team|level|band)$"
)
#: "Kwame has been in Toronto since February": somewhere for a while, so living there.
_BEEN_IN = compile_pattern(
    rf"^{_SUBJECT}\s+(?P<adv>{_ADV})(?:has|have)\s+been\s+(?:living\s+|based\s+|staying\s+)?"
    r"in\s+(?P<v>(?-i:[A-Z])[\w.-]*(?:\s+(?-i:[A-Z])[\w.-]*){0,2})\s+(?:since|for)\b"
)

# --- changes -----------------------------------------------------------------------------------

_THEIR = r"(?:user's|our|the|its|their|his|her|my|a|an)"
_CHANGES = tuple(
    compile_pattern(pattern)
    for pattern in (
        # "We switched the CI from Jenkins to Buildkite"
        rf"^{_SUBJECT}\s+(?P<adv>{_ADV})(?:switched|moved|migrated|changed|went|converted|"
        rf"transitioned|upgraded|downgraded|swapped|shifted|ported)\s+(?:over\s+)?"
        rf"(?:(?:{_THEIR})\s+(?P<a>[a-z][\w -]*?)\s+)?from\s+(?P<p>.+?)\s+(?:to|over\s+to|onto|"
        rf"for|with)\s+(?P<v>.+)$",
        # "We replaced Jenkins with Buildkite"
        rf"^{_SUBJECT}\s+(?P<adv>{_ADV})(?:replaced|swapped(?:\s+out)?|traded(?:\s+in)?|"
        rf"exchanged|dropped|ditched|ditching|dumped|abandoned)\s+(?P<p>.+?)\s+(?:with|for|in\s+"
        rf"favou?r\s+of)\s+(?P<v>.+)$",
        # "I switched dentists, it's Dr Patel now", "We changed payment providers to Adyen"
        rf"^{_SUBJECT}\s+(?P<adv>{_ADV})(?:switched|changed)\s+(?P<a>[a-z][\w-]*(?:\s+[a-z][\w-]*)?s)"
        r"(?:\s*,\s*(?:it\s+is|they\s+are|now)?|\s+to|\s+and\s+(?:it\s+is|now\s+use\w*))\s+(?P<v>.+)$",
        # "We renamed master to main"
        rf"^{_SUBJECT}\s+(?P<adv>{_ADV})(?:renamed|rebranded)\s+(?P<p>.+?)\s+(?:to|as)\s+(?P<v>.+)$",
        # "We now use Buildkite instead of Jenkins"
        rf"^{_SUBJECT}\s+(?P<adv>{_ADV})(?P<verb>[a-z]+s|is|are|has|have)\s+(?P<v>.+?)\s+"
        rf"(?:instead\s+of|rather\s+than|in\s+place\s+of)\s+(?P<p>.+)$",
    )
)
#: "Jenkins was replaced by Buildkite": the subject is the old value.
_REPLACED_BY = compile_pattern(
    r"^(?P<p>.+?)\s+(?:was|has\s+been|got|is\s+being|is|were|have\s+been)\s+(?:replaced|"
    r"superseded|succeeded|swapped\s+out)\s+(?:by|with|for)\s+(?P<v>.+)$"
)
#: "Dan took over on-call from Priya", "Buildkite replaced Jenkins": the subject is the new one.
_TOOK_OVER = compile_pattern(
    r"^(?P<v>.+?)\s+(?:now\s+)?(?:took\s+over|has\s+taken\s+over|is\s+taking\s+over|takes\s+over|"
    r"replaced|has\s+replaced|replaces|succeeded|has\s+succeeded)\s+(?:(?:as\s+)?(?P<a>[\w -]+?)"
    r"\s+)?(?:from\s+)?(?P<p>(?-i:[A-Z])[\w.-]*(?:\s+(?-i:[A-Z])[\w.-]*)?)"
    r"(?:\s+(?:at|in|on|after|last|this|when|as)\b.*)?$"
)
#: "Mrs Dunmore handed over to Colin as chair": the subject is the old value.
_HANDED_OVER = compile_pattern(
    r"^(?P<p>.+?)\s+(?:has\s+)?(?:handed|passed)\s+(?:over\s+)?(?:(?:the\s+|her\s+|his\s+|their\s+)?"
    r"(?P<a>[\w -]+?)\s+)?(?:over\s+)?to\s+(?P<v>(?-i:[A-Z])[\w.-]*(?:\s+(?-i:[A-Z])[\w.-]*)?)"
    r"(?:\s+as\s+(?P<b>[\w -]+))?$"
)
#: "We upgraded the cluster to 1.29", "She changed her number to ...", "Mum moved her
#: appointment to Friday": the subject's possessed noun set to a value.
_SET_TO = compile_pattern(
    rf"^{_SUBJECT}\s+(?P<adv>{_ADV})(?:upgraded|downgraded|bumped|updated|raised|lowered|upped|"
    r"increased|decreased|cut|reduced|changed|moved|pushed|set|extended|shortened|switched|"
    r"renewed|rescheduled|adjusted|put|lengthened|dropped|transferred|ported|swapped|shifted)\s+"
    rf"(?:(?P<own>{_THEIR})\s+)?(?P<a>[\w-]+(?:\s+[\w-]+){{0,3}}?)\s+(?:up\s+|down\s+|back\s+|"
    r"over\s+)?(?:from\s+(?P<p>.+?)\s+)?(?:to|onto)\s+(?P<v>.+)$"
)
#: "Zed is my daily driver now", "Arc is the default now": a name set as the attribute.
_NAMED_AS = compile_pattern(
    rf"^(?P<v>(?-i:[A-Z])[\w.+-]*(?:\s+(?-i:[A-Z0-9])[\w.+-]*){{0,2}})\s+(?P<adv>{_ADV})(?:is|are)\s+"
    rf"(?P<adv2>{_ADV})(?P<own>user's|my|our|the)\s+(?P<a>[a-z][\w-]*(?:\s+[a-z][\w-]*){{0,2}})$"
)
#: "The rent went up to £1,400", "Standup moved to 9:45", "The price was raised to $12".
_WENT_TO = compile_pattern(
    r"^(?:(?P<own>user's|our|the|this|(?-i:[A-Z])[\w-]*'s)\s+)?(?!(?:user|we|i|they|he|she)\b)"
    r"(?P<a>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,3}?)\s+(?:(?:went|has\s+gone|is\s+going|goes|will\s+go)"
    r"(?=\s+(?:up|down)\b)|rose|has\s+risen|fell|"
    r"has\s+fallen|dropped|has\s+dropped|increased|decreased|jumped|climbed|changed|has\s+changed|"
    r"moved|has\s+moved|was\s+moved|got\s+moved|shifted|was\s+shifted|was\s+changed|was\s+raised|"
    r"was\s+lowered|was\s+cut|was\s+reduced|was\s+increased|was\s+bumped|was\s+pushed|"
    r"was\s+upgraded|got\s+upgraded|was\s+updated|is\s+changing|is\s+(?:now\s+)?(?:up|down)|"
    r"upgraded|downgraded|bumped|raised|lowered|reduced|increased|extended|shortened|renamed|"
    r"pushed|cut)\s+(?:up\s+|down\s+)?"
    r"(?:again\b)?\s*(?:(?:from\s+(?P<p>.+?)\s+)?to\s+(?P<v>.+?)|(?:,\s*|\s*(?:it|that)\s+is\s+|\s*now\s+)+"
    r"(?P<w>.+?))$"
)


#: The owner "their", "his", "her": someone named before, not the user nor the team.
PRONOUN = "*someone"


def _owner(own: str | None) -> str | None:
    """Whose attribute: "user's" the user, "our"/"the" we, "Priya's" priya."""
    own = (own or "").strip().lower()
    if own in ("", "our", "the", "this"):
        return "we"
    if own in ("user's", "my"):
        return "user"
    if own in ("their", "his", "her"):
        return PRONOUN
    if own.endswith("'s") or own.endswith("s'"):
        return normalise_subject(own[:-2] if own.endswith("'s") else own[:-1])
    return None


def _value(raw: str) -> tuple[str, str]:
    """A value tidied for comparison, and its kind."""
    raw = re.sub(r"(?i)^(?:dr|mr|mrs|ms|prof)\.\s+", lambda m: m.group(0)[:-2] + " ", raw.strip())
    raw = re.sub(
        r"\s+(?:for\s+good|from\s+now\s+on|going\s+forward|these\s+days|nowadays)\b.*$", "", raw
    )
    kind = value_kind(raw)
    if kind in ("time", "money", "version", "email", "phone", "url", "number"):
        value = squash(re.sub(r"(?i)^(?:about|around|roughly|at|an?|the)\s+", "", raw).lower())
        value = re.sub(r"(?<=\d),(?=\d{3}\b)", "", value).rstrip(".,")
        value = re.split(
            r"\s+(?:a|per|each|every|from|since|as|in|this|next|on)\s+|\s*[,;(]", value
        )[0]
        return value, kind
    return tidy_value(raw), kind


_PLACE_VALUE = compile_pattern(r"^(?:in|at)\s+(?P<v>(?-i:[A-Z]).+)$")
_PREP_VALUE = compile_pattern(r"^(?:at|on|for|in|from|every|by)\s+(?P<v>.+)$")


def _copula(subject: str, attribute: str, raw: str, positive: bool, change: bool) -> list[Slot]:
    place = _PLACE_VALUE.match(raw)
    if place:
        attribute, raw = f"{attribute} place", place.group("v")
    elif _PREP_VALUE.match(raw):
        inner = _PREP_VALUE.match(raw)
        assert inner is not None
        if value_kind(inner.group("v")) not in ("time", "date", "money"):
            return []
        raw = inner.group("v")
    value, kind = _value(raw)
    if not value or not kind:
        return []
    if kind in ("date", "time"):
        if subject == "we" and not place:  # "Standup is at 9:30": the table's date of a thing
            return [Slot(attribute, "date", value, positive=positive, change=change)]
        kind = "when"
    many = many_valued(attribute)
    if many and kind == "word":
        return []
    return [
        Slot(
            subject, attribute, value, single=not many, positive=positive, change=change,
            kind=kind if not place else "place",
        )
    ]  # fmt: skip


def read_open(prepared: str, plain: str, change: bool) -> tuple[Slot, ...]:
    """The open slots of one clause: ``prepared`` as :func:`~memex_rules.supersession_slots.
    prepare` gives it, ``plain`` the same without its time phrases; ``change`` when the
    clause has a change word."""
    found = _changes(prepared, change) or _states(plain, prepared, change)
    return tuple(found)


def _positive(*adverbs: str | None) -> bool:
    return not any(NEG in (adv or "").split() for adv in adverbs)


def _states(plain: str, prepared: str, change: bool) -> list[Slot]:
    been = _BEEN_IN.match(prepared)
    if been:
        subject = normalise_subject(been.group("s"))
        value = tidy_value(been.group("v"))
        if subject and value:
            return [Slot(subject, "lives in", value, change=True)]
    for read in (_count, _named_as, _copula_of, _frame, _on, _bare):
        found = read(plain, change)
        if found:
            return found
    return []


_COUNT = compile_pattern(
    rf"^{_SUBJECT}\s+(?P<adv>{_ADV})(?P<verb>has(?:\s+got)?|have(?:\s+got)?|is\s+(?:up|down)\s+to|"
    r"is\s+at|hit|has\s+hit|reached|has\s+reached|passed|crossed|got\s+to|is\s+on)\s+"
    r"(?P<n>\d[\d,.]*k?|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+"
    r"(?:[\w-]+\s+)?(?P<u>[a-z]{3,}s)$"
)


def _count(plain: str, change: bool) -> list[Slot]:
    """ "Isla has 4 Brownie badges" -> "Isla's up to 9 badges": a tally of one kind of thing."""
    match = _COUNT.match(plain)
    if not match:
        return []
    subject = normalise_subject(match.group("s"))
    if not subject:
        return []
    moved = not match.group("verb").lower().startswith(("has", "have"))
    number = match.group("n").lower().replace(",", "")
    attribute = f"number of {match.group('u').lower()[:-1]}"
    return [Slot(subject, attribute, number, change=change or moved, kind="number")]


def _named_as(plain: str, change: bool) -> list[Slot]:
    match = _NAMED_AS.match(plain)
    if not match:
        return []
    subject, attribute = _owner(match.group("own")), attribute_of(match.group("a"))
    if not subject or not attribute:
        return []
    positive = _positive(match.group("adv"), match.group("adv2"))
    return _copula(subject, attribute, match.group("v"), positive, change)


def _copula_of(plain: str, change: bool) -> list[Slot]:
    match = _COPULA.match(plain)
    if not match or _STATE_START.match(match.group("v")):
        return []
    subject, attribute = _owner(match.group("own")), attribute_of(match.group("a"))
    if not subject or not attribute:
        return []
    positive = _positive(match.group("adv"), match.group("adv2"))
    return _copula(subject, attribute, match.group("v"), positive, change)


def _bare(plain: str, change: bool) -> list[Slot]:
    match = _BARE.match(plain)
    if not match or _STATE_START.match(match.group("v")):
        return []
    attribute = attribute_of(match.group("a"))
    kind = value_kind(re.sub(r"(?i)^(?:at|on|every)\s+", "", match.group("v")))
    typed = kind in ("time", "date", "money", "version") or kind.startswith("quan")
    if not attribute or not (typed or (kind == "name" and " " in attribute)):
        return []
    positive = _positive(match.group("adv"), match.group("adv2"))
    return _copula("we", attribute, match.group("v"), positive, change)


def _frame(plain: str, change: bool) -> list[Slot]:
    match = _FRAME.match(plain)
    if not match:
        return []
    subject = normalise_subject(match.group("s"))
    frame = _SINGLE_FRAMES[squash(match.group("f").lower())]
    value, kind = _value(match.group("v"))
    if not subject or not value or not kind or (kind == "word" and not change):
        return []
    positive = _positive(match.group("adv"), match.group("adv2"))
    if frame == "when" and kind in ("date", "time"):  # "The alarm goes off at 6:30"
        return [Slot(subject, "date", value, positive=positive, change=change)]
    if kind in ("date", "time"):
        kind = "when"
    return [Slot(subject, frame, value, positive=positive, change=change, kind=kind)]


def _on(plain: str, change: bool) -> list[Slot]:
    match = _ON.match(plain)
    if not match:
        return []
    subject = normalise_subject(match.group("s"))
    raw = match.group("v")
    if not subject:
        return []
    positive = _positive(match.group("adv"), match.group("adv2"))
    noun = _ON_NOUN.match(raw)
    if noun:
        value, kind = _value(noun.group("q"))
        if value and kind in ("name", "word", "version", "money"):
            attribute = noun.group("n").lower()
            return [Slot(subject, attribute, value, positive=positive, change=change, kind="on")]
        return []
    named = _NAMED_VERSION.match(raw.strip())
    if named:
        return []  # "We are on Postgres 16": the table's versions read it
    value, kind = _value(raw)
    if kind != "version":
        return []
    return [Slot(subject, "on version", value, positive=positive, change=change, kind=kind)]


@lru_cache(maxsize=4096)
def shaped_changes(prepared: str) -> tuple[Slot, ...]:
    """The change ``prepared`` tells by its shape alone, whatever the table read in it
    ("Transferred the ISA to Vanguard": the user's ISA set to Vanguard)."""
    return tuple(_changes(prepared, True))


def _changes(prepared: str, change: bool) -> list[Slot]:
    for pattern in _CHANGES:
        match = pattern.match(prepared)
        if match:
            subject = normalise_subject(match.group("s"))
            if subject and match.groupdict().get("verb") and not change:
                continue  # "instead of" with a plain verb: a habit, read below
            named = match.groupdict().get("a")
            return _changed(subject, match, attribute_of(named) if named else None)
    match = _SET_TO.match(prepared)
    if match:
        subject = normalise_subject(match.group("s"))
        own = (match.group("own") or "").lower()
        if own in ("user's", "my"):
            subject = "user"
        attribute = attribute_of(match.group("a"))
        return _changed(subject, match, attribute)
    match = _WENT_TO.match(prepared)
    if match and match.group("a")[:1].isupper() and not match.group("own"):
        # "Isla's up to 9 badges": a name and its tally, not an attribute called "Isla"
        who, tally = normalise_subject(match.group("a")), _QUANTITY.match(match.group("v") or "")
        if who and tally and tally.group("u").endswith("s") and tally.group("u") not in _UNITS:
            number, unit = tally.group("n").replace(",", ""), tally.group("u")[:-1]
            return [Slot(who, f"number of {unit}", number, change=True, kind="number")]
    if match:
        attribute = attribute_of(match.group("a"))
        return _changed(_owner(match.group("own")), match, attribute)
    match = _REPLACED_BY.match(prepared)
    if match:
        return _changed("*", match, None)
    match = _HANDED_OVER.match(prepared)
    if match:
        named = match.group("a") or match.group("b")
        return _changed("*", match, attribute_of(named) if named else None)
    match = _TOOK_OVER.match(prepared)
    if match:
        attribute = attribute_of(match.group("a") or "") if match.group("a") else None
        return _changed("*", match, attribute)
    return []


def _changed(subject: str | None, match: re.Match[str], attribute: str | None) -> list[Slot]:
    """A change's slot: the new value, and the old one when the fact names it."""
    if not subject:
        return []
    groups = match.groupdict()
    value, kind = _value(groups.get("v") or groups.get("w") or "")
    if not groups.get("v") and kind in ("", "word", "name", "date", "when"):
        return []  # "The rent went up again, sadly": no value
    previous = _value(groups.get("p") or "")[0] if groups.get("p") else ""
    previous = re.sub(r"^(?:old|previous|former)\s+", "", previous)
    if not value or (not previous and not attribute):
        return []
    if kind in ("date", "time"):
        kind = "when"
    named = attribute_of(groups.get("a") or "") if groups.get("a") else None
    return [
        Slot(
            subject, attribute or named or "*changed", value, previous=previous,
            change=True, kind=kind or "word",
        )
    ]  # fmt: skip
