"""Slots and their values: what a rule of :mod:`memex_rules.supersession_table` read, tidied.

A :class:`Slot` is one attribute a fact sets ("alice: lives in" = "berlin"). The readers here
turn a rule's match into slots, checking the value is of the rule's kind (a date looks like a
date, a job ends in a job noun, a place is not a team or a tool) and putting each value in
one wording ("Berlin, Germany" -> "berlin", "two kids" -> "2", "wed" -> "married").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from memex_rules.rules_text import compile_pattern, squash, word_set
from memex_rules.supersession_time import MONTH, NUMBER_WORDS

#: The attribute of a fact that ends a value whatever held it ("Alice left Google").
ANY = "*"
#: The one token every negation becomes ("does not", "no longer", "is not").
NEG = "xneg"

JOB = (
    r"(?:engineer|developer|programmer|designer|teacher|doctor|nurse|manager|scientist|"
    r"researcher|lawyer|attorney|consultant|founder|co-founder|cofounder|analyst|architect|"
    r"accountant|freelancer|contractor|intern|professor|lecturer|chef|cook|pilot|director|lead|"
    r"specialist|administrator|officer|assistant|editor|journalist|reporter|therapist|"
    r"pharmacist|dentist|entrepreneur|coach|trainer|clerk|cashier|barista|waiter|waitress|"
    r"bartender|driver|mechanic|electrician|plumber|carpenter|salesperson|salesman|"
    r"saleswoman|recruiter|ceo|cto|cfo|coo|vp|president|executive|tester|firefighter|"
    r"police\s+officer|cop|soldier|farmer|baker|librarian|counselor|counsellor|"
    r"social\s+worker|paramedic|veterinarian|vet|surgeon|physician|psychologist|"
    r"psychiatrist|banker|broker|agent|realtor|tutor|instructor|principal|supervisor|"
    r"technician|operator|representative|rep|associate|partner|owner|programmer|sre|devops|"
    r"product\s+owner|scrum\s+master|strategist|marketer|economist|statistician|"
    r"mathematician|physicist|chemist|biologist|professor|postdoc|resident|intern|"
    r"receptionist|secretary|janitor|guard|caretaker|nanny|babysitter|housekeeper|"
    r"hairdresser|stylist|beautician|translator|interpreter|auditor|underwriter|actuary|"
    r"planner|coordinator|advisor|adviser|head|chief|dean|judge|diplomat|politician|"
    r"minister|pastor|priest|rabbi|imam|midwife|optometrist|radiologist|"
    r"physiotherapist|physical\s+therapist|ux\s+researcher|data\s+scientist)s?"
)
THINGS = (
    r"(?:kids?|child|children|sons?|daughters?|bab(?:y|ies)|grandchild(?:ren)?|"
    r"grandkids?|dogs?|pupp(?:y|ies)|cats?|kittens?|pets?|fish|goldfish|birds?|parrots?|"
    r"hamsters?|rabbits?|bunn(?:y|ies)|horses?|pon(?:y|ies)|snakes?|turtles?|tortoises?|"
    r"guinea\s+pigs?|geckos?|lizards?|iguanas?|ferrets?|chinchillas?|gerbils?|mice|mouse|rats?|"
    r"budgies?|canar(?:y|ies)|cockatiels?|chickens?|hens?|goats?|sheep|donkeys?|frogs?|"
    r"axolotls?|hedgehogs?|cars?|bikes?|bicycles?|"
    r"motorcycles?|motorbikes?|houses?|homes?|apartments?|flats?|condos?|siblings?|brothers?|"
    r"sisters?|roommates?|flatmates?|tattoos?|boats?|trucks?|vans?)"
)
_THING_NAMES = {
    "kid": "children",
    "child": "children",
    "children": "children",
    "kids": "children",
    "baby": "children",
    "babies": "children",
    "puppy": "dog",
    "puppies": "dog",
    "kitten": "cat",
    "kittens": "cat",
    "bunny": "rabbit",
    "bunnies": "rabbit",
    "bicycle": "bike",
    "motorbike": "motorcycle",
    "flat": "apartment",
    "condo": "apartment",
    "grandkid": "grandchildren",
    "grandchild": "grandchildren",
    "flatmate": "roommate",
}
_NUMBERS = {**NUMBER_WORDS, "no": 0}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70}
_TENS |= {"eighty": 80, "ninety": 90}


@dataclass(frozen=True)
class Slot:
    """One attribute a fact sets.

    ``value`` is tidied for comparison ("" when the fact ends a value it does not name:
    "Alice sold her car"). ``positive`` is False for "no longer lives in Paris"; ``ended``
    marks a fact that closes ``value`` whatever attribute held it ("Alice left Google").
    ``previous`` is the value a change names as the old one ("switched from Vim to Emacs").
    ``past`` marks a past-tense fact without a change ("Alice lived in Rome"). ``kind`` is
    empty for an attribute of the table; an open attribute (:mod:`memex_rules.
    supersession_open`) names the type of its value there ("money", "time", "name"...).
    """

    subject: str
    attribute: str
    value: str
    single: bool = True
    positive: bool = True
    change: bool = False
    ended: bool = False
    previous: str = ""
    past: bool = False
    kind: str = ""

    @property
    def key(self) -> str:
        return f"{self.subject}: {self.attribute}"


# --- subjects ------------------------------------------------------------------------------------

_FIRST_PERSON = {"i", "me", "myself", "user", "users", "the user"}
_WE = {"we", "us", "our team", "the team", "our company", "our group", "the company"}
_OWNED = {"project", "app", "codebase", "repo", "repository", "service", "backend", "frontend"}
_OWNED |= {"stack", "system", "server", "site", "website", "product", "team", "company", "api"}
_DETERMINERS = re.compile(r"^(?:the|our|this|that|a|an)\s+")
_NOT_SUBJECT = compile_pattern(
    r"^(?:if|when|whether|maybe|perhaps|because|it|there|this|that|what|who|how|why|so|but|"
    r"he|she|they|his|her|their|him|them|its|you|your|one|someone|everyone|nobody)\b"
)
_VERBISH = compile_pattern(
    rf"\b(?:is|are|was|were|has|have|had|will|would|{NEG})\b|^\S+\s+\w+ed\b|\band\s+\w+ed\b"
)


@lru_cache(maxsize=8192)  # every rule that reads a clause reads its subject again
def normalise_subject(subject: str) -> str | None:
    """ "The user" -> "user", "our launch" -> "launch", "Alice's sister" -> "alice's sister";
    None when the words do not look like a subject (a pronoun, a clause)."""
    # "the team's new app" is "our new app" is "the app"
    words = re.sub(r"^(?:[Tt]he\s+)?(?:team|company)'s\s+", "", subject.strip(" ,:;\"'"))
    words = squash(re.sub(r"^(?:(?:[Tt]he|[Oo]ur)\s+)?new\s+(?=[a-z])", "", words))
    words = words.lower()
    if not words or _NOT_SUBJECT.match(words) or _VERBISH.search(words):
        return None
    if len(words.split()) > 7:
        return None
    if words in _FIRST_PERSON:
        return "user"
    if words in _WE:
        return "we"
    words = re.sub(r"^(?:the\s+)?user's\s+", "user's ", words)
    words = _DETERMINERS.sub("", words)
    return words or None


def version_subject(subject: str) -> str:
    """Whose tool versions: the user, "we" and "our project/app/..." are one owner."""
    if not subject or subject in ("user", "we") or subject.split()[-1] in _OWNED:
        return "we"
    return subject


_GENERIC = word_set("service system app project feature api platform pipeline tool")


def same_subject(one: str, other: str) -> bool:
    """True for the same subject, or one with a generic last word ("login", "login service");
    "launch" and "launch party" are two subjects."""
    if one == other:
        return True
    a, b = one.split(), other.split()
    shorter, longer = (a, b) if len(a) <= len(b) else (b, a)
    if len(longer) != len(shorter) + 1:
        return False
    if longer[0] in _TITLES and longer[1:] == shorter:
        return True  # "Uncle Ray" is Ray
    return longer[:-1] == shorter and longer[-1] in _GENERIC


#: Words before a person's name that are not a second person ("Uncle Ray", "Dr Patel").
_TITLES = word_set("uncle aunt auntie aunty grandma grandad grandpa granny nan dr mr mrs ms miss")


#: The words that tell one of a person's works or steps from another ("first"/"second").
_ORDINAL_WORDS = word_set(
    "first second third fourth fifth sixth seventh eighth ninth tenth latest last next "
    "previous old new other another current"
)
#: A step of a process, named after the thing it is a step of ("adoption agency interviews").
_STEP_NOUNS = word_set(
    "interview application exam test audition review process paperwork screening check "
    "round stage visit call meeting"
)
_FILLER = word_set("the a an her his their my our its own full very")


def _thing_words(text: str) -> list[str]:
    words = [w for w in re.findall(r"[\w-]+", text.lower()) if w not in _FILLER]
    return [_singular(w) for w in words]


def _singular(word: str) -> str:
    if word.endswith("ies"):
        return word[:-3] + "y"
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def same_thing(new: str, old: str) -> bool:
    """True when a later status subject names the earlier one's piece of work or process: a
    later mention may drop words ("joanna's first full screenplay" -> "first screenplay") or
    name a step of it ("adoption agencies" -> "adoption agency interviews"), not add others
    ("marathon" -> "half marathon"), nor change its ordinal ("first" -> "second")."""
    if new == old:
        return True
    owner_a, _, rest_a = new.rpartition("'s ")
    owner_b, _, rest_b = old.rpartition("'s ")
    if owner_a != owner_b and ((owner_a and owner_b) or (owner_a or owner_b) not in ("user", "we")):
        return False  # "my thesis" is "the thesis"; "my sister's marathon" is not "my marathon"
    a, b = _thing_words(rest_a), _thing_words(rest_b)
    if not a or not b:
        return False
    marks_a, marks_b = set(a) & _ORDINAL_WORDS, set(b) & _ORDINAL_WORDS
    if marks_a and marks_b and marks_a != marks_b:
        return False
    if set(a) <= set(b):
        return a[-1] == b[-1] or b[-1] in _STEP_NOUNS
    return len(a) > 1 and a[-1] in _STEP_NOUNS and set(a[:-1]) == set(b)


# --- values --------------------------------------------------------------------------------------

_CUT = compile_pattern(
    r"\s*(?:[,;:()]|\s-\s|\.\s|\s(?:and|but|because|since|where|which|who|whom|while|after|"
    r"before|when|so|though|although|instead|thanks|due|whereas|until|till|if|then|"
    rf"{NEG}|to\s+be\s+closer|to\s+work|to\s+study|to\s+live|to\s+be\s+near|for\s+work|"
    r"for\s+a\s+job|for\s+(?:her|his|their|my)|with\s+(?:her|his|their|my|our|the|a|an)|"
    r"now|again|too|as\s+well|full-time|part-time|remotely)\b).*$"
)
_VALUE_NOISE = compile_pattern(
    r"\b(?:the|a|an|her|his|their|my|our|its|own|current|currently|now|back)\b"
)


def tidy_value(value: str, cut: re.Pattern[str] | None = None) -> str:
    """A value as compared: cut at its clause's end, articles and possessives gone."""
    value = re.sub(r"(?<=\d),(?=\d{3}\b)", "", value.strip())  # "$1,200" is one number
    value = _CUT.sub("", " " + value)
    if cut is not None:
        value = cut.sub("", value)
    value = _VALUE_NOISE.sub(" ", value.lower())
    value = re.sub(r"'s\b", "", value)
    return squash(re.sub(r"[^\w@.+#/:-]+", " ", value)).strip(" .-")


