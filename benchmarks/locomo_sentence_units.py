"""Benchmark 4e (issue 33): sentences as units of the semantic signal on LoCoMo.

Each turn's embedded text (``speaker: text``, what memex's vector index holds) is split
into sentences (:func:`sentences`: a break after ``.``, ``!`` or ``?`` and whitespace;
fragments under :data:`MIN_WORDS` words go into a neighbour; every sentence keeps the
speaker prefix), and each sentence is embedded with the bench's MiniLM embedder (a turn
of one sentence is its own sentence: the same text, the same vector). A turn is then
scored for a question (:func:`scored`) by its own cosine (the baseline), by (a) the best
cosine among its sentences, (b) the better of its own cosine and that sentence max, or
(c) their mean.

Semantic candidates are exact cosines within the question's conversation over the bench
cache's vectors (the turn's own cosine is memex's vector index: section 4c's baseline);
the keyword signal keeps section 4b's cached hits. The floor (cosine 0.417) is read on the
variant's score or on the turn's own cosine (the fusion reads ranks only, so the ranking
is the variant's either way), or left off as a check. Nothing is chosen: the semantic and
hybrid rows fit nothing, and the kept rerank (section 4b: logistic regression on the
fused pool of 50) is refitted per fold, on four conversations and scored on the fifth,
with and without the sentence max as one extra feature. The embedding cost is the bare
embedder's time (batches of 256, as the cache fill and ingest's backfill; alternating,
best of two) on every turn, on the sentences of the turns split in two or more and on
the turns of one sentence; a configuration costs the vectors it reads (the turns', the
sentences' or both), against today's turn vectors alone.

``python -m benchmarks.locomo_sentence_units`` prints the section.
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from benchmarks import locomo_fusion as lf
from benchmarks import locomo_rerank as lr
from benchmarks import locomo_units as lu
from benchmarks import query_adapter as qa
from benchmarks.context import RunContext, log
from benchmarks.locomo import CATEGORIES
from benchmarks.locomo_candidates import DEPTH, Candidates, Study, load
from benchmarks.metrics import mean, recall_at_k
from benchmarks.report import Section, table
from benchmarks.vector_cache import EMBED_BATCH
from memex_core.domain import KEYWORD, SEMANTIC, FusedHit
from memex_core.domain.relevance import select
from memex_rrf import ReciprocalRankFusion

TITLE = "4e. LoCoMo: sentence units for the semantic signal"
#: A fragment shorter than this many words is merged into a neighbour.
MIN_WORDS = 3
#: The issue's bar: held-out recall@10 gain on hybrid + rerank (recall@5 not lower), and
#: ingest at no less than this share of today's rate.
BAR, RATE_BOUND = 0.01, 0.9
#: Candidates the kept rerank reads (memex_rerank's DEFAULT_DEPTH).
POOL = 50
#: The turn's score: its own cosine, (a), (b), (c).
KINDS = ("turn", "a", "b", "c")
LABELS = {
    "turn": "turn vector (baseline)",
    "a": "(a) sentence max",
    "b": "(b) max(turn, sentence max)",
    "c": "(c) mean(turn, sentence max)",
}
#: What the floor reads: the variant's score, the turn's own cosine, or nothing (off).
FLOORS = {
    "variant": "floor on its own score",
    "turn": "floor on the turn's cosine",
    "off": "floor off",
}
#: Rerank configurations judged against the bar: (kind, floor, sentence-max feature).
Config = tuple[str, str, bool]
BASE: Config = ("turn", "variant", False)
QUERIES = qa.CACHE / "locomo_questions.npy"

PerQuery = list[tuple[float, float]]
Hits = list[tuple[str, float]]

_SPLIT = re.compile(r"(?<=[.!?])\s+")
_PREFIX = re.compile(r"^([^:\n]{1,40}): ")


def sentences(text: str) -> list[str]:
    """``text`` (``speaker: words``) split into sentences, each keeping the speaker prefix;
    a fragment under :data:`MIN_WORDS` words goes into the next one (a short last one into
    the one before it)."""
    m = _PREFIX.match(text)
    prefix, body = (m.group(0), text[m.end() :]) if m else ("", text)
    pieces = [p.strip() for p in _SPLIT.split(body.strip()) if p.strip()]
    if not pieces:
        return [text]
    merged: list[str] = []
    carry = ""
    for piece in pieces:
        piece = f"{carry} {piece}".strip() if carry else piece
        if len(piece.split()) < MIN_WORDS:
            carry = piece
        else:
            merged.append(piece)
            carry = ""
    if carry:
        if merged:
            merged[-1] = f"{merged[-1]} {carry}"
        else:
            merged.append(carry)
    return [prefix + s for s in merged]


def sentence_max(cosines: np.ndarray, offsets: Sequence[int]) -> np.ndarray:
    """Per turn, the best of its sentences' ``cosines`` (its sentences are the rows from its
    offset to the next turn's; every turn has at least one)."""
    return np.maximum.reduceat(cosines, np.asarray(offsets, dtype=int))


