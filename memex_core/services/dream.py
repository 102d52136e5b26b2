"""Dreaming: consolidate a collection's stored facts, oldest first, each against those before it.

A fact left standing is also offered to the supersession judge with the standing facts
before it: those it updates are closed (``superseded``), as remembering it would have.

Each fact is offered to the consolidator as if it were new, with the similar
facts written before it. A repeat is invalidated (NONE), a better wording
becomes a revision of the earlier memory (UPDATE), a contradiction invalidates
the earlier memory (DELETE). Later statements win, and everything stays
recoverable through revisions. A dry run decides without writing.

A plan (:func:`plan_dream`) is a dry run together with a digest of the facts it was
made on; :func:`apply_plan` carries out exactly its decisions, without asking the
consolidator again, and refuses when any of those facts changed since (a model
consolidator may answer differently twice, so re-running is not the same as applying
what someone reviewed).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence

from memex_core.domain import Consolidator, MemoryFact
from memex_core.domain.contracts import ADD, DELETE
from memex_core.domain.memory.facts import text_similarity
from memex_core.domain.memory.outcomes import AppliedDecision, DreamPlan, DreamReport
from memex_core.domain.memory.records import (
    ACTIVE,
    CONVERSATION_KIND,
    FILE_KIND,
    MemoryRecord,
    Scope,
)
from memex_core.domain.memory.validity import Supersession
from memex_core.errors import MemexError
from memex_core.services import supersession
from memex_core.services.agent_memory import MemoryService
from memex_core.services.ports import NoProgress, Progress


def dream(
    service: MemoryService,
    scope: Scope,
    groups: Sequence[tuple[str, str]],
    consolidator: Consolidator,
    *,
    dry_run: bool = False,
    progress: Progress | None = None,
    on_decision: Callable[[AppliedDecision], None] | None = None,
) -> DreamReport:
    """Consolidate each (owner, collection) group. Returns every decision, NONE included."""
    progress = progress or NoProgress()
    report = DreamReport(dry_run=dry_run)
    work = [
        (owner, collection, _facts(service, scope, owner, collection))
        for owner, collection in groups
    ]
    progress.start("Dreaming", sum(len(facts) for _, _, facts in work))
    try:
        for owner, collection, facts in work:
            earlier: set[str] = set()  # examined and still standing
            for memory in facts:
                report.examined += 1
                fact = MemoryFact(memory.content, memory.kind, (memory.id,))
                similar = service.similar(
                    scope,
                    owner=owner,
                    collection=collection,
                    text=memory.content,
                    exclude=(memory.id,),
                    only=earlier,
                    candidates=[m for m in facts if m.id in earlier],
                    limit=service.settings.dream_similar_limit,
                )
                decision = consolidator.decide(fact, similar)
                if dry_run:
                    applied = AppliedDecision(decision, decision.target_id, applied=False)
                else:
                    applied = service.apply(
                        scope, decision, owner=owner, collection=collection, existing=memory
                    )
                action, target = applied.decision.action, applied.decision.target_id
                # A NONE or UPDATE with a target means this memory repeats (or was folded
                # into) one that stays; anything else leaves it standing.
                if action in (ADD, DELETE) or target is None:
                    closed = _supersede(
                        service, scope, memory, facts, earlier, dry_run, consolidator
                    )
                    for old in closed:
                        earlier.discard(old)
                        report.superseded.append((old, memory.id))
                    until = supersession.ending(service.judge, memory)
                    if until is None:
                        earlier.add(memory.id)
                    else:  # "Back in 2020 ...": ended, no longer standing
                        report.ended.append((memory.id, until))
                        if not dry_run and (now := service.catalog.memory(scope, memory.id)):
                            service.end(scope, now, until)
                if action == DELETE and target:
                    earlier.discard(target)
                applied.examined_id = memory.id
                report.decisions.append(applied)
                if on_decision is not None:
                    on_decision(applied)
                progress.advance(1)
    finally:
        progress.finish()
    return report


def _facts(service: MemoryService, scope: Scope, owner: str, collection: str) -> list[MemoryRecord]:
    """The current facts a dream examines in one group, oldest first (a superseded fact is
    history: it is neither merged nor compared)."""
    return [
        m
        for m in service.catalog.memories(scope, owners=(owner,), collections=(collection,))
        if m.kind not in (CONVERSATION_KIND, FILE_KIND) and m.is_current
    ]


def _supersede(
    service: MemoryService,
    scope: Scope,
    memory: MemoryRecord,
    facts: Sequence[MemoryRecord],
    earlier: set[str],
    dry_run: bool = False,
    consolidator: Consolidator | None = None,
) -> list[str]:
    """Close the standing facts before ``memory`` that the judge says it supersedes (the
    closest few, as remembering offers them; a dry run only names them); their ids. One
    that ``memory`` only says again in other words (``consolidator``, both ways) is no
    change and stays open, as at remember."""
    if service.judge is None or not earlier:
        return []
    standing = [
        current
        for m in facts
        if m.id in earlier
        and (current := service.catalog.memory(scope, m.id)) is not None
        and current.is_current
    ]
    standing.sort(key=lambda m: -text_similarity(memory.content, m.content))
    found = supersession.plan(
        service.judge,
        memory.id,
        memory.content,
        memory.created_at,
        standing[: supersession.CANDIDATES],
        valid_from=memory.holds_from,
    )
    if consolidator is not None:
        found.closes = [
            (old, why)
            for old, why in found.closes
            if not supersession.same_fact(consolidator, memory.content, memory.kind, old)
        ]
    for old, why in [] if dry_run else found.closes:
        service.close(scope, old, why, memory)
    return [old.id for old, _ in found.closes]


class DreamPlanStale(MemexError):
    """The facts a dream plan was made on changed before it was applied."""


#: The state of no facts at all (a plan that covers nothing).
EMPTY_STATE = hashlib.blake2b(digest_size=12).hexdigest()


def memory_state(service: MemoryService, scope: Scope, groups: Sequence[tuple[str, str]]) -> str:
    """A digest of the active facts of ``groups`` (ids and revisions): any write that
    could change a dream's decisions (a fact added, revised, forgotten or brought back)
    changes it."""
    digest = hashlib.blake2b(digest_size=12)
    for owner, collection in groups:
        digest.update(json.dumps([owner, collection]).encode())
        for fact in _facts(service, scope, owner, collection):
            digest.update(f"{fact.id}@{fact.revision};".encode())
    return digest.hexdigest()


def plan_dream(
    service: MemoryService,
    scope: Scope,
    groups: Sequence[tuple[str, str]],
    consolidator: Consolidator,
    *,
    progress: Progress | None = None,
    collection: str | None = None,
    user_id: str | None = None,
) -> DreamPlan:
    """What a dream of ``groups`` would do, written nowhere (``collection`` and ``user_id``
    record what was asked for)."""
    state = memory_state(service, scope, groups)
    report = dream(service, scope, groups, consolidator, dry_run=True, progress=progress)
    return DreamPlan(report, tuple((o, c) for o, c in groups), state, collection, user_id)


def apply_plan(service: MemoryService, scope: Scope, plan: DreamPlan) -> DreamReport:
    """Carry out exactly the decisions of ``plan``, in order, as a dream would have.
    Raises :class:`DreamPlanStale` (writing nothing) when the facts changed since."""
    if memory_state(service, scope, plan.groups) != plan.state:
        raise DreamPlanStale(
            "Memory changed since this dream plan was made (a fact was added, revised, "
            "forgotten or brought back): nothing was applied. Make a new plan and review it."
        )
    report = DreamReport(examined=plan.report.examined, dry_run=False)
    for planned in plan.report.decisions:
        memory = service.catalog.memory(scope, planned.examined_id or "")
        if memory is None:  # the state check makes this unreachable short of a forged plan
            raise DreamPlanStale(f"Memory {planned.examined_id} is not in this scope.")
        applied = service.apply(
            scope,
            planned.decision,
            owner=memory.owner,
            collection=memory.collection,
            existing=memory,
        )
        applied.examined_id = memory.id
        report.decisions.append(applied)
    for old_id, by_id in plan.report.superseded:  # the closings reviewed, as planned
        old = service.catalog.memory(scope, old_id)
        by = service.catalog.memory(scope, by_id)
        if old is not None and by is not None and old.is_current and old.status == ACTIVE:
            service.close(scope, old, Supersession(old_id, reason="a reviewed dream plan"), by)
            report.superseded.append((old_id, by_id))
    for memory_id, until in plan.report.ended:  # the endings reviewed, as planned
        ended = service.catalog.memory(scope, memory_id)
        if ended is not None and ended.is_current and ended.status == ACTIVE:
            service.end(scope, ended, until)
            report.ended.append((memory_id, until))
    return report