def same_value(one: str, other: str) -> bool:
    """True when two tidied values name the same thing ("new york", "new york city")."""
    if one == other:
        return True
    if not one or not other:
        return False
    a, b = one.split(), other.split()
    shorter, longer = (a, b) if len(a) <= len(b) else (b, a)
    return all(word in longer for word in shorter)


_DAYNAME = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_DATE_TOKEN = (
    rf"(?:{_DAYNAME}s?|{MONTH}|\d{{1,2}}(?:st|nd|rd|th)?|\d{{4}}-\d\d-\d\d|\d{{1,2}}/\d{{1,2}}"
    r"(?:/\d{2,4})?|(?:19|20)\d\d|tomorrow|tonight|today|noon|midnight|q[1-4]|h[12]|"
    r"\d{1,2}(?::\d\d)?\s*(?:am|pm|a\.m\.|p\.m\.)|\d{1,2}:\d\d|(?:next|this|last|coming|following)"
    r"\s+(?:week(?:end)?|month|year|quarter|spring|summer|autumn|fall|winter|"
    rf"{_DAYNAME})|(?:the\s+)?week(?:end)?|(?:early|mid|late|mid-|end\s+of|start\s+of|"
    r"beginning\s+of|middle\s+of)\s*(?:\w+)|spring|summer|autumn|fall|winter|"
    r"(?:in\s+)?(?:\d+|a|one|two|three|four|five|six|a\s+few|a\s+couple\s+of)\s+(?:days?|weeks?|"
    r"months?|years?)(?:\s+from\s+now)?|later|earlier|the\s+\d{1,2}(?:st|nd|rd|th))"
)
_DATE = compile_pattern(
    rf"^(?:(?:on|in|at|for|by|the|of|around|about|from|to)\s+)*{_DATE_TOKEN}"
    rf"(?:[\s,]+(?:(?:at|of|the|in|on|around|about|from|to|-)\s+)*{_DATE_TOKEN})*$"
)


