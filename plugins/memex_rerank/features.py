"""What the rerank model reads about each fused candidate: plain numbers memex already has.

Signals (from the fusion): the fused score and position, each signal's rank and raw score
(BM25 relative to the best keyword hit, cosine as is and against the best one). Context
(from the catalog, when the ranker has it): whether the question names the turn's
speaker, the turn's length, and how the turns next to it in its conversation scored (an
answer that spans two turns, or a turn that answers a question asked just before).
Words (:mod:`memex_rerank.text_features`): the share of the question's content words the
turn holds, alone and with its neighbours among the candidates; the question's kind
(when, how many, ...) and what the turn says (a time, a number, a question, a photo);
and how many candidates sit within :data:`CLUSTER_SPAN` turns of it (evidence clusters).
Pure Python, so the plugin needs nothing beyond memex itself.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from memex_core.domain import KEYWORD, SEMANTIC, FusedHit
from memex_core.domain.turn_context import DIALOGUE_ROLES
from memex_rerank.text_features import KINDS, content_words, kind_of, overlap, read_turn

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
    "overlap",
    "overlap_context",
    "overlap_best",
    *(f"turn_{cue}" for cue in ("asks", "time", "number", "photo")),
    *(f"question_{kind}" for kind in KINDS),
    "when_x_time",
    "how_many_x_number",
    "cluster",
)
#: Candidates this many positions apart or closer count as one cluster (evidence clusters).
CLUSTER_SPAN = 3
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Unit:
    """What the catalog says about one candidate (all optional: a note has no speaker)."""

    speaker: str | None = None
    chars: int = 0
    previous: str | None = None  # the turn before it in its conversation
    next: str | None = None
    text: str = ""  # without the speaker's name
    place: tuple[str, int] | None = None  # (conversation, position) when it has one


_SPEAKER = re.compile(r"^([^\W\d][\w .'-]{0,38}): ")


def unit_of(
    content: str,
    role: str,
    previous: str | None = None,
    next_id: str | None = None,
    place: tuple[str, int] | None = None,
) -> Unit:
    """A candidate's unit. A dialogue turn's speaker is the name a transcript writes before
    the text (``"Caroline: ..."``), else its role, and its length leaves that name out;
    other fragments (notes, documents: "Title: subtitle" is no speaker) have none."""
    if role not in DIALOGUE_ROLES:
        return Unit(None, len(content), previous, next_id, content, place)
    match = _SPEAKER.match(content)
    speaker = match.group(1) if match else role
    text = content[match.end() :] if match else content
    return Unit(speaker, len(text), previous, next_id, text, place)


def _first_name(speaker: str | None) -> str:
    return (speaker or "").lower().split(" ")[0]


def _inverse(rank: int | None) -> float:
    return 0.0 if rank is None else 1.0 / rank


def _clusters(
    pool: Sequence[FusedHit], units: Mapping[str, Unit], top_fused: float
) -> dict[str, float]:
    """For each candidate with a place: the fused scores (relative to the best) of the other
    candidates within :data:`CLUSTER_SPAN` turns of it in its conversation (a sliding window
    over the candidates sorted by position, so a pool of 50 costs no 50 x 50 pairs)."""
    by_conversation: dict[str, list[tuple[int, float, str]]] = {}
    for h in pool:
        place = units[h.id].place if h.id in units else None
        if place is not None:
            by_conversation.setdefault(place[0], []).append((place[1], h.score / top_fused, h.id))
    out: dict[str, float] = {}
    for members in by_conversation.values():
        members.sort()
        totals = [0.0]
        for _, score, _ in members:
            totals.append(totals[-1] + score)
        positions = [at for at, _, _ in members]
        for at, score, fid in members:
            low = bisect_left(positions, at - CLUSTER_SPAN)
            high = bisect_right(positions, at + CLUSTER_SPAN)
            out[fid] = totals[high] - totals[low] - score
    return out


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
    asked = content_words(query, frozenset(speakers))
    kinds = kind_of(query)
    when, how_many = kinds[list(KINDS).index("when")], kinds[list(KINDS).index("how_many")]
    read = {h.id: read_turn(units[h.id].text if h.id in units else "") for h in pool}
    said = {fid: stems for fid, (stems, _) in read.items()}
    shared = {fid: overlap(asked, words) for fid, words in said.items()}
    best_shared = max(shared.values(), default=0.0)
    clusters = _clusters(pool, units, top_fused)
    rows = []
    for position, hit in enumerate(pool, start=1):
        keyword = hit.scores.get(KEYWORD)
        cosine = hit.scores.get(SEMANTIC)
        unit = units.get(hit.id, Unit())
        near = [by_id[n] for n in (unit.previous, unit.next) if n is not None and n in by_id]
        speaker = _first_name(unit.speaker)
        named = speaker in speakers and speaker in words
        others = bool((speakers - {speaker}) & words)
        context = said[hit.id].union(*(said[n.id] for n in near))
        cues = read[hit.id][1]
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
                shared[hit.id],
                overlap(asked, context),
                shared[hit.id] - best_shared,
                *cues,
                *kinds,
                when * cues[1],
                how_many * cues[2],
                clusters.get(hit.id, 0.0),
            ]
        )
    return rows
