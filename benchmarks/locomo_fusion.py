"""Hybrid search re-played on cached candidates, and leave-one-conversation-out scoring.

:func:`hybrid` does what ``SearchService.hybrid`` does with the signals a question's
candidates hold (each cut to the candidate depth, fused by memex's RRF, judged by the
relevance floor, the best ten kept), so a fusion or rerank setting is scored without a
search. :func:`cross_validate` picks a setting on four conversations and scores it on
the fifth, for each conversation in turn.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from benchmarks.locomo_candidates import Candidates, Study
from benchmarks.metrics import mean, recall_at_k
from memex_core.domain import KEYWORD, SEMANTIC, FusedHit, SignalHit
from memex_core.domain.relevance import select
from memex_rrf import ReciprocalRankFusion

K = TypeVar("K", bound=Hashable)


@dataclass(frozen=True)
class Fusion:
    weight: float = 0.4  # semantic share
    rrf_k: float = 10.0
    depth: int = 40
    plain: bool = False  # the keyword signal reads the question without its question words
    prf: bool = False  # the keyword signal reads the question with feedback terms (lever 5)


def keyword_side(q: Candidates, fusion: Fusion) -> tuple[list[tuple[str, float]], dict]:
    """The keyword hits the setting reads, and their query shares (for the floor)."""
    if fusion.prf:
        return q.keyword_prf, q.shares_prf
    if fusion.plain and q.keyword_plain:
        return q.keyword_plain, q.shares_plain
    return q.keyword, q.shares


def signals(q: Candidates, fusion: Fusion) -> dict[str, list[SignalHit]]:
    keyword = keyword_side(q, fusion)[0]
    return {
        KEYWORD: [SignalHit(i, s) for i, s in keyword[: fusion.depth]],
        SEMANTIC: [SignalHit(i, s) for i, s in q.semantic[: fusion.depth]],
    }


def fused_pool(q: Candidates, fusion: Fusion, floor: float | None) -> list[FusedHit]:
    """The fused candidates the floor keeps, best first (up to twice the depth)."""
    ranker = ReciprocalRankFusion(fusion.rrf_k)
    fused = ranker.fuse(
        signals(q, fusion), {KEYWORD: 1 - fusion.weight, SEMANTIC: fusion.weight}, fusion.depth * 2
    )
    shares = keyword_side(q, fusion)[1]
    labels = select(
        [(shares.get(h.id), h.scores.get(SEMANTIC)) for h in fused],
        floor,
    )
    return [h for h, label in zip(fused, labels, strict=True) if label is not None]


def hybrid(q: Candidates, fusion: Fusion, floor: float | None) -> list[str]:
    return [h.id for h in fused_pool(q, fusion, floor)[:10]]


def recalls(study: Study, q: Candidates, ranked: Sequence[str]) -> tuple[float, float]:
    dia = [study.turns[i].dia_id for i in ranked]
    return recall_at_k(dia, q.evidence, 10), recall_at_k(dia, q.evidence, 5)


def conversations(study: Study) -> list[str]:
    return list(dict.fromkeys(q.conversation for q in study.questions))


@dataclass
class Folds:
    """Held-out recall per conversation (and what was picked on the others)."""

    at10: dict[str, float]
    at5: dict[str, float]
    picked: dict[str, str]

    @property
    def mean10(self) -> float:
        return mean(list(self.at10.values()))

    @property
    def mean5(self) -> float:
        return mean(list(self.at5.values()))

    @property
    def micro10(self) -> float:
        return mean(list(self.at10.values()))


def score_all(
    study: Study, rank: Callable[[Candidates], Sequence[str]]
) -> list[tuple[float, float]]:
    return [recalls(study, q, rank(q)) for q in study.questions]


def fixed(study: Study, per_query: list[tuple[float, float]], label: str = "-") -> Folds:
    """A setting nothing was tuned for, scored per conversation."""
    at10, at5 = {}, {}
    for conv in conversations(study):
        members = [i for i, q in enumerate(study.questions) if q.conversation == conv]
        at10[conv] = mean([per_query[i][0] for i in members])
        at5[conv] = mean([per_query[i][1] for i in members])
    return Folds(at10, at5, dict.fromkeys(at10, label))


def cross_validate(
    study: Study,
    outcomes: dict[K, list[tuple[float, float]]],
    describe: Callable[[K], str] = str,
) -> Folds:
    """For each conversation: the setting with the best recall@10 on the other four
    (ties: the first listed), scored on it."""
    at10, at5, picked = {}, {}, {}
    for conv in conversations(study):
        held = [i for i, q in enumerate(study.questions) if q.conversation == conv]
        train = [i for i, q in enumerate(study.questions) if q.conversation != conv]
        best = max(outcomes, key=lambda key: mean([outcomes[key][i][0] for i in train]))
        at10[conv] = mean([outcomes[best][i][0] for i in held])
        at5[conv] = mean([outcomes[best][i][1] for i in held])
        picked[conv] = describe(best)
    return Folds(at10, at5, picked)


def micro(per_query: list[tuple[float, float]]) -> tuple[float, float]:
    return mean([a for a, _ in per_query]), mean([b for _, b in per_query])
