"""Benchmark 4f (issue 33): a token-level match of the question and each candidate turn
as one more feature of the kept rerank, on LoCoMo.

MiniLM's last layer gives every token of a text a vector; memex mean-pools them into the
text's one vector and drops the rest. Here the question's tokens are matched against each
candidate turn's tokens, late interaction as ColBERT scores it: each question token takes
its best cosine among the turn's tokens (:func:`max_sim`), and the turn's score is their
mean weighted by each question token's idf over the question's conversation (a home's own
word statistics: :func:`idf_weights`), or unweighted. The rerank (section 4b's logistic
regression on the fused pool of 50) gets that score and its rank within the pool as two
more features, and is refitted per fold: four conversations fit it, the fifth scores.

Stored per token at full size the states would cost 384 floats; a *sketch* keeps a
projection of each to a few dimensions in int8 (:class:`Sketcher`). The projections are
fitted on nothing of LoCoMo: principal directions of the token states of SciFact
abstracts, or a seeded random projection. The token states come from the same forward
pass that embeds a text (the numpy encoder's), so ingest would spend no second pass; what
a sketch adds is its bytes and the time to project and round it, measured below against
that pass. At query time the question's own token states need one forward pass of the
question (memex's query embedder pools them away today), timed here with the numpy
encoder, and the match itself over the pool; both are set beside the kept rerank's
feature rows for the same pools, timed in the same run.

The same two features are measured with section 4e's sentence units (every lever
together), and on SciFact's documents with section 3b's pools and features (fitted on the
train queries, scored on test).

``python -m benchmarks.locomo_token_match`` prints the section.
"""

from __future__ import annotations

import math
import sys
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from benchmarks import locomo_fusion as lf
from benchmarks import locomo_rerank as lr
from benchmarks import locomo_sentence_units as su
from benchmarks import locomo_units as lu
from benchmarks.context import RunContext, log
from benchmarks.locomo import CATEGORIES
from benchmarks.locomo_candidates import Study, load
from benchmarks.metrics import mean
from benchmarks.report import Section, table
from memex_core.domain import FusedHit

TITLE = "4f. LoCoMo and SciFact: a token-level match as a rerank feature"
#: Candidates the kept rerank reads (memex_rerank's DEFAULT_DEPTH).
POOL = su.POOL
#: The issue's bar: held-out recall@10 gain on hybrid + rerank, recall@5 not lower.
BAR = 0.01
#: The issue's goal: held-out recall@10 and recall@5.
GOAL = (0.83, 0.75)
#: SciFact abstracts whose token states fit the principal directions (the first N).
FIT_DOCS = 300
#: Texts per forward pass when collecting token states.
BATCH = 64
#: Mean characters of a passage of the 100,000-passage home (benchmarks 10-12).
PASSAGE_CHARS = 303

#: One token's states: wordpiece ids (special tokens dropped) and their unit vectors.
States = tuple[np.ndarray, np.ndarray]


def token_states(encoder: object, texts: Sequence[str]) -> list[States]:
    """Every text's wordpiece ids and last-layer token vectors (unit length), the special
    tokens ([CLS], [SEP]) dropped: the forward pass that embeds the texts, kept per token.
    Batches run one a core, each on single-threaded BLAS, as the numpy encoder runs them."""
    from concurrent.futures import ThreadPoolExecutor

    from memex_minilm.blas import available_cores, single_threaded_blas

    tokenizer = encoder.tokenizer  # type: ignore[attr-defined]

    def batch(start: int) -> list[States]:
        encoded = tokenizer.encode_batch(list(texts[start : start + BATCH]))
        ids = [np.asarray(e.ids, dtype=np.int64) for e in encoded]
        hidden = encoder._forward_stacked(np.concatenate(ids), [len(x) for x in ids])  # type: ignore[attr-defined]
        out: list[States] = []
        at = 0
        for e, seq in zip(encoded, ids, strict=True):
            keep = ~np.asarray(e.special_tokens_mask, dtype=bool)
            rows = hidden[at : at + len(seq)][keep]
            at += len(seq)
            out.append((seq[keep], unit_rows(rows)))
        return out

    starts = range(0, len(texts), BATCH)
    with single_threaded_blas():
        if len(starts) <= 1:
            return [s for start in starts for s in batch(start)]
        with ThreadPoolExecutor(max_workers=min(available_cores(), len(starts))) as pool:
            return [s for part in pool.map(batch, starts) for s in part]


