"""A closed fact a search for current facts found hands its place to the current fact that
closed it (``[search] chain_successor``, issue 30).

A home with the embedding doubles (hashing: similarity from shared words), a fixed floor of
0.5 and the lives-in judge double, which closes "Alice lives in Paris" on "Alice moved to
Berlin". The floor's other ways of keeping a fact are off so that only this rule decides.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from memex_core.api import Memex
from memex_core.domain import Fragment, Provenance, SearchResult
from memex_core.services.chain_successor import CHAIN_EVIDENCE, with_successors
from tests.support.supersession_doubles import recalled, timed_memex

DAY = 86400.0
T0 = 1_700_000_000.0
#: Words of PARIS only: the fact that closed it shares none of them.
QUESTION = "Who lives in Paris by the Seine?"
PARIS = "Alice lives in Paris by the Seine"
BERLIN = "Alice moved to Berlin"


def _memex(home: Path, on: bool) -> Memex:
    search = {
        "chain_successor": on,
        "floor_chain": False,
        "floor_kin": False,
        "floor_near": False,
        "floor_series": False,
        "min_semantic_similarity": 0.5,
    }
    return timed_memex(home, search=search)


def _told(mx: Memex) -> None:
    mx.remember(PARIS, user="alice", at=T0)
    mx.remember(BERLIN, user="alice", at=T0 + 30 * DAY)
    mx.remember("Bob lives in Paris by the Seine", user="bob", at=T0)


def test_the_closed_fact_found_hands_its_place_to_the_one_that_closed_it(
    tmp_path: Path,
) -> None:
    for on in (False, True):
        with _memex(tmp_path / str(on), on) as mx:
            _told(mx)
            assert recalled(mx, QUESTION) == ([BERLIN] if on else [])
            # by time and with history, the facts found are the facts shown, as before
            assert recalled(mx, QUESTION, include_superseded=True) == [PARIS]
            assert recalled(mx, QUESTION, as_of=T0 + DAY) == [PARIS]
            assert recalled(mx, QUESTION, user="bob") == ["Bob lives in Paris by the Seine"]


def test_a_question_about_nothing_still_answers_nothing(tmp_path: Path) -> None:
    with _memex(tmp_path, on=True) as mx:
        _told(mx)
        assert recalled(mx, "zzqx vvkw") == []


def _hit(memory: str, owner: str = "alice") -> SearchResult:
    where = Provenance("memory", "memory", memory, memory)
    fragment = Fragment(f"f-{memory}", memory, "user", memory, where, owner=owner)
    return SearchResult(fragment=fragment, score=1.0, ranks={"keyword": 1}, scores={})


def _replace(
    found: Sequence[SearchResult],
    valid: Sequence[SearchResult],
    closed_by: dict[str, str],
    owners: dict[str, str] | None = None,
) -> list[str]:
    holding = {m: (0.0, None if m not in closed_by else 1.0) for m in ("a", "b", "c", "d", "x")}
    out = with_successors(
        found,
        valid,
        lambda f: f.conversation_id,
        lambda ids: {i: closed_by[i] for i in ids if i in closed_by},
        lambda ids: {i: holding[i] for i in ids if i in holding},
        lambda memory: _hit(memory, (owners or {}).get(memory, "alice")).fragment,
    )
    return [r.fragment.conversation_id + ("*" if r.evidence == CHAIN_EVIDENCE else "") for r in out]


def test_the_successor_takes_the_closed_hits_place_once_and_only_when_current() -> None:
    a, b, x = _hit("a"), _hit("b"), _hit("x")
    # a -> b -> c (c holds): a's place goes to c, once, even when b was found too
    assert _replace([x, a, b], [x], {"a": "b", "b": "c"}) == ["x", "c*"]
    # the successor found already keeps its own place
    c = _hit("c")
    assert _replace([a, c], [c], {"a": "c"}) == ["c"]
    # nothing closed: nothing asked, nothing changed
    assert _replace([x], [x], {}) == ["x"]


def test_no_place_is_handed_across_owners() -> None:
    a = _hit("a")
    assert _replace([a], [], {"a": "d"}, owners={"d": "bob"}) == []
