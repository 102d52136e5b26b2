"""Two facts the question's slot reading both picked join in newer first however far apart
their words sit (issue 30): asked "What chat tool does the company use?", "we use Slack"
then "company moved everyone to Microsoft Teams" both set what is asked, so the later
leads; unless by the question's words they are about two things ("What is the frontend
written in?": "The frontend is written in TypeScript", "The backend is written in Go")."""

from __future__ import annotations

from functools import partial

import pytest

from memex_core.domain.memory.question_cover import drops_asked_word
from memex_core.services.newer_first import MUTUAL_SIMILARITY, SLOT_MARGIN, newer_first
from tests.support.newer_first_hits import change_hit, two_vectors

DAY = 86400.0
T0 = 1_700_000_000.0
CHAT = "What chat tool does the company use?"
SLACK, TEAMS = "we use Slack", "company moved everyone to Microsoft Teams"


def _order(
    question: str,
    earlier: str,
    later: str,
    *,
    slots: tuple[int | None, int | None] = (1, 2),
    question_similarity: float = 0.3,
    similarity: float = 0.1,
    tested: bool = True,
) -> list[str]:
    hits = [
        change_hit("old", earlier, 0.6, slot=slots[0]),
        change_hit("new", later, question_similarity, slot=slots[1]),
    ]
    found = newer_first(
        hits,
        {"old": T0, "new": T0 + 30 * DAY},
        two_vectors(similarity),
        slot_apart=partial(drops_asked_word, question) if tested else None,
    )
    return [h.fragment.conversation_id for h in found]


def test_two_facts_the_slot_reading_picked_are_newest_first() -> None:
    # far apart (cosine 0.1) and the later twice as far from the question: the plain test
    # keeps the order, both picked by the slot reading put the later first
    assert _order(CHAT, SLACK, TEAMS, tested=False) == ["old", "new"]
    assert _order(CHAT, SLACK, TEAMS) == ["new", "old"]


def test_it_needs_both_picked() -> None:
    assert _order(CHAT, SLACK, TEAMS, slots=(1, None)) == ["old", "new"]
    assert _order(CHAT, SLACK, TEAMS, slots=(None, 1)) == ["old", "new"]


def test_the_question_still_bounds_how_far_the_later_fact_may_be() -> None:
    too_far = 1.0 - (1.0 - 0.6) * (1.0 + SLOT_MARGIN) - 0.05
    assert _order(CHAT, SLACK, TEAMS, question_similarity=too_far) == ["old", "new"]


def test_two_things_by_the_questions_words_keep_their_order() -> None:
    question = "What is the frontend written in?"
    earlier, later = "The frontend is written in TypeScript", "The backend is written in Go"
    assert _order(question, earlier, later, similarity=MUTUAL_SIMILARITY - 0.1) == ["old", "new"]


@pytest.mark.parametrize(
    ("question", "earlier", "later", "drops"),
    [
        ("What is the web app written in?", "web app written in TS", "API written in Go", True),
        ("What's my personal phone?", "My personal phone is a Pixel 8", "work phone: iPhone", True),
        # the later fact holds a word of the question the earlier lacks: not two things
        (CHAT, SLACK, TEAMS, False),
        # neither holds a word of the question the other lacks
        ("What phone do I have?", "on a Pixel 6", "Pixel 8 Pro arrived", False),
        ("What phone do I have?", "my phone is a Pixel 6", "my phone: iPhone 15", False),
        # the later fact holds no word of the question: a new value only, not two things
        ("What phone do I have?", "phone: Pixel 6a", "got the iPhone 15 yesterday", False),
    ],
)
def test_drops_asked_word(question: str, earlier: str, later: str, drops: bool) -> None:
    assert drops_asked_word(question, earlier, later) is drops
