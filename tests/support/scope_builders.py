"""Fragments and filters with every scope field (owner, collection, private), drawn at
random, for checking that the stores apply scope filters exactly as
:meth:`SearchFilters.matches` does."""

from __future__ import annotations

import random

from memex_core.domain import Fragment, Provenance, SearchFilters

OWNERS = ("", "users/alice", "users/bob", "shared")
COLLECTIONS = ("", "a", "a:b", "a:b:c")
SOURCES = ("chatgpt", "claude_ai", "memory")
CONVERSATIONS = ("c1", "c2", "c3")
ROLES = ("user", "assistant", "note")
T0 = 1_700_000_000.0


def make_fragment(
    index: int,
    *,
    owner: str = "",
    collection: str = "",
    private: bool = False,
    source_kind: str = "chatgpt",
    conversation_id: str = "c1",
    role: str = "user",
    timestamp: float | None = T0,
    extra: str = "",
) -> Fragment:
    # "common" is in every fragment (a keyword query that scores them all), "unique<i>"
    # in one only (a query whose text matches that fragment alone).
    return Fragment(
        id=f"frag-{index:04d}",
        conversation_id=conversation_id,
        role=role,
        content=f"common unique{index} {extra}".strip(),
        provenance=Provenance(source_kind, "memory.db", f"m{index}", f"loc{index}", timestamp),
        timestamp=timestamp,
        owner=owner,
        collection=collection,
        private=private,
    )


def random_fragments(rng: random.Random, count: int) -> list[Fragment]:
    return [
        make_fragment(
            i,
            owner=rng.choice(OWNERS),
            collection=rng.choice(COLLECTIONS),
            private=rng.random() < 0.3,
            source_kind=rng.choice(SOURCES),
            conversation_id=rng.choice(CONVERSATIONS),
            role=rng.choice(ROLES),
            timestamp=None if rng.random() < 0.2 else T0 + rng.choice([0, 1, 2]) * 60.5,
        )
        for i in range(count)
    ]


def random_filters(rng: random.Random) -> SearchFilters:
    def some(values: tuple[str, ...], unknown: str) -> tuple[str, ...]:
        if rng.random() < 0.4:
            return ()
        chosen = rng.sample(values, rng.randint(1, len(values)))
        return tuple(chosen) + ((unknown,) if rng.random() < 0.15 else ())

    def sometimes(values: tuple[str, ...]) -> tuple[str, ...]:
        return some(values, "no-such-value") if rng.random() < 0.3 else ()

    return SearchFilters(
        source_kinds=sometimes(SOURCES),
        conversation_ids=sometimes(CONVERSATIONS),
        roles=sometimes(ROLES),
        since=T0 + 60.5 if rng.random() < 0.15 else None,
        until=T0 + 60.5 if rng.random() < 0.15 else None,
        owners=some(OWNERS, "users/carol"),
        collections=some(COLLECTIONS, "a:x"),
        include_private=rng.random() < 0.4,
    )
