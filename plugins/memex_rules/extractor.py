"""The ``rules`` extractor: facts from first-person statements, with no model.

It reads the user's turns (role ``user``) and notes (role ``note``) sentence by
sentence, keeps the statements :mod:`memex_rules.statements` recognises, files
each under a fact type with :mod:`memex_rules.classify`, and drops repeats
(same text after :func:`normalise_fact`), keeping every turn a fact came from.
The same fragments always give the same facts in the same order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from memex_core.domain.contracts import FactType, MemoryFact
from memex_core.domain.fragment import Fragment
from memex_core.domain.memory.facts import normalise_fact
from memex_rules.classify import classify
from memex_rules.sentences import split_sentences
from memex_rules.statements import read_statements

#: Roles whose text speaks for the user. Assistant turns only echo or suggest.
USER_ROLES = ("user", "note")


@dataclass
class _Found:
    text: str
    kind: str
    sources: list[str] = field(default_factory=list)


class RulesExtractor:
    """Extracts facts from what the user says about themselves ("I prefer...", "my name is...")."""

    def __init__(self, roles: Sequence[str] = USER_ROLES) -> None:
        self.roles = tuple(roles)

    def extract(
        self, fragments: Sequence[Fragment], fact_types: Sequence[FactType]
    ) -> list[MemoryFact]:
        """Facts stated in ``fragments``, in the order they were first said."""
        if not fact_types:
            raise ValueError("extract needs at least one fact type (see DEFAULT_FACT_TYPES)")
        found: dict[str, _Found] = {}
        for fragment in fragments:
            if fragment.role not in self.roles:
                continue
            for sentence in split_sentences(fragment.content):
                for statement in read_statements(sentence):
                    key = normalise_fact(statement.text)
                    if key not in found:
                        found[key] = _Found(statement.text, classify(statement, fact_types))
                    if fragment.id not in found[key].sources:
                        found[key].sources.append(fragment.id)
        return [MemoryFact(f.text, f.kind, tuple(f.sources)) for f in found.values()]
