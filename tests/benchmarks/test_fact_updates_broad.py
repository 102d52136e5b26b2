"""The broad tuning split of the knowledge-update set (issue 30): its converter, and the file."""

# ruff: noqa: E501 (the writers' lines are long)

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from benchmarks import fact_updates_cases as sets
from benchmarks.fact_updates_broad import convert
from benchmarks.fact_updates_cases import BROAD, BROAD_FILE, case_from, check, load

UPDATES = """\
U | ci_tool | we | What do we run CI on? | Our CI runs on Jenkins @ 2023-03-01 ; We moved CI to GitHub Actions @ 2023-11-08 ; CI is on Buildkite now @ 2024-05-02 | Jenkins ; GitHub Actions ; Buildkite
U | rent | I | How much is my rent?|Rent is £1,200 @ 2024-01-10;Rent is £1,350 @ 2024-07-01 | £1,200 ; £1,350
U | rent | I | How much is my rent? | Rent is £900 @ 2024-01-10 ; Rent is £950 @ 2023-07-01 | £900 ; £950
U | rent | I | How much is my rent? | Rent is £900 @ 2024-01-10 ; Rent is £950 @ 2024-07-01 | £900

U | rent | I | How much is my rent? | Rent is £1,200 @ 2024-01-10 ; Rent is £1,350 @ 2024-07-01 | £1,200 ; £1,350
"""
LATE_LINES = """\
L | residence | I | Where do I live? | I live in Lyon @ 2024-09-14 ; Back in 2019 I was living in Marseille @ 2024-10-02 | Lyon ; Marseille | 2019-06-01
L | residence | I | Where do I live? | I live in Lyon @ 2024-09-14 ; In 2025 I was in Nice @ 2024-10-02 | Lyon ; Nice | 2025-06-01
L | babysitter | the kids | Who babysits the kids? | Zoe babysits for us on Fridays @ 2023-01-13 ; When Maya was a baby, my mother-in-law Ruth did all our babysitting @ 2023-03-02 | Zoe ; Ruth | 2012-06-01
"""
UNRELATED_LINES = """\
N | residence_vs_relative | I | I live in Lyon @ 2024-09-14 ; My sister lives in Lyon too @ 2024-09-20
N | two_pets | Sam | Sam has a cat @ 2024-09-14 ; Sam has a dog @ 2024-13-20
"""


@pytest.fixture()
def written(tmp_path: Path) -> Path:
    (tmp_path / "a-updates.txt").write_text(UPDATES, encoding="utf-8")
    (tmp_path / "a-late.txt").write_text(LATE_LINES, encoding="utf-8")
    (tmp_path / "b-unrelated.txt").write_text(UNRELATED_LINES, encoding="utf-8")
    return tmp_path


def test_the_writers_lines_become_sound_cases_and_the_bad_ones_are_named(written: Path) -> None:
    cases, dropped = convert(written)
    assert [c["id"] for c in cases] == ["b-a-u-0001", "b-a-u-0002", "b-a-l-0001", "b-b-n-0001"]
    chain = case_from(cases[0])
    assert chain.split == BROAD and chain.source == "written" and check(chain) == []
    assert chain.closes == {(1, 0), (2, 1)}
    assert chain.current is not None and chain.current.fact == 2
    assert chain.current.answer == "Buildkite"
    assert chain.as_of is not None and chain.as_of.answer == "Jenkins"
    first, second = (f.at for f in chain.facts[:2])
    assert chain.as_of.at == (first + second) / 2
    assert case_from(cases[1]).facts[1].text == "Rent is £1,350"  # "|" and ";" without spaces
    late = case_from(cases[2])
    assert late.closes == frozenset() and late.as_of is not None and late.as_of.fact == 1
    assert late.as_of.at == sets.parse_time("2019-06-01T12:00:00Z")
    assert [d.split(":")[:2] for d in dropped] == [
        ["a-updates.txt", "3"],  # said before the fact it changes
        ["a-updates.txt", "4"],  # one answer for two facts
        ["a-updates.txt", "6"],  # the same facts as line 2
        ["a-late.txt", "2"],  # the past date after the current fact
        ["a-late.txt", "3"],  # no time in the late fact's text
        ["b-unrelated.txt", "2"],  # month 13
    ]


needs_file = pytest.mark.skipif(not BROAD_FILE.exists(), reason="the broad split is not written")


@needs_file
def test_the_broad_split_loads_sound_with_unique_ids() -> None:
    broad = load((BROAD_FILE,))
    assert all(c.split == BROAD and c.source == "written" and check(c) == [] for c in broad)
    ids = [c.id for c in load(sets.ALL_FILES)]
    assert len(set(ids)) == len(ids)
    texts = [tuple(f.text for f in c.facts) for c in broad]
    assert len(set(texts)) == len(texts)
    types = Counter(c.type for c in broad)
    assert types[sets.UPDATE] >= 150 and types[sets.LATE] >= 35 and types[sets.UNRELATED] >= 110
    assert len({c.kind for c in broad if c.type == sets.UPDATE}) >= 140
