"""The blind split of the knowledge-update set (issue 30): the broad converter run with
``--split blind`` (its ids, its pairs' "Q" lines), and the committed file."""

# ruff: noqa: E501 (the writer's lines are long)

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from benchmarks import fact_updates_cases as sets
from benchmarks.fact_updates_broad import SPLIT_OF, convert, main
from benchmarks.fact_updates_cases import BLIND, BLIND_FILE, case_from, check, load, pair_questions

UPDATES = "U | standup_time | the team | When is standup? | Standup 9:30 daily @ 2024-01-08 ; Standup: 10:15 @ 2024-03-04 | 9:30 ; 10:15\n"
UNRELATED_LINES = """\
N | meetings | the team | Standup is at 9:30 @ 2024-01-08 ; Retro is on Friday at 4 @ 2024-01-12
Q | What time is standup? | 9:30 | When is the retro? | Friday at 4
N | pets | Sam | Sam has a cat called Miso @ 2024-02-01 ; Sam has a dog called Rex @ 2024-02-02
Q | What is Sam's cat called? | Miso | What is Sam's dog called? | Sam
N | tools | we | We lint with ruff @ 2024-03-01 ; We type check with mypy @ 2024-03-02
Q | Which linter do we use? | ruff | What do we type check with? | mypy
Q | Which linter do we use? | ruff | What do we type check with? | mypy
N | bikes | I | I ride a Brompton @ 2024-04-01 ; I lock it with a D-lock @ 2024-04-02
"""


@pytest.fixture()
def written(tmp_path: Path) -> Path:
    (tmp_path / "d-updates.txt").write_text(UPDATES, encoding="utf-8")
    (tmp_path / "d-unrelated.txt").write_text(UNRELATED_LINES, encoding="utf-8")
    (tmp_path / "a-updates.txt").write_text(UPDATES, encoding="utf-8")  # broad's writer: not read
    return tmp_path


def test_blind_lines_get_k_ids_the_blind_split_and_their_pairs_questions(written: Path) -> None:
    cases, dropped = convert(written, SPLIT_OF[BLIND])
    assert [c["id"] for c in cases] == [
        "k-d-u-0001",
        "k-d-n-0001",
        "k-d-n-0003",
        "k-d-n-0005",
        "k-d-n-0008",
    ]
    assert all(c["split"] == BLIND and check(case_from(c)) == [] for c in cases)
    asked = {c["id"]: c["questions"] for c in cases if "questions" in c}
    assert list(asked) == ["k-d-n-0001", "k-d-n-0005"]
    assert asked["k-d-n-0001"][1] == {
        "fact": 1,
        "question": "When is the retro?",
        "answer": "Friday at 4",
    }
    assert [d.split(":")[:2] for d in dropped] == [
        ["d-unrelated.txt", "4"],  # 'Sam' is in both facts
        ["d-unrelated.txt", "7"],  # a second "Q" line for one pair
    ]


def test_main_writes_the_cases_and_the_questions_apart(
    written: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dataclasses import replace

    out = replace(SPLIT_OF[BLIND], path=tmp_path / "blind.jsonl", questions=tmp_path / "q.jsonl")
    monkeypatch.setitem(SPLIT_OF, BLIND, out)
    assert main(["--split", BLIND, str(written)]) == 0
    cases = load((out.path,))
    assert [c.id for c in cases][:2] == ["k-d-u-0001", "k-d-n-0001"]
    assert all("questions" not in line for line in out.path.read_text().splitlines())
    assert out.questions is not None
    asked = pair_questions((out.questions,))
    assert [p.answer for p in asked["k-d-n-0001"]] == ["9:30", "Friday at 4"]


needs_file = pytest.mark.skipif(not BLIND_FILE.exists(), reason="the blind split is not written")


@needs_file
def test_the_blind_split_loads_sound_with_questions_for_every_pair() -> None:
    blind = load((BLIND_FILE,))
    assert all(c.split == BLIND and c.id.startswith("k-") and check(c) == [] for c in blind)
    ids = [c.id for c in load(sets.ALL_FILES)]
    assert len(set(ids)) == len(ids)
    types = Counter(c.type for c in blind)
    assert types[sets.UPDATE] >= 180 and types[sets.LATE] >= 40 and types[sets.UNRELATED] >= 140
    asked = pair_questions()
    texts = {c.id: [f.text.lower() for f in c.facts] for c in blind}
    pairs = [c.id for c in blind if c.type == sets.UNRELATED]
    assert all(len(asked[i]) == 2 for i in pairs)
    for i in pairs:
        for pick in asked[i]:
            answer = pick.answer.lower()
            assert answer in texts[i][pick.fact] and answer not in texts[i][1 - pick.fact], i


@needs_file
def test_the_committed_file_is_what_the_writers_text_converts_to() -> None:
    cases, dropped = convert(SPLIT_OF[BLIND].folder, SPLIT_OF[BLIND])
    assert dropped == []
    for case in cases:
        case.pop("questions", None)
    lines = BLIND_FILE.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == cases


def test_a_fact_remember_refuses_is_a_miss_of_its_case_not_the_end_of_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The blind split's 'lived there till 1968' made remember raise and stopped the whole
    end-to-end run: now that case misses (its fact is never on top) and the others run."""
    from benchmarks.context import write_config
    from benchmarks.fact_updates_memex import accuracy, run_home
    from benchmarks.memory_throughput import KEYWORD_ONLY_CONFIG
    from memex_core.api import Memex

    lines = UPDATES + UPDATES.replace("Standup: 10:15", "Standup refused: 10:30").replace(
        "| 9:30 ; 10:15", "| 9:30 ; 10:30"
    )
    (tmp_path / "text").mkdir()
    (tmp_path / "text" / "d-updates.txt").write_text(lines, encoding="utf-8")
    cases = [case_from(c) for c in convert(tmp_path / "text", SPLIT_OF[BLIND])[0]]
    assert len(cases) == 2
    (tmp_path / "home").mkdir()
    write_config(tmp_path / "home", KEYWORD_ONLY_CONFIG, cached_embedder=False)
    with Memex(home=tmp_path / "home") as mx:
        remember = mx.remember

        def refusing(text: str, **kwargs: object) -> object:
            if "refused" in text:
                raise ValueError("a fact cannot stop holding before it starts")
            return remember(text, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(mx, "remember", refusing)
        home = run_home(mx, "keyword only", cases)
    kept, refused = home.answered
    assert home.remembered == 4 and not kept.outcome.errors and kept.current is not None
    assert refused.current is False and refused.current_unfloored is False  # never on top
    assert any("refused" in e for e in refused.outcome.errors)
    assert accuracy(home.answered, "current")[1] == 2
