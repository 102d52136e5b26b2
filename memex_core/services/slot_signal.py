"""The slot signal of a memory search: the facts found that set what the question asks about.

The supersession judge reads a fact into subject and attribute ("I joined Airbus": the
user, works at); a judge that also reads questions
(:class:`memex_core.domain.memory.validity.AnsweringJudge`) gives a test for the facts that
answer one ("Where do I work?": the user, works at). The test runs over a bounded set: the
memory facts the keyword and semantic signals already found for the query (at most their
candidate depth each), so it costs no extra store query, and never reaches a fact the
search's filters (owner, collection) left out. The facts that pass form one more ranked
list the ranker fuses (:data:`SLOT`), and each is kept under the relevance floor: a slot
match is evidence that the fact is about the question, whatever words they share.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from memex_core.domain import SignalHit
from memex_core.domain.memory.records import MEMORY_SOURCE
from memex_core.services.ports import CatalogPort

#: The signal's name in a hit's ranks, and its evidence label.
SLOT = "slot"
#: Its weight in the fusion, against keyword 0.6 and semantic 0.4: a fact that sets what
#: the question asks about ranks above those that only share its words or its topic.
SLOT_WEIGHT = 1.0

#: Whether a stored fact's text sets what the question asks about.
Answers = Callable[[str], bool]


def slot_hits(catalog: CatalogPort, answers: Answers, candidates: Sequence[str]) -> list[SignalHit]:
    """The memory facts among ``candidates`` (fragment ids, in the order the signals fused
    them) that ``answers`` accepts, in that order."""
    if not candidates:
        return []
    fragments = catalog.get_many(list(candidates))
    return [
        SignalHit(id=i, score=1.0)
        for i in candidates
        if (fragment := fragments.get(i)) is not None
        and fragment.source_kind == MEMORY_SOURCE
        and answers(fragment.content)
    ]


__all__ = ["SLOT", "SLOT_WEIGHT", "Answers", "slot_hits"]
