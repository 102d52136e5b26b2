"""What a new fact names as replaced closes the earlier fact that holds it."""

from __future__ import annotations

import pytest

from memex_rules.supersession_replaced import replaced
from tests.plugins.rules.judging import closings

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
    # cancelled, removed, not renewed, off, out of: the old thing gone
    ("We host the docs on GitBook", "cancelled GitBook, docs are in the repo from now on"),
    ("Joined FitSpace on Mill Rd", "cancelled fitspace, swimming at the lido instead"),
    ("broadband is Virgin, 350Mb", "Community Fibre engineer came today, cancelling Virgin"),
    ("deps are managed with poetry", "uv for everything, poetry removed in #412"),
    (
        "design files are in Sketch cloud",
        "all design work is in Figma, Sketch licences not renewed",
    ),
    ("using LastPass for passwords", "Exported everything out of LastPass into Bitwarden"),
    ("Our vault is in LastPass", "we're off lastpass, everything's in 1Password"),
    ("Friday lunch is always at Franco's", "Franco's closed :( Friday lunch is at Dishoom now"),
    (
        "jordan's email is jordan.k@gmail.com",
        "Jordan's new address is jk@kim.dev, old gmail is dead",
    ),
    # an ending's thing stops at a time word ("the store last week" is "the store")
    (
        "Nate works at the video game store",
        "nate's streaming full time now, quit the store last week",
    ),
    # a person gone from a role
    ("Our contact at Acme is Petra", "Petra left Acme, the account manager is Joon now"),
    ("Dad's dentist is Dr Mensah on Hill St", "Dad's been moved to Dr Ortiz, Mensah retired"),
    ("Reorg done - I report to Grace Liu", "grace left, interim lead is Omar until they backfill"),
    ("therapy with Julia on Wednesdays", "first session with Mark today, Julia left the clinic"),
    ("Gran's consultant is Mr Adeyemi", "Gran's under Dr Kaur, Mr Adeyemi went to another trust"),
    # a pet that died, a couple that split: whatever was told of them ends
    ("Aunt Linda has a budgie called Kiwi", "she's got a puppy!! Kiwi passed in the spring"),
    ("Leo's seeing a nurse called Hannah", "Leo and Hannah split up, he's with Marco now"),
]


@pytest.mark.parametrize(("old", "new"), CLOSES)
def test_a_thing_named_as_replaced_closes_the_fact_that_holds_it(old: str, new: str) -> None:
    assert replaced(new, old) is not None, (old, new)
    assert [c.memory_id for c in closings(old, new)] == ["m1"], (old, new)


STAYS = [
    # a person leaving ends a role, not the fact they are the owner of, nor a pastime
    ("Alice lives in Paris", "Alice left"),
    ("I play tennis with Tom on Sundays", "Tom left, the office is quiet"),
    ("Kemi's driving instructor is Dave", "Kemi passed her driving test"),
    # a cancelled thing the earlier fact does not hold
    ("car insurance is with Direct Line", "cancelled the Aviva home policy"),
    ("The team meets on Mondays", "Wei's off sick, Bea covers on-call"),
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
    assert closings(old, new) == [], (old, new)