def scored(kind: str, turn: np.ndarray, best: np.ndarray) -> np.ndarray:
    """A turn's semantic score of ``kind`` from its own cosine and its sentence max."""
    if kind == "turn":
        return turn
    if kind == "a":
        return best
    if kind == "b":
        return np.maximum(turn, best)
    if kind == "c":
        return (turn + best) / 2
    raise ValueError(f"unknown kind {kind!r}")


def top(ids: Sequence[str], scores: np.ndarray, depth: int = DEPTH) -> Hits:
    order = np.argsort(-scores, kind="stable")[:depth]
    return [(ids[j], float(scores[j])) for j in order]


def fused_pool(
    q: Candidates, floor: float | None, cosine: dict[str, float] | None = None
) -> list[FusedHit]:
    """:func:`benchmarks.locomo_fusion.fused_pool` (default fusion) with the floor reading
    ``cosine`` (each turn's own cosine) instead of the score its semantic hit carries."""
    fusion = lf.Fusion()
    weights = {KEYWORD: 1 - fusion.weight, SEMANTIC: fusion.weight}
    fused = ReciprocalRankFusion(fusion.rrf_k).fuse(
        lf.signals(q, fusion), weights, fusion.depth * 2
    )

    def similarity(h: FusedHit) -> float | None:
        s = h.scores.get(SEMANTIC)
        return s if s is None or cosine is None else cosine[h.id]

    labels = select([(q.shares.get(h.id), similarity(h)) for h in fused], floor)
    return [h for h, label in zip(fused, labels, strict=True) if label is not None]


@dataclass
class Block:
    """One conversation's turns: their ids, vectors, sentence vectors and where each turn's
    sentences start."""

    ids: list[str]
    turns: np.ndarray
    sentences: np.ndarray
    offsets: list[int]


class Data:
    """The study's turns and their sentences as unit vectors, and per question each turn's
    own cosine and sentence max."""

    def __init__(self, study: Study, vectors: lu.Vectors) -> None:
        self.study = study
        ids = list(study.turns)
        texts = [lu.own_text(study, f) for f in ids]
        self.split = [sentences(t) for t in texts]
        self.texts = texts
        flat = [s for pieces in self.split for s in pieces]
        turn_vectors = qa.unit(vectors.of(texts))
        sentence_vectors = qa.unit(vectors.of(flat))
        self.embedded, self.embed_seconds = vectors.embedded, vectors.seconds
        self.queries = qa.unit(qa.cached_queries(QUERIES, [q.question for q in study.questions]))
        starts = np.cumsum([0] + [len(pieces) for pieces in self.split])
        self.blocks: dict[str, Block] = {}
        for c in lf.conversations(study):
            rows = [n for n, f in enumerate(ids) if study.turns[f].conversation == c]
            sentence_rows = [s for n in rows for s in range(starts[n], starts[n + 1])]
            offsets = np.cumsum([0] + [len(self.split[n]) for n in rows[:-1]]).tolist()
            self.blocks[c] = Block(
                [ids[n] for n in rows], turn_vectors[rows], sentence_vectors[sentence_rows], offsets
            )

    def cosines(self, i: int) -> tuple[list[str], np.ndarray, np.ndarray]:
        """The question's conversation: turn ids, their own cosines, their sentence max."""
        block = self.blocks[self.study.questions[i].conversation]
        q = self.queries[i]
        turn = (block.turns @ q).astype(float)
        best = sentence_max((block.sentences @ q).astype(float), block.offsets)
        return block.ids, turn, best


