"""Fragments, unit vectors and the exact rankings the vector-store tests compare against."""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np

from memex_core.domain import Fragment, Provenance, SearchFilters

DIM = 16
KINDS = ("chatgpt", "claude_ai", "codex")
CONVERSATIONS = ("c1", "c2", "c3", "c4")
ROLES = ("user", "assistant", "system")
T0 = 1_700_000_000.0


def make_fragment(
    index: int,
    *,
    source_kind: str = "chatgpt",
    conversation_id: str = "conv-1",
    role: str = "user",
    timestamp: float | None = 1_700_000_000.0,
) -> Fragment:
    return Fragment(
        id=f"frag-{index:04d}",
        conversation_id=conversation_id,
        role=role,
        content=f"text {index}",
        provenance=Provenance(
            source_kind=source_kind,
            source_path="export.json",
            source_id=f"msg-{index}",
            locator=f"{conversation_id}/msg-{index}",
            timestamp=timestamp,
        ),
        timestamp=timestamp,
    )


def unit_vectors(count: int, dim: int = DIM, seed: int = 0) -> np.ndarray:
    vectors = np.random.default_rng(seed).normal(size=(count, dim)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def expected_ranking(
    query: np.ndarray, vectors: np.ndarray, fragments: Sequence[Fragment]
) -> list[tuple[str, float]]:
    scores = vectors @ query
    order = np.argsort(-scores, kind="stable")
    return [(fragments[i].id, float(scores[i])) for i in order]


def random_fragments(rng: random.Random, count: int) -> list[Fragment]:
    fragments = []
    for i in range(count):
        # A quarter have no timestamp; some share one exactly, to probe inclusive bounds.
        timestamp = None if rng.random() < 0.25 else T0 + rng.choice([0, 1, 2, 3]) * 3600.5
        fragments.append(
            make_fragment(
                i,
                source_kind=rng.choice(KINDS),
                conversation_id=rng.choice(CONVERSATIONS),
                role=rng.choice(ROLES),
                timestamp=timestamp,
            )
        )
    return fragments


def random_filters(rng: random.Random) -> SearchFilters:
    def some(values: tuple[str, ...]) -> tuple[str, ...]:
        if rng.random() < 0.5:
            return ()
        return tuple(rng.sample(values, rng.randint(1, len(values) - 1)))

    def bound() -> float | None:
        return None if rng.random() < 0.5 else T0 + rng.choice([-1, 0, 1, 2, 3, 4]) * 3600.5

    return SearchFilters(
        source_kinds=some(KINDS),
        conversation_ids=some(CONVERSATIONS)
        + (("no-such-conversation",) if rng.random() < 0.1 else ()),
        roles=some(ROLES),
        since=bound(),
        until=bound(),
    )
