"""Which of a list of patterns can match a text, told by the words in it.

The rules judge reads each fact with long lists of patterns: the attribute table
(:mod:`memex_rules.supersession_table` and its sibling modules, some 135 anchored patterns),
the time phrases, the shapes of a change, the wording's phrases. Trying every pattern of a
list on every clause was most of the judge's time, yet most cannot match a clause without
their verb ("lives", "moved", "works", "version"). So each pattern's *triggers* are read off
the pattern itself: a set of literal strings at least one of which every text it matches
contains ("lives", "living", "resides", ... for where someone lives). :class:`TriggerIndex`
then gives, per text, only the patterns that have a trigger inside one of the text's words,
in their list's order; a pattern with no reliable trigger (one that can match with no fixed
letters at all) is always given. The triggers are derived, not written by hand, so a pattern
edited in a table cannot drift from its triggers, and the index only ever skips a pattern
that could not have matched: the readings are the same with or without it
(``tests/plugins/rules/test_pattern_triggers.py`` checks this on every fact of the knowledge-
update benchmark's dev, test and broad splits and every text of the rules tests).

The triggers come from the pattern's parse tree (``re._parser``, the standard library's own
parser): a literal run of letters and digits, the alternatives of a group, an optional part
spelt out ("(?:re)?scheduled" gives "scheduled" and "rescheduled"). Anything the reading does
not know (a back-reference, a conditional group) leaves the pattern always tried.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Generic, TypeVar

try:  # the standard library's regex parser (Python >= 3.11); without it, no pattern is skipped
    _parser: Any = importlib.import_module("re._parser")
    _c: Any = importlib.import_module("re._constants")
except ImportError:  # pragma: no cover - another Python
    _parser = None

Item = TypeVar("Item")

#: A trigger is spelt in these characters only, so it lies inside one word of a text.
_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
#: Characters that a case-blind pattern matches to an ASCII letter though ``str.lower`` does not
#: give that letter (the dotted and dotless i, the long s, the Kelvin sign).
_FOLD = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})
_WORDS = re.compile(r"[a-z0-9]+")
#: More spellings than this of one part of a pattern are not followed.
_MAX_SPELLINGS = 48


@dataclass(frozen=True)
class _Reading:
    """What a part of a pattern says about the texts it matches.

    ``exact``: every string it can match (lower case, letters and digits; "" when it can match
    nothing), or None when they are too many or not all letters and digits. ``needs``: strings
    one of which every match contains, or None when no such set is known."""

    exact: frozenset[str] | None
    needs: frozenset[str] | None


_NOTHING = _Reading(frozenset({""}), None)
_UNKNOWN = _Reading(None, None)


@lru_cache(maxsize=1024)
def _letter(code: int) -> str | None:
    char = chr(code).translate(_FOLD).lower()
    return char if char in _WORD_CHARS else None


def _better(first: frozenset[str] | None, second: frozenset[str] | None) -> frozenset[str] | None:
    """The more telling of two sets of needed strings: the longer shortest string, then the
    fewer strings."""
    if first is None or second is None:
        return first if second is None else second
    score = (min(map(len, first)), -len(first))
    return first if score >= (min(map(len, second)), -len(second)) else second


def _needed(strings: frozenset[str] | None) -> frozenset[str] | None:
    """``strings`` as needed strings (None when one is empty), those containing another
    dropped: a text that holds "moved" holds "move"."""
    if not strings or "" in strings:
        return None
    if len(strings) == 1:
        return strings
    return frozenset(s for s in strings if not any(o != s and o in s for o in strings))


def _sequence(items: Any) -> _Reading:
    """A run of pattern items: the spellings of the parts that join up, the most telling of
    the needed sets found along it."""
    spelt: frozenset[str] = frozenset({""})
    joined = True  # every item so far had its spellings
    needs: frozenset[str] | None = None
    for op, arg in items:
        letter = _letter(arg) if op is _c.LITERAL else None
        if letter is not None:  # the common case, without a reading of its own
            spelt = frozenset([a + letter for a in spelt])
            continue
        part = _item(op, arg)
        needs = _better(needs, part.needs)
        if part.exact is not None:
            crossed = frozenset(a + b for a in spelt for b in part.exact)
            if len(crossed) <= _MAX_SPELLINGS:
                spelt = crossed
                continue
        # the spellings so far end here: every match holds one of them
        needs = _better(needs, _needed(spelt))
        joined = False
        spelt = part.exact if part.exact is not None else frozenset({""})
    needs = _better(needs, _needed(spelt))
    return _Reading(spelt if joined else None, needs)


def _item(op: Any, arg: Any) -> _Reading:
    if op is _c.LITERAL:
        letter = _letter(arg)
        return _Reading(frozenset({letter}), None) if letter else _UNKNOWN
    if op is _c.IN:
        return _class(arg)
    if op in (_c.AT, _c.ASSERT, _c.ASSERT_NOT):  # anchors and look-arounds take no characters
        return _NOTHING
    if op is _c.SUBPATTERN:
        return _sequence(arg[-1])
    if op is _c.ATOMIC_GROUP:
        return _sequence(arg)
    if op is _c.BRANCH:
        return _branch(arg[1])
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT):
        low, high, inner = arg
        part = _sequence(inner)
        if low == 0:  # it may be absent: it needs nothing
            once = high == 1 and part.exact is not None
            return _Reading(part.exact | {""} if once and part.exact else None, None)
        return _Reading(part.exact if high == 1 else None, part.needs)
    return _UNKNOWN  # any character, a category, a back-reference, a conditional group


def _class(members: Any) -> _Reading:
    """ "[sz]" spelt out as "s" or "z"; a wider or negated class, or a category, is unknown."""
    letters: set[str] = set()
    for op, arg in members:
        if op is _c.LITERAL and _letter(arg):
            letters.add(_letter(arg) or "")
            continue
        small = op is _c.RANGE and arg[1] - arg[0] < 4  # "[a-c]", not "[a-z]"
        spelt = [_letter(code) for code in range(arg[0], arg[1] + 1)] if small else []
        if not spelt or not all(spelt):
            return _UNKNOWN
        letters.update(letter or "" for letter in spelt)
    return _Reading(frozenset(letters), None) if letters else _UNKNOWN


def _branch(alternatives: Any) -> _Reading:
    parts = [_sequence(alternative) for alternative in alternatives]
    exact: frozenset[str] | None = None
    if all(part.exact is not None for part in parts):
        exact = frozenset().union(*(part.exact or () for part in parts))
        exact = exact if len(exact) <= _MAX_SPELLINGS else None
    needs = None
    if all(part.needs for part in parts):  # each alternative needs one of its own strings
        needs = _needed(frozenset().union(*(part.needs or () for part in parts)))
    return _Reading(exact, needs)


def triggers(pattern: re.Pattern[str]) -> frozenset[str] | None:
    """Strings (lower case letters and digits) one of which is inside a word of every text
    ``pattern`` matches, or None when the pattern has none that can be relied on."""
    if _parser is None:  # pragma: no cover - another Python
        return None
    try:
        tree = _parser.parse(pattern.pattern, pattern.flags)
    except Exception:  # pragma: no cover - a pattern re compiled but its parser reads otherwise
        return None
    return _sequence(tree).needs


def words(text: str) -> list[str]:
    """The runs of letters and digits of ``text``, folded the way a case-blind pattern reads
    them ("Moved" -> "moved")."""
    return _WORDS.findall(text.translate(_FOLD).lower())


@lru_cache(maxsize=8192)  # a clause is asked about by several lists of patterns
def _words_of(text: str) -> frozenset[str]:
    return frozenset(words(text))


class TriggerIndex(Generic[Item]):
    """The items whose patterns can match a text, in their order, by the triggers of each."""

    #: False: every item is given for every text (the reference the tests compare against).
    skips = True

    def __init__(self, items: Sequence[Item], patterns: Sequence[re.Pattern[str]]) -> None:
        self.items = tuple(items)
        self._always = 0  # bit i set: item i has no trigger and is always tried
        self._by_trigger: dict[str, int] = {}
        for bit, pattern in enumerate(patterns):
            found = triggers(pattern)
            if found is None:
                self._always |= 1 << bit
                continue
            for trigger in found:
                self._by_trigger[trigger] = self._by_trigger.get(trigger, 0) | 1 << bit
        lengths = {len(trigger) for trigger in self._by_trigger}
        self._lengths = sorted(lengths)
        self._word_bits = lru_cache(maxsize=16384)(self._bits_of_word)

    def _bits_of_word(self, word: str) -> int:
        """The items with a trigger inside ``word``: each of its pieces as long as a trigger
        looked up (a dozen lookups for a short word, not one test per trigger)."""
        bits = 0
        for length in self._lengths:
            if length > len(word):
                break
            for start in range(len(word) - length + 1):
                bits |= self._by_trigger.get(word[start : start + length], 0)
        return bits

    def bits(self, *texts: str) -> int:
        """Bit i set: item i can match one of ``texts``."""
        if not self.skips:
            return (1 << len(self.items)) - 1
        bits = self._always
        for text in texts:
            for word in _words_of(text):
                bits |= self._word_bits(word)
        return bits

    def candidates(self, *texts: str) -> list[Item]:
        """The items that can match any of ``texts``, in order; the others cannot."""
        bits = self.bits(*texts)
        found = []
        while bits:
            low = bits & -bits
            found.append(self.items[low.bit_length() - 1])
            bits ^= low
        return found


def _same(text: str) -> str:
    return text


def substitute_each(
    index: TriggerIndex[tuple[re.Pattern[str], str]],
    text: str,
    tidy: Callable[[str], str] = _same,
) -> str:
    """``text`` with each ``(pattern, replacement)`` of ``index`` applied in turn, ``tidy``
    after each that changed it, those that cannot match skipped; the words are read again
    after each change, as a replacement brings words of its own ("my" -> "user zposs").
    The same as applying every pair when ``tidy`` leaves ``text`` as it is."""
    bits = index.bits(text)
    bit = 0
    while bits >> bit:  # the next pair that can match, from ``bit`` on
        ahead = bits >> bit
        bit += (ahead & -ahead).bit_length() - 1
        pattern, replacement = index.items[bit]
        changed = tidy(pattern.sub(replacement, text))
        if changed != text:
            text = changed
            bits = index.bits(text)
        bit += 1
    return text
