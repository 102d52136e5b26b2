"""The later blind splits of the knowledge-update set (issue 30), blind2 to blind8: each
committed file is what its writers' text converts to, and loads sound with a question for
each fact of every unrelated pair."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from benchmarks import fact_updates_cases as sets
from benchmarks.fact_updates_broad import SPLIT_OF, convert
from benchmarks.fact_updates_cases import (
    BLIND2,
    BLIND3,
    BLIND4,
    BLIND5,
    BLIND6,
    BLIND7,
    BLIND8,
    load,
    pair_questions,
)

#: split -> (its id prefix, the fewest updates, late facts and unrelated pairs it holds)
LATER = {
    BLIND2: ("m-", (170, 45, 140)),
    BLIND3: ("n-", (150, 45, 300)),
    BLIND4: ("p-", (150, 45, 300)),
    BLIND5: ("q-", (150, 45, 300)),
    BLIND6: ("r-", (150, 45, 300)),
    BLIND7: ("w-", (150, 45, 300)),
    BLIND8: ("x-", (150, 45, 300)),
}


def _written(split: str) -> None:
    if not SPLIT_OF[split].path.exists():
        pytest.skip(f"the {split} split is not written")


@pytest.mark.parametrize("split", sorted(LATER))
def test_the_split_loads_sound_with_questions_for_every_pair(split: str) -> None:
    _written(split)
    prefix, (updates, late, pairs) = LATER[split]
    cases = load((SPLIT_OF[split].path,))
    assert all(c.split == split and c.id.startswith(prefix) for c in cases)
    assert all(sets.check(c) == [] for c in cases)
    ids = [c.id for c in load(sets.ALL_FILES)]
    assert len(set(ids)) == len(ids)
    types = Counter(c.type for c in cases)
    assert types[sets.UPDATE] >= updates and types[sets.LATE] >= late
    assert types[sets.UNRELATED] >= pairs
    asked = pair_questions()
    for case in cases:
        if case.type != sets.UNRELATED:
            continue
        texts = [f.text.lower() for f in case.facts]
        assert len(asked[case.id]) == 2, case.id
        for pick in asked[case.id]:
            answer = pick.answer.lower()
            assert answer in texts[pick.fact] and answer not in texts[1 - pick.fact], case.id


@pytest.mark.parametrize("split", sorted(LATER))
def test_the_committed_file_is_what_the_writers_text_converts_to(split: str) -> None:
    _written(split)
    cases, dropped = convert(SPLIT_OF[split].folder, SPLIT_OF[split])
    assert dropped == []
    for case in cases:
        case.pop("questions", None)
    lines = SPLIT_OF[split].path.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == cases
