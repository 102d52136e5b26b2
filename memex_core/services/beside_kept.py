"""Memory facts under the relevance floor kept beside a kept fact of their owner (issue 30).

Facts and the questions asked of them are short, and the fact that answers now, or answered
on an earlier date, often sits under a floor calibrated on chat turns while another fact of
its owner clears it. A search of memory keeps such a candidate when it is like the kept fact
(*kin*: their vectors' cosine), near the floor itself (*near*), of the kept fact's
supersession chain (*chain*), of the series of numbers it told (*series*), or worded as a
change and like it at a looser cosine (*changed*). Only a search where something was kept
can gain one: a question about nothing stays empty. Each way has its ``[search]`` setting
(docs/concepts/search.md, memory.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from memex_core.domain import SEMANTIC, Fragment, FusedHit
from memex_core.domain.memory.records import MEMORY_SOURCE
from memex_core.services.chain_kin import SuccessorsOf, chain_kept
from memex_core.services.newer_first import CHANGE_SIMILARITY, VectorsOf, kin_kept


@dataclass(frozen=True)
class BesideKept:
    """The ways a candidate under the floor may be kept beside a kept fact of its owner.

    ``kin``: the cosine its vector needs with the kept fact's; ``near``: the similarity to
    the query it needs itself; ``chain``: whether one of the kept fact's supersession chain
    is kept; ``series``: the test of a point of a series of numbers the kept fact told
    (``series(kept text, its text)``, e.g.
    :func:`memex_core.domain.memory.quantity_series.same_series`); ``changed``: the test of a
    fact worded as a change, kept as kin at :data:`CHANGE_SIMILARITY` (with ``kin`` set)."""

    kin: float | None = None
    near: float | None = None
    chain: bool = False
    series: Callable[[str, str], bool] | None = None
    changed: Callable[[str], bool] | None = None

    @property
    def any_on(self) -> bool:
        """Whether any way is on."""
        return (
            self.kin is not None or self.near is not None or self.chain or self.series is not None
        )


def kept_beside(
    head: Sequence[tuple[FusedHit, bool]],
    fragments: Mapping[str, Fragment],
    beside: BesideKept,
    vectors_of: VectorsOf | None,
    successors: SuccessorsOf | None,
) -> set[str]:
    """The ids of the candidates of ``head`` (fused hit, kept by the floor) under the floor
    that ``beside`` keeps; ``fragments`` holds the candidates' fragments by id."""
    known = [(h, kept) for h, kept in head if h.id in fragments]
    candidates = [(h.id, fragments[h.id].owner, kept) for h, kept in known]
    found: set[str] = set()
    if beside.kin is not None:
        found = kin_kept(candidates, vectors_of, beside.kin)
        if beside.changed is not None:
            changed = beside.changed
            worded = [c for c in candidates if c[2] or changed(fragments[c[0]].content)]
            found |= kin_kept(worded, vectors_of, min(beside.kin, CHANGE_SIMILARITY))
    if beside.near is not None:
        near, owners = beside.near, {owner for _, owner, kept in candidates if kept}
        found |= {
            h.id
            for h, kept in known
            if not kept
            and fragments[h.id].owner in owners
            and (h.scores.get(SEMANTIC) or -1.0) >= near
        }
    if beside.series is not None:
        series, told = beside.series, [fragments[h.id] for h, kept in known if kept]
        found |= {
            h.id
            for h, kept in known
            if not kept
            and any(
                k.owner == fragments[h.id].owner and series(k.content, fragments[h.id].content)
                for k in told
            )
        }
    if beside.chain and successors is not None:
        found |= chain_kept(
            [(h.id, _memory_id(fragments[h.id]), kept) for h, kept in known], successors
        )
    return found


def _memory_id(fragment: Fragment) -> str:
    """The memory a fragment belongs to ("" for a fragment that is not memory)."""
    return fragment.conversation_id if fragment.source_kind == MEMORY_SOURCE else ""


__all__ = ["BesideKept", "kept_beside"]
