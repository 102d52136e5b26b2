"""A dream plan: reviewed before it is applied, applied exactly, refused once memory changed."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from memex_core.api import Memex
from memex_core.catalog.memory_records import MemoryAccessDenied
from memex_core.domain import ConsolidationDecision, MemoryFact, SimilarMemory
from memex_core.services.dream import DreamPlanStale
from tests.support.component_doubles import fast_memex


@pytest.fixture
def mx(tmp_path: Path) -> Iterator[Memex]:
    memex = fast_memex(tmp_path / "home")
    yield memex
    memex.close()


class Scripted:
    """Answers from a script; counts how often it was asked."""

    def __init__(self, *decisions: tuple[str, int | None, str | None]) -> None:
        self.script = list(decisions)
        self.asked = 0

    def decide(self, fact: MemoryFact, similar: Sequence[SimilarMemory]) -> ConsolidationDecision:
        self.asked += 1
        action, index, text = self.script.pop(0) if self.script else ("ADD", None, None)
        target = similar[index].memory_id if index is not None else None
        return ConsolidationDecision(action, fact, target, reason=f"scripted {action}", text=text)


def two_teas(mx: Memex) -> tuple[str, str]:
    alice = mx.agent("alice")
    first = alice.remember("Alice prefers green tea").memory_ids[0]
    second = alice.remember("Alice likes to drink green tea").memory_ids[0]
    return first, second


def test_plan_writes_nothing_and_apply_does_exactly_the_plan(mx: Memex) -> None:
    first, second = two_teas(mx)
    alice = mx.agent("alice", name="viewer-test")
    consolidator = Scripted(("ADD", None, None), ("UPDATE", 0, "Alice drinks green tea"))
    plan = alice.dream_plan(consolidator=consolidator)
    assert [d.decision.action for d in plan.report.decisions] == ["ADD", "UPDATE"]
    assert [d.examined_id for d in plan.report.decisions] == [first, second]
    assert not any(d.applied for d in plan.report.decisions)
    assert {m.id for m in alice.list()} == {first, second}  # nothing written
    assert plan.digest == plan.digest and len(plan.digest) == 24

    report = alice.apply_dream(plan)
    assert consolidator.asked == 2  # applying did not ask the consolidator again
    assert [d.decision.action for d in report.decisions] == ["ADD", "UPDATE"]
    assert all(d.applied for d in report.decisions)
    assert [m.id for m in alice.list()] == [first]
    assert alice.get(first).content == "Alice drinks green tea"
    assert alice.get(second).status == "invalidated"
    log = mx.operator().access_log(action="dream", limit=2)
    assert [e.detail.get("plan") for e in log] == [plan.digest, plan.digest]
    assert {e.actor for e in log} == {"viewer-test"}


def test_a_plan_is_refused_once_memory_changed(mx: Memex) -> None:
    first, _ = two_teas(mx)
    alice = mx.agent("alice")
    plan = alice.dream_plan(consolidator=Scripted(("ADD", None, None), ("NONE", 0, None)))
    alice.remember("Alice cycles to work")  # a new fact in the same collection
    with pytest.raises(DreamPlanStale, match="changed since"):
        alice.apply_dream(plan)
    assert len(alice.list()) == 3  # nothing applied
    assert mx.operator().history(first)[-1].revision == 1
    plan = alice.dream_plan(consolidator=Scripted(("ADD", None, None), ("NONE", 0, None)))
    alice.forget(first)
    with pytest.raises(DreamPlanStale):
        alice.apply_dream(plan)


def test_another_users_handle_cannot_apply_a_plan(mx: Memex) -> None:
    two_teas(mx)
    plan = mx.agent("alice").dream_plan(
        consolidator=Scripted(("ADD", None, None), ("NONE", 0, None))
    )
    with pytest.raises(MemoryAccessDenied):
        mx.agent("bob").apply_dream(plan)
    assert len(mx.agent("alice").list()) == 2


def test_same_memory_and_decisions_give_the_same_digest(mx: Memex) -> None:
    two_teas(mx)
    alice = mx.agent("alice")
    one = alice.dream_plan(consolidator=Scripted(("ADD", None, None), ("NONE", 0, None)))
    two = alice.dream_plan(consolidator=Scripted(("ADD", None, None), ("NONE", 0, None)))
    other = alice.dream_plan(consolidator=Scripted(("ADD", None, None), ("ADD", None, None)))
    assert one.digest == two.digest != other.digest


def test_collections_are_those_in_scope(mx: Memex) -> None:
    mx.agent("alice").remember("Alice likes tea", collection="acme:support:alice")
    mx.agent("alice").remember("Alice likes maps", collection="travel")
    mx.agent("bob").remember("Bob likes jazz", collection="acme:sales")
    assert mx.agent("alice").collections() == ["acme:support:alice", "travel"]
    assert mx.agent("alice", collection="acme").collections() == ["acme:support:alice"]
    assert mx.agent("alice").collections(user_id="bob") == []
    assert mx.operator().collections() == ["acme:sales", "acme:support:alice", "travel"]
    assert mx.operator().collections(user_id="bob") == ["acme:sales"]
