"""A higher numbered level of the same ladder closes the earlier one."""

from __future__ import annotations

import pytest

from memex_rules.supersession_levels import level_reached
from tests.plugins.rules.judging import closings

CLOSES = [
    ("Zoe is on Stage 2 at gymnastics", "Zoe moved up to Stage 4 on Saturday"),
    ("Sam passed Grade 5 piano", "Sam got a distinction in Grade 6"),
    ("I boulder V2 at the wall", "Sent my first V4 today"),
    ("Arjun is in Year 9 at Hillside", "Arjun is in Year 10 now"),
    ("I'm at level 12 in Duolingo Spanish", "Hit level 15 in Duolingo Spanish"),
]


@pytest.mark.parametrize(("old", "new"), CLOSES)
def test_a_higher_level_of_the_same_ladder_closes_the_earlier_one(old: str, new: str) -> None:
    assert level_reached(new, old) is not None, (old, new)
    assert [c.memory_id for c in closings(old, new)] == ["m1"], (old, new)


STAYS = [
    # a lower number, or another ladder
    ("Zoe is on Stage 4 at gymnastics", "Zoe did Stage 2 as a toddler"),
    ("Sam passed Grade 5 piano", "Sam is on Stage 6 at swimming"),
    # two owners: two names, a relative beside "I", "I" beside "he"
    ("Zoe is on Stage 2 at swimming", "Ana moved up to Stage 4"),
    ("I'm in Year 12", "My brother is in Year 13"),
    ("I boulder V2", "He sent a V6 at the wall"),
    # a goal, a plan, a question
    ("Sam passed Grade 5 piano", "Sam is aiming for Grade 7 next year"),
    ("I climb V3", "Could I try a V5 at the wall?"),
    # a version in lower case is not a climbing grade
    ("The API is v1", "The billing API is on v2 since March"),
]


@pytest.mark.parametrize(("old", "new"), STAYS)
def test_a_lower_level_another_owner_or_a_goal_stays_open(old: str, new: str) -> None:
    assert level_reached(new, old) is None, (old, new)
    assert closings(old, new) == [], (old, new)
