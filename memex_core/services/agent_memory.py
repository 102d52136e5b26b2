"""Writing agent memory: privacy and redaction first, then a revision, fragments, indexes.

Nothing here is ever overwritten in place: every change of a memory is a new
revision in the catalog (create, update, restore, delete, undelete,
invalidate), and only the current revision of an active memory is searchable.
Scope checks happen in the catalog (``memex_core.catalog.memory_records``); this
service decides what to write.
"""

from __future__ import annotations

import hashlib
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from memex_core.domain import (
    ConsolidationDecision,
    Fragment,
    MemoryFact,
    Provenance,
    Redactor,
    SearchFilters,
    SimilarMemory,
    fragment_id,
)
from memex_core.domain.chunking import split_text
from memex_core.domain.contracts import ADD, DELETE, UPDATE
from memex_core.domain.memory.facts import normalise_fact, text_similarity
from memex_core.domain.memory.outcomes import AppliedDecision, DreamReport
from memex_core.domain.memory.privacy import strip_private
from memex_core.domain.memory.records import (
    ACTIVE,
    CONVERSATION_KIND,
    CREATE,
    DELETED,
    INVALIDATE,
    INVALIDATED,
    MEMORY_SOURCE,
    MemoryRecord,
    MemoryWrite,
    Revision,
    Scope,
)
from memex_core.domain.memory.records import (
    DELETE as DELETE_ACTION,
)
from memex_core.domain.memory.records import (
    UPDATE as UPDATE_ACTION,
)
from memex_core.domain.memory.validity import Supersession, SupersessionJudge
from memex_core.services import supersession
from memex_core.services.supersession import Plan


@dataclass(frozen=True)
class MemorySettings:
    """``[memory]`` settings."""

    similarity_threshold: float = 0.5  # closest memories a consolidator is shown
    similar_limit: int = 5  # shown to a consolidator when remembering (an LLM reads them all)
    dream_similar_limit: int = 20  # shown during a dream: repeats hide behind a user's other facts
    fragment_chars: int = 2000


@dataclass(frozen=True)
class Prepared:
    """Text as it will be stored: private spans removed, secrets redacted."""

    text: str
    private_removed: int = 0
    redacted: tuple[str, ...] = ()


@dataclass(frozen=True)
class Message:
    """One turn of a conversation to remember."""

    role: str
    content: str
    timestamp: float | None = None


