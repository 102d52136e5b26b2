"""``MemexStore(as_of=...)``: a LangGraph store's items as they stood at a time (issue 30).

A store item is a memory file, and memory files are *revised*, not superseded: each ``put``
writes a new revision, a delete a soft-delete revision, and every revision stays. So an
item "as of" a time is its revision that was current then: the latest one written at or
before that time. The item did not exist then (no revision yet) or had been deleted (that
revision deleted it): it is not there. ``get`` returns that revision's value and ``search``
looks through the values of that time. memex's search index holds current text only, so a
query over the past ranks the items as they were by the query's words (the share of its
words each value holds; values holding none are left out), not by meaning.

Past revisions are the operator's to read (``memex history``, ``/v1/admin/memory/history``):
a store over a local home reads them; a store over a ``memex serve`` needs a client with the
operator secret, and one with an agent key raises :class:`~memex_langchain.scope.ScopeError`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from memex_core.domain.disclosure import query_terms
from memex_core.domain.memory.records import ACTIVE, Revision
from memex_core.memex_like import identity_of, is_remote
from memex_langchain.scope import ScopeError

if TYPE_CHECKING:
    from memex_core.memex_like import MemexLike


def revision_at(revisions: Sequence[Revision], moment: float) -> Revision | None:
    """The revision current at ``moment``: the latest written at or before it, if it
    left the item there (not a delete); else None."""
    held = [r for r in revisions if r.created_at <= moment]
    if not held:
        return None
    latest = max(held, key=lambda r: (r.created_at, r.revision))
    return latest if latest.status == ACTIVE else None


def word_score(query: str, text: str) -> float:
    """The share of ``query``'s words that ``text`` holds (0.0 to 1.0)."""
    terms = query_terms(query)
    if not terms:
        return 0.0
    words = set(re.findall(r"\w+", text.lower()))
    return sum(term in words for term in terms) / len(terms)


class PastRevisions:
    """Reads items' revisions as the operator: the history ``as_of`` needs."""

    def __init__(self, memex: MemexLike) -> None:
        self.memex = memex
        self._operator: Any = None

    def of(self, memory_id: str) -> list[Revision]:
        if self._operator is None:
            identity = identity_of(self.memex)
            if is_remote(self.memex) and (identity is None or identity.kind != "operator"):
                raise ScopeError(
                    "A MemexStore with as_of reads items' past revisions, which are the "
                    "operator's (as `memex history`): give it a local Memex or a client with "
                    "admin_secret=..."
                )
            self._operator = self.memex.operator("langgraph")  # type: ignore[attr-defined]
        return list(self._operator.history(memory_id))
