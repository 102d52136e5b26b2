"""Values and attributes read by a fact's shape (:mod:`memex_rules.supersession_open`): the
kind of a value (money, time, version, quantity, name, word...), a noun phrase as an
attribute, whose attribute it is, and the pattern pieces the shape readers share.
"""

from __future__ import annotations

import re

from memex_rules.rules_text import compile_pattern, squash, word_set
from memex_rules.supersession_values import NEG, is_date, normalise_subject, tidy_value

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
    r"^(?P<n>\d[\d,.]*|(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"fifteen|twenty|thirty|forty|fifty|sixty|a\s+hundred|half\s+an?)(?=[\s-]))\s*-?\s*(?P<u>[a-z%]+)"
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
    "title": "job", "job title": "job", "role": "job", "position": "job",
}  # fmt: skip


def many_valued(attribute: str) -> bool:
    return any(word in _MANY for word in attribute.split()[-1:])


# --- pattern pieces the readers share ----------------------------------------------------------

_ADV = rf"(?:(?:now|currently|still|officially|actually|finally|already|just|{NEG})\s+)*"
_SUBJECT = r"(?P<s>[\w'.-]+(?:\s+[\w'.-]+){0,3}?)"
_THEIR = r"(?:user's|our|the|its|their|his|her|my|a|an)"


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
