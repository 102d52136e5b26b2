"""A later fact carrying a new point of a series of numbers leads (issue 30).

"84.9 this morning, slowly slowly" after "weighed in at 88.2": no word of the question and
none of the earlier fact, so the relevance floor leaves it out and newer-first's cosine
test would not join the two. Read as one series
(:func:`memex_core.domain.memory.quantity_series.same_series`) it is kept beside the earlier
fact (``[search] floor_series``) and comes first (``newer_first_series``).
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from memex_core.api import Memex
from memex_core.domain import SEMANTIC
from memex_core.domain.memory.quantity_series import same_series
from memex_core.services.newer_first import newer_first
from memex_core.services.slot_signal import SLOT
from tests.support.component_doubles import fast_memex
from tests.support.newer_first_hits import Hit

DAY = 86400.0
T0 = 1_700_000_000.0
BEFORE, AFTER = "weighed in at 88.2", "84.9 this morning, slowly slowly"


def _memex(home: Path, on: bool) -> Memex:
    return fast_memex(
        home,
        components={"supersession_judge": "none"},
        search={
            "floor_series": on,
            "newer_first_series": on,
            "min_semantic_similarity": 0.5,  # the later fact (no shared word) falls under it
        },
    )


def test_a_new_point_of_a_series_is_kept_under_the_floor_and_leads(tmp_path: Path) -> None:
    for name, on in (("off", False), ("on", True)):
        with _memex(tmp_path / name, on) as mx:
            mx.remember(BEFORE, user="u", at=T0)
            mx.remember(AFTER, user="u", at=T0 + 30 * DAY)
            mx.remember("Bob weighed in at 70.1", user="bob", at=T0 + 60 * DAY)
            found = [h.text for h in mx.recall("what did I weigh in at", user="u")]
            assert found == ([AFTER, BEFORE] if on else [BEFORE])
            assert [h.text for h in mx.recall("zzqx vvkw", user="u")] == []


def _hit(memory_id: str, text: str, similarity: float, slot: int | None = None) -> Any:
    fragment = SimpleNamespace(
        id="f-" + memory_id, conversation_id=memory_id, owner="users/u", content=text
    )
    return Hit(fragment, similarity, {SEMANTIC: similarity}, {SLOT: slot})


def _order(hits: list[Any], times: dict[str, float]) -> list[str]:
    far = {"f-old": [1.0, 0.0], "f-new": [0.0, 1.0]}  # cosine 0: only the series joins them
    found = newer_first(
        hits,
        times,
        lambda ids: {i: far[i] for i in ids if i in far},
        series=same_series,
    )
    return [h.fragment.content for h in found]


def test_the_series_joins_facts_whatever_their_vectors_but_keeps_time_and_the_slot() -> None:
    later = {"old": T0, "new": T0 + 30 * DAY}
    assert _order([_hit("old", BEFORE, 0.6), _hit("new", AFTER, 0.2)], later) == [AFTER, BEFORE]
    # told earlier (a late fact, valid from before): the series gives it no lead
    earlier = {"old": T0 + 30 * DAY, "new": T0}
    assert _order([_hit("old", BEFORE, 0.6), _hit("new", AFTER, 0.2)], earlier) == [
        BEFORE,
        AFTER,
    ]
    # the question's slot reading picked the earlier fact alone: a number is no sign of a
    # change the reading missed, so it keeps its place
    picked = [_hit("old", BEFORE, 0.6, slot=1), _hit("new", AFTER, 0.2)]
    assert _order(picked, later) == [BEFORE, AFTER]
    # two things worded alike are no series
    plans = [
        _hit("old", "The Pro plan is $39 a month", 0.6),
        _hit("new", "The Team plan is $99 a month", 0.5),
    ]
    assert _order(plans, later) == ["The Pro plan is $39 a month", "The Team plan is $99 a month"]


def test_a_chain_of_facts_links_step_by_step() -> None:
    """£450 and £1,860 are too far apart for one series (ratio 4.1), but each is one with
    £1,120: the group takes a hit about the same thing as any of its hits."""
    texts = {
        "a": "Sam has raised £450 for Mind so far",
        "b": "Sam's fundraising is at £1,120",
        "c": "Final total: £1,860 for Mind",
    }
    assert not same_series(texts["a"], texts["c"])
    hits = [_hit(k, texts[k], 0.6 - 0.1 * n) for n, k in enumerate(texts)]
    times = {"a": T0, "b": T0 + 30 * DAY, "c": T0 + 60 * DAY}
    apart = {"f-a": [1.0, 0.0, 0.0], "f-b": [0.0, 1.0, 0.0], "f-c": [0.0, 0.0, 1.0]}
    found = newer_first(
        hits, times, lambda ids: {i: apart[i] for i in ids if i in apart}, series=same_series
    )
    assert [h.fragment.conversation_id for h in found] == ["c", "b", "a"]
