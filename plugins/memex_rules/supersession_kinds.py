"""Values of one kind: a new fact closes an earlier one that shares no attribute word when
their values are two members of one narrow kind (:mod:`memex_rules.value_kinds`).

"We track work in Jira" -> "Tickets live in Linear these days" (issue trackers); "I drive a
Golf" -> "My car's an MG4 now" (cars); "Logs go to an ELK stack" -> "Logs are in Grafana Loki
now" (logging). The earlier fact closes when

- both are about the same owner: the user, the team, or a thing of theirs told without one
  ("Tickets live in ...", "Upgraded to a Pixel 8"); a named person only meets themself;
- the new fact's value and the earlier one's are different members of one kind (not a make
  and its model), the new fact does not name its own value in the earlier one, and neither
  fact's clause names a second member of the kind (unless the new one says which it left:
  "Switched from Octopus to E.ON Next");
- the frames agree: neither is tried, planned, liked, compared, "also", "at weekends", a
  job ("works at Datadog"), negated or in the past; neither says what the value is *for* in
  words the other does not have ("for metrics" / "for logs", "my work phone" / "my personal
  phone", "My savings" / "My current account");
- the new fact is told as a change ("now", "these days", "moved to", "migrated", "upgraded")
  or both name the same role of the kind ("Our error tracking is Sentry" / "Error tracking is
  Rollbar"). Two plain statements without a shared role stay open: "I drive a Golf" / "I
  drive a Polo" may be two cars.

The reading is a word-set lookup per clause, cached per text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from memex_rules.rules_text import WHEN_STARTED, compile_pattern, word_set
from memex_rules.supersession_open_close import left_values
from memex_rules.value_kinds import FRAMED, MODELS, ROLES, Member, may_name, members, tokens

# --- clauses -------------------------------------------------------------------------------------

_SPLIT = re.compile(
    r"(?i)\s*(?:[.;!?](?:\s+|$)|,\s*|\s+[-\u2013\u2014\u2192]\s+|\s+(?:but|so|because|after|while|though|"
    r"although|whereas|until|since(?=\s+(?:the|i|we|my|our|it)\b))\s+|\s+and\s+(?=(?:i|i'm|"
    r"i've|we|we're|we've|my|our|now|then|it|they|he|she|everyone)\b))"
)


@dataclass(frozen=True)
class _Clause:
    text: str
    words: tuple[str, ...]  # lower case, as the lexicon tokenises
    found: tuple[Member, ...]


@lru_cache(maxsize=8192)
def _clauses(text: str) -> tuple[_Clause, ...]:
    out = []
    for part in _SPLIT.split(text[:400]):
        part = part.strip()
        if part:
            words = tuple(word.lower() for word in tokens(part))
            out.append(_Clause(part, words, members(part)))
    return tuple(out)


# --- words ---------------------------------------------------------------------------------------

#: Words that say nothing of which use a value has: function words and the verbs of use.
_STOP = word_set(
    "a an the i i'm i've i'd me my mine we we're we've our ours us ourselves myself it it's its "
    "is are was were be been being am 's 're 've has have had got get gets getting do does did "
    "to in on at into onto from for of by with as over off out up via through about around "
    "and or then there here that which who what where also just so very "
    "use uses using run runs running live lives living go goes going sit sits keep keeps "
    "store stored host track tracks tracked drive drives driving ride rides lives stay stays "
    "sync syncs synced back work works done do handled sent send sends point points "
    "everyone everybody everything all every both whole entire lot lots most some any "
    "main primary default usual daily driver go-to everyday full time full-time fulltime "
    "new current currently old older finally basically just really actually officially "
    "fully completely properly this these those days day now instead anymore still one thing "
    "things stuff team home used same own always finished completed dropped ditched "
    "cancelled canceled scrapped binned ended moving migrating switching down "
    "january february march april may june july august september october november december "
    "monday tuesday wednesday thursday friday saturday sunday week month year today yesterday "
    "tonight morning evening last ago recently spring summer autumn winter "
    "reported shipped powered handled served processed routed forwarded pushed published piped "
    "streamed logged backed sits lives goes shop person guy user users fan people tool tools "
    "app apps platform service services system systems stack setup solution vendor software "
    "product signed"
)
#: Words that tell one use of a kind from another wherever they stand ("my work phone").
_QUALIFIERS = word_set(
    "work personal business private company company's family kids kids' wife's husband's "
    "partner's second spare backup side test testing staging prod production dev development "
    "weekend weekends holiday holidays travel gaming office school uni university client "
    "clients frontend front-end backend back-end mobile-app"
)
#: What a policy or a plan covers ("car insurance", "pet insurance"): two facts that each
#: name another cover are of two policies (one that names none may renew either).
_COVERS = word_set("car motor van home house contents buildings pet life health dental travel")
#: A new fact told as a change.
_CHANGE = re.compile(
    r"(?i)\b(?:now|these\s+days|nowadays|any\s?more|instead|switched|switch|moved|migrated|"
    r"migration|swapped|replaced|changed|upgraded|downgraded|ported|transferred|went|gone|"
    r"back\s+(?:on|to|with)|jumped|converted|rewrote|rewritten|renewed|traded|new|"
    r"from\s+now\s+on|as\s+of|since|this\s+time|finally|over\s+to|"
    r"(?:finished|completed|done)\s+(?:moving|migrating|switching)|standardi[sz]ed|settled|"
    r"adopted|rolled\s+out|onboarded|opted|chose|picked|signed\s+up)\b"
)
#: The word before a value a clause moves away from ("from Flask 2.0 to 3.0").
_AWAY = (("from",), ("off",), ("of",), ("than",), ("not",))
#: A clause naming two values that says one replaced the other.
_SWITCH = re.compile(
    r"(?i)\b(?:switched|swapped|replaced|moved|migrated|traded|from|instead|changed|upgraded|"
    r"downgraded|ported|transferred|over\s+to|ditched|dropped)\b"
)
#: What a clause says that is not holding a value now: tried, planned, liked, a job...
_NOT_HELD = re.compile(
    r"(?i)\b(?:tried|try|trying|trial\w*|testing|evaluat\w*|consider\w*|look(?:ed|ing)\s+"
    r"(?:at|into)|compar\w*|vs|versus|thinking|might|maybe|perhaps|want|wants|wanted|plan|plans|"
    r"planning|planned|will|going\s+to|gonna|should|could|would|hope|hoping|if|whether|unless|"
    r"wish|miss|missed|recommend\w*|review\w*|like|likes|liked|love|loves|loved|hate|hates|"
    r"hated|prefer\w*|interview\w*|job|jobs|hired|employer|customers?|clients?|shares|invest\w*|"
    r"acquired|founded|founder|joined|left|borrow\w*|rent|rented|renting|rental|hire|loan\w*|"
    r"courtesy|sometimes|occasionally|except|only|(?<!finished\s)(?<!done\s)(?<!completed\s)"
    r"(?:switching|moving|migrating)|soon|next\s+"
    r"(?:week|month|year|quarter|sprint)|not|never|no|without|apart|xneg|"
    r"work(?:s|ed|ing)?\s+(?:at|for))\b|n't\b|\?"
)
#: The same anywhere in a fact: another value held beside this one.
_BESIDE = re.compile(
    r"(?i)\b(?:also|as\s+well|another|second|both|spare|either|each)\b|\btoo\b(?=\s*(?:$|[,.;!]))"
)
#: A change of version: of the value the team had, not a new value ("upgraded to Postgres 15").
_VERSIONED = re.compile(r"(?i)\b(?:upgraded|downgraded|updated|bumped)\b")
#: A plain statement in the past: what was, not what is.
_PAST = re.compile(
    r"(?i)\b(?:used|drove|(?<!'ve\s)(?<!have\s)(?<!has\s)had|was|were|owned|ran|hosted|"
    r"tracked|kept|lived|banked)\b"
)
_I = word_set("i i'm i've i'd me my myself")
#: The group a "we" is, named ("company's on Microsoft Teams since the acquisition").
_GROUPS = word_set("company team org organisation organization department dept firm")
#: Words that open a phrase of when or why before the subject ("After the breach I ...").
_LEADING = word_set("after since following because once when with")
_WE = word_set("we we're we've our us ourselves")
_WHEN_STARTED = compile_pattern(WHEN_STARTED)
_OTHERS = word_set("he she they his her their him them it its you your he's she's they're")
_RELATIVES = word_set(
    "sister brother mum mom dad mother father wife husband partner son daughter kid kids "
    "friend boss parents gran grandad grandma grandpa nan uncle aunt auntie cousin nephew niece "
    "flatmate roommate colleague girlfriend boyfriend fiance fiancee brother-in-law "
    "sister-in-law mother-in-law father-in-law in-laws stepdad stepmum stepmom stepson "
    "stepdaughter grandson granddaughter neighbour neighbor landlord landlady housemate manager "
    "mentor teacher grandparents children child baby"
)
#: Words after "X's" that make it "X is" ("My car's an MG4"), not "X's thing".
_CLIPPED_IS = word_set(
    "a an the now been gone got on in with at not no just still finally always also very so "
    "moved switched back up down done over basically"
)
#: Words that open a clause without being its subject ("Finally switched ...", "After ...").
_OPENERS = word_set(
    "so and but then now finally actually also just after since following today yesterday "
    "recently anyway ok okay well update"
)
_IRREGULAR = word_set(
    "got went bought sold made took put set ran left kept moved switched swapped cracked "
    "gave brought found"
)


def _bare(words: tuple[str, ...]) -> tuple[str, ...]:
    """Words without a possessive or a clipped "is" ("car's" -> "car")."""
    return tuple(word.removesuffix("'s") for word in words)


def _stem(word: str) -> str:
    word = word.removesuffix("'s")
    for end in ("ing", "ers", "er", "es", "s", "ed"):
        if word.endswith(end) and len(word) - len(end) >= 3:
            word = word[: -len(end)]
            break
    return word[:5]


# --- owners --------------------------------------------------------------------------------------


def _owner(clause: _Clause, kind: str) -> str | None:
    """Whose value a clause states: "user", "we", "any" (a thing told without an owner, or a
    note without a subject), a named person's name, or None (a pronoun: not known)."""
    words = tokens(clause.text)
    low = list(clause.words)
    lead = _WHEN_STARTED.match(
        clause.text
    )  # "Back when I started in 2020 the team ...": the team's
    at = len(tokens(lead.group(0))) if lead else 0
    while at < len(low) - 1 and low[at] in _OPENERS:
        at += 1
    if not low:
        return None
    first = low[at]
    if first in _OTHERS:
        return None
    if first == "my" and at + 1 < len(low) and low[at + 1].removesuffix("'s") in _RELATIVES:
        return "user's " + low[at + 1].removesuffix("'s")
    if first in _I:
        return "user"
    if first in _WE or first.removesuffix("'s") in _GROUPS:
        return "we"
    named = next((m for m in clause.found if m.start == at), None)
    if named is not None and kind not in named.kinds:
        return named.name  # "Chase drives a Golf": a name that is a bank's, not the kind's
    if named is None and words[at][:1].isupper() and _a_name(first):
        names = [words[at]]
        for word in words[at + 1 : at + 3]:
            if not word[:1].isupper() or not _a_name(word.lower()):
                break
            names.append(word)
        return " ".join(w.lower().removesuffix("'s") for w in names)
    before = next((m.start for m in clause.found if kind in m.kinds), len(low))
    for i, word in enumerate(low[:before]):
        if i < at:
            continue
        base = word.removesuffix("'s")
        if (
            base != word
            and low[i + 1 : i + 2] not in [(w,) for w in _CLIPPED_IS]
            and not (base in _STOP or base in _OTHERS or kind in ROLES.get(base, ()))
        ):
            return base  # "The landlord's broadband is BT": the landlord's
        if word in _RELATIVES:
            return "user's " + word  # "Our son has a Kindle"
        if word == "my" and low[i + 1 : i + 2] and low[i + 1].removesuffix("'s") in _RELATIVES:
            return "user's " + low[i + 1].removesuffix("'s")  # "got my dad an iPhone"
        if word in _I:
            return "user"
        if word in _WE or base in _GROUPS:
            return "we"
    return "any"