def unit_rows(x: np.ndarray) -> np.ndarray:
    return (x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)).astype(np.float32)


def idf_table(documents: Iterable[np.ndarray]) -> dict[int, float]:
    """BM25's idf, log(1 + (n - df + 0.5) / (df + 0.5)), of every wordpiece id in
    ``documents`` (one id array per document); an id no document holds reads as df 0."""
    df: Counter[int] = Counter()
    n = 0
    for ids in documents:
        df.update(set(ids.tolist()))
        n += 1
    table_ = {t: math.log(1 + (n - c + 0.5) / (c + 0.5)) for t, c in df.items()}
    table_[-1] = math.log(1 + (n + 0.5) / 0.5)  # the idf of an unseen id
    return table_


def idf_weights(ids: np.ndarray, idf: dict[int, float] | None) -> np.ndarray:
    """Weights of a question's tokens summing to one: their idf, or equal without a table."""
    w = np.ones(len(ids)) if idf is None else np.array([idf.get(t, idf[-1]) for t in ids.tolist()])
    return w / w.sum() if w.sum() > 0 else np.full(len(ids), 1 / max(len(ids), 1))


def max_sim(question: np.ndarray, weights: np.ndarray, turn: np.ndarray) -> float:
    """Late interaction: each question token's best cosine among the turn's tokens, their
    weighted mean (rows are unit vectors; a turn with no tokens scores 0)."""
    if len(turn) == 0 or len(question) == 0:
        return 0.0
    return float((question @ turn.T).max(axis=1) @ weights)


@dataclass
class Sketcher:
    """Token vectors projected to ``projection``'s columns, made unit length again, and
    rounded to int8 (one byte a dimension); ``None`` keeps them whole (float32)."""

    label: str
    projection: np.ndarray | None

    def query(self, rows: np.ndarray) -> np.ndarray:
        return rows if self.projection is None else unit_rows(rows @ self.projection)

    def sketch(self, rows: np.ndarray) -> np.ndarray:
        if self.projection is None:
            return rows
        return np.clip(np.round(unit_rows(rows @ self.projection) * 127), -127, 127).astype(np.int8)

    def read(self, sketch: np.ndarray) -> np.ndarray:
        return sketch if self.projection is None else sketch.astype(np.float32) / 127

    def bytes_per_token(self, dimension: int) -> int:
        return dimension * 4 if self.projection is None else self.projection.shape[1]


def principal(rows: np.ndarray, k: int) -> np.ndarray:
    """The top ``k`` principal directions of ``rows`` (centred), as columns."""
    _, _, vt = np.linalg.svd(rows - rows.mean(axis=0), full_matrices=False)
    return np.ascontiguousarray(vt[:k].T.astype(np.float32))


def random_projection(dimension: int, k: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((dimension, k)) / math.sqrt(k)).astype(np.float32)


def rank_column(scores: Sequence[float]) -> list[float]:
    """1 / (1 + rank) of each score within its pool (rank 0 the best; ties by order)."""
    order = np.argsort(-np.asarray(scores, dtype=float), kind="stable")
    ranks = np.empty(len(order), dtype=int)
    ranks[order] = np.arange(len(order))
    return [1 / (1 + r) for r in ranks]


@dataclass(eq=False)  # hashed by identity: a sketcher holds an array
class Config:
    label: str
    sketcher: Sketcher
    idf: bool


@dataclass
class Measured:
    rerank: lr.PerQuery  # held out, with the score and its rank as two more features
    alone: lr.PerQuery  # the pool ordered by the score alone
    match_seconds: list[float]  # per question: the match over its pool


def measure_config(
    study: Study,
    pools: lr.Pools,
    turns: dict[str, States],
    questions: list[States],
    idf: dict[str, dict[int, float]],
    config: Config,
) -> Measured:
    s = config.sketcher
    sketches = {f: s.sketch(rows) for f, (_, rows) in turns.items()}
    scores: list[list[float]] = []
    seconds: list[float] = []
    for i, q in enumerate(study.questions):
        ids, rows = questions[i]
        started = time.perf_counter()
        weights = idf_weights(ids, idf[q.conversation] if config.idf else None)
        projected = s.query(rows)
        scores.append([max_sim(projected, weights, s.read(sketches[h.id])) for h in pools.pools[i]])
        seconds.append(time.perf_counter() - started)
    extra = su.with_feature(
        su.with_feature(pools, scores), [rank_column(column) for column in scores]
    )
    rerank = lr.held_out(extra, [(lr.logistic, 0.0)])[0]
    alone = []
    for i, q in enumerate(study.questions):
        order = np.argsort(-np.asarray(scores[i]), kind="stable")[:10]
        alone.append(lf.recalls(study, q, [pools.pools[i][j].id for j in order]))
    return Measured(rerank, alone, seconds)


