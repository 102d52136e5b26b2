"""The ``llm`` extractor: a chat model reads the conversation and lists the facts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage

from memex_core.domain.contracts import FactType, MemoryFact
from memex_core.domain.fragment import Fragment
from memex_core.domain.memory.facts import normalise_fact
from memex_llm import prompts
from memex_llm.chat import ask_json
from memex_llm.parsing import parse_extraction

#: Turns shown to the model. Tool output and system prompts are left out: long and not
#: about the user. Facts may only come from the user's own turns (the prompt says so).
SHOWN_ROLES = ("user", "assistant", "note")
USER_ROLES = ("user", "note")


class LLMExtractor:
    """Extracts facts with any langchain-core chat model (``BaseChatModel``)."""

    def __init__(self, chat_model: Any, *, max_retries: int = 1) -> None:
        if max_retries < 0:
            raise ValueError(f"max_retries must be 0 or more, not {max_retries}")
        self.chat_model = chat_model
        self.max_retries = max_retries

    def extract(
        self, fragments: Sequence[Fragment], fact_types: Sequence[FactType]
    ) -> list[MemoryFact]:
        """Facts in ``fragments``; no model call when the user says nothing."""
        if not fact_types:
            raise ValueError("extract needs at least one fact type (see DEFAULT_FACT_TYPES)")
        turns = [f for f in fragments if f.role in SHOWN_ROLES and f.content.strip()]
        if not any(f.role in USER_ROLES for f in turns):
            return []
        messages = [
            SystemMessage(prompts.extraction_system(fact_types)),
            HumanMessage(prompts.extraction_user(turns)),
        ]
        names = [t.name for t in fact_types]
        items = ask_json(
            self.chat_model,
            messages,
            lambda reply: parse_extraction(reply, names, len(turns)),
            max_retries=self.max_retries,
            task="fact extraction",
            fallback_hint='use the rules extractor ([extractor] use = "rules")',
        )
        # A fact without turns is credited to every user turn shown.
        everyone = tuple(f.id for f in turns if f.role in USER_ROLES)
        facts: dict[str, MemoryFact] = {}
        for item in items:
            sources = tuple(dict.fromkeys(turns[n - 1].id for n in item.turns)) or everyone
            facts.setdefault(normalise_fact(item.text), MemoryFact(item.text, item.type, sources))
        return list(facts.values())
