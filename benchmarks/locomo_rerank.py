"""Benchmark 4b's rerank levers (issue 33): learners, candidate depth, diversity, features.

Every figure is held out by conversation, as in :mod:`benchmarks.locomo_levers`: a model is
fitted on four development conversations and scores the fifth. Hyper-parameters (the
trees' settings, the diversity weight) are chosen inside the four training conversations
only (leave one of them out in turn), then refitted on all four and scored on the fifth.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from benchmarks import locomo_fusion as lf
from benchmarks.locomo_candidates import Study
from benchmarks.metrics import mean
from memex_rerank.features import NAMES

PerQuery = list[tuple[float, float]]
Learner = Callable[[], Any]  # () -> an unfitted sklearn classifier with decision_function

#: The trees' settings the inner folds choose among (iterations, learning rate, leaves).
TREE_SETTINGS = ((100, 0.1, 7), (200, 0.05, 7))
#: Session-diversity weights the inner folds choose among (0: the rerank's order as is).
DIVERSITY = (0.0, 0.25, 0.5)


def logistic() -> Any:
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(C=1.0, max_iter=5000)


def trees(iterations: int, rate: float, leaves: int) -> Learner:
    def make() -> Any:
        from sklearn.ensemble import HistGradientBoostingClassifier

        return HistGradientBoostingClassifier(
            max_iter=iterations,
            learning_rate=rate,
            max_leaf_nodes=leaves,
            min_samples_leaf=100,
            l2_regularization=1.0,
            early_stopping=False,
            random_state=0,
        )

    return make


class Pools:
    """Each question's candidate pool, its feature rows (numpy) and evidence labels."""

    def __init__(self, study: Study, pools: Sequence[Sequence[Any]], rows: Sequence[Any]) -> None:
        self.study = study
        self.pools = pools
        self.x = [np.asarray(r, dtype=float).reshape(len(r), len(NAMES)) for r in rows]
        self.y = []
        for q, pool in zip(study.questions, pools, strict=True):
            evidence = set(q.evidence)
            self.y.append(np.array([study.turns[h.id].dia_id in evidence for h in pool], int))

    def masked(self, kept: set[str]) -> Pools:
        """The same pools with the features outside ``kept`` set to 0 (left out)."""
        mask = np.array([name in kept for name in NAMES], dtype=float)
        out = Pools.__new__(Pools)
        out.study, out.pools, out.y = self.study, self.pools, self.y
        out.x = [x * mask for x in self.x]
        return out

    def fit(self, members: Sequence[int], make: Learner) -> Any:
        x = np.vstack([self.x[i] for i in members])
        y = np.concatenate([self.y[i] for i in members])
        return make().fit(x, y)

    def scores(self, members: Sequence[int], model: Any) -> dict[int, np.ndarray]:
        return {i: model.decision_function(self.x[i]) for i in members if len(self.x[i])}

    def ranked(self, index: int, scores: np.ndarray | None, diversity: float = 0.0) -> list[str]:
        """The best ten by score; with ``diversity``, each pick's score is lowered by that
        much per candidate of its session already picked (multi-hop evidence spreads)."""
        pool = self.pools[index]
        if scores is None:
            return []
        if not diversity:
            order = np.argsort(-scores, kind="stable")[:10]
            return [pool[j].id for j in order]
        left, picked, seen = list(range(len(pool))), [], {}  # type: ignore[var-annotated]
        turns = self.study.turns
        while left and len(picked) < 10:
            best = max(
                left,
                key=lambda j: (scores[j] - diversity * seen.get(turns[pool[j].id].session, 0), -j),
            )
            left.remove(best)
            picked.append(pool[best].id)
            session = turns[pool[best].id].session
            seen[session] = seen.get(session, 0) + 1
        return picked

    def outcome(
        self, index: int, scores: dict[int, np.ndarray], diversity: float = 0.0
    ) -> tuple[float, float]:
        q = self.study.questions[index]
        return lf.recalls(self.study, q, self.ranked(index, scores.get(index), diversity))


def _by_conversation(study: Study, members: Sequence[int]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for i in members:
        out.setdefault(study.questions[i].conversation, []).append(i)
    return out


def _inner(pools: Pools, train: Sequence[int], settings: Sequence[tuple[Learner, float]]) -> int:
    """Index of the setting (learner, diversity) with the best recall@10 when each training
    conversation is left out of the other training ones in turn (ties: the first)."""
    groups = _by_conversation(pools.study, train)
    totals = [0.0] * len(settings)
    for conv, held in groups.items():
        rest = [i for c, members in groups.items() if c != conv for i in members]
        learners = list(dict.fromkeys(make for make, _ in settings))
        scores = {make: pools.scores(held, pools.fit(rest, make)) for make in learners}
        for n, (make, diversity) in enumerate(settings):
            totals[n] += sum(pools.outcome(i, scores[make], diversity)[0] for i in held)
    return max(range(len(settings)), key=lambda n: (totals[n], -n))


def held_out(
    pools: Pools, settings: Sequence[tuple[Learner, float]], labels: Sequence[str] = ()
) -> tuple[PerQuery, dict[str, str]]:
    """Per question: scored by a model fitted on the other conversations, with the setting
    (learner, diversity) the inner folds chose when there is more than one; and the picks."""
    study = pools.study
    out: PerQuery = [(0.0, 0.0)] * len(study.questions)
    picks: dict[str, str] = {}
    everyone = range(len(study.questions))
    for conv, held in _by_conversation(study, everyone).items():
        train = [i for i in everyone if study.questions[i].conversation != conv]
        chosen = _inner(pools, train, settings) if len(settings) > 1 else 0
        make, diversity = settings[chosen]
        picks[conv] = labels[chosen] if labels else str(chosen)
        scores = pools.scores(held, pools.fit(train, make))
        for i in held:
            out[i] = pools.outcome(i, scores, diversity)
    return out, picks


def by_category(study: Study, per_query: PerQuery) -> dict[int, float]:
    cats = sorted({q.category for q in study.questions})
    return {
        c: mean([per_query[i][0] for i, q in enumerate(study.questions) if q.category == c])
        for c in cats
    }


def pool_recall(study: Study, pools: Sequence[Sequence[Any]]) -> float:
    """Share of the evidence anywhere in the pools (what any rerank of them can reach)."""
    found = []
    for q, pool in zip(study.questions, pools, strict=True):
        dia = {study.turns[h.id].dia_id for h in pool}
        found.append(mean([e in dia for e in q.evidence]))
    return mean(found)


__all__ = [
    "DIVERSITY",
    "TREE_SETTINGS",
    "Pools",
    "by_category",
    "held_out",
    "logistic",
    "pool_recall",
    "trees",
]
