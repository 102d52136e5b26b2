"""Recall finds the fact a question asks about, even with no shared word (the slot signal).

A home with the embedding doubles (hashing: a similarity from shared words only) and a
fixed relevance floor, so a fact that shares no word with the question is below the floor;
the ``rules`` supersession judge reads the question into (subject, attribute) and the memory
search keeps the facts it found that set that slot (memex_core.services.slot_signal).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memex_core.api import Memex
from memex_core.domain import SearchFilters
from memex_core.domain.disclosure import why_matched
from memex_core.domain.memory.records import MEMORY_SOURCE
from memex_core.domain.relevance import EVIDENCE_SLOT
from memex_core.facade.reading import Reader
from tests.support.supersession_doubles import judged_memex

DAY = 86400.0
T0 = 1_700_000_000.0  # 2023-11-14
#: With the hashing embedder, a fact sharing no word with a question is far under this.
FLOOR = 0.5

#: (facts in the order said, question): the last fact answers now, the first then.
EXAMPLES = {
    "addr": (["I live at 7 Calle Mayor", "I live at 88 King Street now"], "What is my address?"),
    "work": (["I have a job at Spotify", "I joined Airbus"], "Where do I work?"),
    "partner": (
        ["I have been seeing Mia for a few months", "Mia and I split up; I am with Elena now"],
        "Who is my partner?",
    ),
    "title": (["I work as a junior developer", "I am a data scientist"], "What is my job title?"),
}


def _memex(home: Path, judge: str = "rules") -> Memex:
    return judged_memex(home, judge, FLOOR)


def _fill(mx: Memex) -> None:
    for user, (facts, _question) in EXAMPLES.items():
        for i, fact in enumerate(facts):
            mx.remember(fact, user=user, at=T0 + i * 30 * DAY)


@pytest.fixture
def mx(memex_home: Path) -> Iterator[Memex]:
    memex = _memex(memex_home)
    _fill(memex)
    yield memex
    memex.close()


@pytest.mark.parametrize("user", list(EXAMPLES))
def test_the_current_fact_is_found_under_the_floor(mx: Memex, user: str) -> None:
    facts, question = EXAMPLES[user]
    hits = mx.recall(question, user=user)
    assert [h.text for h in hits] == [facts[-1]]
    assert hits[0].ranks.get("slot") is not None
    # the operator reading that user's memory finds it the same way
    found = mx.operator().search(question, user_id=user)
    assert found and found[0].text == facts[-1]


@pytest.mark.parametrize("user", list(EXAMPLES))
def test_as_of_returns_the_fact_valid_then(mx: Memex, user: str) -> None:
    facts, question = EXAMPLES[user]
    hits = mx.recall(question, user=user, as_of=T0 + DAY)
    assert [h.text for h in hits] == [facts[0]]


def test_a_fact_kept_only_by_its_slot_says_so(mx: Memex) -> None:
    within = SearchFilters(source_kinds=(MEMORY_SOURCE,), owners=("users/work",))
    found = mx.search("Where do I work?", filters=within).results
    assert found and [r.evidence for r in found] == [EVIDENCE_SLOT] * len(found)
    assert all(r.ranks.get("keyword") is None for r in found)  # no shared word
    assert why_matched(found[0], []).endswith("kept as the fact that sets what the question asks")


@pytest.mark.parametrize("question", ["zzqxj qqvvkw", "What is the capital of France?"])
def test_a_question_about_nothing_stored_still_returns_nothing(mx: Memex, question: str) -> None:
    for user in EXAMPLES:
        assert mx.recall(question, user=user) == []


def test_a_slot_question_about_what_the_user_never_said_returns_nothing(mx: Memex) -> None:
    assert mx.recall("What diet do I follow?", user="work") == []
    assert mx.recall("Where do I work?", user="addr") == []


def test_another_users_fact_is_never_returned(mx: Memex) -> None:
    mx.remember("I joined Globex", user="bob", at=T0)
    assert mx.recall("Where do I work?", user="addr") == []
    assert [h.text for h in mx.recall("Where do I work?", user="bob")] == ["I joined Globex"]
    assert all(h.text != "I joined Globex" for h in mx.recall("Where do I work?", user="work"))


def test_without_a_judge_the_search_is_as_before(memex_home: Path) -> None:
    memex = _memex(memex_home, judge="none")
    try:
        _fill(memex)
        assert memex.recall("Where do I work?", user="work") == []
    finally:
        memex.close()


def test_a_question_read_to_no_slot_searches_exactly_as_without_the_signal(
    mx: Memex, monkeypatch: pytest.MonkeyPatch
) -> None:
    question = "Spotify job or Airbus"
    with_signal = mx.recall(question, user="work", include_superseded=True)
    monkeypatch.setattr(Reader, "_answering", lambda self, query, filters, mode: None)
    without = mx.recall(question, user="work", include_superseded=True)
    assert with_signal and [(h.memory_id, h.score, h.ranks) for h in with_signal] == [
        (h.memory_id, h.score, h.ranks) for h in without
    ]
