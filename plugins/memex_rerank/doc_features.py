"""Document-level cues for the rerank: where in a candidate the question's words sit.

A conversation turn is a sentence or two; an abstract (SciFact) is ten. What separates a
relevant abstract from a merely related one is often whether the question's words meet
in its title or in one sentence, in the question's order, and whether it holds the
question's rarer words (rare among the candidates: what the pool all shares says
little). Pure Python over :func:`memex_rerank.text_features.content_words`' stems.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Sequence

from memex_rerank.text_features import content_words, overlap

#: Feature names, in the order :func:`document_rows` writes them.
DOC_NAMES = ("title_overlap", "sentence_overlap", "pair_overlap", "rare_overlap")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(])")
_WORD = re.compile(r"[a-z0-9]+")


def _stem_sequence(text: str, asked: set[str]) -> list[str]:
    """The text's stems in order, only those the question asks (what pairs are made of)."""
    return [s for w in _WORD.findall(text.lower()) if (s := w[:5]) in asked]


def _pairs(stems: Sequence[str]) -> set[tuple[str, str]]:
    return {(a, b) for a, b in itertools.pairwise(stems) if a != b}


def document_rows(
    query: str, texts: Sequence[str], titles: Sequence[str | None]
) -> list[list[float]]:
    """One row of :data:`DOC_NAMES` per candidate (``texts`` and ``titles`` in pool order):

    - ``title_overlap``: share of the question's content words in the title (0 without one);
    - ``sentence_overlap``: the best single sentence's share of them;
    - ``pair_overlap``: share of the question's adjacent word pairs that sit next to each
      other (among the question's words) in the text, in either order;
    - ``rare_overlap``: share of the question's words the text holds, each weighted by how
      few candidates hold it (1 - its share of the pool).
    """
    asked = content_words(query)
    if not texts:
        return []
    question_pairs = _pairs(_stem_sequence(query, asked))
    held = [content_words(t) & asked for t in texts]
    pool_share = Counter(s for h in held for s in h)
    rarity = {s: 1.0 - pool_share[s] / len(texts) for s in asked}
    total_rarity = sum(rarity.values())
    rows = []
    for text, title, have in zip(texts, titles, held, strict=True):
        sentences = _SENTENCE.split(text) if have else []
        best = max((overlap(asked, content_words(s)) for s in sentences), default=0.0)
        seen = _pairs(_stem_sequence(text, asked))
        seen |= {(b, a) for a, b in seen}
        rows.append(
            [
                overlap(asked, content_words(title)) if title else 0.0,
                best,
                len(question_pairs & seen) / len(question_pairs) if question_pairs else 0.0,
                sum(rarity[s] for s in have) / total_rarity if total_rarity else 0.0,
            ]
        )
    return rows


__all__ = ["DOC_NAMES", "document_rows"]
