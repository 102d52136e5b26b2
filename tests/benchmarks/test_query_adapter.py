"""The query adapter of benchmark 4d on synthetic vectors (no data set, no model): off is
the query as it is, a strong pull keeps W at the identity, and a fit learns a hidden map
from questions to their evidence that held-out questions then benefit from."""

from __future__ import annotations

import numpy as np

from benchmarks import query_adapter as qa


def synthetic(seed: int, count: int = 60, dim: int = 8) -> tuple[np.ndarray, list[qa.Group]]:
    """Documents, and questions whose evidence is the document nearest a hidden rotation of
    the question (so the raw cosine often misses it and a linear map finds it)."""
    rng = np.random.default_rng(seed)
    docs = qa.unit(rng.normal(size=(40, dim)))
    hidden = np.linalg.qr(np.random.default_rng(99).normal(size=(dim, dim)))[0]
    questions = []
    for _ in range(count):
        q = qa.unit(rng.normal(size=dim))
        evidence = int(np.argmax(docs @ (hidden @ q)))
        questions.append((q, [evidence]))
    return docs, [(docs, questions)]


def top1(w: np.ndarray | None, groups: list[qa.Group]) -> float:
    docs, questions = groups[0]
    hits = [int(np.argmax(docs @ qa.apply(w, q[None])[0])) in ev for q, ev in questions]
    return float(np.mean(hits))


def test_without_an_adapter_the_query_is_only_normalised() -> None:
    q = np.array([[3.0, 4.0]])
    assert np.allclose(qa.apply(None, q), [[0.6, 0.8]])
    assert np.allclose(qa.apply(np.eye(2), q), [[0.6, 0.8]])


def test_a_strong_pull_keeps_the_identity() -> None:
    _, groups = synthetic(1)
    assert np.allclose(qa.fit_ridge(groups, 1e9), np.eye(8), atol=1e-6)
    assert np.allclose(qa.fit_softmax(groups, 1e6, steps=20), np.eye(8), atol=1e-3)


def test_fits_learn_a_map_that_helps_held_out_questions() -> None:
    _, train = synthetic(1, count=300)
    docs, held = synthetic(2)
    held = [(docs, held[0][1])]
    before = top1(None, held)
    assert top1(qa.fit_softmax(train, 0.0, steps=400), held) > before + 0.4
    assert top1(qa.fit_ridge(train, 0.1), held) > before + 0.4