@dataclass
class Results:
    """Per-question recalls of every row, and what the pools hold."""

    semantic: dict[str, PerQuery]
    hybrid: dict[tuple[str, str], PerQuery]
    rerank: dict[Config, PerQuery]
    reach: dict[tuple[str, str], float]  # share of the evidence within the pool of 50
    kept: dict[tuple[str, str], float]  # mean candidates in the pool (at most 50)
    same_hits: float  # share of questions whose top ten is memex's cached semantic ten
    same_pools: float  # share of baseline pools identical to lf.fused_pool on cached hits


def pool_keys() -> list[tuple[str, str]]:
    keys = [("turn", "variant")] + [(k, f) for k in KINDS[1:] for f in ("variant", "turn")]
    return keys + [(k, "off") for k in KINDS]


def measure(data: Data) -> Results:
    from benchmarks.locomo_levers import units
    from memex_rerank.features import feature_rows

    study = data.study
    n = len(study.questions)
    hits: dict[str, list[Hits]] = {k: [] for k in KINDS}
    own: list[dict[str, float]] = []
    best: list[dict[str, float]] = []
    for i in range(n):
        ids, turn, smax = data.cosines(i)
        own.append(dict(zip(ids, turn.tolist(), strict=True)))
        best.append(dict(zip(ids, smax.tolist(), strict=True)))
        for k in KINDS:
            hits[k].append(top(ids, scored(k, turn, smax)))
    same_hits = mean(
        [
            [f for f, _ in q.semantic[:10]] == [f for f, _ in hits["turn"][i][:10]]
            for i, q in enumerate(study.questions)
        ]
    )
    semantic: dict[str, PerQuery] = {}
    for k in KINDS:
        per = []
        for i, q in enumerate(study.questions):
            dia = [study.turns[f].dia_id for f, _ in hits[k][i]]
            per.append((recall_at_k(dia, q.evidence, 10), recall_at_k(dia, q.evidence, 5)))
        semantic[k] = per
    log("sentence units: hybrid and the rerank, refitted per fold")
    table_ = units(study)
    out = Results(semantic, {}, {}, {}, {}, same_hits, 0.0)
    for k, floor_on in pool_keys():
        floor = None if floor_on == "off" else study.floor
        pools = [
            fused_pool(
                replace(q, semantic=hits[k][i]), floor, own[i] if floor_on == "turn" else None
            )
            for i, q in enumerate(study.questions)
        ]
        if (k, floor_on) == BASE[:2]:
            out.same_pools = mean(
                [
                    [h.id for h in pools[i]] == [h.id for h in lf.fused_pool(q, lf.Fusion(), floor)]
                    for i, q in enumerate(study.questions)
                ]
            )
        out.hybrid[(k, floor_on)] = [
            lf.recalls(study, q, [h.id for h in pools[i][:10]])
            for i, q in enumerate(study.questions)
        ]
        cut = [p[:POOL] for p in pools]
        out.reach[(k, floor_on)] = lr.pool_recall(study, cut)
        out.kept[(k, floor_on)] = mean([len(p) for p in cut])
        rows = [feature_rows(q.question, cut[i], table_) for i, q in enumerate(study.questions)]
        plain = lr.Pools(study, cut, rows)
        extra = with_feature(plain, [[best[i][h.id] for h in cut[i]] for i in range(n)])
        for feature, pools_ in ((False, plain), (True, extra)):
            out.rerank[(k, floor_on, feature)] = lr.held_out(pools_, [(lr.logistic, 0.0)])[0]
    return out


