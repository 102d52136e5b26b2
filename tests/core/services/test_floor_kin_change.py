"""A fact under the floor worded as a change is kept beside a kept fact of its owner at a
looser cosine (issue 30): "bought a Brompton, old green Raleigh got nicked" shares no word
with "what bike do I ride", and sits at cosine 0.35 from "I ride an old green Raleigh bike"
(hashing doubles), under floor kin's 0.45 but at newer first's CHANGE_SIMILARITY.
``[search] floor_kin_change = false`` keeps to 0.45 for every fact."""

from __future__ import annotations

from pathlib import Path

from memex_core.api import Memex
from tests.support.component_doubles import fast_memex

DAY = 86400.0
T0 = 1_700_000_000.0
RALEIGH = "I ride an old green Raleigh bike"
QUESTION = "what bike do I ride"


def _memex(home: Path, on: bool) -> Memex:
    return fast_memex(
        home,
        components={"supersession_judge": "none"},
        search={"floor_kin_change": on, "min_semantic_similarity": 0.5},
    )


def _found(home: Path, on: bool, later: str) -> list[str]:
    with _memex(home, on) as mx:
        mx.remember(RALEIGH, user="u", at=T0)
        mx.remember(later, user="u", at=T0 + 30 * DAY)
        return [h.text for h in mx.recall(QUESTION, user="u")]


def test_a_change_under_the_floor_is_kept_at_a_looser_cosine(tmp_path: Path) -> None:
    change = "bought a Brompton, old green Raleigh got nicked"
    assert _found(tmp_path / "off", False, change) == [RALEIGH]
    # kept, then first: it names the earlier fact's Raleigh with a change (newer first's echo)
    assert _found(tmp_path / "on", True, change) == [change, RALEIGH]


def test_a_fact_not_worded_as_a_change_keeps_to_the_plain_cosine(tmp_path: Path) -> None:
    plain = "have a Brompton, old green Raleigh got nicked"
    assert _found(tmp_path / "home", True, plain) == [RALEIGH]