def _a_name(word: str) -> bool:
    """Whether a capitalised word opening a clause may be a person's name rather than a noun
    ("Tickets", "Home"), an opener or a verb with its subject left out ("Upgraded")."""
    word = word.removesuffix("'s")
    return not (
        word in _STOP
        or word in ROLES
        or word in _QUALIFIERS
        or word in _OPENERS
        or word in _IRREGULAR
        or word.endswith("ed")
        or _stem(word) in _ROLE_STEMS
    )


_ROLE_STEMS = frozenset(_stem(word) for word in ROLES)


def _meet(one: str, other: str) -> bool:
    # "my dad got an iPhone" is Dad's: a relative of the user's is the relative a question
    # or another fact names ("What phone does Dad have?", "Dad's on a Samsung")
    one, other = one.removeprefix("user's "), other.removeprefix("user's ")
    if one == other:
        return True
    return "any" in (one, other) and {one, other} <= {"any", "user", "we"}


# --- the rule ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Value:
    """A member of a kind as one fact states it: its clause and what else that clause names."""

    member: Member
    clause: _Clause
    left: Member | None  # the member this clause says was left ("from Octopus to ...")


def _values(text: str, kind: str) -> list[_Value] | None:
    """The values of ``kind`` ``text`` states, one a clause; None when a clause names three or
    more, or two without saying which was left. A value the text says ended ("Bulb went bust
    and I got moved over to Octopus") is not one it states."""
    out = []
    ended = {value for value, _how in left_values(text)}
    for clause in _clauses(text):
        found = [
            m
            for m in clause.found
            if kind in m.kinds
            and m.name not in ended
            and (len(clause.found) > 1 or clause.words[m.start - 1 : m.start] not in _AWAY)
        ]  # "migrated from Flask 2.0 to 3.0": the clause holds no Flask of another kind
        if not found:
            continue
        names: list[Member] = []
        for m in found:
            if not any(m.related(n) for n in names):
                names.append(m)
        if len(names) == 1:
            out.append(_Value(names[0], clause, None))
        elif len(names) == 2 and _SWITCH.search(clause.text):
            one, other = names
            # "Traded the Fiesta in for a Yaris", "moved to Linear from Jira"
            if clause.words[other.start - 1 : other.start] in (("from",), ("off",)):
                one, other = other, one
            out.append(_Value(other, clause, one))
        else:
            return None
    return out


