"""The ``rules`` consolidator: ADD, UPDATE, DELETE or NONE by text rules, with no model.

Each fact is read into a :class:`~memex_rules.wording.FactForm` (content words
after a small English equivalence table) and compared with the similar
memories (most similar first) by :func:`~memex_rules.compare.compare`. Checked
in this order:

1. **same text**: equal after :func:`normalise_fact` -> ``NONE``;
2. **same fact**: the same content words and polarity ("Alice enjoys sushi" /
   "Sushi is something the user likes") -> ``NONE``, at any similarity memex
   offers: the words decide, not the cosine;
3. **contradiction**: the same statement with its polarity flipped ("User likes
   X" / "User no longer likes X" / "User dislikes X"), or a comparison turned
   round ("prefers tea over coffee" / "prefers coffee over tea") -> ``DELETE``
   the memory, adding the new fact in its place;
4. **more or less of the same**: the new fact has every content word of the
   memory and more (``UPDATE`` the memory to the new text), or only some of
   them (``NONE``: the memory says more), when the cosine is at least
   ``near_duplicate`` (default 0.9) or the word overlap at least
   :data:`TEXT_NEAR_DUPLICATE`; never when the extra words change what the
   fact is about rather than describe it (another person, a modal, a number,
   a new object: "User's sister likes X", "wants to live in X", "has two
   kids", "likes cat videos"; see :mod:`memex_rules.compare`);
5. otherwise ``ADD``. In particular a fact that both adds and drops content
   words is another fact (a slot changed: tea kind, weekday, city, relative),
   however high the cosine: "prefers herbal tea over lemonade" is not "prefers
   black tea over lemonade".
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
from memex_core.domain.memory.facts import normalise_fact
from memex_rules.compare import (
    ADDS,
    OMITS,
    OPPOSITE,
    REVERSED,
    SAME,
    Comparison,
    compare,
)
from memex_rules.wording import read_form

#: Word overlap (shared content words over the geometric mean of both counts) at or above
#: which a fact that only adds to, or only leaves out of, a memory is folded into it.
TEXT_NEAR_DUPLICATE = 0.85


def contradicts(new: str, old: str) -> bool:
    """True when ``new`` says the opposite of ``old``: negation flipped or comparison reversed."""
    return compare(read_form(new), read_form(old)).kind in (OPPOSITE, REVERSED)


def content_words(text: str) -> set[str]:
    """The words of ``text`` that carry meaning, after the equivalence table (readable forms)."""
    form = read_form(text)
    return set(form.show(form.words))


def _as_user(comparison: Comparison) -> str:
    return f"; {comparison.named!r} read as the user" if comparison.named else ""


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
        form = read_form(fact.text)
        compared = [(memory, compare(form, read_form(memory.text))) for memory in similar]
        for memory, comparison in compared:
            if comparison.kind == SAME:
                return ConsolidationDecision(
                    NONE,
                    fact,
                    memory.memory_id,
                    f"same fact as {memory.memory_id} in other words (the same content words "
                    f"after equivalences{_as_user(comparison)})",
                )
        for memory, comparison in compared:
            if comparison.kind in (OPPOSITE, REVERSED):
                how = (
                    "the negation is flipped"
                    if comparison.kind == OPPOSITE
                    else "the comparison is reversed"
                )
                return ConsolidationDecision(
                    DELETE,
                    fact,
                    memory.memory_id,
                    f"contradicts {memory.memory_id} ({memory.text!r}): {how}; "
                    "it is invalidated and the new fact added",
                )
        for memory, comparison in compared:
            decision = self._more_or_less(fact, memory, comparison)
            if decision is not None:
                return decision
        if not similar:
            return ConsolidationDecision(ADD, fact, reason="no similar memory")
        closest, comparison = compared[0]
        return ConsolidationDecision(
            ADD,
            fact,
            reason=(
                f"new: closest is {closest.memory_id} (cosine {closest.similarity:.2f}, "
                f"word overlap {comparison.overlap:.2f}); {self._why_new(comparison)}"
            ),
        )

    def _more_or_less(
        self, fact: MemoryFact, memory: SimilarMemory, comparison: Comparison
    ) -> ConsolidationDecision | None:
        if comparison.kind not in (ADDS, OMITS):
            return None
        if memory.similarity >= self.near_duplicate:
            how = f"cosine {memory.similarity:.2f}"
        elif comparison.overlap >= TEXT_NEAR_DUPLICATE:
            how = f"word overlap {comparison.overlap:.2f}"
        else:
            return None
        target = memory.memory_id
        if comparison.kind == OMITS:
            return ConsolidationDecision(
                NONE,
                fact,
                target,
                f"near-duplicate of {target} ({how}); the stored text says more: "
                f"{', '.join(comparison.dropped)}{_as_user(comparison)}",
            )
        return ConsolidationDecision(
            UPDATE,
            fact,
            target,
            f"near-duplicate of {target} ({how}); the new fact adds: "
            f"{', '.join(comparison.added)}{_as_user(comparison)}",
            text=fact.text,
        )

    def _why_new(self, comparison: Comparison) -> str:
        if comparison.kind in (ADDS, OMITS):
            return "says more or less of it, but is not close enough"
        return f"another fact: {comparison.why}"
