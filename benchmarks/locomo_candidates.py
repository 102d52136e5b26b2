"""The LoCoMo dev home built once, and each question's candidates cached on disk.

The lever study (:mod:`benchmarks.locomo_levers`) re-ranks these candidates in memory
instead of rebuilding a home per configuration: each signal's top
:data:`DEPTH` hits (keyword on the question as asked and on the question with its
question words dropped; semantic by cosine), the keyword store's query shares (the
relevance floor reads them) and the floor itself. What a question's fragments are
(conversation, turn position, speaker, evidence id) comes from the data, not the home.

Files under ``<repo>/.memex-bench/locomo-levers/`` (gitignored): the home, and
``candidates.json``; delete the folder to rebuild (the vector cache keeps the embeddings).
"""

from __future__ import annotations

import json
import math
import re
import shutil
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from benchmarks.data import REPO_ROOT, LocomoSet, load_locomo
from benchmarks.fragments import locomo_fragments
from memex_bm25.stopwords import ENGLISH
from memex_core.domain import Fragment, SignalHit
from memex_rerank.query import keyword_query

if TYPE_CHECKING:  # the home is built once: re-ranking cached candidates needs no Memex
    from benchmarks.context import RunContext
    from memex_core.api import Memex

ROOT = REPO_ROOT / ".memex-bench" / "locomo-levers"
#: Hits kept per signal and question: the rerank's pool and the deepest fusion studied.
DEPTH = 100
_WORD = re.compile(r"\w+")
#: Bump when what candidates.json holds changes.
VERSION = 3
#: Pseudo-relevance feedback (lever 5): terms taken from the first keyword hits.
PRF_DOCS, PRF_TERMS = 3, 5


@dataclass
class Turn:
    """What the data says about one fragment."""

    id: str
    dia_id: str
    conversation: str
    position: int  # index of the turn within its conversation
    speaker: str
    text: str
    session: int


@dataclass
class Candidates:
    """One question's cached signals."""

    question: str
    conversation: str
    category: int
    evidence: list[str]
    keyword: list[tuple[str, float]]  # the question as asked
    keyword_plain: list[tuple[str, float]]  # question words dropped (memex_rerank.query)
    semantic: list[tuple[str, float]]
    shares: dict[str, float] = field(default_factory=dict)  # of the asked question
    shares_plain: dict[str, float] = field(default_factory=dict)
    keyword_prf: list[tuple[str, float]] = field(default_factory=list)  # expanded (lever 5)
    shares_prf: dict[str, float] = field(default_factory=dict)  # of the asked question


@dataclass
class Study:
    turns: dict[str, Turn]
    by_position: dict[tuple[str, int], str]  # (conversation, position) -> fragment id
    questions: list[Candidates]
    floor: float | None

    def neighbour(self, fragment_id: str, step: int) -> str | None:
        turn = self.turns[fragment_id]
        return self.by_position.get((turn.conversation, turn.position + step))


def _turns(data: LocomoSet, fragments: list[Fragment]) -> dict[str, Turn]:
    positions: dict[str, int] = {}
    out = {}
    for turn, fragment in zip(data.turns, fragments, strict=True):
        position = positions.get(turn.conversation_id, 0)
        positions[turn.conversation_id] = position + 1
        out[fragment.id] = Turn(
            fragment.id,
            turn.dia_id,
            turn.conversation_id,
            position,
            turn.speaker,
            turn.text,
            turn.session,
        )
    return out


def expanded(question: str, top: list[str], turns: dict[str, Turn], df: Counter[str]) -> str:
    """RM3-like feedback: the question and the :data:`PRF_TERMS` words that weigh most in
    its first keyword hits (tf x idf, the n-th hit's words weighing 1/n), speakers left out."""
    speakers = {t.speaker.lower() for t in turns.values()}
    score: dict[str, float] = defaultdict(float)
    for rank, fid in enumerate(top):
        words = [
            w
            for w in _WORD.findall(turns[fid].text.lower())
            if w not in ENGLISH and len(w) > 2 and w not in speakers
        ]
        for word, count in Counter(words).items():
            score[word] += count / len(words) * math.log(len(turns) / df[word]) / (rank + 1)
    asked = set(_WORD.findall(question.lower()))
    ranked = sorted(score, key=lambda w: (-score[w], w))
    extra = [w for w in ranked if w not in asked][:PRF_TERMS]
    return " ".join([question, *extra])