#: Section 4e's best semantic ranking, measured together with the token match.
SENTENCE_UNITS = "(c) mean(turn, sentence max), floor on its own score"


def sentence_unit_pools(study: Study) -> list[list[FusedHit]]:
    """Each question's pool of 50 when the semantic signal ranks turns by section 4e's (c),
    the mean of a turn's own cosine and its best sentence's (sentence vectors from the bench
    cache, embedded on first need)."""
    data = su.Data(study, lu.Vectors())
    pools = []
    for i, q in enumerate(study.questions):
        ids, turn, best = data.cosines(i)
        hits = su.top(ids, su.scored("c", turn, best))
        pools.append(su.fused_pool(replace(q, semantic=hits), study.floor)[:POOL])
    return pools


def scifact_part(encoder: object) -> tuple[list[list[str]], str]:
    """Section 3b's SciFact rerank (pools of 50, its 36 features) with and without the token
    match's two features, each learner fitted on the train queries (5-fold figure) and scored
    on test; and what the train folds pick. Empty rows and the reason when SciFact's train
    split is missing."""
    from benchmarks import scifact_rerank as sr
    from benchmarks.data import missing, scifact_dir
    from benchmarks.scifact_candidates import load as load_scifact_study

    reason = missing(scifact_dir() / "qrels" / "train.tsv")
    if reason:
        return [], reason
    study = load_scifact_study()
    rows = sr.scifact_rows(study)
    needed = sorted({f for pool in rows.pools for f in pool})
    log(f"token match: token states of {len(needed):,} SciFact abstracts")
    texts = [study.fragments[f].content for f in needed]
    docs = dict(zip(needed, token_states(encoder, texts), strict=True))
    questions = token_states(encoder, [q.candidates.question for q in study.queries])
    tokenizer = encoder.tokenizer  # type: ignore[attr-defined]
    idf = idf_table(  # over every abstract of the home, as a home's own statistics
        np.asarray(e.ids)[~np.asarray(e.special_tokens_mask, dtype=bool)]
        for e in tokenizer.encode_batch([f.content for f in study.fragments.values()])
    )

    def with_match(weighted: bool) -> sr.Rows:
        xs = []
        for i, pool in enumerate(rows.pools):
            ids, vectors = questions[i]
            weights = idf_weights(ids, idf if weighted else None)
            scores = [max_sim(vectors, weights, docs[f][1]) for f in pool]
            extra = np.array([scores, rank_column(scores)], dtype=float).T.reshape(len(pool), 2)
            xs.append(np.hstack([rows.x[i], extra]))
        return sr.Rows(rows.pools, xs, rows.y)

    defaults = [sr.ndcg(study, i, rows.pools[i]) for i in study.split("test")]
    learners = (("logistic regression", sr.logistic()), ("gradient-boosted trees", sr.trees))
    cases = (
        ("36 features (section 3b)", rows),
        ("36 + token match, idf-weighted", with_match(True)),
        ("36 + token match, unweighted", with_match(False)),
    )
    table_rows: list[list[str]] = [["defaults (RRF, no rerank)", "-", f"{mean(defaults):.4f}", "-"]]
    picks: list[tuple[float, str, float]] = []
    for label, r in cases:
        for name, make in learners:
            log(f"token match: SciFact, {label}, {name}")
            train = sr.train_cv(study, r, make)
            tested = sr.per_test_query(study, r, make)
            table_rows.append(
                [
                    f"{label}, {name}",
                    f"{train:.4f}",
                    f"{mean(tested):.4f}",
                    sr.gain(tested, defaults),
                ]
            )
            if "token match" in label:
                picks.append((train, f"{label}, {name}", mean(tested)))
    train, label, test = max(picks)
    verdict = (
        f"Picked on the train folds among the token-match rows: {label} (train {train:.4f}), "
        f"test {test:.4f}, {'at or over' if test >= sr.TARGET else 'under'} the issue's "
        f"{sr.TARGET:.2f}."
    )
    return table_rows, verdict


