"""What the rerank model reads about each fused candidate: plain numbers memex already has.

Signals (from the fusion): the fused score and position, each signal's rank and raw score
(BM25 relative to the best keyword hit, cosine as is and against the best one). Context
(from the catalog, when the ranker has it): whether the question names the turn's
speaker, the turn's length, and how the turns next to it in its conversation scored (an
answer that spans two turns, or a turn that answers a question asked just before).
Pure Python, so the plugin needs nothing beyond memex itself.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from memex_core.domain import KEYWORD, SEMANTIC, FusedHit
from memex_core.domain.turn_context import DIALOGUE_ROLES

#: Feature names, in the order :func:`feature_rows` writes them (the model file names them too).
NAMES = (
    "fused",
    "fused_position",
    "keyword_found",
    "keyword_rank",
    "keyword_score",
    "semantic_found",
    "semantic_rank",
    "cosine",
    "cosine_gap",
    "both",
    "neighbour_fused",
    "neighbour_keyword",
    "neighbour_cosine",
    "speaker_named",
    "other_speaker_named",
    "length",
)
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Unit:
    """What the catalog says about one candidate (all optional: a note has no speaker)."""

    speaker: str | None = None
    chars: int = 0
    previous: str | None = None  # the turn before it in its conversation
    next: str | None = None


_SPEAKER = re.compile(r"^([^\W\d][\w .'-]{0,38}): ")


def unit_of(
    content: str, role: str, previous: str | None = None, next_id: str | None = None
) -> Unit:
    """A candidate's unit. A dialogue turn's speaker is the name a transcript writes before
    the text (``"Caroline: ..."``), else its role, and its length leaves that name out;
    other fragments (notes, documents: "Title: subtitle" is no speaker) have none."""
    if role not in DIALOGUE_ROLES:
        return Unit(None, len(content), previous, next_id)
    match = _SPEAKER.match(content)
    speaker = match.group(1) if match else role
    text = content[match.end() :] if match else content
    return Unit(speaker, len(text), previous, next_id)


def _first_name(speaker: str | None) -> str:
    return (speaker or "").lower().split(" ")[0]


def _inverse(rank: int | None) -> float:
    return 0.0 if rank is None else 1.0 / rank


def feature_rows(
    query: str, pool: Sequence[FusedHit], units: Mapping[str, Unit]
) -> list[list[float]]:
    """One row of :data:`NAMES` per candidate of ``pool`` (fused order, best first)."""
    if not pool:
        return []
    top_fused = max(h.score for h in pool) or 1.0
    keyword_scores = [s for h in pool if (s := h.scores.get(KEYWORD)) is not None]
    cosines = [s for h in pool if (s := h.scores.get(SEMANTIC)) is not None]
    top_keyword = max(keyword_scores, default=0.0) or 1.0
    top_cosine = max(cosines, default=0.0)
    by_id = {h.id: h for h in pool}
    words = {w.lower() for w in _WORD.findall(query)}
    # A name is a speaker when it heads two candidates or more: a conversation's speakers
    # recur, while a document whose text starts "Aspirin: ..." is alone with its prefix.
    heads = Counter(_first_name(units[h.id].speaker) for h in pool if h.id in units)
    speakers = {name for name, count in heads.items() if name and count > 1}
    rows = []
    for position, hit in enumerate(pool, start=1):
        keyword = hit.scores.get(KEYWORD)
        cosine = hit.scores.get(SEMANTIC)
        unit = units.get(hit.id, Unit())
        near = [by_id[n] for n in (unit.previous, unit.next) if n is not None and n in by_id]
        speaker = _first_name(unit.speaker)
        named = speaker in speakers and speaker in words
        others = bool((speakers - {speaker}) & words)
        rows.append(
            [
                hit.score / top_fused,
                1.0 / position,
                float(keyword is not None),
                _inverse(hit.ranks.get(KEYWORD)),
                (keyword or 0.0) / top_keyword,
                float(cosine is not None),
                _inverse(hit.ranks.get(SEMANTIC)),
                cosine or 0.0,
                (cosine - top_cosine) if cosine is not None else -1.0,
                float(keyword is not None and cosine is not None),
                max((n.score / top_fused for n in near), default=0.0),
                max(((n.scores.get(KEYWORD) or 0.0) / top_keyword for n in near), default=0.0),
                max((n.scores.get(SEMANTIC) or 0.0 for n in near), default=0.0),
                float(named),
                float(others and not named),
                math.log1p(unit.chars) / 8.0,
            ]
        )
    return rows
