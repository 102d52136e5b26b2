"""The features of benchmark 21e's study (:mod:`benchmarks.fact_updates_reorder`): which of
two memory hits of one owner should lead a search for current facts (issue 30).

For the top memory hit T and a lower hit H that became true after T, what recall's
newer-first step (:mod:`memex_core.services.newer_first`) reads or could read: the
question's cosine to each, their mutual cosine, places and fused scores, the slot
reading's picks, the change readings newer-first uses, and the days between them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from math import log1p, sqrt

from memex_core.domain.memory.answer_kind import answer_kind
from memex_core.domain.memory.change_words import (
    announces_change,
    asks_how_things_stand,
    echoes_change,
    names_change,
)
from memex_core.domain.memory.quantity_series import same_series
from memex_core.domain.memory.question_cover import adds_asked_word

DAY = 86400.0
#: A distance ratio past this is as good as infinite (a later fact nowhere near the question).
MAX_RATIO = 5.0

#: The features of a (top, lower) pair, in the order of a row.
FEATURES = (
    "question_cosine_top",  # the question's cosine to T's vector (the semantic score)
    "question_cosine_lower",  # the same for H
    "distance_ratio",  # H's distance from the question (1 - cosine) over T's, capped
    "mutual_cosine",  # T's and H's stored vectors
    "position",  # H's place under T among the hits (1: just under)
    "score_ratio",  # H's fused score over T's
    "slot_top",  # the question's slot reading picked T
    "slot_lower",  # ... picked H
    "lower_announces_change",  # H says it is a change ("now", "no longer", "from X to Y")
    "lower_names_change",  # H names its change with a verb ("migrated", "cancelled")
    "lower_echoes_top",  # H names a word of T the question lacks, with a change
    "same_series",  # H carries a new point of a series of numbers T told
    "lower_adds_asked_word",  # H holds a word of the question T lacks
    "both_typed",  # both carry the kind of answer the question asks for
    "asks_how_things_stand",  # the question asks for the latest ("now", "currently")
    "days_apart",  # log(1 + days from T's valid_from to H's)
    "keyword_top",  # the keyword signal found T
    "keyword_lower",  # ... found H
)


@dataclass(frozen=True)
class LeadHit:
    """What the features read of one memory hit."""

    text: str
    owner: str | None
    semantic: float
    valid_from: float
    score: float
    slot: bool
    keyword: bool
    vector: Sequence[float] | None


class LeadQuestion:
    """The readings of the question, made once per search."""

    def __init__(self, query: str) -> None:
        self.kind = answer_kind(query)
        self.standing = asks_how_things_stand(query)
        self.echoes: Callable[[str, str], bool] = partial(echoes_change, query)
        self.asked: Callable[[str, str], bool] = partial(adds_asked_word, query)


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    norm = sqrt(sum(x * x for x in a)) * sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


def lead_features(
    question: LeadQuestion, top: LeadHit, lower: LeadHit, position: int
) -> list[float]:
    """The :data:`FEATURES` of ``lower`` (H, ``position`` places under) against ``top`` (T)."""
    a, b = top.text, lower.text
    mutual = (
        _cosine(top.vector, lower.vector)
        if top.vector is not None and lower.vector is not None
        else 0.0
    )
    kind = question.kind
    return [
        top.semantic,
        lower.semantic,
        min((1.0 - lower.semantic) / max(1.0 - top.semantic, 1e-6), MAX_RATIO),
        mutual,
        float(position),
        lower.score / top.score if top.score else 0.0,
        float(top.slot),
        float(lower.slot),
        float(announces_change(b)),
        float(names_change(b)),
        float(question.echoes(a, b)),
        float(same_series(a, b)),
        float(question.asked(a, b)),
        float(kind is not None and kind(a) and kind(b)),
        float(question.standing),
        log1p(max(lower.valid_from - top.valid_from, 0.0) / DAY),
        float(top.keyword),
        float(lower.keyword),
    ]
