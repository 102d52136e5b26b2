"""The pair-vector study (issue 30): which pairs it labels an update and which it holds to
must-not-close, on hand-made cases and vectors (the study itself reads MiniLM; run by hand)."""

from __future__ import annotations

import numpy as np

from benchmarks.fact_updates_cases import Case, case_from
from benchmarks.fact_updates_pair_vectors import pairs, study

TEXTS = {
    "update": ("I work at Ledgerly", "Started at Monzo this week"),
    "unrelated": ("I have a cat called Tom", "I have a dog called Rex"),
    "late": ("I live in Leeds", "Back in 2015 I lived in Rome"),
}


def _case(kind: str, split: str, number: int, kind_of: str) -> Case:
    first, second = TEXTS[kind]
    return case_from(
        {
            "id": f"t-{kind}-{split}-{number}",
            "source": "written",
            "split": split,
            "type": kind,
            "kind": kind_of,
            "subject": "I",
            "facts": [
                {"text": first, "at": "2023-01-09T12:00:00Z"},
                {"text": second, "at": "2023-05-15T12:00:00Z"},
            ],
            "question": "What about me?",
            "closes": [[1, 0]] if kind == "update" else [],
            "current": None,
            "as_of": None,
        }
    )


def _vectors() -> dict[str, np.ndarray]:
    chance = np.random.default_rng(3)
    found = {}
    for first, second in TEXTS.values():
        for text in (first, second):
            vector = chance.normal(size=8)
            found[text] = vector / np.linalg.norm(vector)
    return found


def test_pairs_label_updates_and_hold_the_rest_and_other_cases_to_not_closing() -> None:
    cases = [_case("update", "dev", 0, "job"), _case("unrelated", "dev", 1, "pets")]
    cases.append(_case("late", "dev", 2, "city"))
    rows, labels, kinds = pairs(cases, ["dev"], _vectors())
    assert rows.shape[1] == 8 * 2 + 1  # a * b, |a - b|, cosine
    assert list(labels[:3]) == [1, 0, 0] and kinds[:3] == ["update", "unrelated", "late"]
    # pairs across two cases of one subject and different kinds: never an update
    assert kinds[3:] and set(kinds[3:]) == {"cross"} and not labels[3:].any()
    assert pairs(cases, ["test"], _vectors())[0].shape[0] == 0  # only the splits asked


def test_study_scores_a_held_out_split() -> None:
    cases = [
        _case(kind, split, n, kind)
        for n in range(3)
        for split in ("dev", "blind")
        for kind in ("update", "unrelated", "late")
    ]
    lines = study(cases, _vectors(), ["dev"], ["blind"], 1.0)
    assert lines[0].startswith("train dev -> blind, C 1: AUC ")
    assert any(line.startswith("  unrelated (3): updates caught at 1.0% -> ") for line in lines)
