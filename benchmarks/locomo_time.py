"""Lever 4 of issue 33: time phrases in LoCoMo questions, with the turns dated by their session.

Real exports carry when each message was sent; the benchmark's fragments did not, so a
phrase such as "in June" or "on 3 June, 2023" had nothing to filter. Here each turn is
dated by its session (``session_N_date_time``) and the questions holding a phrase are
searched again, replayed on deep candidates (every turn of the conversation each signal
scores) from the lever study's home:

- *off*: the question as written, no filter (section 4's setting);
- *filter*: what ``Memex.search`` does by default: the phrase leaves the words and
  becomes a ``since``/``until`` filter; if nothing is left, the question is searched as
  written (the facade's fallback). The phrase is read against today (what a user gets)
  or against the conversation's last session (the questions carry no date: they are
  asked, at the earliest, after the last session);
- *boost*: no filter; the fused pool is re-ranked by RRF of its own order and the order
  of each turn's distance in days from the phrase's period (turns before the period count
  ``before`` times their distance: what is said about an event comes after it), the weight
  chosen by leave-one-conversation-out.

Cached in ``.memex-bench/locomo-levers/time.json`` (delete it to search again).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta
from typing import Any

from benchmarks import locomo_fusion as lf
from benchmarks.locomo_candidates import ROOT, Study
from benchmarks.locomo_dated import Dated, load_dated
from benchmarks.metrics import mean
from memex_core.domain import KEYWORD, SEMANTIC, SignalHit
from memex_core.domain.relevance import select
from memex_core.query_time_phrases import TimePhrase, extract_time_phrase
from memex_rrf import ReciprocalRankFusion

PATH = ROOT / "time.json"
VERSION = 1
#: Deeper than any conversation (the largest dev conversation has 689 turns).
ALL = 1000
#: The day the "today" reading is anchored to (the measurement's date, fixed so a rerun
#: reads the same ranges).
TODAY = datetime(2026, 11, 28, 12)
#: Memex's default fusion (RRF w 0.4, k 10, depth 40).
DEFAULT = lf.Fusion()
BOOST_WEIGHTS = (0.25, 0.5, 1.0, 2.0)
BEFORE_FACTORS = (1.0, 3.0)

Hits = list[tuple[str, float]]
PerQuery = list[tuple[float, float]]


@dataclass(frozen=True)
class Deep:
    """One query's every scored turn of its conversation, per signal."""

    keyword: Hits
    semantic: Hits
    shares: dict[str, float]


@dataclass
class TimeStudy:
    study: Study
    dated: Dated
    days: dict[str, date]  # fragment id -> its session's day
    phrases: dict[str, dict[int, TimePhrase]]  # reading ("today", "last session") -> q -> phrase
    deep: dict[str, Deep]  # query text -> its deep candidates


def readings(study: Study, dated: Dated) -> dict[str, dict[int, TimePhrase]]:
    held = {(t.conversation, t.session) for t in study.turns.values()}
    out: dict[str, dict[int, TimePhrase]] = {"today": {}, "last session": {}}
    for i, q in enumerate(study.questions):
        for name, now in (("today", TODAY), ("last session", dated.anchor(q.conversation, held))):
            phrase = extract_time_phrase(q.question, now=now)
            if phrase is not None and phrase.query.strip():
                out[name][i] = phrase
    return out


def _collect(queries: dict[str, str]) -> dict[str, Any]:
    """Deep candidates of each query (text -> its conversation), from the study's home."""
    from benchmarks.context import RunContext, Sizes, log
    from benchmarks.locomo_candidates import build_home
    from memex_core.api import make_filters

    ctx = RunContext(tmp=ROOT, sizes=Sizes(), quick=False)
    mx = build_home(ctx, [])  # built by the lever study already
    try:
        service = mx._reader.search_service("hybrid")
        store: Any = service.keyword_store
        out = {}
        for n, (text, conversation) in enumerate(sorted(queries.items())):
            filters = make_filters(conversation=conversation)
            keyword = service.keyword_hits(text, ALL, filters)
            semantic = service.semantic_hits(text, ALL, filters, None, None)
            out[text] = {
                "keyword": [(h.id, float(h.score)) for h in keyword],
                "semantic": [(h.id, float(h.score)) for h in semantic],
                "shares": store.query_share(text, [h.id for h in keyword]),
            }
            if n % 50 == 0:
                log(f"  time phrases: {n}/{len(queries)} queries")
    finally:
        mx.close()
    return out


