"""Why the rerank put a hit where it did: the features that raised it most.

A feature's contribution to a hit is its weight times how far the hit's value lies from the
pool's mean: what it added to the hit's score against the other candidates (a feature every
candidate shares, such as the question's kind, adds nothing). The hit's reasons are the
:data:`TOP` largest positive contributions, in words (:data:`LABELS`); they are shown after
``rerank #n`` (``memex dig --concise``, an agent's search) and carried in ``reasons``.
"""

from __future__ import annotations

from collections.abc import Sequence
from heapq import nlargest

from memex_rerank.features import NAMES
from memex_rerank.text_features import KINDS

#: How many reasons a hit carries.
TOP = 3
#: Each feature in words (every name in :data:`memex_rerank.features.NAMES`).
LABELS = {
    "fused": "fused score",
    "fused_position": "fused rank",
    "keyword_found": "found by keyword",
    "keyword_rank": "keyword rank",
    "keyword_score": "keyword score",
    "semantic_found": "found by meaning",
    "semantic_rank": "meaning rank",
    "cosine": "similarity",
    "cosine_gap": "similarity near the best",
    "both": "both signals",
    "neighbour_fused": "neighbours",
    "neighbour_keyword": "neighbours' keyword rank",
    "neighbour_cosine": "neighbours' similarity",
    "speaker_named": "speaker named in the question",
    "other_speaker_named": "another speaker named",
    "length": "turn length",
    "overlap": "question words in turn",
    "overlap_context": "question words around it",
    "overlap_best": "most question words",
    "turn_asks": "turn asks a question",
    "turn_time": "turn says a time",
    "turn_number": "turn says a number",
    "turn_photo": "turn shares a photo",
    **{f"question_{kind}": f"a {kind.replace('_', ' ')} question" for kind in KINDS},
    "when_x_time": "a time for a when question",
    "how_many_x_number": "a number for a how-many question",
    "cluster": "candidates nearby",
}


def reasons(weights: Sequence[float], rows: Sequence[Sequence[float]]) -> list[tuple[str, ...]]:
    """For each row (a candidate's features), the labels of the features that raised its
    score most against the pool's mean, largest first; at most :data:`TOP`, none that
    lowered it."""
    if not rows:
        return []
    count = len(rows)
    # Only features with a weight can raise anything (the pool's mean of each of those).
    used = [(j, w, sum(row[j] for row in rows) / count) for j, w in enumerate(weights) if w != 0.0]
    out = []
    for row in rows:
        raised = [(w * (row[j] - mean), j) for j, w, mean in used]
        best = nlargest(TOP, raised)
        out.append(tuple(_WORDS[j] for c, j in best if c > 1e-9))
    return out


_WORDS = tuple(LABELS[name] for name in NAMES)
