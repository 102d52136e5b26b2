"""Two facts carrying the kind of answer the question asks for join looser (issue 30).

"How many Instagram followers does Ellie's bakery have?": "Ellie's bakery just hit 1,000
followers on Instagram", later "The bakery account is at 12,400". The later fact shares
few words with the question, so the plain margin keeps the earlier on top; both carry a
number, the kind "how many" asks for, so with ``typed`` they are compared at
:data:`TYPED_MARGIN` and :data:`TYPED_SIMILARITY`. A fact without that kind, a question
asking no kind, and an earlier fact alone carrying it move nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memex_core.domain.memory.answer_kind import answer_kind
from memex_core.services.newer_first import MUTUAL_SIMILARITY, TYPED_SIMILARITY, newer_first
from tests.support.component_doubles import fast_memex
from tests.support.newer_first_hits import DAY, T0, TIMES, change_hit, two_vectors

BETWEEN = (TYPED_SIMILARITY + MUTUAL_SIMILARITY) / 2


def _order(question: str, old: str, new: str, close_old: float, close_new: float) -> list[str]:
    hits = [change_hit("old", old, close_old), change_hit("new", new, close_new)]
    found = newer_first(hits, TIMES, two_vectors(BETWEEN), typed=answer_kind(question))
    return [h.fragment.conversation_id for h in found]


def test_both_carrying_a_number_the_later_comes_first() -> None:
    question = "How many Instagram followers does Ellie's bakery have?"
    old, new = (
        "Ellie's bakery just hit 1,000 followers on Instagram",
        "The bakery account is at 12,400",
    )
    # 0.6 from the question against 0.3: twice as far, past the plain margin (10%)
    assert _order(question, old, new, 0.7, 0.4) == ["new", "old"]
    # the same facts asked with no kind of answer: the plain test
    assert _order("What about Ellie's bakery on Instagram?", old, new, 0.7, 0.4) == ["old", "new"]


def test_both_carrying_a_time_the_later_comes_first() -> None:
    question = "When does the residents' association meet?"
    old = "The residents' association meets on the first Tuesday of the month"
    new = "Meetings are on Thursdays at 7pm from next term"
    assert _order(question, old, new, 0.7, 0.45) == ["new", "old"]


@pytest.mark.parametrize(
    ("question", "old", "new"),
    [
        # the later fact carries no number
        (
            "How many times have we won the pub quiz?",
            "We won the pub quiz 3 times",
            "The pub quiz team got a new captain",
        ),
        # only the later one carries a time
        ("When is the book club?", "The book club reads Middlemarch", "Book club is on Fridays"),
    ],
)
def test_no_shared_kind_moves_nothing(question: str, old: str, new: str) -> None:
    assert _order(question, old, new, 0.7, 0.4) == ["old", "new"]


def test_answer_kind_reads_numbers_and_times_only() -> None:
    many = answer_kind("How much has Sam raised for the marathon?")
    assert many is not None and many("Sam is at £2,300") and not many("Sam is running it")
    when = answer_kind("When are my therapy sessions?")
    assert when is not None and when("Therapy moved to Wednesday mornings")
    assert not when("I see Dr Lee for therapy")
    assert answer_kind("Where does Alice live?") is None
    assert answer_kind("Who is my GP?") is None


def test_a_far_later_fact_stays_below_even_typed() -> None:
    # further than TYPED_MARGIN allows: 0.9 from the question against 0.3
    question = "How many followers does the bakery have?"
    assert _order(question, "The bakery has 1,000 followers", "I ran 5 km", 0.7, 0.1) == [
        "old",
        "new",
    ]


def test_the_setting_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``[search] newer_first_typed`` hands newer-first the question's answer-kind test, or
    None (the default)."""
    import memex_core.facade.reading as reading

    handed: list[object] = []

    def spy(*args: Any, **options: Any) -> Any:
        handed.append(options.get("typed"))
        return newer_first(*args, **options)

    monkeypatch.setattr(reading, "newer_first", spy)
    for name, on in (("on", True), ("off", False), ("default", None)):
        search = {} if on is None else {"newer_first_typed": on}
        with fast_memex(
            tmp_path / name, components={"supersession_judge": "none"}, search=search
        ) as mx:
            mx.remember("Ellie's bakery hit 1,000 followers on Instagram", user="u", at=T0)
            mx.remember("Ellie's bakery account is at 12,400 followers", user="u", at=T0 + DAY)
            found = [
                h.text for h in mx.recall("How many followers does Ellie's bakery have?", user="u")
            ]
            assert "Ellie's bakery account is at 12,400 followers" in found
            assert handed
            test = handed[-1]
            if on:
                assert callable(test) and test("12,400") and not test("lots")
            else:
                assert test is None
