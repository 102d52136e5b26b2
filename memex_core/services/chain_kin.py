"""Facts of one supersession chain kept together under the relevance floor (issue 30).

When a fact is closed, the fact that closed it is about the same subject and attribute: the
judge said so when it wrote the link (``superseded_by``). So a question one of them answers
is answered by the others at their own times. A search reading by time ("Where did Alice
live in 2019?") is judged against every fact of the owner and then keeps those valid then;
the fact valid then often shares fewer words with the question than the current one ("In
2022 we kept everything on GitLab" / "Our repos are on GitHub", asked "Where is our code
hosted?") and falls under the floor the current one cleared. Here a candidate under the floor
is kept when a kept candidate belongs to its chain. Links are followed through facts outside
the candidates too (Paris -> Rome -> Berlin, Rome not found), a few steps at most.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

#: Memory id -> the memory that closed it, for the closed ones among the ids asked.
SuccessorsOf = Callable[[Sequence[str]], Mapping[str, str]]

#: How many links a chain is followed through: a chain longer than this splits in two.
MAX_STEPS = 16


def chain_kept(candidates: Sequence[tuple[str, str, bool]], successors: SuccessorsOf) -> set[str]:
    """The ids of candidates the floor left out that share a supersession chain with one it
    kept: ``candidates`` are (candidate id, memory id, kept) of one memory search (a memory
    id of "" for a candidate that is not a memory fact). Only a search where something was
    kept can gain one: a question about nothing stays empty."""
    memories = [(i, memory, kept) for i, memory, kept in candidates if memory]
    if not any(kept for *_, kept in memories) or all(kept for *_, kept in memories):
        return set()
    latest = latest_of({memory for _, memory, _ in memories}, successors)
    kept_chains = {latest[memory] for _, memory, kept in memories if kept}
    return {i for i, memory, kept in memories if not kept and latest[memory] in kept_chains}


def latest_of(memory_ids: set[str], successors: SuccessorsOf) -> dict[str, str]:
    """Each memory id -> the last fact of its chain (itself when nothing closed it)."""
    closed_by: dict[str, str] = {}
    asked: set[str] = set()
    frontier = set(memory_ids)
    for _ in range(MAX_STEPS):
        frontier -= asked
        if not frontier:
            break
        asked |= frontier
        found = successors(sorted(frontier))
        closed_by.update(found)
        frontier = set(found.values())
    out = {}
    for memory in memory_ids:
        end, seen = memory, {memory}
        while end in closed_by and closed_by[end] not in seen:
            end = closed_by[end]
            seen.add(end)
        out[memory] = end
    return out


__all__ = ["MAX_STEPS", "SuccessorsOf", "chain_kept", "latest_of"]