def fit_texts() -> list[str]:
    from benchmarks.data import load_scifact

    return [d.content for d in load_scifact().docs[:FIT_DOCS]]


def configs(fit: np.ndarray, dimension: int) -> list[Config]:
    whole = Sketcher("whole token vectors (float32)", None)
    out = [
        Config("whole token vectors (float32, 384 dims), idf-weighted", whole, True),
        Config("whole token vectors (float32, 384 dims), unweighted", whole, False),
    ]
    for k in (64, 32, 16):
        p = Sketcher(f"SciFact principal directions, {k} dims, int8", principal(fit, k))
        out.append(Config(f"sketch: {p.label}, idf-weighted", p, True))
    r = Sketcher("random projection, 32 dims, int8", random_projection(dimension, 32))
    out.append(Config(f"sketch: {r.label}, idf-weighted", r, True))
    return out


def run(ctx: RunContext | None = None) -> Section:
    from benchmarks.locomo_levers import units
    from memex_minilm.model_files import model_dir
    from memex_minilm.numpy_encoder import NumpyMiniLM
    from memex_rerank.features import feature_rows

    section = Section("locomo_token_match", TITLE)
    study = load()
    encoder = NumpyMiniLM(model_dir())
    ids = list(study.turns)
    texts = [lu.own_text(study, f) for f in ids]
    log("token match: token states of every turn (one forward pass each)")
    started, used = time.perf_counter(), time.process_time()
    states = token_states(encoder, texts)
    pass_wall, pass_cpu = time.perf_counter() - started, time.process_time() - used
    turns = dict(zip(ids, states, strict=True))
    questions = token_states(encoder, [q.question for q in study.questions])
    question_seconds = []
    for q in study.questions[:200]:  # one question at a time, as a search embeds it
        started = time.perf_counter()
        token_states(encoder, [q.question])
        question_seconds.append(time.perf_counter() - started)
    idf = {
        c: idf_table(turns[f][0] for f in ids if study.turns[f].conversation == c)
        for c in lf.conversations(study)
    }
    log("token match: principal directions of SciFact token states")
    fit = np.concatenate([rows for _, rows in token_states(encoder, fit_texts())])
    dimension = fit.shape[1]

    log("token match: the kept rerank's pools and features")
    table_ = units(study)
    cut = [su.fused_pool(q, study.floor)[:POOL] for q in study.questions]
    feature_seconds = []
    rows = []
    for i, q in enumerate(study.questions):
        started = time.perf_counter()
        rows.append(feature_rows(q.question, cut[i], table_))
        feature_seconds.append(time.perf_counter() - started)
    pools = lr.Pools(study, cut, rows)
    base = lr.held_out(pools, [(lr.logistic, 0.0)])[0]
    base10, base5 = lf.micro(base)

    results: list[tuple[Config, Measured]] = []
    for config in configs(fit, dimension):
        log(f"token match: {config.label}")
        results.append((config, measure_config(study, pools, turns, questions, idf, config)))

    log("token match: with section 4e's sentence units, (c) mean(turn, sentence max)")
    sentence_pools = sentence_unit_pools(study)
    sentence_rows = lr.Pools(
        study,
        sentence_pools,
        [
            feature_rows(q.question, sentence_pools[i], table_)
            for i, q in enumerate(study.questions)
        ],
    )
    together = [
        (c, measure_config(study, sentence_rows, turns, questions, idf, c))
        for c, _ in results
        if c.idf and c.label.startswith(("whole", "sketch: SciFact principal directions, 64"))
    ]

    scifact_rows, scifact_verdict = scifact_part(encoder)

    convs = lf.conversations(study)
    header = ["rerank of the pool of 50", "recall@10", "recall@5", *convs]
    table_rows = [su.row(study, "the kept rerank (section 4b's features), baseline", base)]
    table_rows += [su.row(study, f"+ token match: {c.label}", m.rerank) for c, m in results]
    table_rows.append(
        su.row(
            study,
            f"section 4e's {SENTENCE_UNITS}: the kept rerank",
            lr.held_out(sentence_rows, [(lr.logistic, 0.0)])[0],
        )
    )
    table_rows += [
        su.row(study, f"section 4e's {SENTENCE_UNITS} + token match: {c.label}", m.rerank)
        for c, m in together
    ]
    alone_rows = [[c.label, *(f"{x:.3f}" for x in lf.micro(m.alone))] for c, m in results if c.idf]

    n_tokens = [len(t[0]) for t in states]
    chars = [len(t) for t in texts]
    per_token = mean(n_tokens)
    tokens_per_kchar = 1000 * sum(n_tokens) / sum(chars)

    def stored(s: Sketcher) -> float:
        """Bytes a passage of the 100,000-passage home would keep."""
        return s.bytes_per_token(dimension) * tokens_per_kchar * PASSAGE_CHARS / 1000

    def sketch_cost(s: Sketcher) -> str:
        b = s.bytes_per_token(dimension)
        passage = stored(s)
        return (
            f"{b} bytes a token, {b * per_token / 1024:.1f} KiB a turn; a passage of "
            f"{PASSAGE_CHARS} characters (the 100,000-passage home's mean) "
            f"{passage / 1024:.1f} KiB, {passage / (dimension * 4):.1f}x its vector's "
            f"{dimension * 4:,} bytes, {passage * 100_000 / 2**20:,.0f} MiB at 100,000"
        )

    sketch_seconds = {}
    for config, _ in results:
        s = config.sketcher
        if s.projection is not None and s.label not in sketch_seconds:
            started = time.process_time()
            for _, rows_ in states:
                s.sketch(rows_)
            sketch_seconds[s.label] = time.process_time() - started

    def passes(m: Measured) -> bool:
        at10, at5 = lf.micro(m.rerank)
        return round(at10, 3) - round(base10, 3) >= BAR - 1e-9 and round(at5, 3) >= round(base5, 3)

    over = [(c, m) for c, m in results if passes(m)]
    sketches_over = [(c, m.rerank) for c, m in over if c.sketcher.projection is not None]
    smallest_config = min(
        (c for c, _ in sketches_over),
        key=lambda c: c.sketcher.bytes_per_token(dimension),
        default=None,
    )
    smallest = smallest_config.sketcher if smallest_config else Sketcher("none", None)
    smallest_gain = next(
        (lf.micro(per)[0] - base10 for c, per in sketches_over if c is smallest_config), 0.0
    )
    best_sketch = max(
        (cm for cm in results if cm[0].sketcher.projection is not None),
        key=lambda cm: lf.micro(cm[1].rerank)[0],
    )
    cats_base = lr.by_category(study, base)
    cats_best = lr.by_category(study, best_sketch[1].rerank)
    counts = {c: sum(q.category == c for q in study.questions) for c in cats_base}
    category_rows = [
        [CATEGORIES.get(c, str(c)), counts[c], f"{cats_base[c]:.3f}", f"{cats_best[c]:.3f}"]
        for c in cats_base
    ]
    match_ms = 1000 * float(np.median(best_sketch[1].match_seconds))
    features_ms = 1000 * float(np.median(feature_seconds))
    question_ms = 1000 * float(np.median(question_seconds))
    costs = [
        f"- {s.label}: {sketch_cost(s)}; projecting and rounding every turn's tokens took "
        f"{sketch_seconds[s.label]:.2f} s CPU, {sketch_seconds[s.label] / pass_cpu:.1%} of "
        "their forward pass"
        for s in {
            c.sketcher.label: c.sketcher for c, _ in results if c.sketcher.projection is not None
        }.values()
    ]

    def figures(c: Config, m: Measured) -> str:
        at10, at5 = lf.micro(m.rerank)
        return f"{c.label} {at10:.3f} ({at10 - base10:+.3f}), recall@5 {at5:.3f}"

    top_label, (top10, top5) = max(
        ((c.label, lf.micro(m.rerank)) for c, m in together), key=lambda t: t[1][0]
    )
    if over:
        bar = "over the bar: " + "; ".join(figures(c, m) for c, m in over) + "."
    else:
        bar = "no configuration clears the bar; the best sketch is " + figures(*best_sketch) + "."
    verdict = (
        f"Verdict: {'it pays on recall' if sketches_over else 'not shipped'}. Against the "
        f"kept rerank ({base10:.3f}, recall@5 {base5:.3f}; the bar +{BAR:.2f} recall@10 "
        f"held out, recall@5 not lower): {bar} "
        + (
            "The smallest sketch over it keeps "
            f"{smallest.bytes_per_token(dimension)} bytes a token, "
            f"{stored(smallest) / (dimension * 4):.1f}x the bytes of the passage's own "
            "vector: kept beside the vectors, the sketches would take that many times "
            "their bytes, for a gain of "
            f"{smallest_gain:+.3f}. "
            "Shipping it needs what memex does not keep today: each fragment's token "
            "sketch, written at ingest from the pass that embeds it (a column of the "
            "catalog, SQLite and PostgreSQL, filled again by backfill for homes embedded "
            "before), the question's token states from the query embedder, and a rerank "
            "model trained with the two features. Not built: no setting, no model file."
            if sketches_over
            else "Nothing ships: no sketches, no setting."
        )
        + f" With section 4e's sentence units as well (which fail their own cost bound), "
        f"the best held-out figure is {top10:.3f} recall@10, {top5:.3f} recall@5 "
        f"({top_label}): every measured lever together stays under the issue's "
        f"{GOAL[0]:.2f} and {GOAL[1]:.2f}."
    )
    section.add(
        "A token-level match as two more features of the kept rerank (issue 33): MiniLM's "
        "last-layer token vectors, which memex pools into one vector a text and drops, "
        "scored by late interaction (ColBERT's MaxSim: each question token's best cosine "
        "among the turn's tokens, averaged, weighted by the question token's idf over its "
        "conversation, or unweighted; [CLS] and [SEP] left out), and the score's rank in "
        f"the pool. {len(study.questions)} questions of the 5 development conversations "
        "(categories 1-4), held out by conversation: the rerank (logistic regression, "
        "section 4b's features, the pool of 50 the default fusion and floor keep) is "
        "refitted per fold on the other four conversations, with and without the two "
        "features. Sketches project each token's vector (principal directions of the "
        f"token states of the first {FIT_DOCS} SciFact abstracts, {len(fit):,} tokens, or "
        "a seeded random projection: nothing fitted on LoCoMo), make it unit length and "
        "round it to int8; the question's tokens are projected the same way and kept in "
        "float32. Columns four on: recall@10 of each conversation.",
        table(header, table_rows),
        "The pool ordered by the token match alone (no learning), recall@10 and @5:",
        table(["token match", "recall@10", "recall@5"], alone_rows),
        f"Held-out recall@10 by question category, the kept rerank and with the best "
        f"sketch's features ({best_sketch[0].label}; picked after the fact: a report):",
        table(["category", "questions", "kept rerank", "+ token match"], category_rows),
        f"Cost. Turns average {per_token:.1f} wordpiece tokens ({tokens_per_kchar:.0f} a "
        f"thousand characters). The forward pass that embeds the {len(texts):,} turns (and "
        f"gives their token states) took {pass_cpu:.1f} s CPU ({pass_wall:.1f} s wall). "
        "Per sketch:",
        "\n".join(costs),
        f"At query time, median per question: the question's token states by a forward "
        f"pass of its own {question_ms:.1f} ms (numpy encoder, one question at a time; a "
        "query embedder giving them with its vector would spend nothing more); the match "
        f"over the pool with the best sketch {match_ms:.2f} ms; the kept rerank's feature "
        f"rows for the same pool {features_ms:.2f} ms (same run).",
        verdict,
    )
    if scifact_rows:
        section.add(
            "SciFact (documents, which the shipped rerank leaves as fused): section 3b's "
            "pools of 50 and its 36 features, with the token match's two (idf over every "
            "abstract, the home's own statistics) or without; each model fitted on the 809 "
            "train queries (train: 5-fold cross-validation over them) and scored once on the "
            "300 test queries (gain: mean per test query over the defaults, standard error):",
            table(["rerank", "train nDCG@10 (CV)", "test nDCG@10", "test gain"], scifact_rows),
            scifact_verdict,
        )
    else:
        section.add(f"SciFact not measured: {scifact_verdict}")
    return section


def main() -> int:
    section = run()
    print("\n\n".join(str(part) for part in section.body))
    return 0


if __name__ == "__main__":
    sys.exit(main())

__all__ = [
    "TITLE",
    "Sketcher",
    "idf_table",
    "idf_weights",
    "main",
    "max_sim",
    "principal",
    "rank_column",
    "run",
    "token_states",
]