def with_feature(pools: lr.Pools, column: Sequence[Sequence[float]]) -> lr.Pools:
    """The same pools with one more feature per candidate (``column``: per question, one
    value per candidate in pool order)."""
    out = lr.Pools.__new__(lr.Pools)
    out.study, out.pools, out.y = pools.study, pools.pools, pools.y
    out.x = [
        np.hstack([x, np.asarray(c, dtype=float).reshape(len(x), 1)])
        for x, c in zip(pools.x, column, strict=True)
    ]
    return out


@dataclass
class Cost:
    """Bare embedder seconds, wall and the process's CPU (each the best of two), on every
    turn, on the sentences of the turns split in two or more, and on the turns of one
    sentence (their own sentence)."""

    turns: int
    split: int  # sentences of split turns
    single: int  # turns of one sentence
    wall: dict[str, float]
    cpu: dict[str, float]

    def needs(self, config: Config) -> tuple[bool, bool]:
        """(turn vectors, sentence vectors) a configuration reads."""
        kind, floor_on, feature = config
        return kind in ("turn", "b", "c") or floor_on == "turn", kind != "turn" or feature

    def vectors(self, config: Config) -> int:
        turn, sentence = self.needs(config)
        return (self.turns if turn else 0) + (
            self.split + (0 if turn else self.single) if sentence else 0
        )

    def time(self, config: Config, clock: str = "cpu") -> float:
        """Embedding time against today's (the turns alone), in CPU seconds (the embedder's
        work; the machine is shared) or ``clock="wall"`` seconds."""
        turn, sentence = self.needs(config)
        s = self.cpu if clock == "cpu" else self.wall
        total = (s["turns"] if turn else 0.0) + (
            s["split"] + (0.0 if turn else s["single"]) if sentence else 0.0
        )
        return total / s["turns"]

    def rate(self, kind: str) -> float:
        """Texts per wall second: ``kind`` "turns" or "sentences"."""
        texts = self.turns if kind == "turns" else self.split + self.single
        return texts / self.wall[kind]


def cost(data: Data, vectors: lu.Vectors) -> Cost:
    split = [s for pieces in data.split if len(pieces) > 1 for s in pieces]
    single = [t for t, pieces in zip(data.texts, data.split, strict=True) if len(pieces) == 1]
    kinds = {"turns": data.texts, "split": split, "single": single}
    embed: Callable[[list[str]], object] = vectors.embedder.embed_documents
    embed(data.texts[:64])  # the model loaded before anything is timed
    wall: dict[str, float] = {}
    cpu: dict[str, float] = {}
    for _ in range(2):
        for kind, texts in kinds.items():
            started, used = time.perf_counter(), time.process_time()
            for start in range(0, len(texts), EMBED_BATCH):
                embed(texts[start : start + EMBED_BATCH])
            wall[kind] = min(wall.get(kind, float("inf")), time.perf_counter() - started)
            cpu[kind] = min(cpu.get(kind, float("inf")), time.process_time() - used)
    for best in (wall, cpu):
        best["sentences"] = best["split"] + best["single"]
    return Cost(len(data.texts), len(split), len(single), wall, cpu)


def describe(config: Config) -> str:
    kind, floor_on, feature = config
    floor = "" if kind == "turn" and floor_on == "variant" else f", {FLOORS[floor_on]}"
    return LABELS[kind] + floor + (" + sentence-max feature" if feature else "")


def _pair(figures: tuple[float, float]) -> list[str]:
    return [f"{figures[0]:.3f}", f"{figures[1]:.3f}"]


