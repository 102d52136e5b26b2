"""Values of one kind: a change closes an earlier fact that shares no attribute word when
both values are members of one narrow kind (issue trackers, cars, phone carriers...)."""

from __future__ import annotations

import pytest

from memex_rules.question_slots import RulesJudge
from memex_rules.supersession_kinds import kind_changed
from memex_rules.value_kinds import members
from tests.plugins.rules.judging import closings

CLOSES = [
    # a renewal that names no cover renews the one policy told
    (
        "Car insurance is with Admiral, renews in March",
        "Renewed with LV= this time, Admiral wanted more",
    ),
    # the team's tools: no attribute word shared, one kind of value, told as a change
    ("We keep our tasks in Trello", "Tasks live in Asana these days"),
    ("Our CI is CircleCI", "Builds run on GitHub Actions now"),
    ("Our code is on Bitbucket", "Every repo was moved to GitHub"),
    ("Errors are reported to Bugsnag", "Exceptions go to Sentry now"),
    ("We deploy to Heroku", "Everything runs on Fly.io now"),
    ("Our flags are in LaunchDarkly", "Feature flags live in Flagsmith now"),
    ("We video call on Zoom", "Calls are on Google Meet these days"),
    ("We chat in HipChat", "The team moved to Slack"),
    ("Alerts page us through Opsgenie", "Paging goes through PagerDuty now"),
    ("Logs are shipped to Papertrail", "We migrated our logs to Splunk"),
    ("Our primary DB is MySQL", "The database is Postgres these days"),
    # the user's things
    ("I bank with Lloyds", "I've switched to Monzo"),
    ("I'm with Three Mobile", "Moved my contract to EE"),
    ("My energy is with British Gas", "I'm with Octopus Energy now"),
    ("I've got a Samsung Galaxy S21", "Got an iPhone 15 now"),
    ("My phone is an iPhone 12", "Upgraded to an iPhone 15"),
    ("I've got a Honda Civic", "My car's a Kia Niro now"),
    ("My email is Gmail", "I'm on Fastmail these days"),
    ("I use Evernote for notes", "My notes live in Obsidian these days"),
    ("I use Firefox", "Brave is my browser now"),
    ("I stream music on Spotify", "I'm on Apple Music these days"),
    ("I use macOS", "Fedora is my OS now"),
    ("My passwords are in LastPass", "After the leak I moved everything to 1Password"),
    ("I'm insured with Aviva", "Went with Direct Line at renewal this time"),
    # values said as words, a chat channel, a thing of the team's moved
    ("Gareth sings tenor in the choir", "Gareth moved down to baritone"),
    ("Priya is vegan", "Priya's pescatarian these days"),
    ("Incidents are handled in #ops-fire", "Incident chatter moved to #incidents"),
    ("My ISA is with Vanguard", "My ISA moved over to Trading 212"),
    ("Our cluster runs on EKS", "We migrated the cluster to GKE"),
    ("Search is powered by Algolia", "Search runs on Typesense these days"),
    # a team's or a person's way of saying it
    ("We're a Jira shop", "We've gone all in on Linear"),
    ("We use LastPass", "We've standardised on Bitwarden"),
    ("I'm an iPhone person", "Switched to Android"),
    ("I'm with EDF", "Signed up with Octopus Energy"),
    # the old value named in another clause of the new fact
    ("Our CDN is Akamai", "We're on Fastly now, the Akamai contract ran out"),
    ("Our energy supplier is Bulb", "We're with Octopus Energy now, Bulb went bust"),
    ("Our energy supplier is Bulb", "We're on Octopus these days"),
]


@pytest.mark.parametrize(("old", "new"), CLOSES)
def test_a_value_of_the_same_kind_closes_the_earlier_one(old: str, new: str) -> None:
    assert [c.memory_id for c in closings(old, new)] == ["m1"], (old, new)


