"""A new fact worded as a change that names the earlier fact's thing again closes it."""

from __future__ import annotations

from pathlib import Path

import pytest

from memex_core.domain.contracts import PluginContext
from memex_core.domain.memory.validity import TimedFact
from memex_rules import build_supersession_judge
from memex_rules.supersession_announced import announced, next_point
from memex_rules.supersession_settings import JudgeSettingError
from tests.plugins.rules.judging import LATER, SAID, closings_named

CLOSES = [
    # a kind named as a name is the same thing
    ("My Goodreads goal this year is 24 books", "Lowered my reading goal to 15, busy year"),
    # the old value named again beside the change
    ("alerts go through Opsgenie", "ripped out Opsgenie, paging is on incident.io now"),
    ("Ravi takes ibuprofen for his back", "Ravi's on naproxen now, ibuprofen upset his stomach"),
    ("I commute on an old Trek", "bought a Cube, the Trek got stolen"),
    # the thing named again, the value changed
    ("Demo day in the Orion room", "demo day's in the Vega room from now on"),
    ("Mei is lead on android", "Mei has gone to Stripe. Lead android dev is Sol now"),
]

#: The thing a change verb moves is the subject both facts share: closed only with
#: ``[supersession.rules] moved_subjects = true`` (it closes unrelated facts of one subject
#: too: "the office moved to King's Cross" / "team office days are Tue/Thu").
MOVED_SUBJECTS = [
    ("invoicing service owned by Team Billing", "invoicing moved to Finance Ops in the reorg"),
    ("demo mon 10am", "Demo -> Tuesday 11am"),
    ("the mobile app uses npm", "We switched the mobile app to bun, delete package-lock"),
    # one word in two forms ("swim" / "swimming", "payments" / "payment")
    ("Noah's swimming is Mondays 5pm", "Noah's swim lessons moved to Wednesdays"),
    ("pls file payment bugs in Jira, project PAY", "payments bugs moved to Linear, team key PAY"),
]


@pytest.mark.parametrize(("old", "new"), MOVED_SUBJECTS)
def test_a_moved_subject_closes_only_when_asked(old: str, new: str, tmp_path: Path) -> None:
    assert announced(new, old) is None, (old, new)
    assert announced(new, old, moved_subjects=True) is not None, (old, new)
    settings = {"moved_subjects": True, "changes_named_again": True}
    judge = build_supersession_judge(PluginContext(tmp_path, settings))
    closed = judge.supersedes(
        TimedFact(None, new, LATER, LATER), [TimedFact("m1", old, SAID, SAID)]
    )
    assert [c.memory_id for c in closed] == ["m1"], (old, new)


@pytest.mark.parametrize(("old", "new"), CLOSES)
def test_a_change_naming_the_earlier_thing_closes_it(old: str, new: str) -> None:
    assert announced(new, old) is not None, (old, new)
    assert [c.memory_id for c in closings_named(old, new)] == ["m1"], (old, new)


STAYS = [
    # told beside the earlier one ("too"); a time zone, a per-seat unit, "every" tie nothing
    ("I'm tech lead on Checkout", "started as interview lead for the backend loop too"),
    ("Hannah is a staff engineer on the data team", "hannah started as tech lead, alongside data"),
    ("nightly DB backup runs 02:00 UTC", "log rotation cron changed to 04:30 UTC"),
    ("GitHub Team is $4/user/month", "Copilot Business is $19/user/month, approved"),
    ("I'm on the support rota every other Tuesday", "my on-call week is now every month"),
    # what the change verb moves is another thing, or another kind of it
    ("shop backend targets python 3.11", "upgraded Django to 5.0 in the shop backend"),
    ("backend services build on Java 17", "upgraded Gradle to 8.5 across the backend services"),
    ("commuter bike: Brompton", "upgraded my road bike to a Canyon Endurace"),
    # another person, named with "now" before the verb
    ("I report to Nadia", "Jamal now reports to me, moved over from the data team"),
    # no change said, or only "new": another thing
    ("We host the docs on GitBook", "The GitBook theme is dark"),
    ("Jo plays shooting guard for her team", "Jo found a new gym for basketball training"),
    # a question, a plan or a wish
    ("I code in Sublime", "thinking of switching from Sublime now that Zed is out?"),
    # the thing the change goes to, named in a fact of another attribute (the pair)
    ("Alice likes Berlin's museums", "Alice moved to Berlin"),
    # a subject alone, an attribute's verb, units and the calendar tie nothing
    ("Nina's cafe is open Tuesday to Sunday", "Nina's cafe has six staff now"),
    ("The user prefers aisle seats", "The user now prefers light mode"),
    ("Design review is on May 3", "Launch moved to May 9"),
    # another thing of the same name: two modifiers
    ("The design team is 5 people", "The data team is 8 people now"),
    ("Our read timeout is 10 seconds", "Our write timeout is 20 seconds now"),
    # two people
    ("Lena's brother lives in Oslo", "Lena now lives in Bergen"),
    ("Lena likes Bergen's fish market", "Lena moved to Bergen"),  # a person moved, not a thing
    ("The launch party is on May 3", "Launch moved to June 1"),  # another head: two things
    ("Ravi's standup is on Mondays", "Our standup moved to Tuesdays now"),  # two owners
    ("Marcus is captain at Riverside", "Dev is vice-captain at Riverside now"),
    ("I work at Monzo", "Ellie quit Monzo"),
    ("I drive a Yaris", "Ellie drives a Corolla now"),
    ("The kids go to bed at 8", "I go to bed at 11 now"),
    # the old thing still held beside another, or a part of it
    ("We track bugs in Jira", "We use Jira and Linear now"),
    ("I drink four coffees a day", "One of my coffees is decaf now"),
    # what the new fact names as replaced is the replaced reading's to judge
    ("I live in Berlin", "I take the tram instead of the bus in Berlin"),
    # a one-off event of a past time
    ("I visited Porto last year", "Porto is where we live now"),
]


