"""benchmarks.scifact_gap: section 3's semantic path against exact cosine, split by step."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from benchmarks import scifact_gap
from memex_core.api import Memex

EXACT = {"q0": [f"d{n}" for n in range(10)], "q1": [f"e{n}" for n in range(10)]}


@dataclass
class Hit:
    key: str


class FakeMemex:
    """Floor off: the exact top 10. Floor on: q0's list cut after 5, q1 answered with
    nothing (semantic); hybrid at the defaults answers q0 in full and q1 with nothing."""

    def __init__(self, cache: dict[str, np.ndarray]) -> None:
        self.cache = cache

    def search(self, query: str, *, mode: str, limit: int, time_phrases: bool, **kw: Any) -> Any:
        assert query in self.cache  # embedded (and timed) before any search
        assert limit == 10 and time_phrases is False
        exact = EXACT[query]
        if kw.get("floor") == "off":
            return [Hit(k) for k in exact]
        if query == "q1":
            return []
        return [Hit(k) for k in (exact[:5] if mode == "semantic" else exact)]


def test_the_gap_is_split_into_abstentions_and_cut_tails() -> None:
    cache: dict[str, np.ndarray] = {}
    embedded: list[str] = []

    def embed(text: str) -> np.ndarray:
        embedded.append(text)
        return np.ones(3, dtype=np.float32)

    queries = ["q0", "q1"]
    gap = scifact_gap.measure(
        cast(Memex, FakeMemex(cache)),
        queries,
        [EXACT[q] for q in queries],
        lambda i, ranked: len(ranked) / 10,  # a stand-in for nDCG@10
        lambda r: cast(Any, r).key,
        embed,
        cache,
    )
    assert embedded == queries
    assert gap.default == [0.5, 0.0] and gap.floor_off == [1.0, 1.0] and gap.exact == [1.0, 1.0]
    assert gap.same_as_exact == 2 and gap.prefix_of_exact == 2 and gap.kept == [5, 0]
    assert gap.lost(lambda k: k == 0) == 0.5 and gap.lost(lambda k: 0 < k < 10) == 0.25
    assert gap.gated("semantic") == 0.5 and gap.gated("hybrid") == 0.5
    text = "\n".join(scifact_gap.blocks(gap, 0.417))
    assert "(0.250 against 1.000)" in text
    assert "for 2 of the 2 queries (nDCG@10 1.000)" in text
    assert "(cosine 0.417," in text
    assert (
        "| memex semantic, floor off (embedding, chroma HNSW, depth, score conversion) "
        "| 1.000 | 0.000 |" in text
    )
    assert (
        "| the floor answers 1 real claims with nothing (1 of them had a relevant abstract "
        "in the exact top 10) | - | -0.500 |" in text
    )
    assert "| the floor cuts the tail of 1 more lists | - | -0.250 |" in text
    assert "| memex semantic at its defaults (floor on) | 0.250 | -0.750 |" in text
    assert "0.500 at the defaults, 1.000 with it off" in text
    assert "semantic would score 0.500 and hybrid 0.500" in text