@lru_cache(maxsize=8192)
def _beside(text: str) -> bool:
    return _BESIDE.search(text) is not None


@lru_cache(maxsize=8192)
def _kinds(text: str) -> frozenset[str]:
    found: frozenset[str] = frozenset()
    if not may_name(text):
        return found
    for clause in _clauses(text):
        for m in clause.found:
            found |= m.kinds
    return found


def kind_changed(new_text: str, old_text: str) -> tuple[str, str] | None:
    """The key and reason when ``new_text`` closes ``old_text`` by a value of the same kind
    (see the module doc), else None."""
    common = _kinds(new_text) & _kinds(old_text)
    if not common or "?" in new_text + old_text or _beside(new_text) or _beside(old_text):
        return None
    for kind in sorted(common):
        found = _kind_changed(new_text, old_text, kind)
        if found:
            return found
    return None


def _kind_changed(new_text: str, old_text: str, kind: str) -> tuple[str, str] | None:
    news, olds = _values(new_text, kind), _values(old_text, kind)
    if not news or not olds or len(olds) > 1:
        return None
    old = olds[0]
    held = [v for v in news if not any(v.member.related(o.member) for o in olds)]
    if len(held) != 1:
        return None
    new = held[0]
    named_old = [v for v in news if v.member.related(old.member)]
    strong = new.left is not None and new.left.related(old.member)
    if new.left is not None and not strong:
        return None  # "Swapped Jira for Linear" says nothing of Trello
    change = any(_CHANGE.search(_frame(clause)) for clause in _clauses(new_text))
    if named_old and not (change and all(v.clause is not new.clause for v in named_old)):
        return None  # "We use Sentry and Rollbar now"
    framed = FRAMED.get(kind)
    if framed and not (framed.search(new.clause.text) and framed.search(old.clause.text)):
        return None
    if _VERSIONED.search(new.clause.text) and kind not in MODELS:
        after = new.clause.words[new.member.end : new.member.end + 1]
        if after and after[0][:1].isdigit():
            return None  # "We upgraded to PostgreSQL 15": a version of what was there
    if not _held(new, kind) or not _held(old, kind):
        return None
    who, whose = _owner(new.clause, kind), _owner(old.clause, kind)
    if who is None or whose is None or not _meet(who, whose):
        return None
    if not _uses_agree(new, old, kind, change, strong):
        return None
    owner = whose if whose != "any" else who
    return f"{owner}: {kind}", f"{kind} changed from {old.member.name} to {new.member.name}"


