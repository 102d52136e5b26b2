"""A later fact holding a word of the question that the earlier one lacks joins it looser in
newer first (issue 30): "they made Sam permanent!!" after "Sam's on a 6 month contract",
asked "Is Sam's contract permanent?" (memex_core.domain.memory.question_cover)."""

from __future__ import annotations

import pytest

from memex_core.domain.memory.question_cover import adds_asked_word
from memex_core.services.newer_first import (
    ASKED_MARGIN,
    ASKED_SIMILARITY,
    MUTUAL_SIMILARITY,
    newer_first,
)
from tests.support.newer_first_hits import TIMES, change_hit, two_vectors

DAY = 86400.0
T0 = 1_700_000_000.0
CONTRACT, PERMANENT = "Sam's on a 6 month contract", "they made Sam permanent!!"
QUESTION = "Is Sam's contract permanent?"


def _order(later: str, question_similarity: float, similarity: float, asked: bool) -> list[str]:
    hits = [change_hit("old", CONTRACT, 0.78), change_hit("new", later, question_similarity)]
    found = newer_first(
        hits,
        TIMES,
        two_vectors(similarity),
        asked=(lambda a, b: adds_asked_word(QUESTION, a, b)) if asked else None,
    )
    return [h.fragment.conversation_id for h in found]


def test_a_later_fact_naming_what_is_asked_leads() -> None:
    # 1 - 0.68 is 1.45 times 1 - 0.78: past the plain margin, within ASKED_MARGIN
    assert _order(PERMANENT, 0.68, 0.56, asked=False) == ["old", "new"]
    assert _order(PERMANENT, 0.68, 0.56, asked=True) == ["new", "old"]


def test_it_still_needs_the_two_facts_close_and_the_question_near() -> None:
    under = min(ASKED_SIMILARITY, MUTUAL_SIMILARITY) - 0.05
    assert _order(PERMANENT, 0.68, under, asked=True) == ["old", "new"]
    too_far = 1.0 - (1.0 - 0.78) * (2.0 + ASKED_MARGIN)  # past the margin
    assert _order(PERMANENT, too_far, 0.56, asked=True) == ["old", "new"]
    # a later fact with no word of the question the earlier lacks: the plain test
    assert _order("Sam's contract runs to June", 0.68, 0.56, asked=True) == ["old", "new"]


@pytest.mark.parametrize(
    ("question", "earlier", "later", "adds"),
    [
        (QUESTION, CONTRACT, PERMANENT, True),
        ("Who sings in the band?", "Kez plays drums in the band", "Ollie sings in the band", True),
        ("Is it permanent?", "it's permanent", "made permanently", False),  # same stem
        ("Where does Alice live?", "Alice lives in Berlin", "Alice loves Berlin", False),
        ("Where does Dana live?", "she's in Leeds", "Dana loves Manchester's gigs", False),
        # "user" stands for the owner, as a name does
        ("Does the user like sushi?", "Alice likes sushi", "The user likes ramen", False),
        ("What does she do now?", "she works at Acme", "she does it now", False),  # common
    ],
)
def test_adds_asked_word(question: str, earlier: str, later: str, adds: bool) -> None:
    assert adds_asked_word(question, earlier, later) is adds
