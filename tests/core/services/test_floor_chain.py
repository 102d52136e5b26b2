"""Memory recall keeps a fact under the relevance floor beside a kept fact of its
supersession chain (``[search] floor_chain``, issue 30).

A home with the embedding doubles (hashing: similarity from shared words), a fixed floor of
0.5 and the lives-in judge double, which closes "Alice lives in Paris" on "Alice moved to
Berlin". ``floor_kin`` and ``floor_near`` are off so that only this rule decides.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from memex_core.api import Memex
from memex_core.services.chain_kin import SuccessorsOf, chain_kept
from tests.support.supersession_doubles import recalled, timed_memex

DAY = 86400.0
T0 = 1_700_000_000.0  # 2023-11-14
THEN = "2023-11-20"  # Paris holds, Berlin is not yet true
#: None of its words is in PARIS: the fact valid then is far under the floor.
QUESTION = "Which city near the Spree has she moved to?"
PARIS = "Alice lives in Paris"
BERLIN = "Alice moved to Berlin, near the Spree"


def _memex(home: Path, chain: bool) -> Memex:
    search = {
        "floor_chain": chain,
        "floor_kin": False,
        "floor_near": False,
        "min_semantic_similarity": 0.5,
    }
    return timed_memex(home, search=search)


def _told(mx: Memex) -> None:
    mx.remember(PARIS, user="alice", at=T0)
    mx.remember(BERLIN, user="alice", at=T0 + 30 * DAY)
    mx.remember("Alice lives in Rome", user="bob", at=T0)  # bob's, never linked to alice's


def test_the_fact_valid_then_is_found_through_the_chain_of_the_fact_found_now(
    tmp_path: Path,
) -> None:
    for chain in (False, True):
        with _memex(tmp_path / str(chain), chain) as mx:
            _told(mx)
            assert recalled(mx, QUESTION) == [BERLIN]  # now: the current fact alone
            assert recalled(mx, QUESTION, as_of=THEN) == ([PARIS] if chain else [])
            history = recalled(mx, QUESTION, include_superseded=True)
            assert history == ([BERLIN, PARIS] if chain else [BERLIN])


def test_a_question_about_nothing_still_answers_nothing(tmp_path: Path) -> None:
    with _memex(tmp_path, chain=True) as mx:
        _told(mx)
        for question in ("zzqx vvkw", "qqplm"):
            assert recalled(mx, question) == []
            assert recalled(mx, question, as_of=THEN) == []
            assert recalled(mx, question, include_superseded=True) == []
        assert recalled(mx, QUESTION, user="bob", as_of=THEN) == []  # bob has no such chain


def _links(closed_by: Mapping[str, str]) -> tuple[list[list[str]], SuccessorsOf]:
    asked: list[list[str]] = []

    def successors(ids: Sequence[str]) -> dict[str, str]:
        asked.append(list(ids))
        return {i: closed_by[i] for i in ids if i in closed_by}

    return asked, successors


def test_chains_are_followed_through_facts_the_search_did_not_find() -> None:
    # Paris -> Rome -> Berlin; Rome is not among the candidates
    asked, successors = _links({"paris": "rome", "rome": "berlin"})
    candidates = [("f-berlin", "berlin", True), ("f-paris", "paris", False), ("f-x", "x", False)]
    assert chain_kept(candidates, successors) == {"f-paris"}
    assert sorted(i for ids in asked for i in ids) == ["berlin", "paris", "rome", "x"]  # once each


def test_nothing_kept_or_nothing_left_out_asks_the_catalog_nothing() -> None:
    asked, successors = _links({"paris": "berlin"})
    assert chain_kept([("f-paris", "paris", False)], successors) == set()
    assert chain_kept([("f-berlin", "berlin", True)], successors) == set()
    not_memory = [("f-note", "", True), ("f-paris", "paris", False)]
    assert chain_kept(not_memory, successors) == set()
    assert asked == []


def test_a_cycle_of_links_ends() -> None:
    _, successors = _links({"a": "b", "b": "a"})
    assert chain_kept([("f-a", "a", True), ("f-b", "b", False)], successors) == set()