def _held(value: _Value, kind: str, then: bool = False) -> bool:
    """Whether a clause says its value is held: not tried, planned, liked, a job, negated,
    nor (unless ``then``: held at the time it tells of) a plain statement in the past ("we
    used Jira")."""
    frame = _frame(value.clause)  # the clause without its names ("New Relic", "VS Code")
    if _NOT_HELD.search(frame) and not (kind == "gym" and "joined" in value.clause.words):
        return False
    return then or not _PAST.search(frame) or bool(_CHANGE.search(frame))


def _uses_agree(new: _Value, old: _Value, kind: str, change: bool, strong: bool) -> bool:
    """Whether the two clauses hold their values for one use of the kind (see the module doc)."""
    new_words, old_words = set(_bare(new.clause.words)), set(_bare(old.clause.words))
    for value, other in ((new, old_words), (old, new_words)):
        for word in _bare(value.clause.words):
            kinds = ROLES.get(word, frozenset())
            if kinds and kind not in kinds and kinds & value.member.kinds and word not in other:
                return False  # "Datadog for metrics" is not Datadog for logs
    covers, old_covers = new_words & _COVERS, old_words & _COVERS
    if covers and old_covers and not covers & old_covers:
        return False  # "car insurance with Admiral" / "home insurance moved to Aviva"
    if _qualifiers(new_words, kind) != _qualifiers(old_words, kind):
        return False
    if strong:
        return True
    new_spec, old_spec = _specifics(new, kind, change), _specifics(old, kind, change)
    new_stems, old_stems = {_stem(w) for w in new_words}, {_stem(w) for w in old_words}
    if any(_stem(w) not in old_stems for w in new_spec):
        return False
    roles = {w for w in new_words if kind in ROLES.get(w, ())}
    old_roles = {w for w in old_words if kind in ROLES.get(w, ())}
    # the earlier fact may say more of what it is for only in the lexicon's words, told as a
    # change ("Car insurance is with Admiral" / "Renewed with LV="), not "The pool car"
    gone = [w for w in old_spec if _stem(w) not in new_stems]
    if gone and not (change and old_roles and all(w in ROLES for w in gone)):
        return False
    return change or bool({_stem(w) for w in roles} & {_stem(w) for w in old_roles})