STAYS = [
    # two policies, each naming its own cover
    ("car insurance with Admiral, renews Oct", "home insurance moved to Aviva, £21/month"),
    ("car insurance is with Direct Line", "home insurance renewed with Aviva, £212"),
    # two plain statements: one may hold beside the other
    ("We use Jira", "We use Linear"),
    # another use of the kind, or another thing of the owner's
    ("We use Jira for bugs", "Roadmaps live in Linear now"),
    ("We use Datadog for metrics", "Logs are in Loki now"),
    ("We use Datadog for APM", "Logs moved to Papertrail"),
    ("The API runs on AWS", "The marketing site is on Netlify now"),
    ("The backend is on Heroku", "The frontend moved to Vercel"),
    ("The app is written in Python", "The CLI is written in Rust now"),
    ("Our repos are on GitHub", "Our mirror is on GitLab now"),
    ("Our main database is Postgres", "We use SQLite for tests now"),
    ("I run Ubuntu on my laptop", "My desktop runs Windows now"),
    ("I use Vim", "I use VS Code for notebooks now"),
    ("My savings are with Chase", "My current account is with Starling now"),
    ("My phone is with Vodafone", "My broadband is with Virgin Media now"),
    # work and personal, home and work
    ("My work email is Outlook", "My email is on Fastmail now"),
    ("I use LastPass at work", "I've moved to Bitwarden"),
    # someone else's value
    ("My partner uses an iPhone", "I switched to a Pixel"),
    ("I drive a Yaris", "Ellie drives a Corolla now"),
    ("Dad has an iPhone 12", "Mum got a Galaxy S23 now"),
    ("I'm on Three Mobile", "My daughter's phone is on giffgaff now"),
    ("I bank with Monzo", "My brother switched to Starling"),
    ("The landlord's broadband is BT", "I switched to Community Fibre"),
    ("My brother-in-law drives a Golf", "I drive a Polo now"),
    ("Our son has a Kindle", "I've moved to a Kobo"),
    # tried, planned, compared, a job, a second one, not held
    ("We host on AWS", "We're evaluating GCP"),
    ("We're on AWS", "We might move to GCP next year"),
    ("We use Jira", "We're trialling Linear"),
    ("I listen on Spotify", "I work at Apple Music now"),
    ("I bank with Monzo", "I got a job at Starling"),
    ("I'm a member of PureGym", "I joined Virgin Active too"),
    ("I drive a Ford Focus", "I test drove a Polestar 2 yesterday"),
    ("I use Slack", "We don't use Discord anymore"),
    ("Our tickets are in Jira", "Should we move tickets to Linear?"),
    ("We track bugs in Jira", "We use Jira and Linear now"),
    # a family and its member are one value
    ("I've got a Pixel 7", "I'm on Android these days"),
    # a version of what was there, a thing the earlier fact narrows, a name holding "new"
    ("The main database runs on MongoDB", "We upgraded to PostgreSQL 15"),
    ("The pool car is a Yaris", "I drive a Corolla now"),
    # a word that describes another thing ("vegan lasagne", "tenor sax")
    ("I'm vegetarian", "I made a vegan lasagne now and then"),
    ("I sing alto in the choir", "I play tenor sax now"),
    # another account, another use
    ("My ISA is with Vanguard", "My pension is with Nutmeg now"),
    ("I use my Amex for travel", "My everyday card is the Curve card now"),
    ("Incidents go to #incidents", "Deploys are announced in #deploys now"),
    ("We use Jest", "The e2e suite runs on Cypress now"),
]
#: Pairs this rule leaves open that the table reads as one attribute ("drives", a tool's
#: kind told as a change) and closes by its own rules.
KIND_STAYS = [
    ("I drive a Golf", "I drive a Polo"),
    ("I use Chrome on my phone", "I use Firefox on my laptop now"),
    ("My work laptop is a ThinkPad", "My personal laptop is a MacBook Air now"),
    ("I use Chrome at work", "I use Firefox these days"),
    # a make and its model are one value
    ("I drive a Toyota", "I drive a Yaris now"),
]