def is_date(value: str) -> bool:
    """True for "June 1", "Friday at 3pm", "next week", "2027-01-05", "Q3 2026"; not for a
    bare small number ("Alice is 34")."""
    value = value.strip(" .")
    if re.fullmatch(r"\d{1,3}", value):
        return False
    return bool(_DATE.match(value))


def tidy_date(value: str) -> str:
    value = re.sub(r"(?i)(\d)(?:st|nd|rd|th)\b", r"\1", value)
    value = re.sub(r"(?i)\b(?:on|in|at|for|by|the|of)\s+", " ", value)
    return squash(re.sub(r"[,.]", " ", value.lower()))


NOT_PLACE = compile_pattern(
    r"^(?:(?:a|an|the|her|his|their|my)\s+)?(?:[\w-]+\s+){0,2}(?:team|department|group|division|"
    r"role|position|job|company|project|squad|org|branch)\b|^(?:work|school|college|office|bed|"
    r"home|normal|it|that|this|them|him|her|there|with|alone|together)\b"
)
#: Known tools by name, each with its kind (editor, database, cloud...).
TOOLS: dict[str, str] = {}
for _category, _names in (
    (
        "editor",
        "vim neovim nvim emacs vs code vscode visual studio code sublime sublime text "
        "intellij pycharm webstorm atom cursor zed helix nano",
    ),
    (
        "database",
        "postgres postgresql mysql sqlite mongodb mongo mariadb oracle dynamodb "
        "cassandra cockroachdb supabase firebase",
    ),
    ("os", "windows macos mac os x linux ubuntu fedora arch debian mint manjaro popos chromeos"),
    ("browser", "chrome firefox safari edge brave opera arc vivaldi"),
    ("phone", "iphone android pixel galaxy samsung oneplus"),
    ("cloud", "aws gcp azure google cloud digitalocean heroku vercel netlify fly.io"),
    ("shell", "bash zsh fish powershell"),
    ("ci", "github actions jenkins circleci gitlab ci travis buildkite"),
    ("package manager", "npm yarn pnpm bun poetry pipenv uv conda"),
    ("frontend framework", "react vue angular svelte solid ember"),
    ("chat", "slack teams microsoft teams discord mattermost"),
    ("tracker", "jira linear trello asana clickup github issues"),
    ("notes", "notion obsidian evernote onenote bear roam logseq"),
    ("email", "gmail outlook protonmail fastmail"),
    (
        "language",
        "python javascript typescript java go golang rust ruby php kotlin swift c# "
        "scala elixir haskell clojure",
    ),
    ("container", "docker podman"),
    ("drink", "coffee tea espresso latte cappuccino matcha soda beer wine whisky"),
    ("laptop", "macbook thinkpad xps surface pixelbook chromebook"),
    ("api style", "rest graphql grpc soap trpc"),
    ("code host", "github gitlab bitbucket gitea codeberg"),
    ("runtime", "node nodejs node.js deno"),
    ("orchestrator", "kubernetes k8s nomad swarm"),
    ("music", "spotify apple music tidal deezer youtube music"),
):
    for _name in _names.split():
        TOOLS[_name] = _category
