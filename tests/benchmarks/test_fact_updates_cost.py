"""Sections 21b and 21c (benchmarks/fact_updates_cost.py): built from the standalone
benchmarks' figures, stored with their run and assembled into the page (a temporary store:
the committed page is left alone)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarks.fact_updates_cost import (
    COST_KEY,
    RECALL_KEY,
    Timer,
    cost_section,
    recall_section,
    store,
)


def _home(p50: float, ratio: float, closed: int | None) -> dict[str, Any]:
    return {
        "calls": 300,
        "p50_ms": p50,
        "p95_ms": p50 * 2,
        "mean_ms": p50 * 1.1,
        "first_call_s": 1.0,
        "actions": {"ADD": 300},
        "closed_facts": closed,
        "p50_vs_before": ratio,
    }


COST: dict[str, Any] = {
    "facts": 10_000,
    "timed": 300,
    "users": 50,
    "fill": {"filled": 10_000, "seconds": 600.0, "reused": True},
    "homes": {
        "before issue 30": _home(206.5, 1.0, None),
        "today": _home(287.4, 1.392, 0),
        "today, supersession off": _home(204.1, 0.988, 0),
    },
}


def _figures(closed: int, same: int, rate: float, active: int) -> dict[str, Any]:
    return {
        "closed": closed,
        "closed_same_fact": same,
        "closed_other_fact": closed - same,
        "same_fact_examples": [["Alice goes to yoga on Wednesdays", "every Wednesday"]][:same],
        "other_fact_examples": [["Alice's team works with Python", "with Kafka"]],
        "active": active,
        "lost": 0,
        "duplicate_rate": rate,
        "recall_at_1": 0.977,
        "recall_at_5": 1.0,
        "asked": 1000,
    }


RECALL: dict[str, Any] = {
    "facts": 1000,
    "texts": 2000,
    "rules": {
        "after_remember": _figures(48, 3, 0.46, 1876),
        "after_dream": _figures(48, 3, 0.051, 1054),
    },
    "none": {
        "after_remember": _figures(0, 0, 0.46, 1876),
        "after_dream": _figures(0, 0, 0.014, 1014),
    },
}


def test_the_cost_section_checks_the_issues_bound() -> None:
    section = cost_section(COST)
    (check,) = section.checks
    assert check.figure.startswith("1.39x (287.4 ms vs 206.5 ms)") and check.met is True
    assert check.target == "<= 1.5x"
    body = "\n".join(section.body)
    assert "in an earlier run with the same `--root`" in body and "--baseline-tree" in body
    slower = {**COST, "homes": {**COST["homes"], "today": _home(320.0, 1.55, 0)}}
    assert cost_section(slower).checks[0].met is False


def test_the_recall_section_names_its_closings() -> None:
    section = recall_section(RECALL)
    names = [c.name for c in section.checks]
    assert any("recall@1" in n for n in names) and any("lost" in n for n in names)
    body = "\n".join(section.body)
    assert "48 (3 / 45)" in body and "5.1% (54 of 1,054)" in body
    assert "'Alice goes to yoga on Wednesdays' closed by 'every Wednesday'" in body
    assert "supersession_recall --store" in body


def test_both_sections_are_stored_with_their_run_and_reach_the_page(tmp_path: Path) -> None:
    folder = tmp_path / "benchmarks"
    run, seconds = Timer("python -m benchmarks.remember_cost --store").finished()
    page = store(cost_section(COST), run, seconds, folder)
    store(recall_section(RECALL), run, seconds, folder)
    assert sorted(p.stem for p in folder.glob("*.json")) == [COST_KEY, RECALL_KEY]
    text = page.read_text(encoding="utf-8")
    assert "## 21b. Facts that change over time" in text
    assert "## 21c. Facts that change over time" in text
    assert "by `python -m benchmarks.remember_cost --store`" in text
