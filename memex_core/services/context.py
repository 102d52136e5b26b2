"""``context(query, budget)``: a context pack for an agent, built in explained steps.

1. Seeds: hybrid search hits for the query (reason ``query_match``), up to
   ``seed_share`` of the budget.
2. Forward links from the seeds: the notes (or sections) they link to
   (reason ``linked``), up to ``link_limit`` per seed, leaving ``recency_share``
   of the budget.
3. Recent material (reason ``recency``) fills what is left; then more seeds if
   the budget still has room.

Long fragments are cut to a window around the query words (``item_chars``) so
one long note cannot eat the budget, and the fragments of one conversation, note or memory
take at most ``document_share`` of it while other material waits (a long memory split into
many fragments would otherwise fill a pack about something else with its pieces, the most
recent of all); only the last pass, more of what the query found, may go past that share.
``get(id)`` returns the whole text. For the same data and query the pack is always the
same: every step is ordered.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from memex_core.domain import Fragment, SearchFilters, SearchResult
from memex_core.domain.disclosure import (
    LINKED,
    QUERY_MATCH,
    RECENCY,
    ContextItem,
    ContextPack,
    label_of,
    query_terms,
    snippet,
)
from memex_core.domain.memory.timestamps import HeldAt
from memex_core.services.ports import GraphPort

#: Smallest piece worth adding; below this the pack is considered full.
MIN_ITEM_CHARS = 60


@dataclass(frozen=True)
class ContextSettings:
    seed_limit: int = 20
    seed_share: float = 0.7
    recency_share: float = 0.1
    link_limit: int = 2
    item_chars: int = 600
    #: The most of the budget one document (conversation, note or memory) takes before the
    #: last pass.
    document_share: float = 0.25


class ContextBuilder:
    def __init__(
        self,
        graph: GraphPort,
        search: Callable[[str, int], Iterable[SearchResult]],
        settings: ContextSettings | None = None,
    ) -> None:
        self.graph = graph
        self.search = search
        self.settings = settings or ContextSettings()

    def build(
        self,
        query: str,
        budget_chars: int,
        filters: SearchFilters | None = None,
        held: HeldAt | None = None,
    ) -> ContextPack:
        """``held`` says which remembered facts the recent material may offer: current ones
        (the default), those valid at a time asked (``as_of``) or every one; the searches
        apply the same to their own hits."""
        if budget_chars < MIN_ITEM_CHARS:
            raise ValueError(f"budget_chars must be at least {MIN_ITEM_CHARS}")
        s = self.settings
        pack = ContextPack(query=query, budget_chars=budget_chars)
        terms = query_terms(query)
        taken: set[str] = set()
        found = self.search(query, s.seed_limit)
        seeds = [r.fragment for r in found]
        if not seeds and getattr(found, "below_floor", None):
            # The relevance floor found nothing about the query: recent material would be
            # as unrelated as the neighbours it left out (memex_core.domain.relevance).
            return pack

        def room() -> int:
            return budget_chars - pack.used_chars

        # Characters each document has in the pack, and the most it may have (but one item).
        per_document: dict[str, int] = {}
        document_cap = max(int(budget_chars * s.document_share), MIN_ITEM_CHARS)

        def add(
            fragment: Fragment, reason: str, limit: int, detail: str = "", capped: bool = True
        ) -> bool:
            limit = min(limit, s.item_chars, room())
            if capped:
                limit = min(limit, document_cap - per_document.get(fragment.conversation_id, 0))
            if fragment.id in taken or limit < MIN_ITEM_CHARS:
                return False
            text = fragment.content
            cut = len(" ".join(text.split())) > limit
            if cut:
                text = snippet(text, terms, limit - 2)
            pack.items.append(
                ContextItem(
                    id=fragment.id,
                    reason=reason,
                    title=label_of(fragment),
                    text=text,
                    truncated=cut,
                    timestamp=fragment.timestamp,
                    detail=detail,
                )
            )
            taken.add(fragment.id)
            used = per_document.get(fragment.conversation_id, 0)
            per_document[fragment.conversation_id] = used + len(pack.items[-1].text)
            return True

        seed_budget = int(budget_chars * s.seed_share)
        used_seeds = 0
        for fragment in seeds:
            if pack.used_chars >= seed_budget and used_seeds:
                break
            limit = max(seed_budget - pack.used_chars, MIN_ITEM_CHARS)
            if add(fragment, QUERY_MATCH, limit, "search hit"):
                used_seeds += 1
        seed_items = [f for f in seeds if f.id in taken]

        link_budget = budget_chars - int(budget_chars * s.recency_share)
        for seed in seed_items:
            for target in self._linked_fragments(seed)[: s.link_limit]:
                if pack.used_chars >= link_budget:
                    break
                add(target, LINKED, link_budget - pack.used_chars, f"linked from {label_of(seed)}")

        offset = 0
        while room() >= MIN_ITEM_CHARS:
            # Filtered in SQL: paging through everything is slow on a big home.
            recent = self.graph.recent_fragments(100, offset, filters)
            if not recent:
                break
            offset += len(recent)
            for fragment in self._held(recent, held or HeldAt()):
                add(fragment, RECENCY, room(), "recent")
                if room() < MIN_ITEM_CHARS:
                    break

        for fragment in seeds:  # still room: more of what the query found, past the share
            add(fragment, QUERY_MATCH, room(), "search hit", capped=False)
        return pack

    def _held(self, fragments: list[Fragment], held: HeldAt) -> list[Fragment]:
        """``fragments`` without those of memory facts that did not hold at the time asked
        (by default, superseded ones): recent material never offers a fact that stopped
        holding as current (searches leave them out already)."""
        validity = getattr(self.graph, "memory_validity", None)
        memory = [f.conversation_id for f in fragments if f.source_kind == "memory"]
        if validity is None or not memory or held.everything:
            return fragments
        times = validity(memory)
        return [
            f
            for f in fragments
            if f.conversation_id not in times or held.keeps(*times[f.conversation_id])
        ]

    def _linked_fragments(self, seed: Fragment) -> list[Fragment]:
        """Targets of the seed's links: links written in the seed itself first, then the
        rest of its document's; each as the linked section (by heading) or first fragment."""
        links = self.graph.outlinks(seed.conversation_id)
        ordered = [ln for ln in links if ln.source_fragment_id == seed.id] + [
            ln for ln in links if ln.source_fragment_id != seed.id
        ]
        targets: list[Fragment] = []
        seen: set[tuple[str, str | None]] = set()
        for link in ordered:
            doc = link.target_document
            if doc is None or doc == seed.conversation_id or (doc, link.heading) in seen:
                continue
            seen.add((doc, link.heading))
            fragments = self.graph.conversation_fragments(doc)
            if not fragments:
                continue
            chosen = fragments[0]
            if link.heading:
                wanted = link.heading.split("#")[-1].strip().lower()
                for fragment in fragments:
                    heading = str(fragment.metadata.get("heading") or "")
                    if heading.split(" > ")[-1].strip().lower() == wanted:
                        chosen = fragment
                        break
            targets.append(chosen)
        return targets
