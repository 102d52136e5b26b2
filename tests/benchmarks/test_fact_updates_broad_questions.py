"""The questions written for the unrelated pairs of the broad split (issue 30).

Each unrelated case holds two facts that must both stay current; each gets one question per
fact whose answer is in that fact's text and not in the other's, so a ranking change that lets
one fact push the other out of first place shows up.
"""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.fact_updates_cases import BROAD_FILE, LOCOMO_FILE

QUESTIONS_FILE = Path(BROAD_FILE).with_name("fact_updates_broad_questions.jsonl")


def _lines(path: Path) -> list[dict]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def test_every_unrelated_case_has_one_question_per_fact_in_file_order() -> None:
    unrelated = [case["id"] for case in _lines(Path(BROAD_FILE)) if case["type"] == "unrelated"]
    written = _lines(QUESTIONS_FILE)
    assert [entry["id"] for entry in written] == unrelated
    for entry in written:
        assert [q["fact"] for q in entry["questions"]] == [0, 1], entry["id"]
        assert all(q["question"].strip().endswith("?") for q in entry["questions"]), entry["id"]


def test_each_answer_is_in_its_own_fact_and_not_in_the_other() -> None:
    cases = {case["id"]: case for case in _lines(Path(BROAD_FILE))}
    for entry in _lines(QUESTIONS_FILE):
        texts = [fact["text"].lower() for fact in cases[entry["id"]]["facts"]]
        assert len(texts) == 2, entry["id"]
        for q in entry["questions"]:
            answer = q["answer"].strip().lower()
            assert answer, entry["id"]
            assert answer in texts[q["fact"]], (entry["id"], q)
            assert answer not in texts[1 - q["fact"]], (entry["id"], q)


def test_locomo_unrelated_pairs_have_the_same_shape_of_questions() -> None:
    cases = _lines(Path(LOCOMO_FILE))
    unrelated = {case["id"]: case for case in cases if case["type"] == "unrelated"}
    written = _lines(Path(LOCOMO_FILE).with_name("fact_updates_locomo_questions.jsonl"))
    assert [entry["id"] for entry in written] == list(unrelated)
    for entry in written:
        texts = [fact["text"].lower() for fact in unrelated[entry["id"]]["facts"]]
        assert [q["fact"] for q in entry["questions"]] == [0, 1], entry["id"]
        for q in entry["questions"]:
            answer = q["answer"].strip().lower()
            assert answer and answer in texts[q["fact"]], (entry["id"], q)
            assert answer not in texts[1 - q["fact"]], (entry["id"], q)
