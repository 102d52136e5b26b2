"""The ``llm`` consolidator: a chat model weighs a new fact against similar memories."""

from __future__ import annotations

import re
from collections.abc import Sequence

from memex_core.domain.contracts import (
    ADD,
    ConsolidationDecision,
    MemoryFact,
    SimilarMemory,
)
from memex_llm import prompts
from memex_llm.model_role import ChatModelRole
from memex_llm.parsing import parse_decision

# "memory 2", "[2]", "#2" in the model's reason, rewritten to the memory's id.
_NUMBER_MENTION = re.compile(r"\b(?:memory|mem)\s*#?(\d+)\b|\[(\d+)\]|#(\d+)\b", re.IGNORECASE)


class LLMConsolidator(ChatModelRole):
    """Decides ADD, UPDATE, DELETE or NONE with any langchain-core chat model."""

    def decide(self, fact: MemoryFact, similar: Sequence[SimilarMemory]) -> ConsolidationDecision:
        """The model's decision; with nothing similar the fact is added without asking."""
        if not similar:
            return ConsolidationDecision(ADD, fact, reason="no similar memory")
        numbers = range(1, len(similar) + 1)
        parsed = self.ask(
            prompts.CONSOLIDATION_SYSTEM,
            prompts.consolidation_user(fact, similar),
            lambda reply: parse_decision(reply, numbers),
            task="consolidation decision",
            fallback_hint='use the rules consolidator ([consolidator] use = "rules")',
        )
        ids = {n: memory.memory_id for n, memory in zip(numbers, similar, strict=True)}
        target = ids[parsed.target] if parsed.target is not None else None
        if parsed.action == ADD:
            target = None
        text = parsed.text
        if parsed.action == ADD and not (text and text.strip()):
            text = None  # store the fact as extracted
        reason = _with_ids(parsed.reason.strip(), ids) or f"the model chose {parsed.action}"
        return ConsolidationDecision(parsed.action, fact, target, reason, text)


def _with_ids(reason: str, ids: dict[int, str]) -> str:
    """The model's reason with the prompt's memory numbers replaced by memory ids."""

    def replace(match: re.Match[str]) -> str:
        number = int(next(g for g in match.groups() if g is not None))
        return ids.get(number, match.group(0))

    return _NUMBER_MENTION.sub(replace, reason)