@pytest.mark.parametrize(("old", "new"), [*STAYS, *((new, old) for old, new in STAYS)])
def test_another_use_owner_or_frame_stays_open(old: str, new: str) -> None:
    assert kind_changed(new, old) is None, (old, new)
    assert closings(old, new) == [], (old, new)


#: A past-tense fact beside the current one of its slot (current, past).
PAST_BESIDE = [
    ("I drive a Kia Niro", "I drove a Nissan Leaf for years"),
    ("Monitoring runs on Prometheus", "We used New Relic for monitoring"),
]


@pytest.mark.parametrize(("current", "past"), PAST_BESIDE)
def test_a_past_fact_told_later_stays_but_one_told_before_is_closed(
    current: str, past: str
) -> None:
    """Told after the current fact, an undated past one closes nothing; told before it, the
    current fact closes it: "I drove" / "we used" read in the present for the slot (before,
    "I drove" became "user driveses" and read nothing, so it stayed current beside the Kia)."""
    assert closings(current, past) == []
    assert [c.memory_id for c in closings(past, current)] == ["m1"]


@pytest.mark.parametrize(("old", "new"), [*KIND_STAYS, *((new, old) for old, new in KIND_STAYS)])
def test_the_kind_rule_leaves_open_what_may_be_held_beside(old: str, new: str) -> None:
    assert kind_changed(new, old) is None, (old, new)


def test_the_lexicon_reads_names_as_written() -> None:
    named = {m.name: sorted(m.kinds) for m in members("CI runs on GitHub Actions, code on GitHub")}
    assert named == {"github actions": ["ci"], "github": ["code host"]}
    # a make and its model are one car; a model number is part of a phone's value
    assert [m.name for m in members("I drive a 2014 Ford Fiesta")] == ["fiesta"]
    assert [m.name for m in members("I've got an iPhone 12")] == ["iphone 12"]
    # a common word counts only with its capital; a name inside an address does not count
    assert members("the tickets are linear") == ()
    assert members("Write to marco.rossi@gmail.com") == ()


def test_the_reason_names_the_kind_and_both_values() -> None:
    found = kind_changed("Tickets live in Linear these days", "We track work in Jira")
    assert found == ("we: issue tracker", "issue tracker changed from jira to linear")


@pytest.mark.parametrize(
    ("question", "fact"),
    [
        ("Where do we track tickets?", "Tickets live in Linear these days"),
        ("What do we use for error tracking?", "We dropped Sentry and replaced it with Rollbar"),
        ("Which phone do I have?", "Cracked the Pixel, so I'm back on an iPhone"),
        ("Who do I bank with?", "Salary goes into my Starling account now"),
        ("What does Uncle Ray drive?", "Uncle Ray drives a Skoda Enyaq"),
    ],
)
def test_a_question_for_a_kind_finds_the_fact_stating_a_value_of_it(
    question: str, fact: str
) -> None:
    answering = RulesJudge().answering(question)
    assert answering is not None and answering(fact), (question, fact)


@pytest.mark.parametrize(
    ("question", "fact"),
    [
        ("Where do we track tickets?", "Priya uses Jira at home"),  # someone else's
        ("What phone does Priya have?", "I've got a Pixel 8"),
        ("Which phone do I have?", "My broadband is with BT"),  # another kind
        ("Which phone do I have?", "I'm thinking of getting a Pixel"),  # not held
        ("Where do I work?", "We track work in Jira"),  # a role word too wide to ask a kind
        ("Which language am I learning?", "I use Python every day"),  # a person's language
    ],
)
def test_a_question_for_a_kind_leaves_other_facts(question: str, fact: str) -> None:
    answering = RulesJudge().answering(question)
    assert answering is None or not answering(fact), (question, fact)
