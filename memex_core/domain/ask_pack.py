"""What ``ask`` hands back: the numbered items of its pack, and the answer when a chat model
was asked (see :mod:`memex_core.facade.ask_workflow` and :mod:`memex_core.services.ask_fusion`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memex_core.domain.disclosure import BudgetedPack


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
class AskResult(BudgetedPack):
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

    def to_dict(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "repo": self.repo,
            **self.budget_dict(),
            "answer": self.answer,
            "model": self.model,
            "citations": self.citations,
            "invalid_citations": self.invalid_citations,
            "index": self.index,
            "notes": self.notes,
        }
