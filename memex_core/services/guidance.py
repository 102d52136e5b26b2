"""What to say when a search found nothing, for one caller's reach.

One builder for every surface: the CLI (``memex dig`` and friends, the whole home), the
viewer's search page (the operator's whole home or a memory collection, an agent key's
scope) and ``POST /v1/search/explain`` (what the CLI prints against a ``memex serve``).
The same reach gives the same lines everywhere.

A :class:`Reach` says what the caller's searches reach and what to call it; the counts
and the probes with one filter lifted are taken inside that reach only (the caller passes
them in), so an agent's guidance says nothing about fragments it may not read: not the
home's size, not its embedding coverage, not whether another user's memory would match.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from memex_core.domain.filters import SearchFilters

if TYPE_CHECKING:
    from memex_core.services.search import SearchResults

#: The filters a probe lifts one at a time, with the CLI flag that sets each.
LIFTABLE = (
    ("source_kinds", "--source"),
    ("conversation_ids", "--conversation"),
    ("roles", "--role"),
    ("since", "--since"),
    ("until", "--until"),
    ("tags", "--tag"),
)


@dataclass(frozen=True)
class Reach:
    """What a search reached. ``name`` is None for a whole home (the operator's, the CLI's),
    whose guidance names the home at ``home``; otherwise it names the scope in words
    ("user alice's memory and shared memory, and the ingested corpus").

    ``operator``: the caller runs the home (may ingest and backfill), so the fixes are
    said as commands to run. ``collection``: the memory collection the caller asked for,
    if any, which narrowed the reach (a key's own bound is part of ``name`` instead)."""

    name: str | None = None
    home: str = ""
    operator: bool = True
    collection: str | None = None

    @property
    def whole_home(self) -> bool:
        return self.name is None


@dataclass(frozen=True)
class Counts:
    """Fragments within the reach, and how many of them have vectors."""

    fragments: int
    embedded: int


def scope_of(filters: SearchFilters) -> SearchFilters:
    """The part of ``filters`` that is the reach (owners, collections), private included:
    what the counts are taken over."""
    return SearchFilters(
        owners=filters.owners, collections=filters.collections, include_private=True
    )


def explain_empty(
    reach: Reach,
    mode: str,
    filters: SearchFilters,
    found: SearchResults | None,
    counts: Counts,
    hits_with: Callable[[SearchFilters], int],
    floor_setting: str,
) -> list[str]:
    """The guidance lines. ``filters`` are the search's, the reach's owners and collections
    included; ``hits_with(relaxed)`` answers how many hits a search with ``relaxed``
    filters has (at most one is needed), within the reach. ``found`` (the empty results)
    tells whether the relevance floor left candidates out."""
    where = "" if reach.whole_home else f" in {reach.name}"
    if counts.fragments == 0:
        if reach.whole_home:
            return [
                f"The memex at {reach.home} is empty. Add something first: "
                "memex ingest path/to/conversations.json"
            ]
        return [f"There is nothing{where} yet, so no search can find anything there."]
    lines = [f"No results among {counts.fragments:,} fragments{where}."]
    if mode != "keyword":
        coverage = counts.embedded / counts.fragments
        lines.append(
            f"Embedding coverage: {counts.embedded:,}/{counts.fragments:,} ({coverage:.0%})."
        )
        if counts.embedded < counts.fragments:
            lines.append(
                "Run `memex backfill` to embed the rest."
                if reach.operator
                else "The rest wait for the operator to run `memex backfill`."
            )
    for name, flag in LIFTABLE:
        relaxed = filters.without(name)
        if relaxed != filters and hits_with(relaxed):
            lines.append(f"The {flag} filter removed every match; without it there are hits.")
    asked = replace(filters, owners=(), collections=())
    if asked.is_empty and mode == "keyword":
        lines.append(
            f"No fragment{where} contains these words; try `memex semantic` or `memex dig`."
        )
    if found is not None and found.below_floor and found.floor is not None:
        lines.append(
            f"The relevance floor ({floor_setting}) left out {found.below_floor} "
            "nearest neighbour(s); see them anyway with --no-floor, or set a floor with "
            "--min-similarity."
        )
    if reach.collection:
        lines.append("Leave the collection out to search everything you may read.")
    return lines
