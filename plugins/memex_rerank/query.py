"""The keyword signal's reading of a question: question words and stop phrases dropped.

bm25's stopword list already drops ``what``, ``when``, ``did`` and the like; what is
left of a question such as "How many times has Melanie gone to the beach in 2023?"
still holds words that ask rather than say (``many``, ``times``, ``likely``), which
match turns that happen to use them. They are dropped for the keyword signal only;
the semantic signal reads the question as asked.
"""

from __future__ import annotations

import re

#: Words of a question that ask, not say (beyond bm25's English stopwords).
QUESTION_WORDS = frozenset(
    {
        *("many", "much", "kind", "kinds", "sort", "sorts", "type", "types", "likely"),
        *("would", "could", "might", "ever", "also", "whose", "mention", "mentioned"),
        "mentions",
    }
)
_WORD = re.compile(r"\w+|\W+")


def keyword_query(question: str) -> str:
    """``question`` without its question words (``""`` if nothing else is left)."""
    kept = [piece for piece in _WORD.findall(question) if piece.lower() not in QUESTION_WORDS]
    return re.sub(r"\s+", " ", "".join(kept)).strip()
