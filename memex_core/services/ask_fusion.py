"""``ask``: memory and a repository's code searched together, fused into one labelled pack.

Pure logic (no storage, model or framework import): fusing the two pools' rankings,
packing the fused list into a character budget with a label per item, the prompt a chat
model answers from, and checking the citations in its answer.

Fusion. Memory (everything ingested that is not code) and the repository's code are
searched as two pools with the same hybrid search, and their rankings are fused by
reciprocal rank (RRF, the same ``k`` for both): an item scores ``1 / (k + its rank in its
pool)``. Scores from the two pools are never compared directly: a pool's hybrid scores
depend on its size and vocabulary (thousands of code chunks against a few chats), so
ranking the union by score would let the bigger or wordier pool take every slot. With
equal ``k`` the first of each pool come first, then the seconds, and so on, so neither
pool starves the other; a pool with nothing relevant gives up its slots because the
relevance floor already dropped its hits before fusion. Equal ranks are ordered by the
hits' own hybrid scores, then memory first, so the result is deterministic.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field

from memex_core.domain import SearchResult
from memex_core.domain.ask_pack import AskItem, AskResult
from memex_core.domain.disclosure import query_terms, why_matched

MEMORY = "memory"
CODE = "code"
POOLS = (MEMORY, CODE)

#: RRF's constant (the RRF paper's 60). With two pools and the same k for both, only the
#: ranks decide the order, so its value does not change the pack; it is here to be named.
RRF_K = 60
#: Default budget of the pack in characters (``[ask] budget``).
DEFAULT_BUDGET = 6000
#: Longest text one item may take (``[ask] item_chars``); get(id) gives the whole fragment.
DEFAULT_ITEM_CHARS = 1500
#: How many hits each pool contributes before fusion (``[ask] pool_limit``).
DEFAULT_POOL_LIMIT = 10
#: Smallest piece worth adding; below this the pack is full.
MIN_ITEM_CHARS = 120


@dataclass(frozen=True)
class PooledHit:
    pool: str
    rank: int  # 1-based, inside its pool
    result: SearchResult


def fuse_pools(
    memory: Sequence[SearchResult], code: Sequence[SearchResult], k: int = RRF_K
) -> list[PooledHit]:
    """The two pools' hits in one ranking (see the module's docstring); a fragment found
    by both pools (it cannot be, they are disjoint, but a caller may pass anything) once."""
    if k < 1:
        raise ValueError("k must be at least 1")
    pooled = [PooledHit(MEMORY, n, r) for n, r in enumerate(memory, start=1)]
    pooled += [PooledHit(CODE, n, r) for n, r in enumerate(code, start=1)]
    pooled.sort(key=lambda h: (-1.0 / (k + h.rank), -h.result.score, POOLS.index(h.pool)))
    seen: set[str] = set()
    fused = []
    for hit in pooled:
        if hit.result.id not in seen:
            seen.add(hit.result.id)
            fused.append(hit)
    return fused


def location_of(result: SearchResult, pool: str) -> str:
    """``path:start-end`` for code; the source's locator (file#conversation/message) else."""
    fragment = result.fragment
    meta = fragment.metadata
    if pool == CODE and "path" in meta:
        return f"{meta['path']}:{meta.get('start_line', '?')}-{meta.get('end_line', '?')}"
    return fragment.provenance.locator or fragment.provenance.source_path


def pack_items(
    fused: Sequence[PooledHit],
    question: str,
    budget_chars: int,
    *,
    item_chars: int = DEFAULT_ITEM_CHARS,
) -> list[AskItem]:
    """Items in fused order until ``budget_chars`` is spent; each text cut to ``item_chars``
    (and to what is left), so the pack never exceeds the budget."""
    if budget_chars < 1:
        raise ValueError("the budget must be at least 1 character")
    terms = query_terms(question)
    items: list[AskItem] = []
    left = budget_chars
    for hit in fused:
        room = min(item_chars, left)
        if room < min(MIN_ITEM_CHARS, budget_chars):
            break
        fragment = hit.result.fragment
        # Dedented: a method's lines keep their shape without the class's indentation.
        text = textwrap.dedent(fragment.content).strip("\n")
        truncated = len(text) > room
        if truncated:
            text = text[: max(room - 1, 0)].rstrip() + "…"
        why = why_matched(hit.result, terms)
        items.append(
            AskItem(
                number=len(items) + 1,
                kind=hit.pool,
                id=fragment.id,
                title=fragment.title or fragment.conversation_id,
                source=fragment.source_kind,
                location=location_of(hit.result, hit.pool),
                reason=f"#{hit.rank} in {hit.pool}" + (f": {why}" if why else ""),
                text=text,
                truncated=truncated,
                evidence=hit.result.evidence,
                symbol=fragment.metadata.get("symbol") if hit.pool == CODE else None,
            )
        )
        left -= len(text)
    return items


# -- answering with citations --------------------------------------------------------------

ANSWER_SYSTEM = (
    "You answer a developer's question from the numbered context items below: memory "
    "(their past conversations and notes) and code (their repository). Use only these "
    "items. Cite every claim with the item numbers in square brackets, like [1] or [2][3]. "
    "If the items do not answer the question, say so plainly. Be brief."
)

_CITATION = re.compile(r"\[(\d+(?:\s*[,;]\s*\d+)*)\]")


def answer_prompt(question: str, items: Sequence[AskItem]) -> str:
    """The user message: the question, then each item with its number, kind and location."""
    blocks = [f"Question: {question}", "", "Context items:"]
    for item in items:
        blocks.append(f"[{item.number}] ({item.kind}) {item.title} — {item.location}")
        blocks.append(item.text)
        blocks.append("")
    blocks.append("Answer with citations like [1].")
    return "\n".join(blocks)


@dataclass(frozen=True)
class CitationCheck:
    cited: list[int] = field(default_factory=list)  # valid item numbers, in first-cited order
    invalid: list[int] = field(default_factory=list)  # numbers with no such item


def check_citations(answer: str, item_count: int) -> CitationCheck:
    """The item numbers ``answer`` cites, split into those that exist (1..``item_count``)
    and those that do not (a model inventing sources must not pass unnoticed)."""
    numbers: list[int] = []
    for match in _CITATION.finditer(answer):
        numbers.extend(int(n) for n in re.split(r"\s*[,;]\s*", match.group(1)))
    ordered = list(dict.fromkeys(numbers))
    return CitationCheck(
        cited=[n for n in ordered if 1 <= n <= item_count],
        invalid=[n for n in ordered if not 1 <= n <= item_count],
    )


# AskItem and AskResult live in memex_core.domain.ask_pack; callers imported them here.
__all__ = [
    "ANSWER_SYSTEM",
    "CODE",
    "DEFAULT_BUDGET",
    "DEFAULT_ITEM_CHARS",
    "DEFAULT_POOL_LIMIT",
    "MEMORY",
    "MIN_ITEM_CHARS",
    "POOLS",
    "RRF_K",
    "AskItem",
    "AskResult",
    "CitationCheck",
    "PooledHit",
    "answer_prompt",
    "check_citations",
    "fuse_pools",
    "location_of",
    "pack_items",
]