def _qualifiers(words: set[str], kind: str) -> set[str]:
    return {w for w in words if w in _QUALIFIERS and kind not in ROLES.get(w, ())}


def _frame(clause: _Clause) -> str:
    """The clause's words without the names in it ("VS Code" is no "vs")."""
    taken = {i for m in clause.found for i in range(m.start, m.end)}
    words = (w for i, w in enumerate(clause.words) if i not in taken)
    return " ".join(words).replace("'ve had", "'ve")


def _specifics(value: _Value, kind: str, change: bool) -> list[str]:
    """The words of a clause that may narrow its use: before its value (its subject: "My
    savings", "The frontend"), and what it is "for" after it; all of them when the value is
    the clause's subject ("Jenkins builds the Android app") or the new fact is no change."""
    words = _bare(value.clause.words)
    taken = {i for m in value.clause.found for i in range(m.start, m.end)}
    start = 0
    if words and words[0] in _LEADING:  # "After the breach I migrated ...": from "I" on
        start = next((i for i in range(value.member.start) if words[i] in _I | _WE), 0)
    picked = list(range(start, value.member.start))
    if not change or not any(_content(w, kind) for w in words[start : value.member.start]):
        picked += list(range(value.member.end, len(words)))
    for i in range(value.member.end, len(words)):  # "for metrics", "on my laptop", "at work"
        if words[i] in ("for", "at") or (
            words[i] in ("on", "in") and words[i + 1 : i + 2] in (("my",), ("our",), ("the",))
        ):
            if kind not in ROLES.get(words[-1], ()):  # "in the community choir": the kind's
                picked += list(range(i + 1, len(words)))
            break
    who = set((_owner(value.clause, kind) or "").split())  # "Gareth sings ...": no use
    return [
        words[i]
        for i in dict.fromkeys(picked)
        if i not in taken and _content(words[i], kind) and words[i] not in who
    ]


