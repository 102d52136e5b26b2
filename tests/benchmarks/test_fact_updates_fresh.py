"""The fresh held-out split of the knowledge-update set (issue 30): loads and is sound."""

from __future__ import annotations

from collections import Counter

from benchmarks.fact_updates_cases import (
    FRESH,
    FRESH_FILE,
    LATE,
    UNRELATED,
    UPDATE,
    WITH_FRESH,
    check,
    load,
)


def test_the_fresh_split_loads_sound_with_unique_ids() -> None:
    fresh = load((FRESH_FILE,))
    assert all(c.split == FRESH and c.source == "fresh" for c in fresh)
    assert all(check(c) == [] for c in fresh)
    ids = [c.id for c in load(WITH_FRESH)]
    assert len(set(ids)) == len(ids)
    kinds = Counter(c.type for c in fresh)
    assert len(fresh) >= 300
    assert kinds[UPDATE] >= 140 and kinds[LATE] >= 35 and kinds[UNRELATED] >= 110
