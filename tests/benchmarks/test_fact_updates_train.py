"""The learned-update study (issue 30): its features, its fit and its judge-level simulation,
on hand-made data (the study itself reads the sets and MiniLM; it is run by hand)."""

from __future__ import annotations

import numpy as np

from benchmarks.fact_updates_cases import case_from
from benchmarks.fact_updates_features import NAMES, features
from benchmarks.fact_updates_train import Prepared, fit, simulate


def test_features_read_a_change_cue_and_shared_words():
    row = features("Our CI runs on CircleCI", "We moved CI over to Buildkite", 0.7)
    named = dict(zip(NAMES, row, strict=True))
    assert len(row) == len(NAMES)
    assert named["cosine"] == 0.7
    assert named["cue_new"] == 1.0 and named["cue_old"] == 0.0
    assert named["shared"] > 0.0 and named["value_new"] == 1.0


def test_fit_learns_a_separable_rule():
    x = np.array([[0.9, 1.0], [0.8, 1.0], [0.2, 0.0], [0.1, 0.0]] * 5)
    y = np.array([1.0, 1.0, 0.0, 0.0] * 5)
    model = fit(x, y)
    assert model.prob([0.85, 1.0]) > 0.9 > 0.1 > model.prob([0.15, 0.0])


def _case(kind: str) -> Prepared:
    case = case_from(
        {
            "id": f"t-{kind}",
            "source": "written",
            "split": "dev",
            "type": kind,
            "kind": "x",
            "subject": "we",
            "facts": [
                {"text": "Standup is at 9:30", "at": "2023-01-09T12:00:00Z"},
                {"text": "Standup slides to 9:45", "at": "2023-05-15T12:00:00Z"},
            ],
            "question": "When is standup?",
            "closes": [[1, 0]] if kind == "update" else [],
            "current": None,
            "as_of": None,
        }
    )
    prep = Prepared(case, [f.at for f in case.facts])
    prep.rules[(1, 0)] = False  # the rules read nothing: the model decides
    return prep


def test_the_model_closes_only_over_its_threshold_where_the_rules_close_nothing():
    prep = _case("update")
    assert simulate(prep, lambda i, j: 0.9, 0.8, True, True).exact
    assert not simulate(prep, lambda i, j: 0.7, 0.8, True, True).made
    assert not simulate(prep, lambda i, j: 0.9, 0.8, True, False).made  # rules alone
    assert simulate(_case("unrelated"), lambda i, j: 0.9, 0.8, True, True).wrong == {(1, 0)}