class MemoryCatalog(Protocol):
    """What the service needs from the catalog (``memex_core.catalog.Catalog`` has it)."""

    def memory(self, scope: Scope, memory_id: str) -> MemoryRecord | None: ...

    def memories(
        self,
        scope: Scope,
        *,
        owners: Sequence[str] = (),
        collections: Sequence[str] | None = None,
        statuses: Sequence[str] = ...,
        kinds: Sequence[str] = (),
        fingerprint: str | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[MemoryRecord]: ...

    def memories_by_fragment(self, scope: Scope, fragment_ids: Sequence[str]) -> dict[str, str]: ...

    def supersession_chain(self, scope: Scope, memory_id: str) -> list[MemoryRecord]: ...

    def write_memory(
        self, scope: Scope, write: MemoryWrite
    ) -> tuple[list[Fragment], list[str]]: ...


class MemoryIndexes(Protocol):
    """Keeps the keyword and vector indexes in step with memory writes."""

    def apply(self, new: Sequence[Fragment], removed: Sequence[str]) -> None:
        """Index new fragments and forget removed ones (vectors when available)."""
        ...

    def nearest(
        self, text: str, filters: SearchFilters, limit: int
    ) -> list[tuple[str, float]] | None:
        """(fragment id, cosine) of the closest fragments, or None without vectors."""
        ...


def fingerprint(text: str) -> str:
    """Identity of a fact's wording after normalisation (exact repeats share it)."""
    return hashlib.blake2b(normalise_fact(text).encode(), digest_size=12).hexdigest()


def new_memory_id() -> str:
    return f"mem_{uuid.uuid4().hex[:20]}"


class MemoryService:
    """Creates and revises memories; finds similar ones; applies consolidation decisions."""

    def __init__(
        self,
        catalog: MemoryCatalog,
        indexes: MemoryIndexes,
        redactor: Redactor,
        settings: MemorySettings | None = None,
        clock: Callable[[], float] = time.time,
        *,
        judge: SupersessionJudge | None = None,
    ) -> None:
        self.catalog = catalog
        self.indexes = indexes
        self.redactor = redactor
        self.settings = settings or MemorySettings()
        self.clock = clock
        self.judge = judge  # None: facts are never closed (supersession off or unavailable)
        self.nearest = supersession.NearestOnce(indexes.nearest)
        self.nearest_facts = supersession.Nearest(catalog, self.nearest)

    # -- preparing text -------------------------------------------------------------------

    def prepare(self, text: str) -> Prepared:
        """``<private>`` spans go first (never stored, never seen by the redactor's
        caller), then likely secrets are replaced."""
        stripped = strip_private(text)
        redaction = self.redactor.redact(stripped.text)
        return Prepared(redaction.text, stripped.removed, tuple(redaction.found))

    # -- fragments ------------------------------------------------------------------------

    def _fragments(
        self,
        record: MemoryRecord,
        messages: Sequence[Message] | None = None,
    ) -> list[Fragment]:
        if record.status != ACTIVE:
            return []
        turns = messages or [Message("note", record.content, record.updated_at)]
        title = record.path.rsplit("/", 1)[-1] if record.path else record.kind
        out: list[Fragment] = []
        for turn_index, turn in enumerate(turns):
            pieces = split_text(turn.content, self.settings.fragment_chars)
            for piece_index, piece in enumerate(pieces):
                locator = f"{record.id}@r{record.revision}/{turn_index}.{piece_index}"
                out.append(
                    Fragment(
                        id=fragment_id(MEMORY_SOURCE, record.id, locator, piece),
                        conversation_id=record.id,
                        role=turn.role,
                        content=piece,
                        provenance=Provenance(
                            source_kind=MEMORY_SOURCE,
                            source_path=record.path or f"memory:{record.id}",
                            source_id=record.id,
                            locator=locator,
                            timestamp=turn.timestamp or record.updated_at,
                        ),
                        timestamp=turn.timestamp or record.updated_at,
                        title=title,
                        metadata={
                            "memory_id": record.id,
                            "revision": record.revision,
                            "kind": record.kind,
                            "path": record.path,
                        },
                        owner=record.owner,
                        collection=record.collection,
                        private=record.private,
                    )
                )
        return out

    # -- writing ----------------------------------------------------------------------------

    def _commit(
        self,
        scope: Scope,
        record: MemoryRecord,
        action: str,
        prepared: Prepared | None,
        reason: str,
        tool_call_id: str | None,
        sources: Sequence[str],
        messages: Sequence[Message] | None,
        links: Sequence[tuple[str, str | None]],
        closes: Sequence[MemoryWrite] = (),
    ) -> MemoryRecord:
        """Store ``record`` (as it now is) and the revision that made it so, with the
        writes closing the facts it supersedes (``closes``) in the same transaction."""
        from memex_core.catalog.memory_records import MemoryWrite

        revision = Revision(
            memory_id=record.id,
            revision=record.revision,
            action=action,
            actor=scope.actor.label,
            created_at=record.updated_at,
            content=record.content,
            kind=record.kind,
            status=record.status,
            reason=reason,
            tool_call_id=tool_call_id,
            sources=tuple(sources),
            redactions=len(prepared.redacted) if prepared is not None else 0,
        )
        write = MemoryWrite(
            record=record,
            revision=revision,
            fingerprint=fingerprint(record.content),
            fragments=self._fragments(record, messages),
            links=links,
            closes=closes,
        )
        new, removed = self.catalog.write_memory(scope, write)
        self.nearest.forget()
        self.indexes.apply(new, removed)
        return record

    def create(
        self,
        scope: Scope,
        *,
        owner: str,
        collection: str,
        kind: str,
        prepared: Prepared,
        path: str | None = None,
        private: bool = False,
        sources: Sequence[str] = (),
        reason: str = "",
        tool_call_id: str | None = None,
        messages: Sequence[Message] | None = None,
        links: Sequence[tuple[str, str | None]] = (),
        at: float | None = None,
        plan: Plan | None = None,
    ) -> MemoryRecord:
        """Store a new memory. ``at`` is when it was said (default: now). A fact is
        offered to the supersession judge first (``plan`` when the caller asked already):
        the facts it supersedes are closed in the same transaction, and a fact told late
        about an earlier time is stored already closed by the later one."""
        now = self.clock()
        if plan is None and supersession.is_fact(kind):
            plan = self.plan(scope, owner, collection, prepared.text, at)
        record = MemoryRecord(
            id=plan.memory_id if plan is not None else new_memory_id(),
            owner=owner,
            collection=collection,
            path=path,
            kind=kind,
            status=ACTIVE,
            revision=1,
            private=private,
            created_at=now,
            updated_at=now,
            content=prepared.text,
            valid_from=plan.valid_from if plan is not None else (now if at is None else at),
        )
        closes: list[MemoryWrite] = []
        if plan is not None:
            until = plan.valid_until  # a closed past period: ended by its own words
            if plan.closed_by is not None:
                later = plan.closed_by.holds_from
                record = replace(
                    record,
                    valid_until=later if until is None else min(until, later),
                    superseded_by=plan.closed_by.id,
                )
                reason = f"{reason}; told late: already superseded by {plan.closed_by.id}"
            elif until is not None:  # no successor
                record = replace(record, valid_until=until)
            if until is not None and supersession.ended_reason(until) not in reason:
                reason = f"{reason}; {supersession.ended_reason(until)}"
            closes = [self._closing(scope, old, found, record) for old, found in plan.closes]
        return self._commit(
            scope, record, CREATE, prepared, reason, tool_call_id, sources, messages, links, closes
        )

    def plan(
        self, scope: Scope, owner: str, collection: str, text: str, at: float | None = None
    ) -> Plan | None:
        """What a new fact would close (None without a judge): the judge sees the owner's
        current facts in ``collection`` closest to ``text``."""
        if self.judge is None:
            return None
        self.nearest.forget()  # fresh for each fact; the consolidator's ask reuses it
        candidates = self.nearest_facts(scope, owner, collection, text)
        said_at = self.clock() if at is None else at
        found = supersession.plan(self.judge, new_memory_id(), text, said_at, candidates)
        if found.closed_by is not None:  # told late: ended by the first later fact of the chain
            chain = self.catalog.supersession_chain(scope, found.closed_by.id)
            found.closed_by = supersession.first_closer(self.judge, found, text, said_at, chain)
            found.closes += supersession.overlapped(self.judge, found, text, said_at, chain)
        return found

    def _closing(
        self, scope: Scope, old: MemoryRecord, found: Supersession, by: MemoryRecord
    ) -> MemoryWrite:
        """The write that closes ``old`` at ``by``'s start, ``by`` superseding it."""
        record = supersession.closed(old, by.holds_from, by.id, self.clock())
        reason = supersession.reason_for(found, by.id)
        return MemoryWrite(
            record=record,
            revision=supersession.closing_revision(record, scope.actor.label, reason, by.id),
            fingerprint=fingerprint(record.content),
            keep_fragments=True,
        )

    def close(
        self, scope: Scope, old: MemoryRecord, found: Supersession, by: MemoryRecord
    ) -> MemoryRecord:
        """Close ``old`` (superseded by ``by``, a fact already stored): a revision."""
        return self._write_closing(scope, self._closing(scope, old, found, by))

    def end(self, scope: Scope, old: MemoryRecord, until: float) -> MemoryRecord:
        """Close ``old`` at ``until`` with no successor: its own words end it (a dream)."""
        record = supersession.ended(old, until, self.clock())
        reason = supersession.ended_reason(until)
        revision = supersession.closing_revision(record, scope.actor.label, reason, None)
        content = fingerprint(record.content)
        return self._write_closing(
            scope, MemoryWrite(record, revision, content, keep_fragments=True)
        )

    def _write_closing(self, scope: Scope, write: MemoryWrite) -> MemoryRecord:
        new, removed = self.catalog.write_memory(scope, write)
        self.nearest.forget()
        self.indexes.apply(new, removed)
        return write.record

    def revise(
        self,
        scope: Scope,
        record: MemoryRecord,
        *,
        action: str,
        prepared: Prepared | None = None,
        status: str | None = None,
        kind: str | None = None,
        reason: str = "",
        tool_call_id: str | None = None,
        sources: Sequence[str] = (),
        links: Sequence[tuple[str, str | None]] = (),
        messages: Sequence[Message] | None = None,
    ) -> MemoryRecord:
        """Write the next revision of ``record`` (new text, new status, or both)."""
        now = self.clock()
        content = prepared.text if prepared is not None else record.content
        updated = replace(
            record,
            revision=record.revision + 1,
            content=content,
            status=status or record.status,
            kind=kind or record.kind,
            updated_at=now,
        )
        return self._commit(
            scope, updated, action, prepared, reason, tool_call_id, sources, messages, links
        )

    # -- similarity and consolidation ---------------------------------------------------------

    def similar(
        self,
        scope: Scope,
        *,
        owner: str,
        collection: str,
        text: str,
        exclude: Sequence[str] = (),
        only: set[str] | None = None,
        candidates: Sequence[MemoryRecord] | None = None,
        limit: int | None = None,
    ) -> list[SimilarMemory]:
        """The closest active facts in the same owner and collection, at or above the
        similarity threshold, most similar first. Uses vectors when there are any,
        word overlap otherwise. ``only`` restricts the answer to those memory ids (a
        dream compares each memory with the ones before it); ``candidates`` limits the
        fallback's scan."""
        threshold = self.settings.similarity_threshold
        limit = limit or self.settings.similar_limit
        skip = set(exclude)
        filters = supersession.facts_filters(owner, collection)
        depth = limit + 5 + (4 * limit + 20 if only is not None else min(len(skip), 50))
        nearest = self.nearest(text, filters, depth)
        found: list[SimilarMemory] = []
        if nearest is not None:
            by_fragment = self.catalog.memories_by_fragment(scope, [f for f, _ in nearest])
            # Each memory once: one turned away at its first hit would be at every later one.
            for memory_id, cosine in supersession.first_hits(by_fragment, nearest, skip):
                if only is not None and memory_id not in only:
                    continue
                if cosine < threshold:
                    break
                record = self.catalog.memory(scope, memory_id)
                if (
                    record is None
                    or record.status != ACTIVE
                    or record.kind == CONVERSATION_KIND
                    or not record.is_current  # superseded: history, not a fact to merge with
                ):
                    continue
                found.append(SimilarMemory(memory_id, record.content, float(cosine), record.kind))
                if len(found) >= limit:
                    break
            return found
        pool = (
            candidates
            if candidates is not None
            else self.catalog.memories(scope, owners=(owner,), collections=(collection,))
        )
        scored = [
            (text_similarity(text, r.content), r)
            for r in pool
            if r.id not in skip
            and (only is None or r.id in only)
            and r.status == ACTIVE
            and r.kind != CONVERSATION_KIND
            and r.is_current
        ]
        scored = [(s, r) for s, r in scored if s >= threshold]
        scored.sort(key=lambda pair: (-pair[0], pair[1].created_at))
        return [SimilarMemory(r.id, r.content, s, r.kind) for s, r in scored[:limit]]

    def apply(
        self,
        scope: Scope,
        decision: ConsolidationDecision,
        *,
        owner: str,
        collection: str,
        tool_call_id: str | None = None,
        existing: MemoryRecord | None = None,
        at: float | None = None,
        plan: Plan | None = None,
    ) -> AppliedDecision:
        """Carry out a decision for a new fact (``existing`` is None) or, during a dream,
        for a memory already stored (``existing``). Never destroys anything: UPDATE
        writes a revision, DELETE invalidates, a dreamt duplicate is invalidated with
        the memory it repeats named in the reason."""
        fact = decision.fact
        applied = AppliedDecision(decision)
        target = self.catalog.memory(scope, decision.target_id) if decision.target_id else None
        if decision.target_id and (target is None or target.status != ACTIVE):
            # A stale or foreign id (e.g. invented by a model): treat as a plain ADD.
            decision = replace(
                decision,
                action=ADD,
                target_id=None,
                reason=f"{decision.reason} (target {decision.target_id} not found: added)",
            )
            applied.decision = decision
            target = None
        sources = fact.source_fragment_ids
        if decision.action == ADD:
            applied.memory_id = (
                existing.id
                if existing
                else self._add_fact(
                    scope, fact, owner, collection, decision.reason, tool_call_id, at, plan
                ).id
            )
        elif decision.action == UPDATE and target is not None:
            self.revise(
                scope,
                target,
                action=UPDATE_ACTION,
                prepared=self.prepare(decision.new_text),
                reason=decision.reason,
                tool_call_id=tool_call_id,
                sources=sources + ((existing.id,) if existing else ()),
            )
            applied.memory_id = target.id
            if existing is not None:
                self._retire(scope, existing, f"merged into {target.id}: {decision.reason}")
        elif decision.action == DELETE and target is not None:
            self.revise(
                scope,
                target,
                action=INVALIDATE,
                status=INVALIDATED,
                reason=f"contradicted: {decision.reason}",
                tool_call_id=tool_call_id,
                sources=sources + ((existing.id,) if existing else ()),
            )
            if existing is not None:
                applied.memory_id = existing.id
            elif decision.new_text.strip():
                applied.memory_id = self._add_fact(
                    scope, fact, owner, collection, decision.reason, tool_call_id, at, plan
                ).id
        else:  # NONE
            applied.memory_id = decision.target_id
            if existing is not None and target is not None:
                self._retire(scope, existing, f"repeats {target.id}: {decision.reason}")
        applied.applied = True
        return applied

    def _add_fact(
        self,
        scope: Scope,
        fact: MemoryFact,
        owner: str,
        collection: str,
        reason: str,
        tool_call_id: str | None,
        at: float | None = None,
        plan: Plan | None = None,
    ) -> MemoryRecord:
        prepared = self.prepare(fact.text)
        if plan is not None and prepared.text != fact.text:
            plan = None  # asked about other words: ask again about these
        return self.create(
            scope,
            owner=owner,
            collection=collection,
            kind=fact.kind,
            prepared=prepared,
            sources=fact.source_fragment_ids,
            reason=reason,
            tool_call_id=tool_call_id,
            at=at,
            plan=plan,
        )

    def _retire(self, scope: Scope, record: MemoryRecord, reason: str) -> None:
        current = self.catalog.memory(scope, record.id)
        if current is not None and current.status == ACTIVE:
            self.revise(scope, current, action=INVALIDATE, status=INVALIDATED, reason=reason)

    def soft_delete(
        self, scope: Scope, record: MemoryRecord, reason: str, tool_call_id: str | None
    ) -> MemoryRecord:
        return self.revise(
            scope,
            record,
            action=DELETE_ACTION,
            status=DELETED,
            reason=reason,
            tool_call_id=tool_call_id,
        )


# Re-exported: the results moved to memex_core.domain.memory.outcomes; callers imported them here.
__all__ = [
    "AppliedDecision",
    "DreamReport",
    "MemoryCatalog",
    "MemoryIndexes",
    "MemoryService",
    "MemorySettings",
    "Message",
    "Prepared",
    "fingerprint",
    "new_memory_id",
]