def row(study: Study, label: str, per_query: PerQuery) -> list[object]:
    folds = lf.fixed(study, per_query)
    convs = lf.conversations(study)
    return [label, *_pair(lf.micro(per_query)), *(f"{folds.at10[c]:.3f}" for c in convs)]


def candidates() -> list[Config]:
    """The configurations judged against the bar (the floor on, as memex ships it)."""
    out: list[Config] = [("turn", "variant", True)]
    return out + [(k, f, x) for k in KINDS[1:] for f in ("variant", "turn") for x in (False, True)]


def shown(x: float) -> float:
    return round(x, 3)


def passes(results: Results, config: Config) -> bool:
    at10, at5 = lf.micro(results.rerank[config])
    base10, base5 = lf.micro(results.rerank[BASE])
    return shown(at10) - shown(base10) >= BAR - 1e-9 and shown(at5) >= shown(base5)


def best_config(results: Results) -> Config:
    return max(candidates(), key=lambda c: lf.micro(results.rerank[c])[0])


def verdict(results: Results, cost_: Cost) -> str:
    base10, base5 = lf.micro(results.rerank[BASE])
    over = [c for c in candidates() if passes(results, c)]
    cheap = [c for c in over if 1 / cost_.time(c) >= RATE_BOUND]

    def figures(c: Config) -> str:
        at10, at5 = lf.micro(results.rerank[c])
        return f"{describe(c)} {at10:.3f} ({at10 - base10:+.3f}), recall@5 {at5:.3f}"

    if over:
        bar = (
            f"over the bar (+{BAR:.2f} recall@10 held out, recall@5 not lower): "
            + "; ".join(figures(c) for c in over)
            + f"; the other {len(candidates()) - len(over)} configurations with the floor on "
            "(the table's, each with and without the sentence-max feature) stay under it."
        )
    else:
        bar = (
            f"no configuration with the floor on clears the bar (+{BAR:.2f} recall@10 held "
            f"out, recall@5 not lower); the best is {figures(best_config(results))}."
        )
    variants = [c for c in candidates() if c[0] != "turn" and not c[2]]
    kind, floor_on, _ = max(variants, key=lambda c: lf.micro(results.rerank[c])[0])
    on = lf.micro(results.rerank[(kind, floor_on, False)])[0]
    off = lf.micro(results.rerank[(kind, "off", False)])[0]
    off_base = lf.micro(results.rerank[("turn", "off", False)])[0]
    gain_on, gain_off = on - base10, off - off_base
    if gain_on <= 0:
        share = "there is no gain to share out"
    elif gain_off >= gain_on:
        share = "all of that gain holds without any floor"
    else:
        share = f"{max(gain_off, 0.0) / gain_on:.0%} of that gain holds without any floor"
    floor_text = (
        f"The floor's part, for the best variant without the extra feature, {LABELS[kind]} "
        f"({FLOORS[floor_on]}, {on:.3f}, {gain_on:+.3f}): with the floor off for both "
        f"rankings it gives {off:.3f} against the turn vector's {off_base:.3f} "
        f"({gain_off:+.3f}), so {share}; the turn vector alone moves "
        f"{off_base - base10:+.3f} with the floor off (candidates kept of {POOL}, on "
        f"average: baseline {results.kept[BASE[:2]]:.1f}, the variant "
        f"{results.kept[(kind, floor_on)]:.1f}, the variant with the floor off "
        f"{results.kept[(kind, 'off')]:.1f})."
    )
    a_only: Config = ("a", "variant", False)
    both: Config = ("c", "variant", False)

    def within(clock: str) -> str:
        names = [
            name
            for name, c in (("(a)", a_only), ("(b)/(c)", both))
            if 1 / cost_.time(c, clock) >= RATE_BOUND
        ]
        return " and ".join(names) + " within it" if names else "neither is within it"

    ta, tb = cost_.time(a_only), cost_.time(both)
    wa, wb = cost_.time(a_only, "wall"), cost_.time(both, "wall")
    agree = within("cpu") == within("wall")
    cost_text = (
        "The cost (embedding dominates ingest): (a) with the floor on its own score reads "
        f"only the sentence vectors ({cost_.vectors(a_only):,}, "
        f"{cost_.vectors(a_only) / cost_.turns:.2f}x the turns' vectors; a turn of one "
        f"sentence is its own sentence), {ta:.2f}x the turns' embedding time (CPU; wall "
        f"{wa:.2f}x), so ingest at about {1 / ta:.2f}x of today's rate; (b), (c), a floor "
        "on the turn's cosine and the sentence-max feature read the turn vectors and the "
        f"sentence vectors ({cost_.vectors(both):,}, "
        f"{cost_.vectors(both) / cost_.turns:.2f}x), {tb:.2f}x the embedding time (wall "
        f"{wb:.2f}x), ingest at about {1 / tb:.2f}x. The bound is {RATE_BOUND:g}x of "
        f"today's rate: {within('cpu')}"
        + ("." if agree else f" (on wall seconds, {within('wall')}).")
    )
    if cheap:
        head = "Verdict: it pays."
        end = "Passing both: " + "; ".join(describe(c) for c in cheap) + "."
    else:
        head = "Verdict: not shipped."
        why = (
            "every configuration over the recall bar fails the cost bound"
            if over
            else "none clears the recall bar"
        )
        end = f"No variant passes both ({why}), so nothing ships: no sentence vectors, no setting."
    return " ".join(
        [
            head,
            f"Against the turn vector's hybrid + the kept rerank ({base10:.3f}, recall@5 "
            f"{base5:.3f}), {bar}",
            floor_text,
            cost_text,
            end,
        ]
    )


