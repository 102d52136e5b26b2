"""The ``rules`` extractor: facts read off conversations and notes without a model."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from memex_core.domain import (
    FactType,
    Fragment,
    MemoryFact,
    Provenance,
)
from memex_core.domain.memory.facts import DEFAULT_FACT_TYPES
from memex_core.services.fact_types import load_fact_types
from memex_rules import (
    RulesExtractor,
    Statement,
    read_statement,
)
from memex_rules.sentences import split_sentences

FIXTURES = Path(__file__).parents[2] / "fixtures" / "fact_types"


def conversation(*turns: tuple[str, str], conversation_id: str = "conv-1") -> list[Fragment]:
    """Fragments for ``(role, text)`` turns, ids ``<conversation>/<n>``."""
    return [
        Fragment(
            id=f"{conversation_id}/{n}",
            conversation_id=conversation_id,
            role=role,
            content=text,
            provenance=Provenance("test", "chat.json", conversation_id, f"msg-{n}"),
        )
        for n, (role, text) in enumerate(turns, start=1)
    ]


def extract(fragments: Sequence[Fragment], types: Sequence[FactType] = DEFAULT_FACT_TYPES):
    return RulesExtractor().extract(fragments, types)


def as_pairs(facts: Sequence[MemoryFact]) -> list[tuple[str, str]]:
    return [(f.kind, f.text) for f in facts]


# --- the extractor on conversations ---------------------------------------------------------

TRAVEL_CHAT = conversation(
    ("user", "Hi! I'm planning a trip to Japan and could use some help."),
    ("assistant", "Happy to help! When are you going, and what do you enjoy?"),
    (
        "user",
        "I'm going to Tokyo in April. I love hiking and I'm vegetarian, so food matters. "
        "Also I'm allergic to peanuts.",
    ),
    ("assistant", "Great. I love ramen too! Do you prefer trains or flights inside Japan?"),
    ("user", "I prefer trains over domestic flights. Is the JR pass worth it?"),
    ("assistant", "For Tokyo-Kyoto-Osaka it usually is."),
    ("user", "Thanks! Oh, and my name is Dana, by the way. I live in Lyon with my partner."),
)


def test_travel_conversation_gives_the_users_facts_in_order() -> None:
    facts = extract(TRAVEL_CHAT)
    assert as_pairs(facts) == [
        ("plan", "User is going to Tokyo in April"),
        ("activity_preference", "User loves hiking"),
        ("health", "User is vegetarian"),
        ("health", "User is allergic to peanuts"),
        ("activity_preference", "User prefers trains over domestic flights"),
        ("personal_detail", "User's name is Dana"),
        ("personal_detail", "User lives in Lyon with their partner"),
    ]
    by_text = {f.text: f for f in facts}
    assert by_text["User is allergic to peanuts"].source_fragment_ids == ("conv-1/3",)
    assert by_text["User lives in Lyon with their partner"].source_fragment_ids == ("conv-1/7",)


def test_assistant_turns_and_questions_give_nothing() -> None:
    facts = extract(TRAVEL_CHAT)
    texts = " ".join(f.text for f in facts)
    assert "ramen" not in texts  # the assistant's "I love ramen"
    assert "JR pass" not in texts  # a question
    assert "planning a trip" not in texts  # "could use some help": not a fact shape


CODING_CHAT = conversation(
    ("user", "I want to fix the failing test in `test_api.py`. Can you look?"),
    ("assistant", "Sure, paste the traceback."),
    (
        "user",
        "Here it is:\n```\nTraceback (most recent call last):\n  I like this line\n```\n"
        "I'll try your suggestion. I use the following config:",
    ),
    ("tool", "I prefer tabs. I live in the terminal."),
    ("user", "I think I prefer pytest over unittest. We use Python 3.12 at work."),
    ("user", "Remember that I work at Acme on the payments team."),
    ("user", "I'm going to run the tests now. I have a question about fixtures."),
)


def test_coding_conversation_keeps_statements_not_chat_talk() -> None:
    assert as_pairs(extract(CODING_CHAT)) == [
        ("preference", "User prefers pytest over unittest"),
        ("professional", "User works at Acme on the payments team"),
    ]


def test_notes_are_read_like_user_turns() -> None:
    note = conversation(
        ("note", "# About me\n\n- My favourite book is Dune.\n- I no longer drink coffee.\n"),
        conversation_id="vault/me.md",
    )
    assert as_pairs(extract(note)) == [
        ("misc", "User's favourite book is Dune"),
        ("preference", "User no longer drinks coffee"),
    ]


def test_a_fact_said_twice_is_kept_once_with_both_sources() -> None:
    chat = conversation(
        ("user", "I prefer tea over coffee."),
        ("assistant", "Noted."),
        ("user", "Like I said, I prefer tea over coffee!"),
        ("user", "I prefer tea over coffee."),
    )
    facts = extract(chat)
    # "Like I said, ..." starts with "Like", so it is not read: only two turns say it plainly.
    assert [(f.text, f.source_fragment_ids) for f in facts] == [
        ("User prefers tea over coffee", ("conv-1/1", "conv-1/4"))
    ]


def test_extraction_is_deterministic() -> None:
    first = extract(TRAVEL_CHAT + CODING_CHAT)
    again = RulesExtractor().extract(list(TRAVEL_CHAT + CODING_CHAT), list(DEFAULT_FACT_TYPES))
    assert first == again


def test_roles_can_be_chosen() -> None:
    facts = RulesExtractor(roles=("assistant",)).extract(TRAVEL_CHAT, DEFAULT_FACT_TYPES)
    assert [f.text for f in facts] == ["User loves ramen"]


def test_extract_needs_fact_types() -> None:
    with pytest.raises(ValueError, match="at least one fact type"):
        RulesExtractor().extract(TRAVEL_CHAT, [])


# --- statements: shapes and rewrites --------------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "fact"),
    [
        ("Honestly, I prefer tea over coffee.", "User prefers tea over coffee"),
        ("I don't like cilantro.", "User does not like cilantro"),
        ("I really don\u2019t like loud restaurants", "User really does not like loud restaurants"),
        ("I no longer eat meat", "User no longer eats meat"),
        ("I can't stand horror movies!", "User cannot stand horror movies"),
        ("I never eat pork", "User never eats pork"),
        ("I do not surf, but I love reading", "User does not surf"),
        ("My name is Dana.", "User's name is Dana"),
        ("My wife's name is Sara.", "User's wife's name is Sara"),
        ("My goal is to run a marathon.", "User's goal is to run a marathon"),
        ("Call me Sam.", "User wants to be called Sam"),
        ("You can call me Dr. Smith", "User wants to be called Dr. Smith"),
        ("I live in Lyon with my partner.", "User lives in Lyon with their partner"),
        ("I work as a data engineer at Acme.", "User works as a data engineer at Acme"),
        ("I'm a software engineer at Acme", "User is a software engineer at Acme"),
        ("I'm allergic to peanuts.", "User is allergic to peanuts"),
        ("btw I'm vegan lol", "User is vegan"),
        ("I'm not a fan of crowds", "User is not a fan of crowds"),
        ("I'm 34.", "User is 34"),
        ("I was born in Madrid.", "User was born in Madrid"),
        ("I've lived in Oslo for ten years.", "User has lived in Oslo for ten years"),
        ("I've been vegetarian since 2015.", "User has been vegetarian since 2015"),
        ("I have two kids.", "User has two kids"),
        ("I plan to move to Berlin next year.", "User plans to move to Berlin next year"),
        ("I'm going to Japan in April.", "User is going to Japan in April"),
        ("I'll be in Tokyo next week.", "User will be in Tokyo next week"),
        ("I'd love to learn the piano someday", "User would love to learn the piano someday"),
        ("I'm thinking about switching jobs", "User is thinking about switching jobs"),
        ("I moved to Lisbon last year.", "User moved to Lisbon last year"),
        ("I got married in June!", "User got married in June"),
        ("I take vitamin D supplements daily", "User takes vitamin D supplements daily"),
        ("Remember that my sister's birthday is May 3.", "User's sister's birthday is May 3"),
        ("Please remember: I'm on Windows", "User is on Windows"),
        (
            "Don't forget that the staging server is in Frankfurt",
            "The staging server is in Frankfurt",
        ),
        ("I think I prefer the dark theme", "User prefers the dark theme"),
    ],
)
def test_statements_are_rewritten_in_the_third_person(sentence: str, fact: str) -> None:
    statement = read_statement(sentence)
    assert statement is not None, sentence
    assert statement.text == fact


@pytest.mark.parametrize(
    "sentence",
    [
        "Do you know if I like tea?",
        "I like tea, don't you?",
        "If I move to Paris I will need a visa.",
        "I love it!",
        "I like your idea",
        "I like how simple it is.",
        "I want you to refactor this.",
        "I want to fix the failing test.",
        "I'm going to run the tests now.",
        "I'll try that.",
        "I'll paste the logs",
        "I'd like a coffee",
        "I'm a bit tired",
        "I have a question about pandas.",
        "I have to go.",
        "I have met so many great people",
        "I started the server",
        "I use the following config",
        "I run the tests with pytest",
        "My code is broken",
        "We prefer tabs.",
        "Use `uv pip install` instead.",
        "She lives in Paris.",
        "",
    ],
)
def test_conversation_talk_is_not_a_fact(sentence: str) -> None:
    assert read_statement(sentence) is None


def test_sentences_skip_code_quotes_and_headings() -> None:
    text = (
        "# Notes\n> I love quoted text.\nFirst one. Second, e.g. this one! Third?\n"
        "```python\nI like code = 1\n```\n- A bullet. Dr. Who is fine.\n"
    )
    assert split_sentences(text) == [
        "First one.",
        "Second, e.g. this one!",
        "Third?",
        "A bullet.",
        "Dr. Who is fine.",
    ]


# --- classification -------------------------------------------------------------------------


def _kind(sentence: str, types: Sequence[FactType] = DEFAULT_FACT_TYPES) -> str:
    facts = extract(conversation(("user", sentence)), types)
    assert len(facts) == 1, sentence
    return facts[0].kind


@pytest.mark.parametrize(
    ("sentence", "kind"),
    [
        ("I prefer tea over coffee.", "preference"),
        ("I prefer window seats on flights.", "activity_preference"),
        ("I love hiking in the Alps.", "activity_preference"),
        ("My name is Dana.", "personal_detail"),
        ("I have two daughters.", "personal_detail"),
        ("I plan to visit my parents in May.", "plan"),
        ("I'm allergic to shellfish.", "health"),
        ("I quit smoking two years ago.", "health"),
        ("I work as a nurse at the city hospital.", "professional"),
        ("I'm a data engineer.", "professional"),
        ("My favourite film is Alien.", "misc"),
        ("Remember that the office wifi password rotates monthly.", "professional"),
        ("Remember that the car is due for inspection.", "misc"),
    ],
)
def test_facts_are_filed_under_the_default_types(sentence: str, kind: str) -> None:
    assert _kind(sentence) == kind


def test_only_offered_types_are_chosen() -> None:
    types = [t for t in DEFAULT_FACT_TYPES if t.name in ("preference", "misc")]
    assert _kind("I'm allergic to shellfish.", types) == "misc"
    assert _kind("I prefer tea.", types) == "preference"
    # No misc: the last type given is the fallback.
    only = [FactType("likes", "Likes."), FactType("other", "Anything else.")]
    assert _kind("I'm allergic to shellfish.", only) == "other"


def test_custom_types_from_a_file_catch_their_words() -> None:
    household = load_fact_types(FIXTURES / "household.yaml")
    assert _kind("I have a beagle called Rex.", household) == "pet"  # example words
    assert _kind("I'm allergic to peanuts.", household) == "diet"  # example words
    assert _kind("I live in a flat in Lyon.", household) == "misc"
    engineering = load_fact_types(FIXTURES / "engineering.toml")
    # A custom type's name in the fact beats the default keyword rules...
    assert _kind("Remember that our codebase convention is squash merges.", engineering) == (
        "codebase_convention"
    )
    # ... and its description words count when no default rule applies.
    assert _kind("I use neovim for everything.", engineering) == "tooling"  # 2 example words
    assert _kind("I prefer tabs over spaces.", engineering) == "preference"
    assert _kind("Remember that vscode is my editor.", engineering) == "tooling"  # 1 word
    assert read_statement("Remember that vscode is my editor.") == Statement(
        "Vscode is the user's editor", "misc"
    )


# --- real conversations (LoCoMo) ---------------------------------------------------------------


def test_locomo_conversation_gives_clean_third_person_facts(shared_data: Path) -> None:
    """On a real casual conversation: facts are few, all third person, traceable, stable."""
    path = shared_data / "locomo" / "locomo_dev.json"
    if not path.exists():
        pytest.skip(f"{path} not found")
    sample = json.loads(path.read_text(encoding="utf-8"))[0]
    talk = sample["conversation"]
    speaker = talk["speaker_a"]
    fragments = [
        Fragment(
            id=turn["dia_id"],
            conversation_id=sample["sample_id"],
            role="user" if turn["speaker"] == speaker else "assistant",
            content=turn["text"],
            provenance=Provenance("locomo", str(path), sample["sample_id"], turn["dia_id"]),
        )
        for key, session in talk.items()
        if key.startswith("session_") and isinstance(session, list)
        for turn in session
    ]
    user_ids = {f.id for f in fragments if f.role == "user"}
    facts = extract(fragments)
    assert 5 <= len(facts) <= len(user_ids) // 5  # selective: statements, not every turn
    names = {t.name for t in DEFAULT_FACT_TYPES}
    for found in facts:
        assert found.text.startswith("User"), found.text
        assert not found.text.endswith(("?", ".")), found.text
        assert " I " not in f" {found.text} " and " my " not in f" {found.text} "
        assert found.kind in names
        assert set(found.source_fragment_ids) <= user_ids
    texts = {f.text for f in facts}
    assert "User is going to a transgender conference this month" in texts  # D5:13
    assert extract(fragments) == facts
