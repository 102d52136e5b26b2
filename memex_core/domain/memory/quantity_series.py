"""Two facts that read as points of one series of numbers (issue 30).

"weighed in at 88.2" and, a month on, "84.9 this morning, slowly slowly"; "car's on 48,200
miles" and "53,900 on the clock at the MOT"; "sertraline 50mg", "doc upped me to 100mg",
"tapering: 75mg from today". The later fact often shares no word with the question or the
earlier fact, and MiniLM puts it far from both (cosine 0.2 to 0.45), yet it is the answer
now: it carries the same kind of quantity, in the same unit, at the same scale. Recall's
newer-first ordering (:mod:`memex_core.services.newer_first`) and the relevance floor's kin
(:mod:`memex_core.services.search`) read such a pair as about one thing.

A quantity's *shape* is what ties the two: a currency sign, a unit after it ("14 min",
"6 minutes", "50mg", "1,200 subs", "2k subscribers"), a dotted version ("3.2.0"), a sign, and
for a number with no unit beside one with a unit or none, as many decimals ("88.2", "84.9";
"5k followers", "12,400"). Small bare integers ("I'm 34") and years are never read: any two
facts have them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_QUANTITY = re.compile(
    r"(?<![\w.])(?P<currency>[£$€])?(?P<sign>[-+\u2212])?"
    r"(?P<number>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)*)"
    r"(?P<thousands>k\b)?(?P<glued>[a-zA-Z%]+)?"
    r"(?:\s+(?P<word>[a-zA-Z]+))?"
)
#: Words after a number that are not its unit ("84.9 this morning", "53,900 on the clock").
_NOT_UNITS_TEXT = """a an and are as at be before both but by each for from had has have in
    into is it its just last next now of on or over per since so than that the then these this those
    to today tonight under until up was were when with yesterday tomorrow after again
    already still every about above around below among across against along behind beside
    between beyond during except inside near off onto out outside past through toward towards
    via within without i you he she we they me him her us them my your his our their will
    would can could should did does do not no yes if because while"""
_NOT_UNITS = frozenset(_NOT_UNITS_TEXT.split())
#: Words that make a number a date or a time of day, not a quantity ("22 July", "9am").
_DATES_TEXT = """january february march april may june july august september october november
    december jan feb mar apr jun jul aug sep sept oct nov dec am pm st nd rd th"""
_DATES = frozenset(_DATES_TEXT.split())
#: How far apart two points of one series may be (the larger over the smaller).
MAX_RATIO = 3.0


@dataclass(frozen=True)
class Quantity:
    """A number read from a fact, with what shapes it."""

    value: float
    currency: str
    unit: str
    version: bool
    decimals: int
    grouped: bool
    negative: bool

    @property
    def bare(self) -> bool:
        return not self.unit and not self.currency and not self.version


def quantities(text: str) -> list[Quantity]:
    """The quantities ``text`` holds that a series can be read from (see the module)."""
    found = []
    for match in _QUANTITY.finditer(text):
        number = match["number"]
        version = number.count(".") >= 2
        plain = number.replace(",", "")
        value = float(".".join(plain.split(".")[:2]))  # a version by its major.minor
        if match["thousands"]:
            value *= 1000
        unit, word = (match["glued"] or "").lower(), (match["word"] or "").lower()
        if unit in _DATES or (not unit and word in _DATES):
            continue
        if not unit and word not in _NOT_UNITS:
            unit = word
        quantity = Quantity(
            value=value,
            currency=match["currency"] or "",
            unit=unit.removesuffix("s") if len(unit) > 2 else unit,
            version=version,
            decimals=len(plain.split(".")[1]) if "." in plain and not version else 0,
            grouped="," in number,
            negative=bool(match["sign"]),
        )
        if quantity.bare and not (quantity.decimals or quantity.grouped or match["thousands"]):
            continue  # a small bare integer or a year: any fact has one
        found.append(quantity)
    return found


def _units_agree(a: str, b: str) -> bool:
    shorter, longer = sorted((a, b), key=len)
    return len(shorter) >= 2 and longer.startswith(shorter)


def _points_of_one_series(a: Quantity, b: Quantity) -> bool:
    if a.version or b.version:
        return a.version and b.version
    if a.negative != b.negative:
        return False
    if a.currency != b.currency:
        # "Rent 1,450 from May" after "Rent is £1,320/month": an amount told again without
        # its sign, the same shape (decimals, grouping) and no unit in its place
        bare = b if a.currency else a
        if (a.currency and b.currency) or bare.unit:
            return False
        if a.decimals != b.decimals or a.grouped != b.grouped:
            return False
    # with a unit on one side only, or none, as many decimals stand in for the unit
    agree = _units_agree(a.unit, b.unit) if a.unit and b.unit else a.decimals == b.decimals
    low, high = sorted((abs(a.value), abs(b.value)))
    return agree and low > 0 and high / low <= MAX_RATIO


_WORD = re.compile(r"[a-z][a-z'-]*")
#: The share of their words two facts must have in common to read as one pattern told of
#: two things ("The Pro plan is $39 a month", "The Team plan is $99 a month").
PARALLEL_SHARE = 0.5


def parallel(earlier: str, later: str) -> bool:
    """Whether the two facts are one wording told of two things: most of their words are
    the same and each has one the other lacks ("I run about 30km a week", "I cycle about
    60km a week commuting"). A series restates its thing or leaves it out; it does not swap
    it for another."""
    a, b = set(_WORD.findall(earlier.lower())), set(_WORD.findall(later.lower()))
    if not a - b or not b - a:
        return False
    return len(a & b) >= PARALLEL_SHARE * len(a | b)


def same_series(earlier: str, later: str) -> bool:
    """Whether ``later`` carries a quantity of the same shape and scale as one of
    ``earlier``'s and a different value: a new point of the series ``earlier`` told, and
    not the same wording told of another thing (:func:`parallel`)."""
    before = quantities(earlier)
    if not before or parallel(earlier, later):
        return False
    return any(
        _points_of_one_series(a, b) and a.value != b.value
        for b in quantities(later)
        for a in before
    )


__all__ = ["MAX_RATIO", "PARALLEL_SHARE", "Quantity", "parallel", "quantities", "same_series"]
