"""A role one person holds at a time, taken by another: a change closes the earlier fact
naming another holder of the same role (a CTO, a tech lead, an admin, a best man)."""

from __future__ import annotations

import pytest

from memex_rules.supersession_roles import role_changed
from tests.plugins.rules.judging import closings

CLOSES = [
    ("Ravi is the tech lead on the search service", "Search's new tech lead is Olga"),
    ("Marcus is our CTO", "Marcus left, and Hana is acting CTO"),
    ("Hana is acting CTO", "Hana was confirmed as CTO"),
    ("Our biggest customer is Halvorsen", "Brightmart overtook Halvorsen as our biggest account"),
    ("Tom asked Luke to be his best man", "Luke can't make it, so Tom's brother Alfie is best man"),
    ("Nadia is admin of the parents' WhatsApp", "Nadia left the group and made Becky admin"),
    ("The club's treasurer is Ian", "Priya was elected treasurer of the club"),
    # a role told by its verb
    ("Steve coaches the under-11s on Saturdays", "The under-11s have a new coach, Gemma"),
    ("Hannah from next door babysits for us", "Hannah's gone off to uni so Zoe babysits now"),
]


@pytest.mark.parametrize(("old", "new"), CLOSES)
def test_another_holder_of_a_one_holder_role_closes_the_earlier_one(old: str, new: str) -> None:
    assert role_changed(new, old) is not None, (old, new)
    assert [c.memory_id for c in closings(old, new)] == ["m1"], (old, new)


STAYS = [
    # another scope, another owner, another organisation
    ("Ravi is the tech lead on search", "Olga is the tech lead on payments"),
    ("Tom's best man is Luke", "Sara's best man is Alfie"),
    ("Tom asked Luke to be his best man", "Sam asked Alfie to be his best man"),
    ("Marcus is our CTO", "Hana is the CTO of Initech"),
    ("Steve coaches the under-11s", "Gemma coaches the under-9s now"),
    ("Steve coaches tennis", "Gemma coaches football now"),
    ("Hannah babysits for us on Fridays", "Zoe babysits for the Patels now"),
    # another role
    ("Marcus is our CTO", "Hana is our CFO now"),
    # the same holder told again
    ("Marcus is our CTO", "Marcus is the CTO"),
    # not held: a maybe, a plan, a former holder, not
    ("Marcus is our CTO", "Hana might be CTO next year"),
    ("Marcus is our CTO", "Hana is our former CTO"),
    ("Marcus is our CTO", "Hana is not the CTO"),
    # a role word in another sense
    ("Marcus is our CTO", "Hana talked to the CTO of Initech"),
]


@pytest.mark.parametrize(("old", "new"), [*STAYS, *((new, old) for old, new in STAYS)])
def test_another_role_scope_or_a_holder_not_now_stays_open(old: str, new: str) -> None:
    assert role_changed(new, old) is None, (old, new)
    assert closings(old, new) == [], (old, new)
