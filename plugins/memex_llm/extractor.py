"""The ``llm`` extractor: a chat model reads the conversation and lists the facts."""

from __future__ import annotations

from collections.abc import Sequence

from memex_core.domain.contracts import FactType, MemoryFact
from memex_core.domain.fragment import Fragment
from memex_core.domain.memory.facts import normalise_fact
from memex_llm import prompts
from memex_llm.model_role import ChatModelRole
from memex_llm.parsing import parse_extraction

#: Turns shown to the model. Tool output and system prompts are left out: long and not
#: about the user. Facts may only come from the user's own turns (the prompt says so).
SHOWN_ROLES = ("user", "assistant", "note")
USER_ROLES = ("user", "note")


class LLMExtractor(ChatModelRole):
    """Extracts facts with any langchain-core chat model (``BaseChatModel``)."""

    def extract(
        self, fragments: Sequence[Fragment], fact_types: Sequence[FactType]
    ) -> list[MemoryFact]:
        """Facts in ``fragments``; no model call when the user says nothing."""
        if not fact_types:
            raise ValueError("extract needs at least one fact type (see DEFAULT_FACT_TYPES)")
        turns = [f for f in fragments if f.role in SHOWN_ROLES and f.content.strip()]
        if not any(f.role in USER_ROLES for f in turns):
            return []
        names = [t.name for t in fact_types]
        items = self.ask(
            prompts.extraction_system(fact_types),
            prompts.extraction_user(turns),
            lambda reply: parse_extraction(reply, names, len(turns)),
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