def load_time(study: Study) -> TimeStudy:
    dated = load_dated()
    days = {fid: dated.day(t.conversation, t.session) for fid, t in study.turns.items()}
    phrases = readings(study, dated)
    wanted: dict[str, str] = {}
    for reading in phrases.values():
        for i, phrase in reading.items():
            q = study.questions[i]
            wanted[q.question] = wanted[phrase.query] = q.conversation
    cached = json.loads(PATH.read_text()) if PATH.exists() else {}
    if cached.get("version") != VERSION or set(wanted) - set(cached.get("queries", {})):
        cached = {"version": VERSION, "queries": _collect(wanted)}
        PATH.write_text(json.dumps(cached))
    deep = {
        text: Deep([tuple(h) for h in d["keyword"]], [tuple(h) for h in d["semantic"]], d["shares"])
        for text, d in cached["queries"].items()
    }
    return TimeStudy(study, dated, days, phrases, deep)


def pool(
    deep: Deep, floor: float | None, keep: set[str] | None = None, fusion: lf.Fusion = DEFAULT
) -> list[str]:
    """Memex's hybrid pool (RRF, floor) over ``deep``, only the turns in ``keep``."""

    def cut(hits: Hits) -> list[SignalHit]:
        kept = [SignalHit(i, s) for i, s in hits if keep is None or i in keep]
        return kept[: fusion.depth]

    signals = {KEYWORD: cut(deep.keyword), SEMANTIC: cut(deep.semantic)}
    weights = {KEYWORD: 1 - fusion.weight, SEMANTIC: fusion.weight}
    fused = ReciprocalRankFusion(fusion.rrf_k).fuse(signals, weights, fusion.depth * 2)
    labels = select([(deep.shares.get(h.id), h.scores.get(SEMANTIC)) for h in fused], floor)
    return [h.id for h, label in zip(fused, labels, strict=True) if label is not None]


def in_period(phrase: TimePhrase, day: date) -> bool:
    moment = datetime(day.year, day.month, day.day, 12).timestamp()
    return (phrase.since is None or moment >= phrase.since) and (
        phrase.until is None or moment < phrase.until
    )


def distance(phrase: TimePhrase, day: date, before: float) -> float:
    """Days from ``day`` to the phrase's period (0 inside); days before it count ``before``x."""
    first = phrase.first_day or (
        datetime.fromtimestamp(phrase.since).date() if phrase.since is not None else None
    )
    last = phrase.last_day or (
        datetime.fromtimestamp(phrase.until).date() - timedelta(days=1)
        if phrase.until is not None
        else None
    )
    if first is not None and day < first:
        return (first - day).days * before
    if last is not None and day > last:
        return float((day - last).days)
    return 0.0


def boosted(
    ranked: Sequence[str], days: Sequence[float], weight: float, k: float = 10.0
) -> list[str]:
    """``ranked`` re-ordered by RRF of its own order and the order of ``days`` (ties share
    the better rank)."""
    order = {fid: sum(1 for d in days if d < day) for fid, day in zip(ranked, days, strict=True)}
    score = {fid: 1 / (k + n + 1) + weight / (k + order[fid] + 1) for n, fid in enumerate(ranked)}
    return sorted(ranked, key=lambda fid: -score[fid])


def with_keyword(ts: TimeStudy, hits: list[Hits], shares: list[dict[str, float]]) -> TimeStudy:
    """``ts`` with another keyword index: ``hits``/``shares`` hold the study's questions
    first, then each deep query in ``ts.deep``'s order (see ``locomo_units.keyword_hits``)."""
    n = len(ts.study.questions)
    questions = [
        replace(q, keyword=hits[i], shares=shares[i]) for i, q in enumerate(ts.study.questions)
    ]
    study = replace(ts.study, questions=questions)
    deep = {
        text: Deep(hits[n + j], d.semantic, shares[n + j])
        for j, (text, d) in enumerate(ts.deep.items())
    }
    return replace(ts, study=study, deep=deep)


def deep_queries(ts: TimeStudy) -> dict[str, str]:
    """Each deep query's conversation, in ``ts.deep``'s order."""
    where = {q.question: q.conversation for q in ts.study.questions}
    for reading in ts.phrases.values():
        for i, phrase in reading.items():
            where[phrase.query] = ts.study.questions[i].conversation
    return {text: where[text] for text in ts.deep}


