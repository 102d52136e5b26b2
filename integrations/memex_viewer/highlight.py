"""Snippets with the query's words marked, safe to put in a page.

The text is cut into pieces on the raw (unescaped) text; every piece is escaped on its
own and the matching ones are wrapped in ``<mark>``. So stored markup is always shown as
text, and a query word can never match inside an entity the escaping made (``amp`` in
``&amp;``) or split one: marks only ever wrap escaped text.
"""

from __future__ import annotations

import re

from markupsafe import Markup, escape

from memex_core.domain.disclosure import query_terms, snippet


def _stem(term: str) -> str:
    # As memex_core.domain.disclosure picks snippets: "locking" and "locked" share "lock".
    return term[: max(4, len(term) - 3)] if len(term) > 5 else term


def pattern(query: str) -> re.Pattern[str] | None:
    """What to mark for ``query``: words starting with one of its terms' stems."""
    terms = query_terms(query)
    if not terms:
        return None
    stems = sorted({_stem(t) for t in terms}, key=len, reverse=True)
    return re.compile(r"\b(?:" + "|".join(re.escape(s) for s in stems) + r")\w*", re.IGNORECASE)


def mark(text: str, query: str) -> Markup:
    """``text`` escaped, with the words ``query`` looks for in ``<mark>``."""
    found = pattern(query)
    if found is None:
        return escape(text)
    out: list[str] = []
    at = 0
    for match in found.finditer(text):
        out.append(str(escape(text[at : match.start()])))
        out.append(f"<mark>{escape(match.group(0))}</mark>")
        at = match.end()
    out.append(str(escape(text[at:])))
    return Markup("".join(out))


def marked_snippet(text: str, query: str, width: int = 240) -> Markup:
    """About ``width`` characters of ``text`` around the first match, marked."""
    return mark(snippet(text, query_terms(query), width), query)
