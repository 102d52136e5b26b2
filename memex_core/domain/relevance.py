"""The relevance floor: which search candidates carry enough evidence to be shown.

Semantic search always has nearest neighbours, even for "zzqxj qqvvkw": a query that
matches nothing still finds the fragments whose vectors happen to lie closest. Such
neighbours are noise to an agent. A candidate is kept when it carries evidence:

- **keyword** evidence: the keyword index found it and it holds at least
  :data:`STRONG_KEYWORD_SHARE` of the query's information (the IDF-weighted share of the
  query's distinct terms it contains; a word the index has never seen weighs as much as
  the rarest). One common word shared with an off-topic question ("winter" in "how do I
  repot a cactus in winter") is not enough on its own;
- **semantic** evidence: its cosine similarity to the query clears the floor, a value
  calibrated per embedder on unrelated text pairs (``[search] min_semantic_similarity``,
  see :mod:`memex_core.services.calibration`).

A candidate with both is ``"both"``; one kept on its similarity alone is ``"semantic"``
(kept on meaning alone, no shared words that count). When no candidate of a query
carries evidence, nor do both signals agree on one (:func:`agree`), the search returns
nothing; otherwise candidates holding some of the query's words stay and only those
found by meaning alone below the floor go (:func:`select`). Pure logic, no storage.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

#: The setting, as messages name it.
SETTING = "[search] min_semantic_similarity"
#: Spellings of the setting: calibrate per embedder / no floor.
AUTO = "auto"
OFF = "off"
#: Keyword evidence that counts: the hit holds at least half of the query's information
#: (chosen a priori as "most of what the query says", then measured in
#: docs/benchmarks-relevance-floor.md, not tuned on the benchmark's queries).
STRONG_KEYWORD_SHARE = 0.5

#: Two weak signals agreeing on one candidate are evidence too: it holds at least this
#: share of the query's words *and* its similarity is within AGREEMENT_BELOW_FLOOR of the
#: floor. The best of a small grid on SciFact's 809 train claims (nDCG@10 0.705 -> 0.717,
#: floor off 0.719), with the calibration's own probes against two homes as the false-hit
#: check (1.7% either way); see docs/concepts/search.md.
AGREEMENT_SHARE = 0.1
AGREEMENT_BELOW_FLOOR = 0.12

#: Values of :attr:`memex_core.domain.SearchResult.evidence`.
EVIDENCE_KEYWORD = "keyword"
EVIDENCE_SEMANTIC = "semantic"
EVIDENCE_BOTH = "both"
#: A memory fact that sets the subject and attribute the question asks about
#: (:mod:`memex_core.services.slot_signal`), whatever words or similarity it has.
EVIDENCE_SLOT = "slot"
EVIDENCE_VALUES = (EVIDENCE_KEYWORD, EVIDENCE_SEMANTIC, EVIDENCE_BOTH, EVIDENCE_SLOT)


class RelevanceFloorSettingError(ValueError):
    """A value of ``[search] min_semantic_similarity`` (or the floor passed to a call) that
    cannot be used."""


@dataclass(frozen=True)
class FloorSetting:
    """What the user asked for: ``auto`` (calibrated), ``off``, or a fixed similarity."""

    mode: str  # AUTO | OFF | "fixed"
    value: float | None = None

    @property
    def is_off(self) -> bool:
        return self.mode == OFF

    @property
    def is_auto(self) -> bool:
        return self.mode == AUTO

    def describe(self) -> str:
        return self.mode if self.value is None else f"{self.value:g}"


def parse_floor_setting(value: object) -> FloorSetting:
    """``"auto"`` (default), ``"off"``, or a number in [-1, 1] (cosine similarity).

    Booleans are refused (``true`` says nothing about which similarity), as are other
    words; the message names the setting and the spellings it takes.
    """
    if value is None:
        return FloorSetting(AUTO)
    if isinstance(value, str):
        word = value.strip().lower()
        if word == AUTO:
            return FloorSetting(AUTO)
        if word == OFF:
            return FloorSetting(OFF)
        try:
            number = float(word)
        except ValueError:
            number = math.nan
        if math.isnan(number):
            raise RelevanceFloorSettingError(_bad(value))
        value = number
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise RelevanceFloorSettingError(_bad(value))
    number = float(value)
    if not -1.0 <= number <= 1.0:
        raise RelevanceFloorSettingError(_bad(value))
    return FloorSetting("fixed", number)


def _bad(value: object) -> str:
    return (
        f'{SETTING} = {value!r:.40} cannot be used: write "auto" (a similarity calibrated '
        'for the embedder, the default), "off" (no floor: every nearest neighbour is shown), '
        "or a cosine similarity between -1 and 1 such as 0.35, in config.toml."
    )


def keyword_share(matched: Mapping[str, float], weights: Mapping[str, float]) -> float:
    """Share of the query's term weight (``weights``: term -> IDF) that a hit's terms
    (``matched``) hold. 0 for a query without terms."""
    total = sum(weights.values())
    if total <= 0:
        return 0.0
    return sum(weights[t] for t in matched if t in weights) / total


def judge(
    *,
    keyword_share: float | None,
    similarity: float | None,
    floor: float | None,
) -> str | None:
    """The evidence a candidate carries, or None when it carries none and must go.

    ``keyword_share`` is None when the keyword index did not find the candidate (or the
    keyword store cannot tell how much of the query it holds: then any keyword hit
    counts); ``similarity`` is None when the semantic signal did not list it. ``floor``
    None means no floor: every candidate is kept, labelled by what found it.
    """
    if floor is None:  # nothing is judged: say which signals found it
        words, meaning = keyword_share is not None, similarity is not None
    else:
        words = keyword_share is not None and keyword_share >= STRONG_KEYWORD_SHARE
        meaning = similarity is not None and similarity >= floor
    if words and meaning:
        return EVIDENCE_BOTH
    if words:
        return EVIDENCE_KEYWORD
    if meaning:
        return EVIDENCE_SEMANTIC
    return None


def agree(keyword_share: float | None, similarity: float | None, floor: float) -> bool:
    """Whether both signals found this candidate, each weakly: some of the query's words
    (:data:`AGREEMENT_SHARE`) and a similarity a little under the floor
    (:data:`AGREEMENT_BELOW_FLOOR`). Nonsense shares no word; an off-topic question shares
    a common one with fragments that mean something else, so its two signals rarely
    meet on the same fragment."""
    return (
        keyword_share is not None
        and similarity is not None
        and keyword_share >= AGREEMENT_SHARE
        and similarity >= floor - AGREEMENT_BELOW_FLOOR
    )


def near_floor(floor: float) -> float:
    """The least similarity to the query at which a memory fact under ``floor`` is kept
    beside a fact of its owner that the floor kept: the band of :func:`agree`
    (:data:`AGREEMENT_BELOW_FLOOR`), chosen for documents, not on memory's questions.

    Facts and the questions asked of them are short, and MiniLM puts the fact that answers
    an as-of question ("Where is our code hosted?": "In 2022 we kept everything on
    GitLab") a little under a floor calibrated on chat turns, while the owner's current
    fact clears it. Only a search where something was kept can gain one: a question about
    nothing (nonsense, another topic) still gets nothing, so abstention is unchanged."""
    return floor - AGREEMENT_BELOW_FLOOR


def select(
    candidates: Sequence[tuple[float | None, float | None]], floor: float | None
) -> list[str | None]:
    """The evidence label of each candidate (keyword share, similarity), best first, or None
    for one left out.

    The question "is anything here about this?" is asked of the query as a whole: when no
    candidate carries evidence (:func:`judge`) and the two signals agree on none
    (:func:`agree`), every one is left out. Otherwise the others stay if they hold at
    least one of the query's words (labelled ``"keyword"``: partial matches are how a
    multi-part question finds its evidence) and go only if they were found by meaning
    alone below the floor. Measured against judging each candidate on its own
    (docs/benchmarks-relevance-floor.md): the same false hits, and LoCoMo recall@10 0.745
    instead of 0.690 (0.747 without a floor).
    """
    labels = [judge(keyword_share=k, similarity=s, floor=floor) for k, s in candidates]
    if floor is None:
        return labels
    if not any(labels) and not any(agree(k, s, floor) for k, s in candidates):
        return [None] * len(labels)
    return [
        label if label is not None else (EVIDENCE_KEYWORD if share is not None else None)
        for label, (share, _) in zip(labels, candidates, strict=True)
    ]


__all__ = [
    "AGREEMENT_BELOW_FLOOR",
    "AGREEMENT_SHARE",
    "AUTO",
    "EVIDENCE_BOTH",
    "EVIDENCE_KEYWORD",
    "EVIDENCE_SEMANTIC",
    "EVIDENCE_SLOT",
    "EVIDENCE_VALUES",
    "OFF",
    "SETTING",
    "STRONG_KEYWORD_SHARE",
    "FloorSetting",
    "RelevanceFloorSettingError",
    "agree",
    "judge",
    "keyword_share",
    "near_floor",
    "parse_floor_setting",
    "select",
]
