"""What a fact says, apart from how it is worded: its content words after a small equivalence table.

``read_form("Alice's sister's based in Berlin.")`` and ``read_form("The sister
of Alice lives in Berlin")`` give the same :class:`FactForm`: content words
``{alice, sister, live, berlin}``, not negated. The rules consolidator compares
forms: the same words mean a rewording, a word swapped for another (``black`` /
``herbal`` tea, ``thursday`` / ``saturday``, ``sister`` / ``brother``) means
another fact. The steps, all deterministic and English only:

1. **spelling**: Unicode NFKC, typographic quotes made plain, case folded;
   contractions spelled out (``doesn't`` -> ``does not``, ``can't`` -> ``can
   not``, ``'d like`` -> ``would like``, ``'m``, ``'re``, ``'ve``, ``'ll``);
   ``'s`` is dropped, whether it is a possessive or ``is`` ("Alice's fond of"),
   but the word after a possessive is remembered as what the fact is about
   (:attr:`FactForm.possessed`: "User's sister likes sushi" is about the sister);
2. **phrases** (:data:`PHRASES`): fillers go ("by the way", "as it turns
   out"...), "the user", "I", "my" become ``user``; a few idioms are put in
   one wording: "is fond of" / "is a fan of" / "is into" -> ``like``, "can not
   stand" -> ``not like``, "no longer" / "used to" -> ``not``, "would rather"
   and "likes X better than Y" -> ``prefer X than Y``, "would like to" / "hopes
   to" / "is a goal of" -> ``want``, "is based in" -> ``live in``, "works as" /
   "is employed as" -> (a job title, as "is a"), "works with" / "is used by"
   -> ``use``, "has an allergy to" / "gives X an allergic reaction" ->
   ``allergic``, "named" / "called" / "the name of" -> ``name``, "a trip to"
   -> ``visit``, "every day" -> ``daily``; British and American spellings agree;
3. **words**: function words go (articles, "is", "do", "to", "in", "every",
   pronouns, "really", "usually"...; see :data:`FUNCTION_WORDS`); words are
   reduced to a key (plural and third-person ``s``, ``ing``, a final ``e``:
   ``hikes`` / ``hiking`` / ``hike`` agree; past tenses do not: "lived" is
   not "lives"); then verbs and nouns with the same meaning share one key
   (:data:`SYNONYMS`: like / love / enjoy / adore; dislike / hate -> ``not
   like``; prefer / favour; live / reside; have / own; kid / child; film /
   movie...); number words become digits ("one" only where it counts: not in
   "one of", "the one");
4. **roles**: in a comparison the second side is tagged (``prefer espresso
   than:tea``: "over", "than", "rather than", "instead of", "to" after
   "prefer X", or a leading "Over X, ..."), and so is what follows "from",
   so "prefers tea over coffee" differs from "prefers coffee over tea" and
   "moved from Oslo to Lyon" from "moved from Lyon to Oslo";
5. **polarity**: "not", "no", "never" and the dislike verbs each flip it.

Word order does not matter otherwise ("Sushi is something Alice likes" is
"Alice likes sushi"). Numbers, names and every word outside the tables are
compared as they are: "vitamin C" is not "vitamin D".
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache

from memex_core.domain.memory.facts import stem_s
from memex_rules.pattern_triggers import TriggerIndex, substitute_each
from memex_rules.rules_text import word_set

#: The word standing for the user ("User", "the user", "I", "my").
USER = "user"
#: Stands for a dropped "'s": the word after it is what the fact is about ("User's sister").
POSSESSIVE = "zposs"
#: Prefix of the words on the second side of a comparison, and of a "from" place.
THAN, FROM = "than:", "from:"

_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u02bc": "'", "`": "'", "\u00b4": "'"})


def _rules(pairs: tuple[tuple[str, str], ...]) -> tuple[tuple[re.Pattern[str], str], ...]:
    return tuple((re.compile(pattern), replacement) for pattern, replacement in pairs)


#: Contractions spelled out before apostrophes go ("won't" first: it is not "wo not").
CONTRACTIONS = _rules(
    (
        (r"\bwon'?t\b", "will not"),
        (r"\bshan't\b", "shall not"),
        (r"\bcan'?t\b|\bcannot\b", "can not"),
        (
            r"\b(do|does|did|is|are|was|were|would|could|should|have|has|had|must|need)n'?t\b",
            "\\1 not",
        ),
        (r"'m\b", " am"),
        (r"'re\b", " are"),
        (r"'ve\b", " have"),
        (r"'ll\b", " will"),
        (r"'d\b", " would"),
        (r"'s\b|(?<=s)'(?=\s|$)", f" {POSSESSIVE}"),
        (r"'", ""),
    )
)

#: Phrases put in one wording, in order, on the case-folded text with contractions spelled out.
PHRASES = _rules(
    (
        # fillers that say nothing about the fact
        (
            r"\b(?:by the way|just so you know|as it turns out|it turns out(?: that)?|"
            r"in fact|to be honest|for the record|for what it is worth|fyi|btw|as you know|"
            r"of course|these days|nowadays|at the moment|right now)\b\s*,?",
            " ",
        ),
        (r"^\s*(?:actually|so|well|also|oh|ok|okay|yes|note|remember)\b\s*,", " "),
        # the subject
        (r"\bthe user\b|\b(?:i|me|mine|myself)\b", USER),
        (r"\bmy\b", f"{USER} {POSSESSIVE}"),
        # polarity
        (r"\bcan not stand\b", "not like"),
        (r"\bno longer\b", "not"),
        (r"\bany ?more\b", " "),
        (r"(?<!\bis )(?<!\bare )(?<!\bam )(?<!\bwas )(?<!\bget )(?<!\bgot )\bused to\b", "not"),
        # liking and preferring
        (r"\b(?:is |are |am )?(?:a )?(?:big |huge )?fans? of\b", "like"),
        (r"\b(?:is |are |am )?(?:very |really )?(?:fond of|keen on)\b", "like"),
        (r"\b(?:is |are |am )(?:really )?into\b", "like"),
        (r"\b(?:likes?|loves?|enjoys?) (\S.*?) (?:better|more) than\b", "prefer \\1 than"),
        (
            r"\bwould (?:much )?rather (?:(?:drink|eat|have|use|watch|read|play|take|do) )?",
            "prefer ",
        ),
        (r"\brather than\b|\binstead of\b", "than"),
        # wanting and planning
        (r"\bwould (?:really )?(?:like|love) to\b", "want to"),
        (r"\b(?:is |are )?(?:a |one of the |one of )?goals? (?:of|for)\b", "want"),
        (r"\bgoals? (?:is|are) to\b", "want to"),
        (r"\b(?:a |an )?trips? to\b", "visit"),
        # where and how one lives and works
        (r"\b(?:is |are |am )?based (?:in|at|out of)\b", "live in"),
        (r"\b(?:works?|working|worked|(?:is |are |am )?employed) as\b", " "),
        (r"\b(?:is |are |am )?employed (at|by|with|for|in)\b", "work \\1"),
        (r"\bworks? with\b|\b(?:is |are )used by\b", "use"),
        # health
        (r"\bgives? (\S.*?) an? allergic reactions?\b", "\\1 allergic"),
        (r"\b(?:has|have) an? allerg(?:y|ies)\b|\ballerg(?:y|ies)\b", "allergic"),
        # names
        (r"\b(?:is |are )?(?:named|called)\b|\bthe name of\b|\bname is\b", "name"),
        # "has" as an auxiliary ("has been", "has lived") and as "must"
        (r"\b(?:has|have|had) (?=been\b|got\b|gotten\b|\w{3,}ed\b)", " "),
        (r"\b(?:has|have) to\b", "must"),
        # habitual "has" is taking: "has vitamin D each morning", "has tea daily"
        (r"\b(?:has|have) (?=(?:[\w-]+ ){1,4}(?:every|each|daily)\b)", "take "),
        # "goes running" is "runs"
        (r"\bgo(?:es)? (?=\w+ing\b)", " "),
        # how often
        (r"\b(?:every|each) ?day\b", "daily"),
    )
)

#: Words that say nothing on their own. "was"/"were", "will", "would", "could", "from",
#: "over", "than", "not", "no", "never" are not among them: they change the fact.
FUNCTION_WORDS = word_set(
    "a an the and or but of to in on at for with by as about into onto upon is am are be been "
    "being do does did can it its this that these those there here they them their theirs he him "
    "his she her hers we us our ours you your yours very really so also just still actually "
    "basically definitely truly indeed currently now always usually generally normally "
    "typically often mostly quite pretty something thing things ones each every who whom "
    "whose which what some any while whereas although though yet nor"
)
#: Words after which a negation or a comparison's scope is unclear: "likes tea but not coffee".
JOINERS = word_set("and but or while whereas although though yet nor except")
NEGATORS = word_set("not no never")


_ING_KEPT = word_set(
    "going morning evening nothing something anything everything during thing spring string "
    "king ring sing wing bring ceiling sibling darling pudding"
)
_DOUBLED = re.compile(r"([bdgmnprt])\1$")


def key(word: str) -> str:
    """The comparison key of a word: ``hikes``, ``hiking`` and ``hike`` all give ``hik``."""
    if not word.isalpha():
        return word
    word = stem_s(word)
    if word.endswith("ing") and word not in _ING_KEPT:
        stem = word[:-3]
        if len(stem) >= 3 and re.search(r"[aeiouy]", stem):
            word = _DOUBLED.sub(r"\1", stem)
    if len(word) > 3 and word.endswith("ie"):
        return word[:-2] + "y"  # movie / movies, cookie / cookies
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    return word


def _synonyms(table: str) -> dict[str, str]:
    """``"like: love enjoy; prefer: favour"`` as {key: canonical word}."""
    out: dict[str, str] = {}
    for group in table.split(";"):
        canonical, words = group.split(":")
        for word in (canonical, *words.split()):
            out[key(word.strip())] = canonical.strip()
    return out


#: Synonyms by key (see :func:`key`): every inflection of a word means its group's first word.
SYNONYMS = _synonyms(
    "like: love enjoy adore relish; dislike: hate detest loathe despise; "
    "prefer: favour favor; live: reside dwell; use: utilise utilize; plan: intend; "
    "want: hope wish; own: has have having possess owns; name: named called; "
    "child: kid kids children; mother: mom mum; father: dad; grandmother: grandma granny; "
    "grandfather: grandpa; film: movie; tv: television; cycle: bike bicycle biking; "
    "stop: quit; start: begin began; favourite: favorite fave; colour: color; "
    "flavour: flavor; neighbour: neighbor; centre: center; theatre: theater; "
    "organise: organize; practice: practise; travel: travelling traveling; was: were"
)

NUMBERS = {
    word: str(value)
    for value, word in enumerate(
        str.split(
            "zero one two three four five six seven eight nine ten eleven twelve thirteen "
            "fourteen fifteen sixteen seventeen eighteen nineteen twenty"
        )
    )
}
#: Words around "one" that make it a pronoun, not a count: "one of", "the one", "no one".
_ONE_BEFORE = word_set("the this that no every any which each some favourite favorite")
_ONE_AFTER = word_set("of day another more")

#: Verbs after which "to" is a direction, not the second side of "prefer X to Y".
_MOTION = word_set(
    "go going goes come coming travel travelling traveling walk walking drive driving move "
    "moving get getting commute commuting fly flying cycle cycling run running listen "
    "listening talk talking speak speaking write writing reply replying stick sticking"
)
#: Prepositions kept as content words (they change the fact) that still start a new phrase.
_PREPOSITIONS = word_set(
    "since until till during after before near outside inside around behind beyond above below "
    "under across opposite beside between without except via per"
)
#: Words that end the place after "from".
_FROM_END = word_set("to in at on for with into until since and but than over ,")


@dataclass(frozen=True)
class FactForm:
    """What a fact says: content keys (tagged by role), polarity, and words that may be a name."""

    words: frozenset[str]
    negated: bool
    #: Keys of words written with a capital (or in an all-capitals text): names, maybe the user's.
    names: frozenset[str] = frozenset()
    #: True when the text joins clauses ("but", "and"...): a negation may cover only part of it.
    joined: bool = False
    #: Keys of words something is said *of*: "sister" in "User's sister lives in Porto" or
    #: "the sister of Alice ...". Such a word is a new subject, never a mere detail.
    possessed: frozenset[str] = frozenset()
    #: The content keys in order, cut where a function word, comma or role change stood
    #: between them: "User likes cat videos" is one run, "loves hiking in the Alps" two.
    runs: tuple[tuple[str, ...], ...] = ()
    #: A readable word for each key, for reasons ("adds: herbal").
    shown: dict[str, str] = field(default_factory=dict, compare=False, hash=False)

    def show(self, keys: set[str] | frozenset[str]) -> list[str]:
        return sorted(self.shown.get(k, k) for k in keys)


@lru_cache(maxsize=1)
def _contractions() -> TriggerIndex[tuple[re.Pattern[str], str]]:
    return TriggerIndex(CONTRACTIONS, [pattern for pattern, _replacement in CONTRACTIONS])


def spell_out(text: str) -> str:
    """Case folded, contractions spelled out, punctuation gone (commas kept as `` , ``)."""
    folded = unicodedata.normalize("NFKC", text).translate(_QUOTES).casefold()
    folded = substitute_each(_contractions(), folded)
    spaced = re.sub(r"[^\w\s,]|_", " ", folded).replace(",", " , ")
    return " ".join(spaced.split())


@lru_cache(maxsize=1)
def _phrases() -> TriggerIndex[tuple[re.Pattern[str], str]]:
    return TriggerIndex(PHRASES, [pattern for pattern, _replacement in PHRASES])


def _rephrase(text: str) -> str:
    """Each of :data:`PHRASES` applied in turn, the spaces made single after each (the
    phrases without a word of theirs in the text skipped: they would change nothing)."""
    return substitute_each(_phrases(), " ".join(text.split()), lambda t: " ".join(t.split()))


def _names(text: str) -> frozenset[str]:
    """Keys of capitalised words (all words when the text has no lower-case letter)."""
    original = unicodedata.normalize("NFKC", text).translate(_QUOTES)
    if not any(ch.islower() for ch in original):
        words = spell_out(original).split()
    else:
        words = spell_out(" ".join(re.findall(r"\b[A-Z][\w'-]*", original))).split()
    return frozenset(_word(w)[0] for w in words if w not in (USER, POSSESSIVE) and w.isalpha())


@lru_cache(maxsize=16384)  # a fact's words are read for every fact it is compared with
def _word(token: str) -> tuple[str, str, bool]:
    """(key, shown word, flips polarity) of a content token."""
    if token in NUMBERS:
        return NUMBERS[token], NUMBERS[token], False
    token_key = key(token)
    canonical = SYNONYMS.get(token_key)
    if canonical is None:
        return token_key, token, False
    if canonical == "dislike":
        return key("like"), "like", True
    return key(canonical), canonical, False


def keys_of(words: str) -> frozenset[str]:
    """The keys of space-separated words, synonyms applied: ``"kids hates"`` -> {child, like}."""
    return frozenset(_word(w)[0] for w in words.split())


@lru_cache(maxsize=8192)  # a dream reads each stored fact once per similar fact
def read_form(text: str) -> FactForm:
    """The :class:`FactForm` of a fact's text (see the module docstring for the steps)."""
    tokens = _rephrase(spell_out(text)).split()
    names = _names(text)
    possessed: set[str] = set()
    owned = False  # the next content word follows a possessive
    last = ""  # the last content key, for "the sister of the user"
    prefers = any(_word(t)[1] == "prefer" for t in tokens)
    words: set[str] = set()
    shown: dict[str, str] = {}
    negated = joined = False
    runs: list[list[str]] = [[]]
    tag = ""
    seen_prefer = False
    after_prefer: list[str] = []
    if tokens and tokens[0] == "over" and prefers and "," in tokens:
        tag, tokens = THAN, tokens[1:]  # "Over coffee, Alice prefers tea"
    for index, token in enumerate(tokens):
        if token == "one":
            before = tokens[index - 1] if index else ""
            after = tokens[index + 1] if index + 1 < len(tokens) else ""
            token = "the" if before in _ONE_BEFORE or after in _ONE_AFTER else "1"
        if token == POSSESSIVE:
            owned = True
            continue
        breaks = token in FUNCTION_WORDS or token in NEGATORS or token in _PREPOSITIONS
        if runs[-1] and (breaks or not token.isalnum()):
            runs.append([])  # "in", "since", "not", ",": the words either side are not one phrase
        if token == ",":
            tag = ""
            continue
        if token == "of" and last:
            following = [t for t in tokens[index + 1 : index + 3] if t != "the"][:1]
            if following and (following[0] == USER or _word(following[0])[0] in names):
                possessed.add(last)  # "the sister of Alice", "the team of the user"
        if tag == FROM and token in _FROM_END:
            tag = ""
        if token in JOINERS:
            joined = True
        if token == "than" or (token == "over" and seen_prefer and after_prefer):
            tag = THAN
            runs.append([])
            continue
        if (
            token == "to"
            and seen_prefer
            and not tag
            and after_prefer
            and after_prefer[-1] not in _MOTION
        ):
            tag = THAN  # "prefers tea to coffee", not "prefers to walk" or "going to"
            runs.append([])
            continue
        if token == "from":
            tag = FROM
            runs.append([])
            continue
        if token in NEGATORS:
            negated = not negated
            continue
        if token in FUNCTION_WORDS:
            continue
        token_key, word, flips = _word(token)
        negated ^= flips
        if seen_prefer:
            after_prefer.append(token)
        if word == "prefer":
            seen_prefer = True
        tagged = tag + token_key if token_key != USER else USER
        words.add(tagged)
        shown.setdefault(tagged, tag + word)
        if owned:
            possessed.add(tagged)
            owned = False
        last = tagged
        runs[-1].append(tagged)
    return FactForm(
        frozenset(words),
        negated,
        names,
        joined,
        frozenset(possessed),
        tuple(tuple(run) for run in runs if run),
        shown,
    )
