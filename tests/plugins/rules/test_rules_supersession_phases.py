"""A process one step further: a change closes an earlier fact about the same person's same
process (a visa, an adoption, a building project) that it moves to a later step."""

from __future__ import annotations

import pytest

from memex_rules.supersession_phases import step_taken
from tests.plugins.rules.judging import closings

CLOSES = [
    ("Yuki applied for the skilled worker visa", "Yuki's visa was refused, she's appealing"),
    (
        "Yuki's visa was refused, she's appealing",
        "Yuki's appeal succeeded and the visa came through",
    ),
    (
        "Caroline has been researching adoption agencies",
        "Caroline's adoption application went in last Friday",
    ),
    (
        "Daniel is waiting on planning permission for the extension",
        "Planning came through, builders start on Daniel's extension in June",
    ),
    ("Omar is looking into a mortgage", "Omar's mortgage was approved"),
]


@pytest.mark.parametrize(("old", "new"), CLOSES)
def test_a_later_step_of_the_same_process_closes_the_earlier_one(old: str, new: str) -> None:
    assert step_taken(new, old) is not None, (old, new)
    assert [c.memory_id for c in closings(old, new)] == ["m1"], (old, new)


STAYS = [
    # another person's process
    ("Yuki applied for the skilled worker visa", "Ken's visa was refused"),
    ("Yuki applied for a visa", "Yuki's brother's visa came through"),
    # the same person, another process
    ("Yuki applied for the skilled worker visa", "Yuki's mortgage was approved"),
    # the same step told again
    ("Yuki applied for a visa", "Yuki applied for the visa in March"),
    # not held: a maybe, a plan, a negation
    ("Omar is looking into a mortgage", "Omar's mortgage might be approved"),
    ("Omar applied for a mortgage", "Omar's mortgage was not approved yet"),
]


@pytest.mark.parametrize(("old", "new"), [*STAYS, *((new, old) for old, new in STAYS)])
def test_another_person_process_or_step_not_taken_stays_open(old: str, new: str) -> None:
    assert step_taken(new, old) is None, (old, new)
    assert closings(old, new) == [], (old, new)


def test_an_earlier_step_told_after_a_later_one_does_not_close_it() -> None:
    assert step_taken("Omar is looking into a mortgage", "Omar's mortgage was approved") is None
