"""Section 21e's study (benchmarks.fact_updates_reorder): the candidates it reads from a
recording, the held-out fit, and the section it stores, on made-up recordings."""

from __future__ import annotations

from typing import Any

from benchmarks.fact_updates_reorder import (
    FEATURES,
    candidates,
    gaps,
    held_out,
    measure,
    section,
)

DAY = 86400.0


def _raw(memory_id: str, text: str, semantic: float, owner: str = "users/u") -> dict[str, Any]:
    return {
        "memory_id": memory_id,
        "fragment_id": "f-" + memory_id,
        "owner": owner,
        "text": text,
        "semantic": semantic,
        "slot": None,
        "score": semantic,
        "ranks": {"keyword": 1},
    }


def _record(split: str, n: int, kind: str, update: bool) -> dict[str, Any]:
    """Top T and one later H of the same owner; H should lead when ``update``. Updates sit
    closer to the question than pairs' neighbours, so a model can learn the difference."""
    old, new = f"{split}-{n}-old", f"{split}-{n}-new"
    near = 0.55 if update else 0.2
    return {
        "split": split,
        "kind": kind,
        "query": "where do I work?",
        "want": new if update else old,
        "top": old,
        "hits": [
            _raw(old, "I work at Acme", 0.6),
            _raw(new, "switched to Initech", near),
            _raw(f"{split}-{n}-theirs", "Bob joined Initech", 0.5, owner="users/bob"),
        ],
        "valid_from": {old: 0.0, new: 30 * DAY, f"{split}-{n}-theirs": 40 * DAY},
        "vectors": {"f-" + old: [1.0, 0.0], "f-" + new: [0.6, 0.8]},
    }


def _records() -> list[dict[str, Any]]:
    return [
        _record(split, n, kind, update)
        for split in ("a", "b", "c")
        for n, (kind, update) in enumerate([("current", True)] * 6 + [("pair", False)] * 6)
    ]


def test_candidates_are_later_hits_of_the_top_facts_owner() -> None:
    record = _record("a", 0, "current", True)
    found = candidates(record)
    assert [memory_id for memory_id, _ in found] == ["a-0-new"]  # not bob's, not the top
    row = dict(zip(FEATURES, found[0][1], strict=True))
    assert row["question_cosine_top"] == 0.6 and row["question_cosine_lower"] == 0.55
    assert row["mutual_cosine"] == 0.6 and row["position"] == 1.0
    assert row["lower_names_change"] == 1.0  # "switched"
    told_earlier = dict(record, valid_from={"a-0-old": 30 * DAY, "a-0-new": 0.0})
    assert candidates(told_earlier) == []
    assert candidates(dict(record, hits=None)) == []


def test_each_split_is_scored_by_a_model_fitted_on_the_others() -> None:
    records = _records()
    figures = held_out(records, [candidates(r) for r in records], pair_weight=1.0)
    assert set(figures) == {"a", "b", "c"}
    for row in figures.values():
        # the recording led with T every time: right for pairs, wrong for updates
        assert row["current"] == (0, 6, 6) and row["pair"] == (6, 6, 6)
    assert gaps(records, [candidates(r) for r in records])["a"] == (30.0, 30.0)


def test_the_section_names_the_variants_and_the_verdict() -> None:
    stored = section(measure(_records()))
    text = "\n".join(stored.body)
    assert "every feature" in text and "without the days apart" in text
    assert "**Not shipped.**" in text
    assert stored.checks[0].figure == "0 -> 18 of 18 (+18)"