def _hits(hits: list[SignalHit]) -> list[tuple[str, float]]:
    return [(h.id, float(h.score)) for h in hits]


def build_home(
    ctx: RunContext,
    fragments: list[Fragment],
    origin: str = "bench:locomo-dev",
    what: str = "LoCoMo levers: adding {count:,} turns",
) -> Memex:
    """The home in ``ctx.tmp / "home"``, ``fragments`` added the first time (``origin``;
    ``what`` is logged); delete the folder to rebuild it."""
    from benchmarks.context import StderrProgress, log

    home = ctx.tmp / "home"
    done = home / ".built"
    if not done.exists():
        shutil.rmtree(home, ignore_errors=True)
        home = ctx.home("home")
        mx = ctx.memex(home)
        log(what.format(count=len(fragments)) + " (vectors from the cache)")
        mx.add_fragments(fragments, origin=origin, progress=StderrProgress())
        mx.close()
        done.write_text("ok\n")
    return ctx.memex(home)


def collect(mx: Memex, data: LocomoSet, turns: dict[str, Turn]) -> dict[str, Any]:
    from benchmarks.context import log
    from memex_core.api import make_filters

    reader = mx._reader  # the signals one by one, before fusion: what the study re-ranks
    service = reader.search_service("hybrid")
    keyword_store: Any = service.keyword_store  # bm25's, which has query_share
    floor = mx.relevance_floor()
    out: list[dict[str, Any]] = []
    df: Counter[str] = Counter()
    for turn in turns.values():
        df.update(set(_WORD.findall(turn.text.lower())))
    for number, q in enumerate(data.questions):
        filters = make_filters(conversation=q.conversation_id)
        plain = keyword_query(q.question)
        keyword = service.keyword_hits(q.question, DEPTH, filters)
        keyword_plain = service.keyword_hits(plain, DEPTH, filters) if plain else []
        semantic = service.semantic_hits(q.question, DEPTH, filters, None, None)
        shares = keyword_store.query_share(q.question, [h.id for h in keyword])
        shares_plain = (
            keyword_store.query_share(plain, [h.id for h in keyword_plain]) if plain else {}
        )
        prf = service.keyword_hits(
            expanded(q.question, [h.id for h in keyword[:PRF_DOCS]], turns, df), DEPTH, filters
        )
        out.append(
            {
                "keyword_prf": _hits(prf),
                "shares_prf": keyword_store.query_share(q.question, [h.id for h in prf]),
                "question": q.question,
                "conversation": q.conversation_id,
                "category": q.category,
                "evidence": list(q.evidence),
                "keyword": _hits(keyword),
                "keyword_plain": _hits(keyword_plain),
                "semantic": _hits(semantic),
                "shares": shares,
                "shares_plain": shares_plain,
            }
        )
        if number % 200 == 0:
            log(f"  candidates: {number}/{len(data.questions)}")
    return {"version": VERSION, "floor": floor, "questions": out}


def load(rebuild: bool = False) -> Study:
    """The study's data: built (home, candidates) on the first call, read after."""
    data = load_locomo()
    fragments = list(locomo_fragments(data))
    turns = _turns(data, fragments)
    path = ROOT / "candidates.json"
    cached = json.loads(path.read_text()) if path.exists() and not rebuild else None
    if cached is None or cached.get("version") != VERSION:
        from benchmarks.context import RunContext, Sizes

        ROOT.mkdir(parents=True, exist_ok=True)
        ctx = RunContext(tmp=ROOT, sizes=Sizes(), quick=False)
        mx = build_home(ctx, fragments)
        try:
            cached = collect(mx, data, turns)
        finally:
            mx.close()
        path.write_text(json.dumps(cached))
    questions = [
        Candidates(
            q["question"],
            q["conversation"],
            q["category"],
            q["evidence"],
            [tuple(h) for h in q["keyword"]],
            [tuple(h) for h in q["keyword_plain"]],
            [tuple(h) for h in q["semantic"]],
            q["shares"],
            q["shares_plain"],
            [tuple(h) for h in q["keyword_prf"]],
            q["shares_prf"],
        )
        for q in cached["questions"]
    ]
    by_position = {(t.conversation, t.position): t.id for t in turns.values()}
    return Study(turns, by_position, questions, cached["floor"])