def run(ctx: RunContext | None = None) -> Section:
    section = Section("locomo_sentence_units", TITLE)
    study = load()
    log("sentence units: vectors (the bench cache, sentences added on first need)")
    vectors = lu.Vectors()
    data = Data(study, vectors)
    results = measure(data)
    log("sentence units: embedding cost")
    cost_ = cost(data, vectors)
    convs = lf.conversations(study)
    header = ["", "recall@10", "recall@5", *convs]
    rows = [
        row(study, f"semantic alone (exact cosine, floor off), {LABELS[k]}", results.semantic[k])
        for k in KINDS
    ]
    for k, floor_on in pool_keys():
        if floor_on != "off":
            label = f"hybrid, default fusion, {describe((k, floor_on, False))}"
            rows.append(row(study, label, results.hybrid[(k, floor_on)]))
    for k, floor_on in pool_keys():
        if floor_on != "off":
            label = (
                f"hybrid + the kept rerank (refitted per fold), {describe((k, floor_on, False))}"
            )
            rows.append(row(study, label, results.rerank[(k, floor_on, False)]))
    pool_rows = []
    for k, floor_on in pool_keys():
        pool_rows.append(
            [
                describe((k, floor_on, False)).replace(LABELS["turn"], "turn vector"),
                f"{results.kept[(k, floor_on)]:.1f}",
                f"{results.reach[(k, floor_on)]:.3f}",
                *_pair(lf.micro(results.hybrid[(k, floor_on)])),
                *_pair(lf.micro(results.rerank[(k, floor_on, False)])),
                *_pair(lf.micro(results.rerank[(k, floor_on, True)])),
            ]
        )
    top_ = best_config(results)
    base_cats = lr.by_category(study, results.rerank[BASE])
    top_cats = lr.by_category(study, results.rerank[top_])
    counts = {c: sum(q.category == c for q in study.questions) for c in base_cats}
    category_rows = [
        [CATEGORIES.get(c, str(c)), counts[c], f"{base_cats[c]:.3f}", f"{top_cats[c]:.3f}"]
        for c in base_cats
    ]
    n_split = sum(len(pieces) > 1 for pieces in data.split)
    section.add(
        "Sentences as units of the semantic signal (issue 33): each LoCoMo turn, as memex "
        "embeds it (`speaker: text`), split into sentences (a break after . ! or ? and "
        f"whitespace; a fragment under {MIN_WORDS} words goes into a neighbour; each "
        "sentence keeps the speaker prefix), each sentence embedded with MiniLM. A turn "
        "scores (a) the best cosine among its sentences, (b) the better of that and its "
        "own cosine, or (c) their mean. Semantic candidates are exact cosines within the "
        "question's conversation over the bench cache's vectors; the keyword signal keeps "
        "section 4b's cached hits; the fusion is the default one. The floor reads either "
        "the variant's own score or the turn's own cosine (the ranking is the variant's "
        f"either way). {len(study.turns):,} turns give "
        f"{sum(len(p) for p in data.split):,} sentences ({n_split:,} turns split in two or "
        f"more). The exact cosine of the turn vector reproduces memex's vector index: the "
        f"top ten equals the cached semantic hits for {results.same_hits:.1%} of the "
        f"questions, and its fused pools equal section 4b's replay for "
        f"{results.same_pools:.1%}.",
        f"{len(study.questions)} questions of the 5 development conversations (categories "
        "1-4), held out by conversation: the semantic and hybrid rows fit nothing; the kept "
        "rerank (logistic regression on the fused pool of 50, section 4b's features) is "
        "refitted per fold on the other four conversations. Columns four on: recall@10 of "
        "each conversation.",
        table(header, rows),
        f"The pool of {POOL} the rerank reads, and the rerank refitted per fold with and "
        "without the sentence max as one extra feature (the floor off is a check, not an "
        "option: the floor is memex's abstention, section 18):",
        table(
            [
                "semantic ranking, floor",
                f"mean kept (of {POOL})",
                f"evidence in the {POOL}",
                "hybrid @10",
                "hybrid @5",
                "+ rerank @10",
                "+ rerank @5",
                "+ rerank with sentence max @10",
                "@5",
            ],
            pool_rows,
        ),
        f"Held-out recall@10 by question category, hybrid + rerank: the turn vector and "
        f"the configuration with the best recall@10 above, {describe(top_)} (picked after "
        "the fact on these same questions: a report, not a held-out choice):",
        table(["category", "questions", "turn vector", describe(top_)], category_rows),
        f"Embedding cost, bare embedder, batches of {EMBED_BATCH}, alternating, best of two "
        "(same run). The machine is shared, so the ratios below are of the process's CPU "
        "seconds (the embedder's work), wall seconds beside them: "
        f"{cost_.turns:,} turns in {cost_.cpu['turns']:.1f} s CPU, {cost_.wall['turns']:.1f} s "
        f"wall ({cost_.rate('turns'):.0f} texts/s); their {cost_.split + cost_.single:,} "
        f"sentences in {cost_.cpu['sentences']:.1f} s CPU, {cost_.wall['sentences']:.1f} s "
        f"wall ({cost_.rate('sentences'):.0f} texts/s), "
        f"{cost_.cpu['sentences'] / cost_.cpu['turns']:.2f}x the turns' CPU time (wall "
        f"{cost_.wall['sentences'] / cost_.wall['turns']:.2f}x); of which the "
        f"{cost_.split:,} sentences of split turns took {cost_.cpu['split']:.1f} s CPU and "
        f"the {cost_.single:,} turns of one sentence {cost_.cpu['single']:.1f} s. "
        + (
            f"This run embedded the {data.embedded:,} texts the bench's vector cache lacked "
            f"({data.embed_seconds:.0f} s) and kept them there."
            if data.embedded
            else "Every vector came from the bench's vector cache (kept by an earlier run)."
        ),
        verdict(results, cost_),
    )
    return section


def main() -> int:
    section = run()
    print("\n\n".join(str(part) for part in section.body))
    return 0


if __name__ == "__main__":
    sys.exit(main())

__all__ = ["TITLE", "Data", "main", "run", "scored", "sentence_max", "sentences"]
