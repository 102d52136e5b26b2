"""A superseded fact a search for current facts found stands for the fact that closed it
(issue 30).

A question worded like an earlier fact ("Who is my therapist?" / "therapy with Julia on
Wednesdays") finds that fact, and not always the one that closed it ("first session with
Mark today, Julia left the clinic"): the later fact shares fewer of the question's words and
may sit under the relevance floor or outside the candidates. The judge linked the two when it
closed the earlier fact (``superseded_by``: the same subject and attribute), so in a search
for current facts a closed fact that was found hands its place to the last fact of its chain,
when that one holds now and was not found itself. The successor's hit carries the evidence
``"chain"``. Only a fact that was found can hand on its place: a question about nothing
stays empty. ``[search] chain_successor = false`` turns this off.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from memex_core.domain import Fragment, SearchResult
from memex_core.services.chain_kin import SuccessorsOf, latest_of

#: The evidence of a hit that stands in for the closed fact the search found.
CHAIN_EVIDENCE = "chain"

#: Memory id -> (valid_from, valid_until), for the ids asked that are memories.
ValidityOf = Callable[[Sequence[str]], Mapping[str, tuple[float, float | None]]]
#: A memory id -> the fragment that holds its text (None: no such memory).
FragmentOf = Callable[[str], Fragment | None]


def with_successors(
    found: Sequence[SearchResult],
    valid: Sequence[SearchResult],
    memory_of: Callable[[Fragment], str],
    successors: SuccessorsOf,
    validity: ValidityOf,
    fragment_of: FragmentOf,
) -> list[SearchResult]:
    """``valid`` (the hits of ``found`` that hold now, in order) with each closed memory hit
    of ``found`` replaced, in its place, by the current last fact of its chain that is not
    among the hits already; ``memory_of`` gives a fragment's memory id ("" for none)."""
    kept = {id(r) for r in valid}
    closed = [memory_of(r.fragment) for r in found if id(r) not in kept]
    closed = [memory for memory in closed if memory]
    if not closed:
        return list(valid)
    latest = latest_of(set(closed), successors)
    ends = {end for memory, end in latest.items() if end != memory}
    holding = {m for m, (_, until) in validity(sorted(ends)).items() if until is None}
    present = {memory_of(r.fragment) for r in valid}
    out: list[SearchResult] = []
    for result in found:
        if id(result) in kept:
            out.append(result)
            continue
        end = latest.get(memory_of(result.fragment), "")
        if end not in holding or end in present:
            continue
        fragment = fragment_of(end)
        if fragment is None or fragment.owner != result.fragment.owner:
            continue  # the judge closes within one owner; never hand a place across owners
        present.add(end)
        out.append(
            SearchResult(
                fragment=fragment,
                score=result.score,
                ranks=dict(result.ranks),
                scores={},
                evidence=CHAIN_EVIDENCE,
                reasons=(f"closed {memory_of(result.fragment)}, which the search found",),
            )
        )
    return out


__all__ = ["CHAIN_EVIDENCE", "FragmentOf", "ValidityOf", "with_successors"]
