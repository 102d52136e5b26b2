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


def _fold(name: str, rules: str, both: str, unrelated: str) -> dict:
    def figures(exact: str, wrong: str) -> dict[str, str]:
        return {"updates exact": exact, "late closed": "0.000 (0/10)", "unrelated closed": wrong}

    return {
        "fold": name,
        "threshold": 0.99,
        "train cases": 90,
        "test cases": 30,
        "rules": figures(rules, "0.000 (0/10)"),
        "model": figures("0.100 (1/10)", unrelated),
        "rules or model": figures(both, unrelated),
        "curve (thr, updates exact, wrong share), rules or model": [(0.3, 9, 10, 0.1)],
    }


def test_the_stored_section_says_the_gain_and_the_wrong_closings_of_the_folds():
    from benchmarks.fact_updates_learned import KEY, section

    folds = [
        _fold("written+locomo -> broad", "0.600 (6/10)", "0.800 (8/10)", "0.000 (0/10)"),
        _fold("broad+locomo -> written", "1.000 (10/10)", "1.000 (10/10)", "0.000 (0/10)"),
        _fold("5-fold by case, fold 0", "0.500 (5/10)", "0.600 (6/10)", "0.100 (1/10)"),
        _fold("5-fold by case, fold 1", "0.500 (5/10)", "0.500 (5/10)", "0.000 (0/10)"),
    ]
    out = section(folds, 0.1, 0.005)
    broad, k_fold = out.checks
    assert out.key == KEY and out.number == "21d"
    assert broad.figure == "8/10 (0 wrong)" and broad.peer == "rules alone 6/10"
    assert k_fold.figure == "1/20 (10.0%)" and k_fold.met is False
    text = out.text()
    assert "2-fold by case, summed" in text and "| 10/20 |" in text and "| 11/20 |" in text
    assert "adds 2 of 10 broad updates" in text and "1 of 20 over the k folds" in text
    assert "It closed 1 unrelated pairs" in text and "no held-out fold" not in text
    assert "| 0/10 / 1/10 |" in text  # wrong: late / unrelated


def test_at_target_zero_the_section_says_no_held_out_fold_closed_wrongly():
    from benchmarks.fact_updates_learned import section

    folds = [
        _fold("written+locomo -> broad", "0.600 (6/10)", "0.700 (7/10)", "0.000 (0/10)"),
        _fold("broad+locomo -> written", "1.000 (10/10)", "1.000 (10/10)", "0.000 (0/10)"),
        _fold("5-fold by case, fold 0", "0.500 (5/10)", "0.600 (6/10)", "0.000 (0/10)"),
    ]
    out = section(folds, 0.1, 0.0)
    assert out.checks[1].met is True
    assert "no held-out fold has a wrong closing" in out.text()
    assert "It closed" not in out.text()
