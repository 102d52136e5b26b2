"""The ``rules`` judge's reading of when a fact stopped holding by its own words (issue 30):
a closed past period ends the fact; an open one, a plan, a start or an event does not."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memex_core.domain.memory.validity import EndingJudge
from memex_rules.supersession import RulesSupersessionJudge

JUDGE = RulesSupersessionJudge()


def _at(day: str) -> float:
    return datetime.fromisoformat(day).replace(tzinfo=UTC).timestamp()


def _until(text: str, said: str) -> str | None:
    found = JUDGE.valid_until(text, _at(said))
    return None if found is None else datetime.fromtimestamp(found, UTC).date().isoformat()


def test_the_rules_judge_reads_ends() -> None:
    assert isinstance(JUDGE, EndingJudge)


@pytest.mark.parametrize(
    ("text", "said", "until"),
    [
        # a past state in a closed past year: the end of that year
        ("Back in 2020 prod was still on Heroku", "2024-04-15", "2021-01-01"),
        # a range whose end year is written short, a holiday of a year
        ("in 2015-16 I worked weekends at Boots", "2023-06-02", "2017-01-01"),
        ("at New Year 2021 I was 88 kg", "2024-05-02", "2021-02-01"),
        ("Xmas 2020 we were still in the old flat", "2024-06-15", "2021-01-01"),
        # a season or a holiday of a year, the year written short, no word before it
        ("summer '19 we had the old Fiesta, did the whole NC500 in it", "2024-05-01", "2019-09-01"),
        ("Xmas '22 I was 91kg", "2024-05-01", "2023-01-01"),
        ("winter 2020 I lived in Oslo", "2024-05-01", "2021-03-01"),
        ("we were on CircleCI till summer '21, moved after the leak", "2024-05-01", "2021-07-01"),
        ("Before '20 our CI was on Travis", "2024-03-11", "2020-01-01"),
        ("In early 2022 platform was just 3 engineers", "2024-06-24", "2023-01-01"),
        ("At launch in 2021 Pro was priced at $19 a month", "2024-02-01", "2022-01-01"),
        # a year naming a thing of that year, a month-long challenge of a year
        ("the 2019 price list says sourdough was £3.80 then", "2024-02-02", "2020-01-01"),
        ("during my 2021 summer internship my manager was Joel", "2024-02-02", "2022-01-01"),
        ("Veganuary 2022 was me going vegan for a month", "2024-02-02", "2022-02-01"),
        # "up to" a time, two years running, a season of a year after "in", a year opening
        ("up to summer 2022 mum was seeing Dr Okafor at Elm St", "2024-02-02", "2022-07-01"),
        ("payroll was done by Gusto in 2021 and 2022", "2024-02-02", "2023-01-01"),
        ("in winter 2021/22 we were with EDF on a fixed deal", "2024-02-02", "2022-03-01"),
        ("2019 I was on £48k at the agency", "2024-02-02", "2020-01-01"),
        ("Alice lived in Rome in 2019", "2024-01-01", "2020-01-01"),
        ("In 2019, my favourite book was Beloved", "2024-03-27", "2020-01-01"),
        ("For most of 2021 we tracked everything in Trello", "2024-04-02", "2022-01-01"),
        ("Ravi led search during 2023", "2024-05-27", "2024-01-01"),
        ("In 2019, we used Jira for issue tracking", "2024-12-02", "2020-01-01"),
        ("Back in 2017, we ran PostgreSQL 15", "2024-08-16", "2018-01-01"),
        ("In 2021, Ivan drove a Toyota Corolla", "2024-06-17", "2022-01-01"),
        ("In March 2021 Alice was living in Leeds", "2024-01-01", "2021-04-01"),
        ("Old Geoff captained Riverside all through the 2010s", "2024-05-02", "2020-01-01"),
        ("Last year standup used to be at 9:15", "2024-03-20", "2024-01-01"),
        # a start only dates the state it is told with: "when X joined in 2021, ..."
        ("When Jonas joined in 2021 he reported to Tomasz", "2024-02-19", "2022-01-01"),
        # until / till / before a time
        ("Until mid-2023 we were using PagerDuty for paging", "2024-08-19", "2023-07-01"),
        ("Alice lived in Lisbon till March", "2024-08-01", "2024-04-01"),
        ("Alice lived in Lisbon till March", "2024-02-01", "2023-04-01"),
        ("We were on Heroku until 2022", "2024-01-01", "2023-01-01"),
        ("Before 2022 our CI was on Travis", "2024-03-11", "2022-01-01"),
        # a range: the end of its last year
        ("From 2018 to 2021 I lived in Oslo", "2024-01-01", "2022-01-01"),
        ("I lived in Oslo 2018-2021", "2024-01-01", "2022-01-01"),
        ("I lived in Oslo 2018\u20132021", "2024-01-01", "2022-01-01"),  # an en dash
        ("Between 2019 and 2021 I worked at Google", "2024-01-01", "2022-01-01"),
        ("I had a Vauxhall Corsa from 2012 until 2016", "2025-03-11", "2017-01-01"),
        ("From March 2019 to June 2021 Alice worked at Google", "2024-01-01", "2021-07-01"),
        # a decade, or a part of one
        (
            "In the nineties Ray had a bright red Ford Capri, Mum still talks about it",
            "2023-07-22",
            "2000-01-01",
        ),
        ("In the 90s Ray had a Ford Capri", "2023-07-22", "2000-01-01"),
        ("In the early 2000s I lived in Leeds", "2023-07-22", "2004-01-01"),
        ("In the late '80s we had a caravan", "2023-07-22", "1990-01-01"),
        ("In the 1980s my dad worked at British Steel", "2023-07-22", "1990-01-01"),
        # last season, a year set off by commas, a time ago
        (
            "Last season, before Steve, the under-11s were coached by Dave Bright",
            "2024-03-05",
            "2023-09-05",
        ),
        (
            "In his first year at the company, 2020, Jonas worked under Petra",
            "2023-11-14",
            "2021-01-01",
        ),
        ("Two years ago I worked at Deliveroo", "2023-07-22", "2022-07-22"),
        ("The year before last I lived in Leeds", "2024-03-01", "2023-01-01"),
        ("Back in '19 we were on Heroku", "2024-03-01", "2020-01-01"),
        # "had" a thing or a treatment is a state held; told in a past period it is over
        (
            "During the first lockdown in 2020 my GP had me on citalopram",
            "2023-06-20",
            "2021-01-01",
        ),
        ("In 2019 I had a dog called Rex", "2024-01-01", "2020-01-01"),
        # a year in brackets, roughly, at the end, after "spent"; a quarter; a decade in brackets
        ("Originally (2018) the API was in Perl", "2024-02-01", "2019-01-01"),
        ("In v1 (c. 2017) search was a plain LIKE query", "2024-01-01", "2018-01-01"),
        ("Tom used to play rugby at school, 2005-ish", "2024-01-01", "2006-01-01"),
        ("Our first office was a garage in Croydon, 2011", "2024-01-01", "2012-01-01"),
        ("Priya was on nights when she started, so 2019", "2024-01-01", "2020-01-01"),
        ("I spent 2016 in Tokyo teaching English", "2024-01-01", "2017-01-01"),
        ("In Q3 2022 the on-call rota was weekly", "2024-01-01", "2022-10-01"),
        ("As a teenager (the 90s) I had a Walkman", "2023-01-01", "2000-01-01"),
        # "was $5", "ran X on Y", "volunteered": states too
        ("At launch in 2020 the Basic plan was $5 a month", "2024-01-01", "2021-01-01"),
        ("Back in 2017 we ran prod on a single VPS", "2024-01-01", "2018-01-01"),
        ("Ana volunteered at the food bank for all of 2019", "2024-01-01", "2020-01-01"),
        # a range that ends in the year it is told, in the past tense: over when told
        ("Sam was at Hillside Primary 2018-2024", "2024-09-15", "2024-09-15"),
        # a change in a clause after the state's tells what ended it, not a start
        (
            "old invoices say the 2020 paper supplier was Paperlinx, we switched after covid",
            "2024-01-01",
            "2021-01-01",
        ),
        (
            "for the appraisal: Q1 2023 I reported to Dan Price, then he left",
            "2024-01-01",
            "2023-04-01",
        ),
        # "that year": the one year the fact names; a supplier's "came from"; November's days
        ("my 2019 P60 - was on 31k that year", "2024-04-20", "2020-01-01"),
        (
            "for the 2021 accounts, beans came from Extract Coffee that whole year",
            "2024-01-01",
            "2022-01-01",
        ),
        ("over Black Friday 2023 we ran daily on-call rotations", "2024-02-20", "2023-12-01"),
        ("over Christmas 2023 Ollie covered payments on-call solo", "2024-02-20", "2024-01-01"),
    ],
)
def test_a_closed_past_period_ends_the_fact(text: str, said: str, until: str) -> None:
    assert _until(text, said) == until


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("Prod runs on GCP", "2024-04-15"),
        # open periods
        ("Since 2020 I live in Oslo", "2024-01-01"),
        ("Alice has lived in Berlin since May 2023", "2024-01-01"),
        ("From 2020 I lived in Oslo", "2024-01-01"),
        # a period not over when said
        ("In 2025 I lived in Oslo", "2025-06-01"),
        ("Between 2024 and 2026 the contract covers support", "2025-01-01"),
        ("We were on Heroku until 2025", "2025-03-01"),
        # versions and plans
        ("We use Visual Studio 2019", "2024-01-01"),
        ("The launch is on June 1", "2024-01-01"),
        ("We will be on Heroku until 2023", "2022-01-01"),
        ("I'm in Lisbon till March", "2024-08-01"),
        # starts and events: still true, or a moment rather than a state that ended
        ("Last year I started running", "2024-03-01"),
        ("Alice joined Stripe in 2021", "2024-01-01"),
        ("Alice moved to Berlin in 2019", "2024-01-01"),
        ("I was born in 1990", "2024-01-01"),
        ("Brightline was founded in 2012", "2024-01-01"),
        ("We got married in 2019", "2024-01-01"),
        ("In 2019 I ran the London marathon", "2024-01-01"),
        ("I didn't learn to drive until 2020", "2024-01-01"),
        # a present or perfect tense
        ("In 2020 Alice was hired and she is still at Acme", "2024-01-01"),
        ("Alice has been vegan in 2020 and still is", "2024-01-01"),
        # two years that are not a range
        ("We shipped 2019 and 2021 releases", "2024-01-01"),
        ("dad can have up to 4 paracetamol a day", "2024-01-01"),
        # "had" an event, an obligation or a past perfect of a change: not a state held
        ("In 2020 I had a baby", "2024-01-01"),
        ("In 2019 I had surgery", "2024-01-01"),
        ("In 2020 we had to move", "2024-01-01"),
        ("In 2019 I had moved to Leeds", "2024-01-01"),
        ("Two years ago I started running", "2023-07-22"),
        # a decade in the present tense, or not a time at all
        ("In the nineties I have lived in Leeds", "2023-07-22"),
        ("I love music from the eighties", "2023-07-22"),
        ("Since the nineties I have had a Ford Capri", "2023-07-22"),
        ("I love the '90s", "2023-07-22"),
        ("We shipped v2 in '19", "2023-07-22"),
        ("I started running the year before last", "2024-03-01"),
        # a year that is a model, a plan or a present range; a quarter to come
        ("My work laptop is a 2019 MacBook Pro", "2024-01-01"),
        ("The 2019 MacBook Pro was a lemon", "2024-01-01"),
        ("Sam is at Hillside Primary 2018-2024", "2024-09-15"),
        ("Ravi's plan (2025) is to move to Leeds", "2024-01-01"),
        # a change in the state's own clause is a start, not what ended the state
        ("In 2020 the supplier was Paperlinx and we switched", "2024-01-01"),
        ("The sequel was announced for Q1 2025", "2024-06-01"),
    ],
)
def test_an_open_period_a_plan_a_start_or_an_event_does_not_end(text: str, said: str) -> None:
    assert _until(text, said) is None


def test_a_long_note_is_read_by_its_start_only() -> None:
    text = "Alice likes tea. " + "x " * 2000 + "Back in 2020 prod was on Heroku"
    assert _until(text, "2024-01-01") is None


@pytest.mark.parametrize(
    ("text", "said", "start"),
    [
        # a closed period names its start too, when no other time phrase does
        ("While I was doing my PhD, 2017 to 2021, I lived in Durham", "2024-11-12", "2017-01-01"),
        ("As a kid, from about 2000 to 2005, I had violin lessons", "2023-11-18", "2000-01-01"),
        ("Old Geoff captained Riverside all through the 2010s", "2024-05-02", "2010-01-01"),
        ("From March 2019 to June 2021 Alice worked at Google", "2024-01-01", "2019-03-01"),
        ("Back in 2020 prod was still on Heroku", "2024-04-15", "2020-01-01"),
        ("in 2015-16 I worked weekends at Boots", "2023-06-02", "2015-01-01"),
        ("Xmas 2020 we were still in the old flat", "2024-06-15", "2020-12-01"),
        ("back in summer '19 I drove a clapped-out Corsa", "2024-05-01", "2019-06-01"),
        # a start told by a holiday of a year: what began then may still hold
        ("at Christmas 2021 I joined the Gym Group", "2024-05-01", "2021-12-01"),
        # a time something ended at is no start
        ("we were on CircleCI till summer '21, moved after the leak", "2024-05-01", "2024-05-01"),
        ("orders-service ran on MongoDB until March 2022", "2024-02-02", "2024-02-02"),
        # a range of months of a year begins with the first; a month-long challenge
        ("during lockdown (Jan-Mar 2021) we closed at 2pm", "2024-02-02", "2021-01-01"),
        ("I went vegan for Veganuary 2021 and a few months after", "2024-02-02", "2021-01-01"),
        ("did Movember 2019, grew a terrible tache", "2024-02-02", "2019-11-01"),
        ("2019 I was on £48k at the agency", "2024-02-02", "2019-01-01"),
        ("payroll was done by Gusto in 2021 and 2022", "2024-02-02", "2021-01-01"),
        ("In the nineties Ray had a bright red Ford Capri", "2023-07-22", "1990-01-01"),
        ("In the late '80s we had a caravan", "2023-07-22", "1986-01-01"),
        ("Back in the 1980s my dad worked at British Steel", "2023-07-22", "1980-01-01"),
        # last season: a year-long season that ended within the year, 18 to 6 months back
        (
            "Last season, before Steve, the under-11s were coached by Dave Bright",
            "2024-03-05",
            "2022-09-05",
        ),
        (
            "In his first year at the company, 2020, Jonas worked under Petra",
            "2023-11-14",
            "2020-01-01",
        ),
        ("I spent 2016 in Tokyo teaching English", "2024-01-01", "2016-01-01"),
        ("In Q3 2022 the on-call rota was weekly", "2024-01-01", "2022-07-01"),
        ("As a teenager (the 90s) I had a Walkman", "2023-01-01", "1990-01-01"),
        ("Originally (2018) the API was in Perl", "2024-02-01", "2018-01-01"),
        # a decade after a word that is no time: when said
        ("I love music from the eighties", "2023-07-22", "2023-07-22"),
        # the start is unknown: valid_from keeps its reading (when said)
        ("Until mid-2023 we were using PagerDuty for paging", "2024-08-19", "2024-08-19"),
        ("Before 2022 our CI was on Travis", "2024-03-11", "2024-03-11"),
        # not a closed period: when said
        ("Between 2024 and 2026 the contract covers support", "2025-01-01", "2025-01-01"),
    ],
)
def test_a_closed_period_is_valid_from_its_start(text: str, said: str, start: str) -> None:
    found = JUDGE.valid_from(text, _at(said))
    assert datetime.fromtimestamp(found, UTC).date().isoformat() == start
