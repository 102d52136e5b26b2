"""benchmarks.scifact_fusion: the convex ranker's weight is picked on train, scored on test."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import pytest

from benchmarks import scifact_fusion
from benchmarks.context import RunContext, Sizes
from benchmarks.quality import Outcome, Task
from memex_core.api import Memex
from memex_core.domain import SearchFilters


class FakeMemex:
    def __init__(self, home: Path) -> None:
        self.ranker = "convex" if "convex" in (home / "config.toml").read_text() else "rrf"

    def close(self) -> None:
        pass


def task(name: str) -> Task:
    return Task([name], [SearchFilters()], lambda i, ranked: 0.0, lambda r: "")


def test_the_weight_is_picked_on_train_and_only_it_is_scored_on_test(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ctx = RunContext(tmp=tmp_path, sizes=Sizes.quick(), quick=True)
    home = ctx.home("scifact")
    monkeypatch.setattr(ctx, "memex", FakeMemex)
    asked: list[tuple[str, str, float | None]] = []
    # On train the convex ranker does best at 0.55; test would prefer 0.7 (never asked).
    figures: dict[tuple[str, float | None], float] = {
        ("train", 0.55): 0.75,
        ("test", 0.55): 0.73,
        ("test", 0.7): 0.9,
    }

    def evaluate(mx: Any, t: Task, mode: str, weight: float | None = None) -> Outcome:
        asked.append((mx.ranker, t.queries[0], weight))
        value = 0.7 if mx.ranker == "rrf" else figures.get((t.queries[0], weight), 0.6)
        return Outcome(value, [value], 0.0)

    monkeypatch.setattr(scifact_fusion, "evaluate", evaluate)
    mx, blocks = scifact_fusion.convex_vs_rrf(
        ctx, cast(Memex, FakeMemex(home)), home, task("train"), task("test"), 0.72
    )
    assert ("rrf", "train", None) in asked
    assert [a for a in asked if a[1] == "test"] == [("convex", "test", 0.55)]
    assert mx.ranker == "rrf"  # the home's config is back to the defaults
    text = "\n".join(blocks)
    assert "| rrf (the default), semantic_weight 0.4 | 0.700 | 0.720 |" in text
    assert "| convex, semantic_weight 0.55 (picked on train) | 0.750 | 0.730 |" in text
    assert "| convex, semantic_weight 0.7 | 0.600 | - |" in text
