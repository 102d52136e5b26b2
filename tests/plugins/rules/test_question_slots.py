"""The rules judge reads questions into the slot their answer sets (memex_rules.question_slots).

A question is met by the facts the supersession rules read into the same subject and
attribute, whatever words the two share; a question of no form read here reads to nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memex_core.domain import PluginContext
from memex_core.domain.memory.validity import AnsweringJudge
from memex_rules import build_supersession_judge
from memex_rules.question_slots import RulesJudge, answers, read_question

JUDGE = RulesJudge()


@pytest.mark.parametrize(
    ("question", "subject", "attribute"),
    [
        ("What is my address?", "user", "address"),
        ("Where do I live?", "user", "lives in"),
        ("Which city is Priya based in?", "priya", "lives in"),
        ("Where do I work?", "user", "works at"),
        ("Which company does Hana work for?", "hana", "works at"),
        ("Who is Goran's employer?", "goran", "works at"),
        ("What do I do for a living?", "user", "job"),
        ("What is my job title?", "user", "job"),
        ("Who is my partner?", "user", "relationship"),
        ("Who is Emeka dating?", "emeka", "relationship"),
        ("What diet does Alice follow?", "alice", "diet"),
        ("What car does Nadia drive?", "nadia", "car"),
        ("What is Bob's email address?", "bob", "email"),
        ("What is Omar's last name?", "omar", "last name"),
        ("What does Julia study?", "julia", "studies"),
        ("What do we use for hosting?", "hosting", "tool"),
        ("Which tool handles CI?", "ci", "tool"),
        ("When is the launch?", "launch", "date"),
        ("What date is the beta?", "beta", "date"),
        ("Which Python version do we run?", "we", "version of python"),
        ("Who owns the login service?", "login service", "owner"),
        ("Where does the security review stand?", "security review", "status"),
        ("What is the new app called?", "app", "name"),
    ],
)
def test_a_question_reads_into_the_slot_its_answer_sets(
    question: str, subject: str, attribute: str
) -> None:
    assert (subject, attribute) in [(s, a) for s, a, _value in read_question(question)]


@pytest.mark.parametrize(
    ("question", "fact", "other"),
    [
        ("What is my address?", "I live at 88 King Street now", "I like King Street's cafes"),
        ("Where do I work?", "I joined Airbus", "I live in Toulouse"),
        ("Who is my partner?", "I am with Elena these days", "I have a dog named Rex"),
        ("What is my job title?", "I am a data scientist", "I joined Airbus"),
        ("When is the launch?", "The launch moved to June 12", "The beta is on May 3"),
        # "a pet" is met by the animal the user has, and by its end
        ("Do I have a pet?", "I own a tortoise called Kiwi", "I have a car"),
        ("Do I have a pet?", "My tortoise Kiwi died last week", "Alice has a cat"),
        # how the user wants answers laid out, asked of the assistant or told as a preference
        (
            "How do I like answers laid out?",
            "Please keep your answers in bullet points",
            "I like tables",
        ),
        ("How do I like answers laid out?", "Actually I prefer full paragraphs", "I prefer tea"),
        # a level of the ladder asked about, held by the same owner
        ("What grade do I boulder at?", "I'm climbing V3 at the wall", "Tom climbs V6"),
        ("What grade do I boulder at?", "So I'm projecting V5s now", "I want to climb V7"),
        (
            "What stage is Maya on at swimming?",
            "Maya got moved up to Stage 5",
            "Noah is on Stage 4",
        ),
    ],
)
def test_a_question_meets_the_fact_that_answers_it_and_not_another(
    question: str, fact: str, other: str
) -> None:
    test = JUDGE.answering(question)
    assert test is not None
    assert test(fact)
    assert not test(other)


@pytest.mark.parametrize(
    ("question", "fact", "other"),
    [
        # a past tense is read in the present for the slot: what held then answers as of then
        (
            "What do I do for a living?",
            "Back in 2017, I worked as a head of department",
            "I worked hard",
        ),
        (
            "Who does Jonas report to?",
            "In his first year, 2020, Jonas worked under Petra",
            "Jonas worked under pressure",
        ),
        (
            "Who does Jonas report to?",
            "When Jonas joined in 2021 he reported to Tomasz",
            "Jonas reported a bug",
        ),
        (
            "What car does Ray have?",
            "In the nineties Ray had a bright red Ford Capri",
            "Ray had a lovely Labrador",
        ),
        (
            "What car does Ray have?",
            "Uncle Ray drives a Skoda Enyaq",
            "Uncle Bob drives a Skoda Enyaq",
        ),
        (
            "Where do I work?",
            "Before Ocado I spent two years at Deliveroo, 2019 to 2021",
            "I spent a week at the beach",
        ),
        ("What do I eat?", "I was vegan for most of 2022", "I was tired for most of 2022"),
        (
            "Which antidepressant am I on?",
            "During the first lockdown in 2020 my GP had me on citalopram",
            "My GP had a cold",
        ),
        (
            "Who coaches the under-11s?",
            "Last season, before Steve, the under-11s were coached by Dave Bright",
            "Dave Bright coaches tennis",
        ),
        (
            "Who coaches the under-11s?",
            "Gemma coaches the under-11s now",
            "Gemma coaches the under-12s",
        ),
        # "I"/"we" before a past tense, after a time phrase too
        ("Do we still use Jenkins?", "In the 2010s we used Jenkins", "In the 2010s we used Travis"),
        ("Where are we based?", "In 2020 we were based in Leeds", "In 2020 we were tired"),
        # a kind told in the past, and one asked by two wide words together
        (
            "What do we chat on?",
            "Back when I started in 2020 the team was on HipChat",
            "Back when I started in 2020 I was on holiday",
        ),
        (
            "Where is our code hosted?",
            "In 2022 we kept everything on GitLab",
            "In 2022 we kept everything in Jira",
        ),
        # a group named for "we", a relative named with or without "my"
        (
            "What chat tool does the company use?",
            "company's on Microsoft Teams since the acquisition",
            "Gran's on Microsoft Teams since the acquisition",
        ),
        (
            "Which mobile network is Gran on?",
            "sorted Gran out with a giffgaff sim",
            "sorted Dad out with a giffgaff sim",
        ),
        (
            "What phone does Dad have?",
            "got my dad an iPhone 13 for his birthday",
            "got my mum an iPhone 13 for her birthday",
        ),
        (
            "What am I studying at the moment?",
            "Finished the Google cert, and now I'm enrolled in the Open University MSc",
            "I'm doing a pottery course",
        ),
    ],
)
def test_a_past_or_other_wording_answers_as_of_its_time(
    question: str, fact: str, other: str
) -> None:
    """Each of these answered nothing before: an as-of recall kept no fact (issue 30's floor
    misses on dev/test/broad)."""
    test = JUDGE.answering(question)
    assert test is not None
    assert test(fact), fact
    assert not test(other), other


@pytest.mark.parametrize(
    ("question", "facts", "others"),
    [
        (
            "What uptime do we promise?",
            ("Our API SLA is 99.5% uptime", "The API SLA is 99.9% in the new contracts"),
            ("Our API timeout is 30 seconds", "We promise to reply within a day"),
        ),
        (
            "What is our SLA?",
            ("Our uptime is 99.9%", "Our API SLA is 99.5% uptime"),
            ("Our API rate limit is 100 requests a second",),
        ),
        (
            "What medication do I take?",
            ("I take 50mg of sertraline", "I'm on citalopram now"),
            ("Dad takes metformin", "I work at the pharmacy"),
        ),
        (
            "Which train do I catch in the morning?",
            (
                "I get the 7:42 from Reading to Paddington",
                "Timetable change, I'm on the 7:51 now",
                "Catching the 8:12 these days, the 7:51 is always rammed",
            ),
            ("Priya gets the 7:15 from Leeds", "I take the bins out", "I'm on the rota"),
        ),
        (
            "Which pills does Dad take every day?",
            ("Dad takes metformin",),
            ("I take 50mg of sertraline",),
        ),
    ],
)
def test_a_promised_level_or_a_medication_is_asked_for(
    question: str, facts: tuple[str, ...], others: tuple[str, ...]
) -> None:
    """These read to no slot before (broad b-a-u-0031's and b-b-u-0005's questions answered
    nothing)."""
    test = JUDGE.answering(question)
    assert test is not None
    assert [f for f in facts if not test(f)] == []
    assert [f for f in others if test(f)] == []


def test_a_plain_head_does_not_answer_for_a_modified_one() -> None:
    """'What is our API SLA?' is about that SLA, not any uptime told."""
    test = JUDGE.answering("What is our API SLA?")
    assert test is not None
    assert test("Our API SLA is 99.5% uptime")
    assert not test("Our uptime is 99.9%")


def test_a_question_about_one_person_is_not_met_by_anothers_fact() -> None:
    test = JUDGE.answering("Where does Alice work?")
    assert test is not None
    assert test("Alice joined Airbus") and not test("Bob joined Airbus")


def test_a_yes_no_question_is_met_by_the_facts_of_its_value_only() -> None:
    test = JUDGE.answering("Do we still use Trello?")
    assert test is not None
    assert test("We dropped Trello") and test("We use Trello")
    assert not test("We use Jira")  # uses has many values: another is no answer


@pytest.mark.parametrize(
    "question",
    [
        "zzqxj qqvvkw",
        "What is the capital of France?",
        "tell me about pasta recipes",
        "How do I fix a database is locked error?",
        "What is your name?",
        "",
    ],
)
def test_a_question_of_no_form_reads_to_no_slot(question: str) -> None:
    assert read_question(question) == ()
    assert JUDGE.answering(question) is None
    assert answers(question, ["I joined Airbus", "I live in Paris"]) == []


def test_the_plugin_builds_the_judge_that_reads_questions(tmp_path: Path) -> None:
    judge = build_supersession_judge(PluginContext(home=tmp_path))
    assert isinstance(judge, AnsweringJudge)
    # the same closings as before: it is the rules judge
    assert judge.valid_from("Alice lived in Rome in 2019", 1_700_000_000.0) < 1_600_000_000.0
