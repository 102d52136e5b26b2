"""How two facts relate, from their :class:`~memex_rules.wording.FactForm`.

:func:`compare` answers one of:

- ``SAME``: the same content words and polarity: a rewording;
- ``OPPOSITE``: the same content words, polarity flipped ("likes coffee" /
  "does not like coffee"), in texts that join no clauses (in "likes tea but
  not coffee" the negation covers only part, so that is ``DIFFERENT``);
- ``REVERSED``: a comparison turned round ("prefers tea over coffee" /
  "prefers coffee over tea");
- ``ADDS`` / ``OMITS``: the new fact has every word of the other and more (or
  fewer), same polarity: "loves hiking in the Alps" adds to "loves hiking";
- ``DIFFERENT``: anything else. A fact that both adds and drops words changed
  a slot (tea kind, weekday, city, relative): it is another fact, not a
  rewording. So is one whose extra words change what it is about rather than
  describe it further: a :data:`SLOT_WORDS` word ("wants to live in Lyon" is
  not more of "lives in Lyon"), a possessed word ("User's sister likes sushi"
  is not "User likes sushi" in more detail), a number ("has two kids" is not
  more of "has a kid"), a word added right after the object at the end ("likes
  cat videos" is not "likes cats"; time words such as "daily" or "last year"
  excepted) or a name joined to a shared name ("New York" is not "York").

**The user's name.** A memory of ``users/alice`` says "User ..." or "Alice
..." for the same person. When only one of the two facts mentions ``user``,
each capitalised word of the other that the first lacks is tried in its
place, and the closest answer is kept ("User speaks French" is "Alice speaks
French"; "Alice's sister lives in Porto" is "User's sister lives in Porto").
Two different names are never the same person. The price: in a collection
that also holds facts about other people, "Ana lives in Porto" and "User lives
in Porto" fold even when Ana is not the user (the texts alone cannot tell).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace

from memex_rules.wording import FROM, THAN, USER, FactForm, keys_of

SAME, OPPOSITE, REVERSED = "same", "opposite", "reversed"
ADDS, OMITS, DIFFERENT = "adds", "omits", "different"
_RANK = {SAME: 0, OPPOSITE: 1, REVERSED: 1, ADDS: 2, OMITS: 2, DIFFERENT: 3}

#: Words that never just add detail: an attitude or modal verb (a new claim about the same
#: thing), a limit on how often or how true, or a place relative to another ("near Paris"
#: is not "in Paris"). As keys (see :func:`memex_rules.wording.key`). A possessed word
#: ("sister" in "User's sister ...", see ``FactForm.possessed``) is never detail either.
SLOT_WORDS = keys_of(
    "like prefer want plan will would could should must might may going need try start stop "
    "was were had sometimes rarely occasionally seldom hardly barely only almost nearly former "
    "ex formerly previously late once twice near nearby outside inside around behind beyond "
    "above below under across opposite beside between"
)


@dataclass(frozen=True)
class Comparison:
    """How a new fact relates to a stored one, and the words that differ."""

    kind: str
    added: tuple[str, ...] = ()  # words of the new fact the stored one lacks (readable)
    dropped: tuple[str, ...] = ()  # words of the stored fact the new one lacks
    overlap: float = 0.0  # shared words over the geometric mean of both counts
    named: str = ""  # the word of one fact taken as the user's name, if any
    why: str = ""  # for DIFFERENT: what makes it another fact


#: Words that may follow an object without changing it: "plays the piano daily", "moved to
#: Lisbon last year". After anything else, a word added at the end changes the object:
#: "likes cat videos" is not "likes cats" in more detail.
TIME_WORDS = keys_of(
    "daily weekly monthly yearly today tonight tomorrow yesterday week month year weekend "
    "morning evening night afternoon ago last next recently lately again monday tuesday "
    "wednesday thursday friday saturday sunday january february march april may june july "
    "august september october november december spring summer autumn fall winter"
)


def _untagged(word: str) -> str:
    for tag in (THAN, FROM):
        if word.startswith(tag):
            return word[len(tag) :]
    return word


def _swap_sides(words: frozenset[str], first: set[str]) -> frozenset[str]:
    """``words`` with the comparison turned round: ``than:`` words untagged, ``first`` tagged."""
    out = {THAN + w if w in first else w for w in words if not w.startswith(THAN)}
    return frozenset(out | {w[len(THAN) :] for w in words if w.startswith(THAN)})


def _as_user(form: FactForm, name: str) -> FactForm:
    """``form`` with the word ``name`` read as the user."""

    def swap(words: frozenset[str] | tuple[str, ...]) -> list[str]:
        return [USER if w == name else w for w in words]

    shown = {USER if k == name else k: v for k, v in form.shown.items()}
    return replace(
        form,
        words=frozenset(swap(form.words)),
        names=form.names - {name},
        possessed=frozenset(swap(form.possessed)),
        runs=tuple(tuple(swap(run)) for run in form.runs),
        shown=shown,
    )


def _changes_the_object(bigger: FactForm, smaller: FactForm, extra: frozenset[str]) -> bool:
    """True when words added at the very end follow the smaller fact's last word directly
    ("cat" -> "cat videos", "Acme" -> "Acme Bank"), or an added name is joined to a name
    both share ("York" -> "New York"): the object changed, it was not described further."""
    if smaller.runs and bigger.runs:
        last = smaller.runs[-1][-1]
        run = bigger.runs[-1]
        if last in run[:-1]:
            tail = set(run[run.index(last) + 1 :])
            if tail <= extra and not {_untagged(w) for w in tail} <= TIME_WORDS:
                return True
    for run in bigger.runs:
        for left, right in itertools.pairwise(run):
            pair = {left, right}
            if pair <= bigger.names and pair & extra and pair - extra - {USER}:
                return True
    return False


def _relation(new_form: FactForm, old_form: FactForm) -> Comparison:
    new, old = new_form.words, old_form.words
    added, dropped = new - old, old - new
    shown_added = tuple(new_form.show(added))
    shown_dropped = tuple(old_form.show(dropped))
    shared = len(new & old)
    overlap = shared / math.sqrt(len(new) * len(old)) if new and old else 0.0

    def different(why: str) -> Comparison:
        return Comparison(DIFFERENT, shown_added, shown_dropped, overlap, why=why)

    if not (new - {USER}) or not (old - {USER}):
        return different("it says nothing but who it is about")
    same_polarity = new_form.negated == old_form.negated
    if not added and not dropped:
        if same_polarity:
            return Comparison(SAME, overlap=overlap)
        if new_form.joined or old_form.joined:
            return different("the polarity differs within joined clauses")
        return Comparison(OPPOSITE, overlap=overlap)
    if (
        same_polarity
        and any(w.startswith(THAN) for w in new)
        and any(w.startswith(THAN) for w in old)
    ):
        first = {_untagged(w) for w in new if w.startswith(THAN)}
        if _swap_sides(old, first) == new:
            return Comparison(REVERSED, shown_added, shown_dropped, overlap)
    if added and dropped:
        return different(f"adds {', '.join(shown_added)}, drops {', '.join(shown_dropped)}")
    if not same_polarity:
        return different("the polarity differs")
    extra = added or dropped
    bigger, smaller = (new_form, old_form) if added else (old_form, new_form)
    words = ", ".join(shown_added or shown_dropped)
    if (
        {_untagged(w) for w in extra} & SLOT_WORDS
        or extra & bigger.possessed
        or any(_untagged(w).isdigit() for w in extra)
        or _changes_the_object(bigger, smaller, extra)
    ):
        return different(f"{words} changes what it is about")
    return Comparison(ADDS if added else OMITS, shown_added, shown_dropped, overlap)


def compare(new: FactForm, old: FactForm) -> Comparison:
    """How ``new`` relates to ``old`` (see the module docstring)."""
    best = _relation(new, old)
    if (USER in new.words) == (USER in old.words):
        return best
    new_has_user = USER in new.words
    other = old if new_has_user else new
    mine = new if new_has_user else old
    for name in sorted(other.names & (other.words - mine.words)):
        renamed = _as_user(other, name)
        found = _relation(new, renamed) if new_has_user else _relation(renamed, old)
        if _RANK[found.kind] < _RANK[best.kind] or (
            _RANK[found.kind] == _RANK[best.kind] and found.overlap > best.overlap
        ):
            best = replace(found, named=other.shown.get(name, name))
    return best