class Replay:
    def __init__(self, ts: TimeStudy) -> None:
        self.ts = ts
        self.base = lf.score_all(ts.study, lambda q: lf.hybrid(q, lf.Fusion(), ts.study.floor))

    def _score(self, rank: dict[int, list[str]]) -> PerQuery:
        study = self.ts.study
        return [
            lf.recalls(study, q, rank[i][:10]) if i in rank else self.base[i]
            for i, q in enumerate(study.questions)
        ]

    def off(self) -> PerQuery:
        ts, floor = self.ts, self.ts.study.floor
        asked = set(ts.phrases["today"]) | set(ts.phrases["last session"])
        return self._score({i: pool(ts.deep[ts.study.questions[i].question], floor) for i in asked})

    def filtered(self, reading: str) -> tuple[PerQuery, int]:
        """The default filter (and its fallback); also how many questions fell back."""
        ts, floor, fell_back = self.ts, self.ts.study.floor, 0
        rank = {}
        for i, phrase in ts.phrases[reading].items():
            q = ts.study.questions[i]
            conv_turns = {
                fid for fid, t in ts.study.turns.items() if t.conversation == q.conversation
            }
            keep = {fid for fid in conv_turns if in_period(phrase, ts.days[fid])}
            found = pool(ts.deep[phrase.query], floor, keep) if keep else []
            if not found:
                fell_back += 1
                found = pool(ts.deep[q.question], floor)
            rank[i] = found
        return self._score(rank), fell_back

    def boost(self, reading: str, weight: float, before: float, stripped: bool) -> PerQuery:
        ts, floor = self.ts, self.ts.study.floor
        rank = {}
        for i, phrase in ts.phrases[reading].items():
            q = ts.study.questions[i]
            ranked = pool(ts.deep[phrase.query if stripped else q.question], floor)
            days = [distance(phrase, ts.days[fid], before) for fid in ranked]
            rank[i] = boosted(ranked, days, weight)
        return self._score(rank)

    def boost_grid(self, reading: str, stripped: bool) -> dict[tuple[float, float], PerQuery]:
        return {
            (w, b): self.boost(reading, w, b, stripped)
            for w, b in itertools.product(BOOST_WEIGHTS, BEFORE_FACTORS)
        }


def public_api(ts: TimeStudy) -> tuple[PerQuery, PerQuery]:
    """The questions holding a phrase (read against today), searched through
    ``Memex.search`` in a home whose turns carry their session's date: (time phrases on,
    the default; off), each question scored as in the study (other questions: zeros)."""
    from benchmarks.context import RunContext, Sizes, StderrProgress, log
    from benchmarks.data import load_locomo
    from benchmarks.fragments import locomo_fragments

    study = ts.study
    ctx = RunContext(tmp=ROOT, sizes=Sizes(), quick=False)
    home = ROOT / "home-dated"
    if not (home / ".built").exists():
        data = load_locomo()
        fragments = [
            replace(f, timestamp=ts.dated.sessions[(t.conversation_id, t.session)].timestamp())
            for t, f in zip(data.turns, locomo_fragments(data), strict=True)
        ]
        mx = ctx.memex(ctx.home("home-dated"))
        log(f"LoCoMo time phrases: adding {len(fragments):,} dated turns (cached vectors)")
        mx.add_fragments(fragments, origin="bench:locomo-dev", progress=StderrProgress())
        mx.close()
        (home / ".built").write_text("ok\n")
    mx = ctx.memex(home)
    on: PerQuery = [(0.0, 0.0)] * len(study.questions)
    off = list(on)
    try:
        for i in ts.phrases["today"]:
            q = study.questions[i]
            for out, phrases in ((on, True), (off, False)):
                found = mx.search(
                    q.question, limit=10, conversation=q.conversation, time_phrases=phrases
                )
                out[i] = lf.recalls(study, q, [r.fragment.id for r in found])
    finally:
        mx.close()
    return on, off


def subset_recall(per_query: PerQuery, members: Sequence[int]) -> float:
    return mean([per_query[i][0] for i in members]) if members else 0.0


__all__ = [
    "Replay",
    "TimeStudy",
    "boosted",
    "deep_queries",
    "distance",
    "load_time",
    "pool",
    "public_api",
    "with_keyword",
]
