"""What a new fact names as replaced closes the earlier fact that holds it."""

from __future__ import annotations

import pytest

from memex_rules.supersession_replaced import replaced
from tests.plugins.rules.test_rules_supersession import _closed

CLOSES = [
    # instead of
    ("I take the bus to school", "I walk to school instead of taking the bus now"),
    ("I walk to work", "I get the train in instead of walking these days"),
    ("Mia plays the violin", "Mia plays the cello instead of the violin these days"),
    # swapped, replaced
    ("I'm on sertraline", "The doctor swapped the sertraline for citalopram"),
    ("Mum takes warfarin", "The clinic swapped Mum's warfarin for apixaban"),
    ("We use Trello for the roadmap", "We replaced Trello with Linear last sprint"),
    # no more, no longer, gave up
    ("Ana's shop opens on Sundays", "Ana no longer opens on Sundays"),
    ("I have oat milk in my tea", "Black tea these days, no more oat milk"),
    ("We order lunch from Leon on Fridays", "No more Leon, it's pizza on Fridays now"),
    (
        "I have a gym membership at PureGym",
        "Gave up my PureGym membership, running outside instead",
    ),
]


@pytest.mark.parametrize(("old", "new"), CLOSES)
def test_a_thing_named_as_replaced_closes_the_fact_that_holds_it(old: str, new: str) -> None:
    assert replaced(new, old) is not None, (old, new)
    assert [c.memory_id for c in _closed(old, new)] == ["m1"], (old, new)


STAYS = [
    # another owner: two names, a name beside "I", "I" beside "he", a relative beside "I"
    ("Ana drives to work", "I cycle instead of driving"),
    ("Tom uses Trello", "Ana replaced Trello with Linear"),
    ("I drive to work", "He cycles in instead of driving"),
    ("I drive to work", "My sister cycles instead of driving"),
    ("Tom drives to work", "Tom's sister cycles instead of driving"),
    # the replaced thing is not what the earlier fact names
    ("I walk the dog in Hyde Park", "I take the tram instead of the bus to Hyde Park"),
    # where the change is told is not the old value: the bus was left, not Berlin
    ("I live in Berlin", "I take the tram instead of the bus in Berlin"),
    ("My office is in Camden", "I take the tram instead of the bus to Camden"),
    # two things it is for, and a one-off event of a past time
    ("I drink green tea for breakfast", "I drink coffee instead of green tea for lunch"),
    ("I went to Lisbon last year", "I holiday in Porto now, no more Lisbon"),
    ("I drink coffee in the morning", "I cycle instead of driving"),
    ("We use Postgres for billing", "We swapped Redis for Memcached"),
    # an ending of another thing: the half marathon is not the marathon
    ("Kim is training for a marathon", "Kim finished the half marathon"),
    ("I'm reading a book on Stoicism", "Finished my book club novel"),
    # not held: a plan, a question, a wish
    ("I drive to work", "I might cycle instead of driving next month"),
    ("I'm on ramipril", "Should the GP swap the ramipril for something else?"),
    ("I drive to work", "I'm thinking of cycling instead of driving"),
    # "no more than" is a limit, not an ending
    ("I drink three coffees a day", "The doctor says no more than two coffees a day"),
]


@pytest.mark.parametrize(("old", "new"), STAYS)
def test_another_owner_another_thing_or_a_plan_stays_open(old: str, new: str) -> None:
    assert replaced(new, old) is None, (old, new)
    assert _closed(old, new) == [], (old, new)
