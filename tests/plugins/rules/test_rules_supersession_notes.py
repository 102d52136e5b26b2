"""A note keyed by the same words given a new value closes the earlier note: "van: white
Transit" -> "van: Vivaro", whatever the value is; a person's notes, a list's, a marker's,
an addition and a key that is a subject with a clause stay open."""

from __future__ import annotations

import pytest

from memex_rules.supersession_notes import note_restated
from tests.plugins.rules.judging import closings

CLOSES = [
    # both notes: a colon, "=", an arrow, a spaced dash; a name, a product, a place, a number
    ("default branch: master", "default branch: main"),
    ("van: white Transit Custom, reg WU19 KXP", "van: Vivaro"),
    ("team chat = Slack", "team chat = Teams"),
    ("Clifton GM: Rosa", "Clifton GM: Marco"),
    ("image-resizer WORKERS=8", "image-resizer WORKERS=24"),
    ("mum's hair: Tuesday 10am with Carol", "mum's hair - friday 2pm w carol, pick up at 3"),
    # the new fact opens with the key and says it changed
    ("default branch: master", "default branch renamed to main, pls update your remotes"),
    ("logs -> Datadog", "logs now ship to Grafana Loki, dd contract ended"),
    # a key of a few lower-case words told with "is", the key written short ("this wk")
    ("payments on-call this week: Dmitri", "payments on-call this wk is Aisha, ping her"),
    ("event bus is RabbitMQ", "event bus: Kafka (MSK), topics in the platform-events repo"),
    ("cli repo default branch is master", "cli repo default branch renamed to main"),
]


@pytest.mark.parametrize(("old", "new"), CLOSES)
def test_a_new_value_of_the_same_key_closes_the_earlier_note(old: str, new: str) -> None:
    assert note_restated(new, old) is not None, (old, new)
    assert [c.memory_id for c in closings(old, new)] == ["m1"], (old, new)


STAYS = [
    # a person's notes, a list's, a note's marker
    ("Noah: loves dinosaurs", "Noah: 7 in May"),
    ("allergies: peanuts", "allergies: shellfish"),
    ("todo: call the plumber", "todo: renew the car tax"),
    # an addition, the same value again, another key
    ("tools: Notion", "tools: also Linear for tickets"),
    ("team chat = Slack", "team chat = slack, huddles on"),
    ("team chat = Slack", "team docs = Notion"),
    # a key with a clause is a subject: the change is of another thing of it
    ("ml-service: deps managed with uv", "ml-service moved to python 3.12"),
    ("data team: 5 FTEs", "data team now has 2 contractors on the dbt migration"),
    # "is" tells what a thing is like: a later change of another kind does not replace it
    ("platform team is 6 engineers", "platform team now owns the k8s upgrade project"),
    ("admin tool is Django + HTMX", "admin tool moved to Render, the Heroku bill was silly"),
    ("the api is slow because the cache is cold", "the api is fast again"),
]


@pytest.mark.parametrize(("old", "new"), STAYS)
def test_another_thing_of_the_key_stays_open(old: str, new: str) -> None:
    assert note_restated(new, old) is None, (old, new)
    assert closings(old, new) == [], (old, new)
