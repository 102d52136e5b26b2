"""The ``rules`` consolidator: ADD, UPDATE, DELETE or NONE by text rules, with no model.

Checked in this order against the similar memories (most similar first):

1. **same fact**: equal after :func:`normalise_fact` -> ``NONE``;
2. **contradiction**: the same statement with its negation flipped ("User likes
   X" / "User does not like X" / "User no longer likes X" / "User dislikes X")
   -> ``DELETE`` the memory, adding the new fact in its place;
3. **near-duplicate**: embedding cosine >= ``near_duplicate`` (default 0.9) or
   :func:`text_similarity` >= 0.85 -> ``NONE`` when the new fact adds no
   content word, else ``UPDATE`` the memory to whichever text says more (the
   new one on a tie: it is the more recent);
4. otherwise ``ADD``.
"""

from __future__ import annotations

from collections.abc import Sequence

from memex_core.domain.contracts import (
    ADD,
    DELETE,
    NONE,
    UPDATE,
    ConsolidationDecision,
    MemoryFact,
    SimilarMemory,
)
from memex_core.domain.memory.facts import fact_tokens, normalise_fact, text_similarity
from memex_rules.statements import word_set

#: text_similarity at or above which two facts count as near-duplicates.
TEXT_NEAR_DUPLICATE = 0.85

_NEGATORS = word_set("not no never dont doesnt didnt cannot cant wont isnt arent wasnt")
#: "no longer", "not ... anymore": part of a negation, never a flip of their own.
_NEGATION_NOISE = word_set("longer anymore")
_AUXILIARIES = word_set("do doe does did is am are was were be been")
#: Verbs folded onto "like", and those that also flip the polarity.
_LIKE = word_set("like love enjoy adore")
_DISLIKE = word_set("dislike hate detest loathe")
#: Words that say nothing on their own: a fact adding only these adds no content.
_FUNCTION_WORDS = word_set(
    "a an the and or of to in on at for with by from as is are was were be been has have had "
    "do doe does did their they them it this that its very really also just user"
)


def _polarity(text: str) -> tuple[tuple[str, ...], bool]:
    """A statement's core words (negations and auxiliaries removed) and whether it is negated."""
    core: list[str] = []
    negated = False
    for token in fact_tokens(text):
        if token in _NEGATORS:
            negated = not negated
        elif token in _AUXILIARIES or token in _NEGATION_NOISE:
            continue
        elif token in _DISLIKE:
            core.append("like")
            negated = not negated
        else:
            core.append("like" if token in _LIKE else token)
    return tuple(core), negated


def contradicts(new: str, old: str) -> bool:
    """True when ``new`` says the opposite of ``old``: same words, negation flipped."""
    new_core, new_negated = _polarity(new)
    old_core, old_negated = _polarity(old)
    return bool(new_core) and new_core == old_core and new_negated != old_negated


def content_words(text: str) -> set[str]:
    """The words of ``text`` that carry meaning (function words left out)."""
    return set(fact_tokens(text)) - _FUNCTION_WORDS


class RulesConsolidator:
    """Decides a new fact's fate from its text and the similar memories' texts and cosines."""

    def __init__(self, near_duplicate: float = 0.9) -> None:
        if not 0.0 < near_duplicate <= 1.0:
            raise ValueError(f"near_duplicate must be in (0, 1], not {near_duplicate!r}")
        self.near_duplicate = near_duplicate

    def decide(self, fact: MemoryFact, similar: Sequence[SimilarMemory]) -> ConsolidationDecision:
        key = normalise_fact(fact.text)
        for memory in similar:
            if key and normalise_fact(memory.text) == key:
                return ConsolidationDecision(
                    NONE, fact, memory.memory_id, f"same as {memory.memory_id} after normalisation"
                )
        for memory in similar:
            if contradicts(fact.text, memory.text):
                return ConsolidationDecision(
                    DELETE,
                    fact,
                    memory.memory_id,
                    f"contradicts {memory.memory_id} ({memory.text!r}): the negation is flipped; "
                    "it is invalidated and the new fact added",
                )
        for memory in similar:
            decision = self._near_duplicate(fact, memory)
            if decision is not None:
                return decision
        if not similar:
            return ConsolidationDecision(ADD, fact, reason="no similar memory")
        closest = similar[0]
        return ConsolidationDecision(
            ADD,
            fact,
            reason=(
                f"new: closest is {closest.memory_id} (cosine {closest.similarity:.2f}, "
                f"text similarity {text_similarity(fact.text, closest.text):.2f}), "
                "not a near-duplicate"
            ),
        )

    def _near_duplicate(
        self, fact: MemoryFact, memory: SimilarMemory
    ) -> ConsolidationDecision | None:
        textual = text_similarity(fact.text, memory.text)
        if memory.similarity >= self.near_duplicate:
            how = f"cosine {memory.similarity:.2f}"
        elif textual >= TEXT_NEAR_DUPLICATE:
            how = f"text similarity {textual:.2f}"
        else:
            return None
        target = memory.memory_id
        new_words, old_words = content_words(fact.text), content_words(memory.text)
        added = sorted(new_words - old_words)
        if not added:
            return ConsolidationDecision(
                NONE, fact, target, f"near-duplicate of {target} ({how}); adds nothing new"
            )
        if len(new_words) < len(old_words):
            return ConsolidationDecision(
                NONE,
                fact,
                target,
                f"near-duplicate of {target} ({how}); the stored text says more",
            )
        return ConsolidationDecision(
            UPDATE,
            fact,
            target,
            f"near-duplicate of {target} ({how}); the new fact adds: {', '.join(added)}",
            text=fact.text,
        )
