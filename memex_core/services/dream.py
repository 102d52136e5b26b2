"""Dreaming: consolidate a collection's stored facts, oldest first, each against those before it.

Each fact is offered to the consolidator as if it were new, with the similar
facts written before it. A repeat is invalidated (NONE), a better wording
becomes a revision of the earlier memory (UPDATE), a contradiction invalidates
the earlier memory (DELETE). Later statements win, and everything stays
recoverable through revisions. A dry run decides without writing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from memex_core.domain import Consolidator, MemoryFact
from memex_core.domain.contracts import ADD, DELETE
from memex_core.domain.memory.records import CONVERSATION_KIND, FILE_KIND, MemoryRecord, Scope
from memex_core.services.memory import AppliedDecision, DreamReport, MemoryService
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
    work: list[tuple[str, str, list[MemoryRecord]]] = []
    for owner, collection in groups:
        facts = [
            m
            for m in service.catalog.memories(scope, owners=(owner,), collections=(collection,))
            if m.kind not in (CONVERSATION_KIND, FILE_KIND)
        ]
        work.append((owner, collection, facts))
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
                    earlier.add(memory.id)
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
