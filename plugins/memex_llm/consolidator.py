"""The ``llm`` consolidator: a chat model weighs a new fact against similar memories."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage

from memex_core.domain.contracts import (
    ADD,
    ConsolidationDecision,
    MemoryFact,
    SimilarMemory,
)
from memex_llm import prompts
from memex_llm.chat import ask_json
from memex_llm.parsing import parse_decision

# "memory 2", "[2]", "#2" in the model's reason, rewritten to the memory's id.
_NUMBER_MENTION = re.compile(r"\b(?:memory|mem)\s*#?(\d+)\b|\[(\d+)\]|#(\d+)\b", re.IGNORECASE)


class LLMConsolidator:
    """Decides ADD, UPDATE, DELETE or NONE with any langchain-core chat model."""

    def __init__(self, chat_model: Any, *, max_retries: int = 1) -> None:
        if max_retries < 0:
            raise ValueError(f"max_retries must be 0 or more, not {max_retries}")
        self.chat_model = chat_model
        self.max_retries = max_retries

    def decide(self, fact: MemoryFact, similar: Sequence[SimilarMemory]) -> ConsolidationDecision:
        """The model's decision; with nothing similar the fact is added without asking."""
        if not similar:
            return ConsolidationDecision(ADD, fact, reason="no similar memory")
        messages = [
            SystemMessage(prompts.CONSOLIDATION_SYSTEM),
            HumanMessage(prompts.consolidation_user(fact, similar)),
        ]
        numbers = range(1, len(similar) + 1)
        parsed = ask_json(
            self.chat_model,
            messages,
            lambda reply: parse_decision(reply, numbers),
            max_retries=self.max_retries,
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
