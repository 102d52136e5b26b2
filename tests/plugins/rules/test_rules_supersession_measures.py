"""A measure of one thing changed: a change closes an earlier fact that gives the same thing
(named by a shared lower-case word) a value of one measurable kind: money, a count, a time of
day, a day or a frequency."""

from __future__ import annotations

import pytest

from memex_rules.supersession_measures import measure_changed
from tests.plugins.rules.judging import closings

CLOSES = [
    # one team's people, counted in two words
    ("mobile team is 4 engineers", "Mobile: 6 devs after the two new hires"),
    # a count or an amount with its noun elided or reworded
    ("The platform team is 6 engineers", "The platform is down to 4 after the layoffs"),
    ("We're planning to hire 10 engineers this year", "Hiring plan got cut to 4"),
    ("I put £300 a month into savings", "Standing order to savings is £500 now"),
    ("Tennis club membership is £240 a year", "Membership went up to £275"),
    ("My pages escalate after 15 minutes", "Escalation timeout for my pages is now 5 minutes"),
    ("My rapid rating is 1150", "My rating is 1310 in rapid now"),
    ("Minimum test coverage is 70%", "Coverage gate raised to 80%"),
    ("We get 25 vacation days a year", "Vacation allowance is 28 days from 2024"),
    ("I weigh 92kg", "Weighed in at 85kg this morning, down 7"),
    ("The shop just hit 1,000 followers", "5k followers now for the shop"),
    # the thing opens the sentence: capitalised there, still a word ("Platform is", "Rent's")
    ("Platform is down to 4 after the layoffs", "Platform is up to 7 now that Ana joined"),
    ("Our rent is £1,350", "Rent's gone up again, to £1,425 a month"),
    ("Their rent is £1,350", "Rent's gone up to £1,425"),
    # a count in words, and the same thing counted by the same teller
    ("I drink about four coffees a day", "Cut back to one coffee in the morning"),
    ("The platform team is six engineers", "The platform team is down to four"),
    ("We have a dozen hens", "We're down to 8 hens now"),
    ("I have 2 cats", "I have 3 cats now"),
    # a verb in -ed after the shared word is no head it modifies ("Cluster upgraded")
    ("Cluster upgraded to 1.27", "cluster's on 1.29 as of yesterday"),
    # two names of one price, one of them told of nothing else
    ("Membership went up to £275", "The club's annual fee is £310 now"),
    ("On-call allowance went up to £250 a week", "The on-call stipend is now £300 a week"),
    # an event under a shorter or another name, told with another day, time or frequency
    ("We release on Tuesdays", "Releases go out on Thursdays now"),
    ("We hold a retro at the end of every sprint", "Retros are monthly these days"),
    ("Under-11s training is Saturday 9am", "Training moved to Sunday at 10 from next week"),
    ("The book group meets on Mondays", "Book group is on Thursday evenings now"),
    ("Sprint planning is Monday at 11", "Planning is now on Wednesday afternoons"),
    ("Demo day is the last Friday of the month", "Demos happen every other Thursday now"),
    # two notes keyed by one opening word, a new value of one kind: no word of change needed
    ("standup 9:45 in the huddle, keep it to 15 mins", "standup 10:15 - huddle link pinned"),
    ("council tax £148/month", "council tax £156 a month for 23/24"),
    ("bin day is Tuesday", "bins: Wednesday collection, council letter on the fridge"),
    # a dose doubled, upped, or from tomorrow; a unit written apart from its number
    ("Dad's on amlodipine 5mg once a day", "GP doubled dad's amlodipine, it's 10mg from tomorrow"),
    ("Mum on levothyroxine 50mcg", "GP upped mum's levo to 75mcg after her bloods"),
    ("sertraline 50mg", "sertraline 100 mg from today per Dr Okafor"),
    ("sertraline 50mg", "upped sertraline to 100mg, dr says give it 6 weeks"),
    ("nan's lantus is 18 units at bedtime", "22 units of lantus from tonight"),
    # a note's key told again with its new value, the old note's detail ("standard") dropped
    ("netflix standard £10.99", "netflix went up to £12.99"),
    # or a new day and time of one schedule ("Weds" a day too)
    ("retro fri 3pm", "retro: every other wed 11:30"),
    ("therapy Weds 6pm w/ Anna", "therapy thursday 8am, online"),
]


@pytest.mark.parametrize(("old", "new"), CLOSES)
def test_another_measure_of_the_same_thing_closes_the_earlier_one(old: str, new: str) -> None:
    assert measure_changed(new, old) is not None, (old, new)
    assert [c.memory_id for c in closings(old, new)] == ["m1"], (old, new)


