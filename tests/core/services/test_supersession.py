"""Facts that change over time through the Python API: a new fact closes the one it
updates (never deleting it), reading by time, the chain, reopening, and isolation.

The judge is the test double of tests/support/supersession_doubles.py (it knows where
people live), registered through ``register_supersession_judges``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memex_core.api import Memex
from memex_core.domain.memory.records import REOPEN, SUPERSEDE
from tests.support.supersession_doubles import LivesInJudge, only_id, timed_memex

DAY = 86400.0
T0 = 1_700_000_000.0  # 2023-11-14


@pytest.fixture
def judge() -> LivesInJudge:
    return LivesInJudge()


@pytest.fixture
def mx(memex_home: Path, judge: LivesInJudge) -> Iterator[Memex]:
    memex = timed_memex(memex_home, judge)
    yield memex
    memex.close()


def test_a_moved_fact_closes_the_earlier_one_and_recall_gives_the_current(mx: Memex) -> None:
    paris = only_id(mx.remember("Alice lives in Paris", user="alice", at=T0))
    berlin = only_id(mx.remember("Alice moved to Berlin", user="alice", at=T0 + 30 * DAY))
    hits = mx.recall("where does alice live", user="alice")
    assert [h.memory_id for h in hits] == [berlin]
    old = mx.operator().get(paris)
    assert old.status == "active"  # superseded, never deleted
    assert old.valid_until == T0 + 30 * DAY and old.superseded_by == berlin
    assert mx.operator().history(paris)[-1].action == SUPERSEDE
    before = mx.recall("where does alice live", user="alice", as_of=T0 + 10 * DAY)
    assert [h.memory_id for h in before] == [paris]
    assert before[0].to_dict()["valid_until"] == "2023-12-14T22:13:20Z"
    every = mx.recall("where does alice live", user="alice", include_superseded=True)
    assert {h.memory_id for h in every} == {paris, berlin}
    chain = mx.history(berlin, user="alice")
    assert [r.id for r in chain] == [paris, berlin]
    assert [r.id for r in mx.history(paris, user="alice")] == [paris, berlin]


def test_as_of_takes_iso_dates_and_datetimes(mx: Memex) -> None:
    paris = only_id(mx.remember("Alice lives in Paris", user="alice", at="2023-01-01"))
    mx.remember("Alice moved to Berlin", user="alice", at="2024-06-01T12:00:00Z")
    assert [h.memory_id for h in mx.recall("alice live", user="alice", as_of="2023-07-01")] == [
        paris
    ]
    assert mx.recall("alice live", user="alice", as_of="2022-01-01") == []


def test_unrelated_facts_about_the_same_subject_stay_current(mx: Memex) -> None:
    mx.remember("Alice lives in Berlin", user="alice", at=T0)
    mx.remember("Alice likes Berlin's museums", user="alice", at=T0 + DAY)
    hits = mx.recall("alice berlin", user="alice")
    assert len(hits) == 2 and all(h.valid_until is None for h in hits)


def test_a_fact_told_late_about_an_earlier_time_is_stored_already_closed(mx: Memex) -> None:
    berlin = only_id(mx.remember("Alice lives in Berlin", user="alice", at="2024-01-01"))
    rome = only_id(mx.remember("Alice lived in Rome in 2019", user="alice", at="2024-03-01"))
    assert mx.operator().get(berlin).valid_until is None  # the later fact still holds
    told = mx.operator().get(rome)
    assert told.superseded_by == berlin and told.valid_until == mx.operator().get(berlin).valid_from
    assert told.to_dict()["valid_from"] == "2019-01-01T00:00:00Z"
    assert [h.memory_id for h in mx.recall("alice live", user="alice")] == [berlin]
    assert [h.memory_id for h in mx.recall("alice live", user="alice", as_of="2020-05-01")] == [
        rome
    ]


def test_undelete_reopens_a_fact_closed_by_mistake(mx: Memex) -> None:
    paris = only_id(mx.remember("Alice lives in Paris", user="alice", at=T0))
    mx.remember("Alice moved to Berlin", user="alice", at=T0 + DAY)
    reopened = mx.agent("alice").undelete(paris)
    assert reopened.valid_until is None and reopened.superseded_by is None
    assert mx.operator().history(paris)[-1].action == REOPEN
    assert paris in {h.memory_id for h in mx.recall("alice live", user="alice")}


def test_restore_reopens_too(mx: Memex) -> None:
    paris = only_id(mx.remember("Alice lives in Paris", user="alice", at=T0))
    mx.remember("Alice moved to Berlin", user="alice", at=T0 + DAY)
    restored = mx.operator().restore(paris, 1)
    assert restored.is_current and "reopened" in mx.operator().history(paris)[-1].reason


def test_with_consolidation_a_changed_fact_is_superseded_not_rewritten(mx: Memex) -> None:
    paris = only_id(mx.remember("Alice lives in Paris", user="alice", at=T0, consolidate=True))
    result = mx.remember("Alice now lives in Berlin", user="alice", consolidate=True)
    berlin = only_id(result)
    assert berlin != paris and result.decisions[0].decision.action == "ADD"
    assert mx.operator().get(paris).content == "Alice lives in Paris"
    assert mx.operator().get(paris).superseded_by == berlin


def test_saying_a_closed_fact_again_stores_it_again(mx: Memex) -> None:
    paris = only_id(mx.remember("Alice lives in Paris", user="alice", at=T0))
    berlin = only_id(mx.remember("Alice moved to Berlin", user="alice", at=T0 + DAY))
    again = only_id(mx.remember("Alice lives in Paris", user="alice", at=T0 + 2 * DAY))
    assert again not in (paris, berlin)
    assert mx.operator().get(berlin).superseded_by == again


def test_alice_never_closes_bobs_or_shared_facts(
    mx: Memex, judge: LivesInJudge, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMEX_SHARED_WRITE_MODE", "rw")
    bob = only_id(mx.remember("Alice lives in Paris", user="bob", at=T0))
    shared = mx.agent("alice").write("shared/alice.md", "Alice lives in Paris").id
    judge.asked.clear()
    mx.remember("Alice moved to Berlin", user="alice", at=T0 + DAY)
    assert mx.operator().get(bob).is_current and mx.operator().get(shared).is_current
    offered = {f.memory_id for _, earlier in judge.asked for f in earlier}
    assert bob not in offered and shared not in offered
    # and bob cannot read alice's facts through history or as_of
    with pytest.raises(Exception, match="No memory"):
        mx.history(only_id(mx.remember("Alice likes tea", user="alice")), user="bob")
    assert all(h.memory_id == bob for h in mx.recall("alice", user="bob", as_of=T0 + 2 * DAY))


def test_other_collections_are_not_offered(mx: Memex) -> None:
    work = only_id(mx.remember("Alice lives in Paris", user="alice", at=T0, collection="work"))
    mx.remember("Alice moved to Berlin", user="alice", at=T0 + DAY, collection="home")
    assert mx.operator().get(work).is_current


def test_conversation_facts_take_their_turns_times(mx: Memex, memex_home: Path) -> None:
    from memex_core.domain import MemoryFact

    class Lines:
        def extract(self, fragments, fact_types):  # type: ignore[no-untyped-def]
            return [MemoryFact(f.content, "misc", (f.id,)) for f in fragments if f.role == "user"]

    alice = mx.agent("alice")
    for text, when in (("Alice lives in Paris", T0), ("Alice moved to Berlin", T0 + DAY)):
        turns = [
            {"role": "user", "content": text, "timestamp": when},
            {"role": "assistant", "content": "Noted.", "timestamp": when + 1},
        ]
        alice.remember(messages=turns, extractor=Lines())
    facts = [r for r in alice.list() if r.kind == "misc"]
    paris = next(r for r in facts if "Paris" in r.content)
    assert paris.valid_from == T0 and paris.valid_until == T0 + DAY


def test_json_fields_on_records_and_hits(mx: Memex) -> None:
    paris = only_id(mx.remember("Alice lives in Paris", user="alice", at="2023-01-01"))
    record = mx.operator().get(paris).to_dict()
    assert record["valid_from"] == "2023-01-01T00:00:00Z"
    assert record["valid_until"] is None and record["superseded_by"] is None
    assert record["recorded_at"].endswith("Z") and isinstance(record["created_at"], float)
    hit = mx.recall("alice paris", user="alice")[0].to_dict()
    assert {"valid_from", "valid_until", "superseded_by", "recorded_at"} <= set(hit)


def test_without_a_judge_nothing_is_closed(memex_home: Path) -> None:
    memex = timed_memex(memex_home, supersession_judge="none")
    try:
        memex.remember("Alice lives in Paris", user="alice", at=T0)
        memex.remember("Alice moved to Berlin", user="alice", at=T0 + DAY)
        assert len(memex.recall("alice live", user="alice")) == 2
    finally:
        memex.close()


def test_bad_times_are_one_clear_error(mx: Memex) -> None:
    from memex_core.errors import MemexError

    with pytest.raises(MemexError, match="not a date or time"):
        mx.remember("Alice lives in Paris", user="alice", at="next tuesday-ish")
    with pytest.raises(MemexError, match="as_of"):
        mx.recall("alice", user="alice", as_of="soonish")


def test_dream_closes_what_was_remembered_without_a_judge(memex_home: Path) -> None:
    plain = timed_memex(memex_home, supersession_judge="none")
    try:
        paris = only_id(plain.remember("Alice lives in Paris", user="alice", at=T0))
        berlin = only_id(plain.remember("Alice moved to Berlin", user="alice", at=T0 + DAY))
    finally:
        plain.close()
    memex = timed_memex(memex_home)
    try:
        report = memex.agent("alice").dream()
        assert report.superseded == [(paris, berlin)]
        assert report.to_dict()["superseded"] == [{"memory_id": paris, "superseded_by": berlin}]
        assert [h.memory_id for h in memex.recall("alice live", user="alice")] == [berlin]
        again = memex.agent("alice").dream()  # a closed fact is history: not examined again
        assert again.superseded == [] and again.examined == 1
    finally:
        memex.close()


def test_context_never_offers_a_superseded_fact(mx: Memex) -> None:
    mx.remember("Alice lives in Paris", user="alice", at=T0)
    mx.remember("Alice moved to Berlin", user="alice", at=T0 + DAY)
    for pack in (
        mx.view(user="alice", corpus=False).context("where does alice live", budget_chars=2000),
        mx.view(user="alice", corpus=False).context("tea", budget_chars=2000),  # recent only
    ):
        texts = [item.text for item in pack.items]
        assert not any("Paris" in t for t in texts), texts
    assert any("Berlin" in i.text for i in mx.view(user="alice").context("alice live").items)


def test_a_fact_told_late_holds_until_the_first_later_fact_of_the_chain(mx: Memex) -> None:
    paris = only_id(mx.remember("Alice lives in Paris", user="alice", at="2024-01-10"))
    mx.remember("Alice moved to Berlin", user="alice", at="2024-06-01")
    rome = mx.operator().get(
        only_id(mx.remember("Alice lived in Rome in 2019", user="alice", at="2024-07-01"))
    )
    assert rome.superseded_by == paris
    assert rome.to_dict()["valid_until"] == "2024-01-10T00:00:00Z"
    assert [h.text for h in mx.recall("alice live", user="alice", as_of="2023-05-01")] == [
        "Alice lived in Rome in 2019"
    ]


def test_without_the_default_judge_remember_works_and_doctor_says_so(
    memex_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.support.component_doubles import fast_memex

    monkeypatch.setenv("MEMEX_LOAD_PLUGINS", "sqlite,bm25,rrf,secrets")  # no memex_rules
    memex = fast_memex(memex_home)
    try:
        assert memex.supersession_judge() is None
        memex.remember("Alice lives in Paris", user="alice", at=T0)
        memex.remember("Alice moved to Berlin", user="alice", at=T0 + DAY)
        assert len(memex.recall("alice", user="alice", mode="keyword")) == 2
        note = next(
            f for f in memex.doctor().findings if f.code == "memory.supersession_unavailable"
        )
        assert note.severity == "note" and "rules" in note.summary
        assert 'use = "none"' in note.fix
    finally:
        memex.close()


def test_a_judge_named_in_config_that_is_missing_is_an_error(memex_home: Path) -> None:
    from memex_core.plugins import PluginUnavailable

    memex = timed_memex(memex_home, supersession_judge="oracle")
    try:
        with pytest.raises(PluginUnavailable, match="oracle"):
            memex.remember("Alice lives in Paris", user="alice")
    finally:
        memex.close()


def test_superseded_facts_never_leave_the_page_short(mx: Memex) -> None:
    for town in range(15):  # 14 superseded facts, each closer to the query than the rest
        mx.remember(f"Alice lives in town {town} where alice lives", user="alice", at=T0 + town)
    for hobby in range(12):
        mx.remember(f"Alice likes hobby {hobby}", user="alice", at=T0)
    for mode in ("keyword", "hybrid"):
        hits = mx.recall("where alice lives town", user="alice", mode=mode, limit=10)
        assert len(hits) == 10 and all(h.is_current for h in hits), mode
        assert hits[0].text == "Alice lives in town 14 where alice lives"


def test_consolidating_embeds_a_new_fact_once_for_both_asks(mx: Memex) -> None:
    mx.remember("Alice lives in Paris", user="alice", at=T0)
    embedder = mx.embedder
    asked: list[str] = []
    original = embedder.embed_query

    def counted(text: str) -> object:
        asked.append(text)
        return original(text)

    embedder.embed_query = counted  # type: ignore[method-assign]
    mx.remember("Alice likes green tea", user="alice", consolidate=True)
    assert asked == ["Alice likes green tea"]


def test_a_fact_told_late_shortens_the_closed_fact_it_followed(mx: Memex) -> None:
    paris = only_id(mx.remember("Alice lives in Paris", user="alice", at="2020-01-01"))
    berlin = only_id(mx.remember("Alice moved to Berlin", user="alice", at="2024-01-01"))
    rome = only_id(mx.remember("Alice lived in Rome in 2022", user="alice", at="2025-01-01"))
    ops = mx.operator()
    assert ops.get(rome).superseded_by == berlin
    assert ops.get(paris).superseded_by == rome
    assert ops.get(paris).to_dict()["valid_until"] == "2022-01-01T00:00:00Z"
    assert [r.id for r in mx.history(berlin, user="alice")] == [paris, rome, berlin]
    for moment, expected in (("2021-06-01", paris), ("2023-06-01", rome), ("2024-06-01", berlin)):
        hits = mx.recall("alice live", user="alice", as_of=moment)
        assert [h.memory_id for h in hits] == [expected], moment
    assert [r.action for r in ops.history(paris)] == ["create", "supersede", "supersede"]


def test_a_dream_plan_names_its_closings_and_applying_it_makes_them(memex_home: Path) -> None:
    plain = timed_memex(memex_home, supersession_judge="none")
    try:
        paris = only_id(plain.remember("Alice lives in Paris", user="alice", at=T0))
        berlin = only_id(plain.remember("Alice moved to Berlin", user="alice", at=T0 + DAY))
    finally:
        plain.close()
    memex = timed_memex(memex_home)
    try:
        alice = memex.agent("alice")
        plan = alice.dream_plan()
        assert plan.report.superseded == [(paris, berlin)]
        assert memex.operator().get(paris).is_current  # a plan writes nothing
        applied = alice.apply_dream(plan)
        assert applied.superseded == [(paris, berlin)]
        assert memex.operator().get(paris).superseded_by == berlin
    finally:
        memex.close()


def test_first_hits_names_each_memory_once_at_its_first_hit() -> None:
    from memex_core.services.supersession import first_hits

    by_fragment = {"f1": "m1", "f2": "m2", "f3": "m1", "f4": "m3"}
    hits = [("f1", 0.9), ("f2", 0.8), ("f3", 0.7), ("gone", 0.6), ("f4", 0.5)]
    assert list(first_hits(by_fragment, hits, {"m2"})) == [("m1", 0.9), ("m3", 0.5)]
