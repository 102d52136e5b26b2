"""The supersession judge's candidates: how many hits their search asks the vector index
for (few: a filtered vector search costs more the more it is asked for), and that the
current fact is still found behind many closed predecessors."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from memex_core.domain import SearchFilters
from memex_core.domain.memory.records import OPERATOR, Actor, Scope
from memex_core.services.supersession import CANDIDATES, Nearest
from tests.support.supersession_doubles import LivesInJudge, timed_memex

DAY = 86400.0
T0 = 1_700_000_000.0


class NoMemories:
    def memories_by_fragment(self, scope: Scope, fragment_ids: Sequence[str]) -> dict[str, str]:
        return {}


def test_the_candidates_search_asks_for_few_more_hits_than_it_needs() -> None:
    asked: list[int] = []

    def nearest(text: str, filters: SearchFilters, limit: int) -> list[tuple[str, float]]:
        asked.append(limit)
        return []

    find = Nearest(NoMemories(), nearest)
    scope = Scope(Actor(OPERATOR, "test"), None, None)
    assert find(scope, "alice", "", "Alice lives in Paris") == []
    assert find(scope, "alice", "", "Alice lives in Paris", exclude=["a", "b"], limit=3) == []
    assert asked == [2 * CANDIDATES + 4, 2 * 3 + 2 + 4]


def test_the_current_fact_is_found_behind_a_dozen_closed_ones(memex_home: Path) -> None:
    judge = LivesInJudge()
    mx = timed_memex(memex_home, judge)
    try:
        cities = [f"City{n}" for n in range(13)]
        ids = [
            mx.remember(f"Alice moved to {city}", user="alice", at=T0 + n * DAY).memory_ids[0]
            for n, city in enumerate(cities)
        ]
        last = mx.remember("Alice moved to Lisbon", user="alice", at=T0 + 20 * DAY)
        assert mx.operator().get(ids[-1]).superseded_by == last.memory_ids[0]
        assert [h.text for h in mx.recall("where does alice live", user="alice")][:1] == [
            "Alice moved to Lisbon"
        ]
    finally:
        mx.close()