STAYS = [
    # a kind of the key in the new fact too, or a person's notes
    ("board deck due thurs 5pm", "board meeting itself moved to next tuesday"),
    ("isla's learning french at school, tests on fridays", "isla's started mandarin club on weds"),
    # two kinds of one thing, named by a word of time or "team"; a per-month unit ties nothing
    ("weekday alarm 6:30", "weekend alarm now 8:00 for parkrun"),
    ("Pro plan $29/mo", "Team plan is now $99/mo"),
    ("Datadog costs ~$5k/mo", "Sentry bill went up to $890/mo"),
    # two nouns counted; another's, named in lower case
    ("data team: 5 FTEs", "data team now has 2 contractors on the dbt migration"),
    ("platform team is 8 engineers", "platform now has 3 open reqs, one of them a new EM"),
    ("Isla gets £3 pocket money a week", "finn's pocket money went up to £8"),
    # a phone number is no count
    ("Jess's number is 07700 900461", "jess has a new work mobile, 07700 900982, on-call only"),
    # two medicines dosed
    ("Mum takes 5mg amlodipine in the morning", "mum's new statin is atorvastatin 20mg at night"),
    # nothing shared but the kind of value
    ("Standup is at 9:45", "Planning is on Wednesday"),
    ("The team is 6 engineers", "We have 4 designers"),
    ("Lunch is at 12:30", "Standup is at 9:30 now"),
    ("I have 2 cats", "I have 3 dogs now"),
    # the unit or the period is all they share
    ("I run 20km a week", "I cycle 50km a week now"),
    ("Our rent is £1,200 a month", "Council tax is £150 a month now"),
    # a shared name is not a shared thing
    ("Ravi's standup is on Mondays", "Ravi's gym class is on Tuesdays now"),
    ("Sarah swims on Tuesdays", "Sarah runs on Thursdays now"),
    ("Ravi is on call 2 weeks a month", "Ravi is in the office 3 days a week now"),
    ("Platform is down to 4 engineers", "Search is up to 7 engineers now"),
    ("Priya's rent is £900", "Rent's gone up to £1,000"),
    # the same thing counted by someone else, or "one" that is no count
    ("I have 2 cats", "Ana has 3 cats now"),
    ("I eat 2 eggs a day", "Ana eats 3 eggs a day now"),
    ("I have 2 cats", "Tom's kids have 3 cats now"),
    ("I drink four coffees a day", "One of my coffees is decaf now"),
    ("Prod cluster upgraded to 1.27", "The staging cluster is on 1.29 now"),
    # two names of one price, each told of its own thing
    ("The gym membership is £40 a month", "The club's annual fee is £310 now"),
    ("My Netflix subscription is £11", "The gym fee went up to £13"),
    ("Our AWS fee is $400", "The Slack subscription went up to $500"),
    # a word the earlier fact names a part or an event of ("the launch party")
    ("The launch party is on May 3", "Launch moved to June 1"),
    ("The book club meets on Mondays", "Club membership is £40 now"),
    # each names its own kind of the shared word
    ("Sprint planning is Monday at 11", "Release planning moved to Wednesday"),
    # ... or of a shared modifier ("office rent", "seat count")
    ("The Berlin office rent is €5k", "The London office rent went up to £8k"),
    ("Our Slack seat count is 40", "The Notion seat count went up to 60"),
    # the shared word names a part of the other's thing, or another owner's
    ("Our standup is at 9:30", "Our standup notes are due at 5pm now"),
    ("The office opens at 8", "The office canteen opens at 11:30 now"),
    ("Priya's rent is £900", "My rent is £1,200 now"),
    ("The kids go to bed at 8", "I go to bed at 11 now"),
    # another thing named first, another measure named by a number
    ("The bus to work takes 40 minutes", "The train to work takes 25 minutes now"),
    ("My 5k PB is 24:10", "My 10k PB is 52:00 now"),
    # a verb of measure shared by two things
    ("The gym opens at 6am", "The pool opens at 7am now"),
    ("I weigh 92kg", "My suitcase weighs 23kg now"),
    # not held: a question, a maybe, a plan
    ("We hire 4 engineers a year", "We're planning to hire 10 engineers now"),
    ("Standup is at 9:45", "Standup might move to 10:15"),
    ("We release on Tuesdays", "Do releases go out on Thursdays now?"),
    # the same value, or another kind of value
    ("Sprint planning is on Mondays", "Sprint planning is on Mondays now"),
    ("We ship on Fridays", "We ship 3 features a week now"),
    # notes keyed alike, no word of change: a bare count may count anything, two kinds differ
    ("prod cluster is on k8s 1.30", "prod cluster has 14 nodes"),
    ("the grant is due 14 Oct", "the grant is for £120k over two years"),
    ("the shop is open 10-6", "the shop has two part-timers, Jo and Raf"),
    # a bare count far from the word both share counts something else
    (
        'work laptop is a MacBook Pro M2 14", asset tag LT-0493',
        "bought myself a new laptop for the photo editing, Dell XPS 13, upgraded from the old one",
    ),
    (
        "mum's house has a new boiler, Worcester Bosch, fitted last winter, 10 year warranty",
        "mum's house is getting a new roof now, roofers start 3 april",
    ),
    # two medicines, one of three letters; a neighbour's plot against mine; a duration
    # against a count; a count of something of mum's against another of hers
    (
        "dad's on MST 10mg twice a day for the pain",
        "palliative nurse says Oramorph 2.5ml for breakthrough pain now, up to 4 times a day",
    ),
    ("mine is plot 22, the sunny one by the gate", "Ken's got plot 23 next door to me now"),
    (
        "mum's levothyroxine is 75mcg, one a day",
        "mum takes her levothyroxine at 6am now, 30 mins before any food",
    ),
    ("keysafe at mum's is 9083", "burglar alarm code at mum's changed to 2716"),
]


@pytest.mark.parametrize(("old", "new"), [*STAYS, *((new, old) for old, new in STAYS)])
def test_another_thing_or_a_value_not_held_stays_open(old: str, new: str) -> None:
    assert measure_changed(new, old) is None, (old, new)
    assert closings(old, new) == [], (old, new)


def test_a_year_is_a_time_not_a_count_and_a_version_not_a_clock() -> None:
    assert measure_changed("Vacation is 28 days from 2024", "Vacation is 28 days") is None
    found = measure_changed("The cluster's on 1.29 now", "The cluster runs 1.24")
    assert found == ("fact: cluster (count)", "cluster: 1.24 -> 1.29")
