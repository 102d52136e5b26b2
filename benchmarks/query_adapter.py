"""A query-side linear adapter on MiniLM vectors (issue 33, study).

The stored vectors stay as they are; at query time the question's vector ``q`` becomes
``normalize(W q)`` with ``W = I + A``. Two fits, both numpy/torch on cached vectors:

- :func:`fit_softmax`: a contrastive loss over each question's candidates (every turn of
  its conversation, or a document pool): ``-log`` of the softmax mass of its evidence at
  temperature :data:`TAU`, plus ``strength * ||A||^2`` (the pull toward the identity).
- :func:`fit_ridge`: closed form, ``W q`` pulled toward the mean evidence vector with a
  ridge penalty ``strength * ||W - I||^2``.

A group is one set of candidates shared by some questions (a LoCoMo conversation's turns,
or SciFact's abstracts): ``(D, [(q, positives), ...])`` with ``D`` the candidates' unit
vectors and ``positives`` the row indexes of a question's evidence in ``D``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from benchmarks.data import REPO_ROOT

#: Query vectors of the study (questions, generated queries), cached between runs.
CACHE = REPO_ROOT / ".memex-bench" / "query-adapter"
#: Strengths of the contrastive fit the inner folds choose among.
STRENGTHS = (0.03, 0.1, 0.3, 1.0)

#: Softmax temperature of the contrastive fit (cosines are in [-1, 1]).
TAU = 0.05
#: Adam steps and rate of the contrastive fit (full batch).
STEPS, RATE = 150, 0.003

Group = tuple[np.ndarray, list[tuple[np.ndarray, list[int]]]]


def cached_queries(path: Path, texts: Sequence[str]) -> np.ndarray:
    """Query vectors as memex embeds them, cached in ``path``."""
    if path.exists():
        return np.load(path)
    from benchmarks.locomo_units import Vectors

    vectors = Vectors().queries(texts)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, vectors)
    return vectors


def cached_fit(name: str, make: Callable[[], np.ndarray]) -> np.ndarray:
    """A fitted ``W`` kept on disk under ``name`` (with the fit's constants), so a re-run of
    the study replays instead of refitting."""
    key = hashlib.sha1(f"{name}|{TAU}|{STEPS}|{RATE}".encode()).hexdigest()[:16]
    path = CACHE / "fits" / f"{key}.npy"
    if path.exists():
        return np.load(path)
    w = make()
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, w)
    return w


def unit(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def apply(w: np.ndarray | None, queries: np.ndarray) -> np.ndarray:
    """The adapted unit query vectors (``w`` None: the queries as they are)."""
    return unit(queries if w is None else queries @ w.T)


def fit_ridge(groups: Sequence[Group], strength: float) -> np.ndarray:
    """``W`` minimising ``sum ||W q - mean evidence||^2 + strength ||W - I||^2``."""
    qs, targets = [], []
    for docs, questions in groups:
        for q, positives in questions:
            qs.append(q)
            targets.append(unit(docs[list(positives)].mean(axis=0)))
    x, y = np.asarray(qs), np.asarray(targets)
    eye = np.eye(x.shape[1])
    wt = np.linalg.solve(x.T @ x + strength * eye, x.T @ y + strength * eye)
    return np.ascontiguousarray(wt.T)


def fit_softmax(
    groups: Sequence[Group], strength: float, steps: int = STEPS, rank: int = 0
) -> np.ndarray:
    """``W = I + A`` fitted by the contrastive loss (``rank`` > 0: ``A = U V^T``)."""
    import torch

    torch.manual_seed(0)
    torch.set_num_threads(1)  # the bench shares its cores
    dim = groups[0][0].shape[1]
    batches = []
    for docs, questions in groups:
        if not questions:
            continue
        q = torch.tensor(np.asarray([q for q, _ in questions]), dtype=torch.float32)
        mask = torch.zeros(len(questions), docs.shape[0], dtype=torch.bool)
        for n, (_, positives) in enumerate(questions):
            mask[n, list(positives)] = True
        batches.append((q, torch.tensor(docs, dtype=torch.float32), mask))
    count = sum(len(q) for q, _, _ in batches)
    if rank:
        u = (0.01 * torch.randn(dim, rank)).requires_grad_()
        v = (0.01 * torch.randn(dim, rank)).requires_grad_()
        params = [u, v]
    else:
        a = torch.zeros(dim, dim, requires_grad=True)
        params = [a]
    optimiser = torch.optim.Adam(params, lr=RATE)
    eye = torch.eye(dim)
    for _ in range(steps):
        optimiser.zero_grad()
        correction = u @ v.T if rank else a
        w = eye + correction
        loss = strength * (correction**2).sum()
        for asked, candidates, mask in batches:
            adapted = torch.nn.functional.normalize(asked @ w.T, dim=1)
            logits = adapted @ candidates.T / TAU
            everything = torch.logsumexp(logits, dim=1)
            evidence = torch.logsumexp(logits.masked_fill(~mask, -1e9), dim=1)
            loss = loss + (everything - evidence).sum() / count
        loss.backward()
        optimiser.step()
    with torch.no_grad():
        return (eye + (u @ v.T if rank else a)).numpy().astype(np.float64)


def fit(kind: str, groups: Sequence[Group], strength: float) -> np.ndarray:
    if kind == "ridge":
        return fit_ridge(groups, strength)
    return fit_softmax(groups, strength)


__all__ = [
    "CACHE",
    "STRENGTHS",
    "TAU",
    "cached_fit",
    "cached_queries",
    "Group",
    "apply",
    "fit",
    "fit_ridge",
    "fit_softmax",
    "unit",
]
