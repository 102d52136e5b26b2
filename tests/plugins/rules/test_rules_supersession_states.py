"""A person's relationship or health state changed: the new state closes the earlier one."""

from __future__ import annotations

import pytest

from memex_rules.supersession_states import state_changed
from tests.plugins.rules.judging import closings

CLOSES = [
    # a relationship, either way along the chain
    ("Ben is single again", "Ben's been dating a nurse called Chloe since the summer"),
    ("Ben's been dating a nurse called Chloe since the summer", "Ben and Chloe got engaged!"),
    ("Ellie and I got engaged last night!", "We got married on Saturday, I'm a husband now"),
    ("Jo and Sam got engaged", "Jo and Sam split up"),
    ("I'm single", "I've been seeing someone for a month"),
    ("Priya is married", "Priya got divorced"),
    # health
    ("Fiona finished chemo and is on radiotherapy now", "Fiona got the all-clear!"),
    ("Fiona is ill", "Fiona got the all-clear!"),
    ("Dad is in hospital", "Dad is recovering at home"),
    ("I'm sick", "I'm on the mend"),
]


@pytest.mark.parametrize(("old", "new"), CLOSES)
def test_another_state_of_the_same_persons_chain_closes_the_earlier_one(old: str, new: str) -> None:
    assert state_changed(new, old) is not None, (old, new)
    assert [c.memory_id for c in closings(old, new)] == ["m1"], (old, new)


STAYS = [
    # another person, a relative or a friend, or a state told of "he" beside "we"
    ("I'm married", "My sister got engaged"),
    ("Tom is single", "Tom's brother got married"),
    ("I'm single", "Tom and Ana got engaged"),
    ("I'm dating Sam", "We went to Tom's wedding, he got married at last"),
    ("I'm married", "A friend of ours is divorced"),
    # another chain
    ("Ana is in hospital", "Ana is dating Tom"),
    ("Sam was ill", "Sam got engaged"),
    # the same state told again
    ("Ben and Chloe are engaged", "Ben and Chloe got engaged in June"),
    # not held: a maybe, a plan, a question, a negation
    ("Tom is single", "Tom said he might get engaged"),
    ("Tom is single", "Is Tom dating anyone?"),
    ("Fiona is ill", "Fiona may be on the mend soon"),
    # the words of a state said of things
    ("We run a single Postgres node", "We got married on Saturday"),
    ("Our users are highly engaged", "We split up the monolith last week"),
    ("I'm single", "We're recovering the deleted files from backup"),
]


@pytest.mark.parametrize(("old", "new"), [*STAYS, *((new, old) for old, new in STAYS)])
def test_another_person_chain_or_a_state_not_held_stays_open(old: str, new: str) -> None:
    assert state_changed(new, old) is None, (old, new)
    assert closings(old, new) == [], (old, new)
