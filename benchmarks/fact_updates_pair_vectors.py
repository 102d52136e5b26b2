"""Study: can a classifier over the MiniLM vectors of two facts tell an update from a pair
that must both stay current (issue 30)? A study, not a shipped component.

The scalar-feature detector (:mod:`benchmarks.fact_updates_train`, section 21d) reads a pair
through cosine, overlap and cues. This asks whether the vectors themselves carry more: for an
earlier fact A and a later fact B of one case, the features are ``a * b`` and ``|a - b|``
(768 numbers, unit vectors) and their cosine; a logistic regression (scikit-learn, balanced
classes) is fitted on some tuning splits and scored on another, never on fresh. Labels: a
pair of an update case is an update; a late-fact pair, an unrelated pair, and a *cross* pair
(facts of two cases about the same subject, of different kinds: "I work at Ledgerly" / "I
ride an old Raleigh", which one user may well say both of) must not close. What counts for
``remember`` is the updates caught at a wrong-closing rate near zero, so the report gives the
share of updates scored above the highest-scored 1%, 0.5% and 0% of each negative kind.

    python -m benchmarks.fact_updates_pair_vectors [--c 0.3,1,3]

Findings (2026-11-29, 1 run; MiniLM vectors as the memory search's):

- trained on dev + test + broad, scored on blind: AUC 0.70 (C 0.3-3); at 1% of blind's
  unrelated pairs closed it catches 3-12% of blind's updates, at 0% 0.4-6%; at 1% of the
  cross pairs, 0%;
- trained on dev + test + blind, scored on broad: AUC 0.77; at 1% of unrelated pairs 1-3%
  of updates, at 1% of cross pairs 0-0.4%.

The rules judge alone closes 23% of blind's updates exactly and 1 of 188 pairs wrongly: the
vectors of two facts do not tell "moved to Manchester" after "lives in Leeds" from "loves the
museums in Leeds" well enough to close anything at remember's precision, so no detector over
them is shipped.
"""

from __future__ import annotations

import argparse
import itertools
import random
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from benchmarks.context import RunContext, Sizes
from benchmarks.fact_updates_cases import FRESH, TUNING_FILES, UPDATE, Case, load

#: Negative kinds, each scored on its own.
KINDS = ("unrelated", "late", "cross")
#: (trained on, scored on): blind held out, then broad.
FOLDS = ((("dev", "test", "broad"), ("blind",)), (("dev", "test", "blind"), ("broad",)))
#: At most this many cross pairs per subject (seeded).
CROSS_PER_SUBJECT = 400


def _vectors(cases: Sequence[Case]) -> dict[str, np.ndarray]:
    texts = sorted({fact.text for case in cases for fact in case.facts})
    with tempfile.TemporaryDirectory(prefix="pair-vectors-") as tmp:
        context = RunContext(tmp=Path(tmp), sizes=Sizes.quick(), quick=False)
        found = np.asarray(context.inner_embedder().embed_documents(texts), dtype=np.float64)
    found /= np.linalg.norm(found, axis=1, keepdims=True)
    return dict(zip(texts, found, strict=True))


def _row(vectors: dict[str, np.ndarray], earlier: str, later: str) -> np.ndarray:
    a, b = vectors[earlier], vectors[later]
    return np.concatenate([a * b, np.abs(a - b), [float(a @ b)]])


def pairs(
    cases: Sequence[Case], splits: Sequence[str], vectors: dict[str, np.ndarray]
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Rows, labels (1: an update) and each row's kind (``update`` or one of :data:`KINDS`)."""
    rows, labels, kinds = [], [], []
    mine = [case for case in cases if case.split in splits]
    for case in mine:
        for first, second in itertools.combinations(range(len(case.facts)), 2):
            rows.append(_row(vectors, case.facts[first].text, case.facts[second].text))
            labels.append(int(case.type == UPDATE))
            kinds.append(case.type if case.type != UPDATE else "update")
    chance = random.Random(7)
    by_subject: dict[str, list[Case]] = {}
    for case in mine:
        by_subject.setdefault(case.subject.lower(), []).append(case)
    for group in by_subject.values():
        if len(group) < 2:
            continue
        for _ in range(min(CROSS_PER_SUBJECT, 2 * len(group))):
            one, other = chance.sample(group, 2)
            if one.kind == other.kind:
                continue  # two cases of one kind may well be one change
            earlier, later = chance.choice(one.facts).text, chance.choice(other.facts).text
            rows.append(_row(vectors, earlier, later))
            labels.append(0)
            kinds.append("cross")
    return np.asarray(rows), np.asarray(labels), kinds


def study(
    cases: Sequence[Case],
    vectors: dict[str, np.ndarray],
    train: Sequence[str],
    test: Sequence[str],
    strength: float,
) -> list[str]:
    """The report lines of one fit: trained on ``train`` splits, scored on ``test``."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score

    x_train, y_train, _ = pairs(cases, train, vectors)
    x_test, y_test, kinds = pairs(cases, test, vectors)
    model = LogisticRegression(C=strength, max_iter=3000, class_weight="balanced")
    scores = model.fit(x_train, y_train).predict_proba(x_test)[:, 1]
    lines = [
        f"train {'+'.join(train)} -> {'+'.join(test)}, C {strength:g}: "
        f"AUC {roc_auc_score(y_test, scores):.3f}"
    ]
    updates = scores[y_test == 1]
    for kind in KINDS:
        negative = scores[np.asarray([k == kind for k in kinds])]
        if not len(negative):
            continue
        caught = []
        for share in (0.01, 0.005, 0.0):
            threshold = np.quantile(negative, 1 - share) if share else negative.max()
            caught.append(f"{share:.1%} -> {(updates > threshold).mean():.3f}")
        lines.append(f"  {kind} ({len(negative)}): updates caught at " + ", ".join(caught))
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--c", default="0.3,1,3", help="regularisation strengths to try")
    args = parser.parse_args(argv)
    cases = [case for case in load(TUNING_FILES) if case.split != FRESH]
    vectors = _vectors(cases)
    for strength in (float(value) for value in args.c.split(",")):
        for train, test in FOLDS:
            print("\n".join(study(cases, vectors, train, test, strength)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
