"""What ``ask`` hands back: the numbered items of its pack, and the answer when a chat model
was asked (see :mod:`memex_core.facade.ask_workflow` and :mod:`memex_core.services.ask_fusion`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class AskItem:
    """One numbered item of an ask pack: ``kind`` is ``memory`` or ``code``."""

    number: int
    kind: str
    id: str
    title: str
    source: str
    location: str
    reason: str
    text: str
    truncated: bool
    evidence: str | None = None
    symbol: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return dict(vars(self))


@dataclass
class AskResult:
    """What ``ask`` returns: the pack, and the answer when a chat model is configured."""

    question: str
    repo: str | None
    budget_chars: int
    items: list[AskItem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    answer: str | None = None
    model: str | None = None
    citations: list[int] = field(default_factory=list)
    invalid_citations: list[int] = field(default_factory=list)
    index: dict[str, Any] = field(default_factory=dict)

    @property
    def used_chars(self) -> int:
        return sum(len(i.text) for i in self.items)

    def to_dict(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "repo": self.repo,
            "budget_chars": self.budget_chars,
            "used_chars": self.used_chars,
            "items": [i.to_dict() for i in self.items],
            "answer": self.answer,
            "model": self.model,
            "citations": self.citations,
            "invalid_citations": self.invalid_citations,
            "index": self.index,
            "notes": self.notes,
        }