@pytest.mark.parametrize(("old", "new"), STAYS)
def test_another_thing_owner_or_a_change_not_said_stays_open(old: str, new: str) -> None:
    assert announced(new, old) is None, (old, new)


SERIES_CLOSES = [
    ("Rent is £1,100 a month, due on the 1st", "Rent 1,180 from June (letter from the agent)"),
    ("staging GKE 1.27", "staging upgraded to 1.29"),
    ("Netflix £9.99/m", "netflix went up again, 11.99 a month"),
]


@pytest.mark.parametrize(("old", "new"), SERIES_CLOSES)
def test_a_new_point_of_the_earlier_series_closes_it(old: str, new: str) -> None:
    assert next_point(new, old) is not None, (old, new)
    assert [c.memory_id for c in closings_named(old, new)] == ["m1"], (old, new)


SERIES_STAYS = [
    ("prod cluster on k8s 1.29", "upgraded helm to 3.14 on the prod deploy runners"),
    ("Ollie's Calpol dose is 7.5ml now he's 4", "ollie's on 6ml of amoxicillin 3x a day"),
    # another thing's number, tied by nothing but a change word
    ("My Spotify subscription is £11", "The gym fee went up to £13"),
    # told beside the earlier one
    ("Mum takes ramipril 5mg", "mum also on simvastatin 20mg at night"),
    # another owner
    ("Priya's rent is £900", "My rent is £1,200 now"),
    ("My rent is £1,200 a month", "Their rent is £1,350"),
    # a plan's number
    ("We're planning to hire 10 engineers", "We hire 4 engineers a year"),
]


@pytest.mark.parametrize(("old", "new"), SERIES_STAYS)
def test_numbers_of_another_thing_owner_or_plan_stay_open(old: str, new: str) -> None:
    assert next_point(new, old) is None, (old, new)


def test_the_setting_turns_both_readings_on(tmp_path: Path) -> None:
    on = build_supersession_judge(PluginContext(tmp_path, {"changes_named_again": True}))
    off = build_supersession_judge(PluginContext(tmp_path))  # the default
    for old, new in (CLOSES[2], SERIES_CLOSES[0]):
        earlier = [TimedFact("m1", old, SAID, SAID)]
        new_fact = TimedFact(None, new, LATER, LATER)
        assert [c.memory_id for c in on.supersedes(new_fact, earlier)] == ["m1"]
        assert off.supersedes(new_fact, earlier) == []


@pytest.mark.parametrize("key", ["changes_named_again", "moved_subjects"])
@pytest.mark.parametrize("value", ["no", 0, 1.0])
def test_a_setting_that_is_no_boolean_is_refused_naming_the_fix(
    tmp_path: Path, value: object, key: str
) -> None:
    with pytest.raises(JudgeSettingError, match=rf"\[supersession.rules\] {key}"):
        build_supersession_judge(PluginContext(tmp_path, {key: value}))
    with pytest.raises(JudgeSettingError, match="unknown setting"):
        build_supersession_judge(PluginContext(tmp_path, {"changes_named": True}))
