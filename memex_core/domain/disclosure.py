"""Compact views of fragments for agents: snippets, reasons, timelines, context items.

Progressive disclosure: a search hands back small :class:`CompactHit` records
(enough to choose), ``timeline`` shows what surrounds a hit, and ``get``
returns full text. Pure functions and data; no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from memex_core.domain.fragment import Fragment
from memex_core.domain.relevance import EVIDENCE_SEMANTIC, EVIDENCE_SLOT
from memex_core.domain.results import KEYWORD, SEMANTIC, SearchResult

_WORD = re.compile(r"\w+", re.UNICODE)
#: Words too common to anchor a snippet on.
_SKIP_TEXT = """a an and are as at be but by do does did for from has have how i in is it its
me my of on or our so that the their them there they this to was we were what when where which
who why will with you your"""
_SKIP = frozenset(_SKIP_TEXT.split())

#: Ranks that say which signal found a hit; any other rank is a ranker's own re-ordering.
_SIGNALS = frozenset({KEYWORD, SEMANTIC, EVIDENCE_SLOT})

QUERY_MATCH = "query_match"
LINKED = "linked"
RECENCY = "recency"


def query_terms(query: str) -> list[str]:
    """Lower-cased content words of a query, in order, without duplicates."""
    words = [w.lower() for w in _WORD.findall(query)]
    return list(dict.fromkeys(w for w in words if w not in _SKIP and len(w) > 1))


def _stem_prefix(term: str) -> str:
    # A cheap stand-in for stemming: "locking" and "locked" share "lock".
    return term[: max(4, len(term) - 3)] if len(term) > 5 else term


def matched_terms(text: str, terms: list[str]) -> list[str]:
    """Which query terms (or words sharing their stem prefix) occur in ``text``."""
    words = {w.lower() for w in _WORD.findall(text)}
    found = []
    for term in terms:
        prefix = _stem_prefix(term)
        if term in words or any(w.startswith(prefix) for w in words):
            found.append(term)
    return found


def snippet(text: str, terms: list[str], width: int = 200) -> str:
    """About ``width`` characters of ``text`` around the first query term it contains
    (its beginning when none does), on word boundaries, with ``…`` marking cuts."""
    flat = " ".join(text.split())
    if len(flat) <= width:
        return flat
    lower = flat.lower()
    positions = [lower.find(_stem_prefix(t)) for t in terms]
    positions = [p for p in positions if p >= 0]
    centre = min(positions) if positions else 0
    start = max(0, centre - width // 3)
    if start > 0:
        space = flat.rfind(" ", 0, start + 1)
        start = space + 1 if space >= 0 and start - space < 20 else start
    end = min(len(flat), start + width)
    if end < len(flat):
        space = flat.rfind(" ", start, end)
        end = space if space > start + width // 2 else end
    return ("…" if start > 0 else "") + flat[start:end].strip() + ("…" if end < len(flat) else "")


def why_matched(result: SearchResult, terms: list[str]) -> str:
    """A one-line reason: which signals found the hit, at what rank, on which words."""
    parts = []
    rank = result.ranks.get(KEYWORD)
    if rank is not None:
        words = matched_terms(result.fragment.searchable_text, terms)
        on = f" on {', '.join(words)}" if words else ""
        parts.append(f"keyword #{rank}{on}")
    rank = result.ranks.get(SEMANTIC)
    if rank is not None:
        score = result.scores.get(SEMANTIC)
        similarity = f" (similarity {score:.2f})" if score is not None else ""
        parts.append(f"meaning #{rank}{similarity}")
    reason = " + ".join(parts) or "matched"
    # Places a ranker gave after fusing (the default ``rerank``'s): where the hit ended up.
    reordered = [
        f"{name} #{place}"
        for name, place in result.ranks.items()
        if name not in _SIGNALS and place is not None
    ]
    if reordered:
        reason += ", " + ", ".join(reordered)
        if result.reasons:
            reason += ": " + ", ".join(result.reasons)
    if result.evidence == EVIDENCE_SEMANTIC and result.ranks.get(KEYWORD) is not None:
        reason += "; kept on meaning alone (too few of the query's words)"
    elif result.evidence == EVIDENCE_SEMANTIC:
        reason += "; kept on meaning alone"
    elif result.evidence == EVIDENCE_SLOT:
        reason += "; kept as the fact that sets what the question asks"
    return reason


def label_of(fragment: Fragment) -> str:
    """What to call a fragment's conversation or note: its title, or its id."""
    heading = fragment.metadata.get("heading") if fragment.role == "note" else None
    title = fragment.title or fragment.conversation_id
    return f"{title} > {heading}" if heading else title


@dataclass(frozen=True)
class CompactHit:
    """A search hit small enough for an agent to scan many of."""

    id: str
    title: str
    conversation_id: str
    source_kind: str
    role: str
    timestamp: float | None
    snippet: str
    score: float
    why: str
    #: What kept it: "keyword", "semantic" (meaning alone) or "both" (SearchResult.evidence).
    evidence: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return dict(vars(self))


def compact_hit(result: SearchResult, terms: list[str], width: int = 200) -> CompactHit:
    f = result.fragment
    return CompactHit(
        id=f.id,
        title=label_of(f),
        conversation_id=f.conversation_id,
        source_kind=f.source_kind,
        role=f.role,
        timestamp=f.timestamp,
        snippet=snippet(f.content, terms, width),
        score=round(result.score, 6),
        why=why_matched(result, terms),
        evidence=result.evidence,
    )


@dataclass(frozen=True)
class Timeline:
    """The fragments around ``anchor_id`` in its conversation or note, in order."""

    anchor_id: str
    conversation_id: str
    title: str
    fragments: list[Fragment]
    offsets: list[int]  # position relative to the anchor (-2, -1, 0, 1, ...)


@dataclass(frozen=True)
class ContextItem:
    """One piece of a context pack and why it is there.

    ``reason`` is ``query_match`` (a search hit), ``linked`` (a note a hit links
    to) or ``recency`` (recent material filling the rest of the budget).
    ``text`` may be cut to fit (``truncated``); ``get`` returns the full fragment.
    """

    id: str
    reason: str
    title: str
    text: str
    truncated: bool
    timestamp: float | None
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        return dict(vars(self))


class BudgetedPack:
    """Items (each with its ``text``) packed under a character budget: a context pack, or
    the pack ``ask`` answers from."""

    budget_chars: int
    items: list[Any]

    @property
    def used_chars(self) -> int:
        return sum(len(i.text) for i in self.items)

    def budget_dict(self) -> dict[str, Any]:
        """The budget, what the items use of it, and the items, as ``to_dict`` gives them."""
        return {
            "budget_chars": self.budget_chars,
            "used_chars": self.used_chars,
            "items": [i.to_dict() for i in self.items],
        }


@dataclass
class ContextPack(BudgetedPack):
    query: str
    budget_chars: int
    items: list[ContextItem] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"query": self.query, **self.budget_dict()}
