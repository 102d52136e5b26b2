"""benchmarks.scifact_rerank: models are fitted on SciFact's train queries only, test is
scored once, and the kind-of-fragment feature is added alone or multiplied in."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from benchmarks import scifact_rerank as sr
from benchmarks.locomo_candidates import Candidates
from benchmarks.scifact_candidates import Query, SciStudy
from memex_core.domain.chunking import message_fragments


def study_of(splits: list[str]) -> tuple[SciStudy, sr.Rows]:
    """One query per split entry; each pool holds documents a (relevant) and b."""
    fragments = {}
    for doc in ("a", "b"):
        (f,) = message_fragments(
            source_kind="test",
            source_path="x",
            conversation_id=f"c-{doc}",
            message_id=doc,
            role="user",
            text=doc,
            timestamp=None,
            title=None,
        )
        fragments[f.id] = f
    ids = {f.content: f.id for f in fragments.values()}
    queries = [
        Query(str(n), split, Candidates(f"q{n}", "scifact", 0, [], [], [], []), {"a": 1.0})
        for n, split in enumerate(splits)
    ]
    study = SciStudy(fragments, {f.id: f.content for f in fragments.values()}, queries, None)
    # feature 0 says "relevant" on train queries; on test queries it points at b instead
    xs = [
        np.array([[1.0], [0.0]]) if split == "train" else np.array([[0.0], [1.0]])
        for split in splits
    ]
    ys = [np.array([1, 0]) for _ in splits]
    return study, sr.Rows([[ids["a"], ids["b"]] for _ in splits], xs, ys)


class Recording:
    """A learner that remembers every row it was fitted on and scores by feature 0."""

    seen: ClassVar[list[np.ndarray]] = []

    def fit(self, x: np.ndarray, y: np.ndarray) -> Recording:
        Recording.seen.append(x)
        return self

    def decision_function(self, x: np.ndarray) -> Any:
        return x[:, 0]


def test_nothing_is_fitted_on_the_test_queries() -> None:
    study, rows = study_of(["train"] * 10 + ["test"] * 3)
    Recording.seen = []
    cv = sr.train_cv(study, rows, Recording)
    test = sr.on_test(study, rows, Recording)
    fitted = np.vstack(Recording.seen)
    assert len(Recording.seen) == sr.FOLDS + 1
    assert (fitted[::2, 0] == 1.0).all()  # every fitted pool is a train query's
    assert cv == 1.0  # a ranks first on every train query
    assert test < 1.0  # ... and second on the test queries, scored as they come


def test_the_kind_feature_alone_or_multiplied_in() -> None:
    _, rows = study_of(["train"])
    alone = rows.tagged(1.0, interact=False).x[0]
    both = rows.tagged(1.0, interact=True).x[0]
    turns = rows.tagged(0.0, interact=True).x[0]
    assert alone.tolist() == [[1.0, 1.0], [0.0, 1.0]]
    assert both.tolist() == [[1.0, 1.0, 1.0], [0.0, 0.0, 1.0]]
    assert turns.tolist() == [[1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