for _phrase, _category in (
    ("vs code", "editor"),
    ("visual studio code", "editor"),
    ("sublime text", "editor"),
    ("google cloud", "cloud"),
    ("github actions", "ci"),
    ("gitlab ci", "ci"),
    ("microsoft teams", "chat"),
    ("apple music", "music"),
    ("youtube music", "music"),
    ("github issues", "tracker"),
):
    TOOLS[_phrase] = _category
_TOOL_ALIASES = {"postgresql": "postgres", "golang": "go", "nvim": "neovim", "vscode": "vs code"}


def tool_category(value: str) -> str | None:
    """The kind of tool ``value`` names (editor, database, os...), or None."""
    value = _TOOL_ALIASES.get(value, value)
    if value in TOOLS:
        return TOOLS[value]
    words = value.split()
    for size in (3, 2, 1):
        for start in range(len(words) - size + 1):
            found = TOOLS.get(" ".join(words[start : start + size]))
            if found:
                return found
    return None


def tool_name(value: str) -> str:
    return _TOOL_ALIASES.get(value, value)


def number(word: str) -> int | None:
    """ "34" -> 34, "two" -> 2, "thirty-five" -> 35; None for anything else."""
    word = word.lower().strip()
    if word.isdigit():
        return int(word)
    if word in _NUMBERS:
        return _NUMBERS[word]
    parts = re.split(r"[-\s]", word)
    if parts and parts[0] in _TENS:
        rest = _NUMBERS.get(parts[1], -1) if len(parts) == 2 else 0
        return _TENS[parts[0]] + rest if 0 <= rest < 10 else None
    return None


def thing_name(word: str) -> str:
    word = " ".join(word.lower().split())
    if word in _THING_NAMES:
        return _THING_NAMES[word]
    word = re.sub(r"ies$", "y", word) if word.endswith("ies") else word
    word = word[:-1] if word.endswith("s") and not word.endswith("ss") else word
    return _THING_NAMES.get(word, word)
