"""What memory calls hand back: a consolidation decision and what it did, a dream's report
and plan, a memory search hit, what ``remember`` stored, a memory file's links.

Plain values: the memory handles (:mod:`memex_core.handles`), the memory service and dreaming
(:mod:`memex_core.services.agent_memory`, :mod:`memex_core.services.dream`) build them, and the
integrations and the server turn them into JSON.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from memex_core.domain.contracts import ADD, DELETE, NONE, UPDATE, ConsolidationDecision
from memex_core.domain.memory.timestamps import iso_utc


@dataclass
class AppliedDecision:
    """A consolidation decision and what it did (or would do, in a dry run)."""

    decision: ConsolidationDecision
    memory_id: str | None = None  # the memory added or changed
    applied: bool = False
    examined_id: str | None = None  # in a dream: the stored memory the decision was about

    def to_dict(self) -> dict[str, Any]:
        return {
            "action": self.decision.action,
            "fact": self.decision.fact.text,
            "kind": self.decision.fact.kind,
            "target_id": self.decision.target_id,
            "text": self.decision.new_text,
            "reason": self.decision.reason,
            "memory_id": self.memory_id,
            "applied": self.applied,
            "examined_id": self.examined_id,
        }


@dataclass
class DreamReport:
    """What a consolidation pass over a collection decided."""

    examined: int = 0
    decisions: list[AppliedDecision] = field(default_factory=list)
    dry_run: bool = False
    superseded: list[tuple[str, str]] = field(default_factory=list)  # (closed, closed by)
    #: Facts ended by their own words ("Back in 2020 prod was on Heroku"): (id, valid_until)
    ended: list[tuple[str, float]] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        out = {action: 0 for action in (ADD, UPDATE, DELETE, NONE)}
        for applied in self.decisions:
            out[applied.decision.action] += 1
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "examined": self.examined,
            "dry_run": self.dry_run,
            "counts": self.counts(),
            "decisions": [d.to_dict() for d in self.decisions],
            "superseded": [{"memory_id": a, "superseded_by": b} for a, b in self.superseded],
            "ended": [{"memory_id": a, "valid_until": iso_utc(b)} for a, b in self.ended],
        }


@dataclass(frozen=True)
class DreamPlan:
    """A dream's decisions before anything is written, and the facts they were made on."""

    report: DreamReport
    groups: tuple[tuple[str, str], ...]
    state: str  # digest of every examined fact's id and revision, see memory_state
    # What was asked for (the handle's arguments), so the plan can be asked for again:
    collection: str | None = None
    user_id: str | None = None

    @property
    def digest(self) -> str:
        """Names this plan: the same facts and the same decisions give the same digest."""
        decisions = [
            [d.examined_id, d.decision.action, d.decision.target_id, d.decision.new_text]
            for d in self.report.decisions
        ]
        text = json.dumps([self.state, self.groups, decisions], separators=(",", ":"))
        return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


@dataclass(frozen=True)
class MemoryHit:
    """A search hit in memory: the memory, the matching fragment's text, and its score."""

    memory_id: str
    path: str | None  # as the caller names it (virtual for agents)
    collection: str
    kind: str
    text: str
    score: float
    fragment_id: str
    ranks: dict[str, int] = field(default_factory=dict)
    private: bool = False
    valid_from: float | None = None  # when the fact became true (epoch seconds)
    valid_until: float | None = None  # when it stopped (None: it holds)
    superseded_by: str | None = None
    recorded_at: float | None = None  # when memex learned it

    @property
    def is_current(self) -> bool:
        return self.valid_until is None

    def to_dict(self) -> dict[str, Any]:
        return {
            "memory_id": self.memory_id,
            "path": self.path,
            "collection": self.collection,
            "kind": self.kind,
            "text": self.text,
            "score": self.score,
            "fragment_id": self.fragment_id,
            "ranks": self.ranks,
            "private": self.private,
            "valid_from": iso_utc(self.valid_from),
            "valid_until": iso_utc(self.valid_until),
            "superseded_by": self.superseded_by,
            "recorded_at": iso_utc(self.recorded_at),
        }


@dataclass
class RememberResult:
    """What ``remember`` stored: the conversation memory (if any) and the fact decisions."""

    conversation_id: str | None = None
    decisions: list[AppliedDecision] = field(default_factory=list)
    redacted: tuple[str, ...] = ()
    private_removed: int = 0

    @property
    def memory_ids(self) -> list[str]:
        return [d.memory_id for d in self.decisions if d.memory_id]

    def to_dict(self) -> dict[str, Any]:
        return {
            "conversation_id": self.conversation_id,
            "decisions": [d.to_dict() for d in self.decisions],
            "redacted": list(self.redacted),
            "private_removed": self.private_removed,
        }


@dataclass(frozen=True)
class MemoryLinks:
    """A memory file's links out and in, within the caller's scope."""

    path: str
    outlinks: list[dict[str, Any]]
    backlinks: list[dict[str, Any]]

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "outlinks": self.outlinks, "backlinks": self.backlinks}
