"""A question that asks how things stand now lets every later fact join looser in
newer-first (issue 30).

"Has Leo found a job yet?" after "Leo has been applying for junior developer jobs", "Leo has
a second interview at Ocado", "Leo got the Ocado job": the latest fact tells where things
stand, though neither it nor the question says "now". For such a question (progress, a
running count or sum, the present said outright) every later fact is compared at the change
test's margin and similarity; a question about a lasting fact keeps the plain test.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memex_core.domain.memory.change_words import announces_change, asks_how_things_stand
from memex_core.services.newer_first import newer_first
from tests.support.component_doubles import fast_memex
from tests.support.newer_first_hits import (
    BETWEEN,
    T0,
    change_hit,
    changed_handed,
    newer_order,
    two_vectors,
)

DAY = 86400.0


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("Has Leo found a job yet?", True),
        ("How is Dad's recovery going?", True),
        ("Where is Caroline with the adoption?", True),
        ("How much has Sam raised for the marathon?", True),
        ("How many times have we won the pub quiz?", True),
        ("What do we use for CI now?", True),
        ("Is the boiler still broken?", True),
        ("Where does Alice live?", False),
        ("What does my dog eat?", False),
        ("Who is Priya's manager?", False),
        ("Is Yetta coming?", False),  # "yet" inside a name
    ],
)
def test_questions_that_ask_how_things_stand(question: str, asks: bool) -> None:
    assert asks_how_things_stand(question) is asks


def test_every_later_fact_joins_looser_for_such_a_question() -> None:
    # No change word in the later fact: the plain test keeps the order, the standing one not.
    hits = [
        change_hit("old", "Leo has been applying for junior developer jobs", 0.8),
        change_hit("new", "Leo got the Ocado job, starts in October", 0.72),
    ]
    assert newer_order(hits, BETWEEN) == ["old", "new"]  # announces_change: no word of a change
    found = newer_first(hits, {"old": T0, "new": T0 + 30 * DAY}, two_vectors(BETWEEN), changed=_all)
    assert [h.fragment.conversation_id for h in found] == ["new", "old"]


def _all(text: str) -> bool:
    return True


def test_the_setting_and_the_question_are_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``[search] newer_first_standing`` and the question decide the test handed over."""
    handed = changed_handed(monkeypatch)
    for name, on in (("on", True), ("off", False)):
        with fast_memex(
            tmp_path / name,
            components={"supersession_judge": "none"},
            search={"newer_first_standing": on},
        ) as mx:
            mx.remember("Leo has been applying for junior developer jobs", user="u", at=T0)
            mx.remember("Leo got the Ocado job, starts in October", user="u", at=T0 + DAY)
            mx.recall("Has Leo found a job yet?", user="u")
            assert handed and (handed[-1] is announces_change) is not on
            test = handed[-1]
            assert callable(test) and test("Leo plays five-a-side") is on
            mx.recall("Where does Leo work?", user="u")
            assert handed[-1] is announces_change  # a lasting fact: the change words only
