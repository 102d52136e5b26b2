"""Isolation matrix, family 5: dream and consolidation. A consolidator (a confused or
prompt-injected model) that names bob's memory changes nothing of his; dreaming another
user's collection examines nothing of theirs."""

from __future__ import annotations

import pytest

from memex_core.catalog.memory_records import MemoryAccessDenied
from memex_core.handles import SHARED_WRITE_ENV
from tests.isolation.surface_http import Http
from tests.isolation.surfaces import (
    ACCESS_LOG,
    CONSOLIDATOR,
    HANDLE,
    RAW_HTTP,
    InProcess,
    Surface,
    on,
)
from tests.isolation.world import ALICE_OWNER, READABLE, Hostile, Recorder
from tests.support.memory_attacks import CONSOLIDATION_ACTIONS, CONSOLIDATION_TARGETS


@on(CONSOLIDATOR)
def test_dream_over_identical_texts_never_sees_or_touches_bobs_copy(surface: InProcess) -> None:
    alice = surface.alice()
    before = surface.foreign_state()
    alice.remember("Everyone on the team really likes the espresso machine", collection="acme")
    recorder = Recorder()
    alice.dream("acme", consolidator=recorder, dry_run=True)
    remembered = Recorder()
    alice.remember(
        "The whole team likes the espresso machine",
        collection="acme",
        consolidate=True,
        consolidator=remembered,
    )
    owners = surface.owners()
    seen = recorder.seen + remembered.seen
    assert seen and any(similar for _, similar in seen)
    for fact, similar in seen:
        assert all(owners.get(i, ALICE_OWNER) == ALICE_OWNER for i in fact.source_fragment_ids)
        assert {owners[s.memory_id] for s in similar} <= {ALICE_OWNER}
        assert surface.ids["bob_same_as_alice"] not in {s.memory_id for s in similar}
    assert surface.foreign_state() == before


@on(CONSOLIDATOR)
@pytest.mark.parametrize("action", CONSOLIDATION_ACTIONS)
@pytest.mark.parametrize("target", CONSOLIDATION_TARGETS)
def test_a_dream_decision_aimed_at_bobs_memory_changes_nothing_of_his(
    surface: InProcess, target: str, action: str
) -> None:
    alice = surface.alice()
    active = [m.id for m in alice.list(limit=1000)]
    before = surface.foreign_state()
    report = alice.dream(consolidator=Hostile(action, surface.ids[target]))
    surface.assert_logged("dream", report)
    assert report.examined >= 1
    for applied in report.decisions:
        assert applied.decision.action == "ADD", applied.to_dict()
        assert "not found" in applied.decision.reason
        assert applied.memory_id is not None
        assert surface.owners()[applied.memory_id] == ALICE_OWNER
    assert [m.id for m in alice.list(limit=1000)] == active
    assert surface.foreign_state() == before
    surface.assert_confined()


@on(CONSOLIDATOR)
@pytest.mark.parametrize("action", CONSOLIDATION_ACTIONS)
@pytest.mark.parametrize("target", CONSOLIDATION_TARGETS)
def test_a_remember_decision_aimed_at_bobs_memory_adds_to_alice_instead(
    surface: InProcess, target: str, action: str
) -> None:
    before = surface.foreign_state()
    text = f"Alice learned fact {target} {action}"
    result = surface.alice().remember(
        text, consolidate=True, consolidator=Hostile(action, surface.ids[target])
    )
    surface.assert_logged("remember", result)
    [applied] = result.decisions
    assert applied.decision.action == "ADD" and "not found" in applied.decision.reason
    assert applied.memory_id is not None
    assert surface.owners()[applied.memory_id] == ALICE_OWNER
    assert surface.alice().get(applied.memory_id).content == text
    assert surface.foreign_state() == before


@on(HANDLE, ACCESS_LOG)
@pytest.mark.parametrize(
    "collection",
    [
        pytest.param("acme:bob", id="bobs-collection"),
        pytest.param("acme:carol", id="carols-collection"),
        pytest.param("{bob_fact}", id="bobs-memory-id-as-collection"),
        pytest.param("{carol_fact}", id="carols-memory-id-as-collection"),
    ],
)
def test_dreaming_another_users_collection_examines_only_alices(
    surface: Surface, collection: str
) -> None:
    name = collection.format(**surface.ids)
    before = surface.foreign_state()
    alice = surface.alice()
    if CONSOLIDATOR in surface.caps:  # in process: what the consolidator is shown, too
        recorder = Recorder()
        report = alice.dream(name, consolidator=recorder, dry_run=True)
        owners = surface.owners()
        for fact, similar in recorder.seen:
            assert {owners[i] for i in fact.source_fragment_ids} <= {ALICE_OWNER}
            assert {owners[s.memory_id] for s in similar} <= {ALICE_OWNER}
        assert report.examined == len(recorder.seen)
    else:
        report = alice.dream(name, dry_run=True)
    owners = surface.owners()
    for applied in report.decisions:  # alice may have her own memories in acme:bob
        for memory_id in (applied.memory_id, applied.examined_id, applied.decision.target_id):
            assert memory_id is None or owners[memory_id] == ALICE_OWNER, applied
        for source in applied.decision.fact.source_fragment_ids:
            assert source not in surface.foreign_fragments()
    surface.assert_reveals_nothing(report, typed=(name,), own_content=True)
    surface.assert_logged("dream", report)
    assert surface.foreign_state() == before


def test_dream_with_shared_writable_still_leaves_bob_alone(
    scratch: InProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    surface = scratch
    monkeypatch.setenv(SHARED_WRITE_ENV, "rw")
    before = surface.foreign_state(shared=False)
    recorder = Recorder()
    surface.alice().dream(consolidator=recorder)
    owners = surface.owners()
    for fact, similar in recorder.seen:
        assert {owners[i] for i in fact.source_fragment_ids} <= set(READABLE)
        assert {owners[s.memory_id] for s in similar} <= set(READABLE)
    assert surface.foreign_state(shared=False) == before


@on(CONSOLIDATOR)
def test_a_decision_aimed_at_shared_memory_is_denied_when_read_only(surface: InProcess) -> None:
    before = surface.foreign_state()
    with pytest.raises(MemoryAccessDenied):
        surface.alice().remember(
            "The handbook says refunds within sixty days",
            consolidate=True,
            consolidator=Hostile("UPDATE", surface.ids["shared_handbook"]),
        )
    assert surface.foreign_state() == before


@on(RAW_HTTP)
def test_a_real_dream_changes_nothing_of_bobs(surface: Http) -> None:
    before = surface.foreign_state()
    report = surface.alice().dream()
    owners = surface.owners()
    for applied in report.decisions:
        assert applied.memory_id is None or owners[applied.memory_id] == ALICE_OWNER
        for source in applied.decision.fact.source_fragment_ids:
            assert source not in surface.foreign_fragments()
    surface.assert_reveals_nothing(report, own_content=True)
    assert surface.foreign_state() == before