def _content(word: str, kind: str) -> bool:
    """A word that may narrow a use: not a function word, a role of the kind, a number or a
    word of change."""
    return (
        word not in _STOP
        and kind not in ROLES.get(word, ())
        and not any(c.isdigit() for c in word)
        and not _CHANGE.fullmatch(word)
    )


# --- questions -----------------------------------------------------------------------------------

#: Role words too wide to say which kind a question asks about ("Where do I work?").
_WIDE_ROLES = word_set(
    "work code data number plan account member page pages call calls build builds tests "
    "library design ui api backend frontend front-end back-end framework image images file "
    "files drive power fuel source host server servers provider machine computer notebook "
    "video listen tracking reporting cover policy contract manager package packages knowledge "
    "docs edge connection pics events messages support customer people part identity books "
    "note test tests testing unit watch meal meals box kit recipe infrastructure infra photo "
    "reader lists reminders invest investing sing singing voice eat eating help "
    "discussion issue coding programming"
)
#: Words of a question that ask for a kind without naming its role ("What do I drive?").
_ASKING = {"drive": "car", "insures": "insurer", "bank": "bank", "host": "cloud hosting"}
#: Two wide words that ask for a kind together: "Where is our code hosted?" (a code host).
_ASKING_TOGETHER = {
    "code host": (
        word_set("code codebase source repo repos repository repositories"),
        word_set("host hosted hosting live lives kept stored"),
    )
}
_QUESTION = re.compile(r"(?i)^\s*(?:what|which|where|who|who's|what's|whose)\b")


@lru_cache(maxsize=1024)
def asked_kinds(question: str) -> tuple[frozenset[str], str]:
    """The kinds of value ``question`` asks for ("Where do we track tickets?": issue
    trackers) and whose ("we", "user", or "any"); no kinds when it asks for none."""
    if not _QUESTION.match(question):
        return frozenset(), "any"
    words = [w.lower() for w in tokens(question)]
    kinds: frozenset[str] = frozenset()
    for word in words:
        if word in ROLES and word not in _WIDE_ROLES:
            kinds |= ROLES[word]
        elif word in _ASKING:
            kinds |= {_ASKING[word]}
    for kind, (one, other) in _ASKING_TOGETHER.items():
        if one & set(words) and other & set(words):
            kinds |= {kind}
    owner = next(("user" if w in _I else "we" for w in words if w in _I | _WE), "any")
    said = tokens(question)
    at = next((i for i, w in enumerate(said) if i and _a_person(w)), 0)
    if at and owner == "any":  # "What phone does Priya have?", "What does Uncle Ray drive?": theirs
        names = [said[at]] + [w for w in said[at + 1 : at + 2] if _a_person(w)]
        owner = " ".join(w.lower().removesuffix("'s") for w in names)
    return kinds, owner


def _a_person(word: str) -> bool:
    """A capitalised word that is no acronym ("CI"), no member ("Python") and no role."""
    return word[:1].isupper() and word[1:].islower() and _a_name(word.lower()) and not members(word)


def states_kind(text: str, kinds: frozenset[str], owner: str) -> bool:
    """Whether ``text`` states a value of one of ``kinds`` for ``owner`` ("Tickets live in
    Linear these days" for the team's issue tracker)."""
    for kind in kinds & _kinds(text):
        framed = FRAMED.get(kind)
        if framed and not framed.search(text):
            continue  # "Which language am I learning?" is no codebase's
        for value in _values(text, kind) or ():
            if not _held(value, kind, then=True):
                # "I'm thinking of getting a Pixel"; a past one ("In 2022 we kept
                # everything on GitLab") answers for its time (as_of reads it then)
                continue
            whose = _owner(value.clause, kind)
            if whose is not None and _meet(whose, owner):
                return True
    return False
