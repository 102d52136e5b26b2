"""Benchmark 3b (issue 33): a learned rerank of SciFact's documents, fitted on train queries.

The candidates are :mod:`benchmarks.scifact_candidates`' (each signal's best 100 through
memex's own stores); the default fusion and relevance floor are replayed on them
(:func:`benchmarks.locomo_fusion.fused_pool`) and the best 50 fused candidates are
re-ordered by a model over the rerank's features (:data:`memex_rerank.features.NAMES`)
plus the document cues of :mod:`memex_rerank.doc_features`. Models are fitted on the 809
train queries (train figure: 5-fold cross-validation over them) and scored on the 300 test
queries, on which nothing is fitted or chosen.

The joint question (one model for both kinds of home): LoCoMo's rows (section 4b's pools)
and SciFact's train rows in one fit, with a feature saying which kind of fragment a row is
(alone, or multiplied into every feature); LoCoMo held out by conversation as section 4b
does (the model of each fold also sees all SciFact train queries), SciFact scored on test.

``python -m benchmarks.run --only scifact_rerank`` stores the section; ``python -m
benchmarks.scifact_rerank`` prints it (about ten minutes once the candidates are cached).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from benchmarks import locomo_fusion as lf
from benchmarks.data import locomo_file, missing, scifact_dir
from benchmarks.metrics import mean, ndcg_at_k
from benchmarks.report import Check, Section, table
from benchmarks.scifact_candidates import SPLITS, SciStudy, cosines, load
from memex_rerank.doc_features import DOC_NAMES, document_rows
from memex_rerank.features import NAMES, feature_rows, unit_of
from memex_rerank.model import load_model

if TYPE_CHECKING:
    from benchmarks.context import RunContext
    from benchmarks.locomo_candidates import Study

TARGET = 0.74  # issue 33
#: LoCoMo held-out figures of the shipped rerank (section 4b) a joint model must keep.
LOCOMO_AT10, LOCOMO_AT5 = 0.781, 0.724
DEPTH = 50
FOLDS = 5
ALL_NAMES = (*NAMES, *DOC_NAMES)
#: A cosine for every candidate (not only those the semantic signal listed): exact, from
#: the stored vectors; the ranker cannot read these today (it sees the catalog only).
EXACT_NAMES = ("exact_cosine", "exact_cosine_gap", "exact_cosine_rank")
Learner = Callable[[], Any]


def logistic(c: float = 1.0) -> Learner:
    def make() -> Any:
        from sklearn.linear_model import LogisticRegression

        return LogisticRegression(C=c, max_iter=5000)

    return make


def trees() -> Any:
    """Section 4b's second tree setting (200 trees, rate 0.05, 7 leaves)."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    return HistGradientBoostingClassifier(
        max_iter=200,
        learning_rate=0.05,
        max_leaf_nodes=7,
        min_samples_leaf=100,
        l2_regularization=1.0,
        early_stopping=False,
        random_state=0,
    )


@dataclass
class Rows:
    """Each query's (or question's) pool, feature matrix and labels."""

    pools: list[list[str]]  # fragment ids, fused order
    x: list[np.ndarray]
    y: list[np.ndarray]

    def masked(self, kept: Sequence[int]) -> Rows:
        return Rows(self.pools, [x[:, list(kept)] for x in self.x], self.y)

    def fit(self, members: Sequence[int], make: Learner, extra: Rows | None = None) -> Any:
        """A model fitted on ``members`` (and every row of ``extra``, when given)."""
        xs = [self.x[i] for i in members] + (extra.x if extra else [])
        ys = [self.y[i] for i in members] + (extra.y if extra else [])
        return make().fit(np.vstack(xs), np.concatenate(ys))

    def ranked(self, index: int, model: Any) -> list[str]:
        pool = self.pools[index]
        if not pool:
            return []
        scores = model.decision_function(self.x[index])
        return [pool[j] for j in np.argsort(-scores, kind="stable")]

    def tagged(self, kind: float, interact: bool) -> Rows:
        """The rows with the kind-of-fragment feature (1 document, 0 turn), alone or also
        multiplied into every feature (which lets one model weigh each kind apart)."""
        out = []
        for x in self.x:
            flag = np.full((len(x), 1), kind)
            out.append(np.hstack([x, x * kind, flag] if interact else [x, flag]))
        return Rows(self.pools, out, self.y)


def _matrix(base: list[list[float]], docs: list[list[float]]) -> np.ndarray:
    rows = [a + b for a, b in zip(base, docs, strict=True)]
    return np.array(rows, dtype=float).reshape(len(rows), len(ALL_NAMES))


def scifact_rows(
    study: SciStudy,
    fusion: lf.Fusion | None = None,
    depth: int = DEPTH,
    exact: list[dict[str, float]] | None = None,
) -> Rows:
    """Each query's best ``depth`` fused candidates and their rows (:data:`ALL_NAMES`, then
    with ``exact``, each query's cosine of every abstract, :data:`EXACT_NAMES`)."""
    fusion = fusion or lf.Fusion()
    pools, xs, ys = [], [], []
    for index, q in enumerate(study.queries):
        pool = lf.fused_pool(q.candidates, fusion, study.floor)[:depth]
        frags = [study.fragments[h.id] for h in pool]
        units = {f.id: unit_of(f.content, f.role) for f in frags}
        question = q.candidates.question
        base = feature_rows(question, pool, units)
        docs = document_rows(question, [f.content for f in frags], [f.title for f in frags])
        x = _matrix(base, docs)
        if exact is not None:
            x = np.hstack([x, _exact(np.array([exact[index][h.id] for h in pool]))])
        xs.append(x)
        ys.append(np.array([int(study.doc_of[h.id] in q.relevant) for h in pool], int))
        pools.append([h.id for h in pool])
    return Rows(pools, xs, ys)


def _exact(cosine: np.ndarray) -> np.ndarray:
    """:data:`EXACT_NAMES` of a pool: each candidate's cosine, its gap to the pool's best
    and the inverse of its rank by cosine within the pool."""
    if not len(cosine):
        return np.zeros((0, len(EXACT_NAMES)))
    ranks = np.empty(len(cosine))
    ranks[np.argsort(-cosine, kind="stable")] = np.arange(1, len(cosine) + 1)
    return np.column_stack([cosine, cosine - cosine.max(), 1.0 / ranks])


def locomo_rows(study: Study) -> Rows:
    """Section 4b's pools and rows (the shipped rerank's), plus the document cues read off
    each turn's text and its fragment title (``"<conversation> session <n>"``)."""
    from benchmarks.locomo_levers import Reranking

    reranking = Reranking(study, lf.Fusion())
    xs = []
    for index, (q, pool) in enumerate(zip(study.questions, reranking.pools, strict=True)):
        turns = [study.turns[h.id] for h in pool]
        docs = document_rows(
            q.question,
            [t.text for t in turns],
            [f"{t.conversation} session {t.session}" for t in turns],
        )
        xs.append(_matrix(reranking.rows[index], docs))
    ys = [np.array(reranking.labels(i), int) for i in range(len(study.questions))]
    return Rows([[h.id for h in pool] for pool in reranking.pools], xs, ys)


def ndcg(study: SciStudy, index: int, ranked: Sequence[str]) -> float:
    return ndcg_at_k([study.doc_of[f] for f in ranked], study.queries[index].relevant, 10)


def train_cv(study: SciStudy, rows: Rows, make: Learner, extra: Rows | None = None) -> float:
    """Mean nDCG@10 over the train queries, each scored by a model fitted on the other
    folds (queries dealt into :data:`FOLDS` folds in order)."""
    train = study.split("train")
    out = []
    for fold in range(FOLDS):
        held = set(train[fold::FOLDS])
        model = rows.fit([i for i in train if i not in held], make, extra)
        out += [ndcg(study, i, rows.ranked(i, model)) for i in sorted(held)]
    return mean(out)


def on_test(study: SciStudy, rows: Rows, make: Learner, extra: Rows | None = None) -> float:
    return mean(per_test_query(study, rows, make, extra))


def per_test_query(
    study: SciStudy, rows: Rows, make: Learner, extra: Rows | None = None
) -> list[float]:
    """nDCG@10 of each test query, ranked by the model fitted on all train queries."""
    model = rows.fit(study.split("train"), make, extra)
    return [ndcg(study, i, rows.ranked(i, model)) for i in study.split("test")]


def gain(new: Sequence[float], old: Sequence[float]) -> str:
    """The mean per-query gain and its standard error (paired: same queries)."""
    d = np.asarray(new) - np.asarray(old)
    return f"{d.mean():+.4f} ({d.std(ddof=1) / np.sqrt(len(d)):.4f})"


def fused(study: SciStudy, rows: Rows, split: str) -> float:
    return mean([ndcg(study, i, rows.pools[i]) for i in study.split(split)])


class _Shipped:
    """The shipped (LoCoMo-trained) model as a scorer of the first 32 columns."""

    def __init__(self) -> None:
        self.model = load_model()

    def decision_function(self, x: np.ndarray) -> np.ndarray:
        return np.array(self.model.score(x[:, : len(NAMES)].tolist()))


def _figures(study: SciStudy, rows: Rows, make: Learner, defaults: list[float]) -> list[str]:
    tested = per_test_query(study, rows, make)
    return [f"{train_cv(study, rows, make):.4f}", f"{mean(tested):.4f}", gain(tested, defaults)]


def scifact_alone(study: SciStudy, rows: Rows, deep: Rows, deep_exact: Rows) -> list[list[str]]:
    """Rows of (model, train figure, test figure). ``deep``: pools of each signal's best
    100 cut at 100; ``deep_exact``: the same with :data:`EXACT_NAMES`."""
    shipped = _Shipped()
    out = [
        ["defaults (RRF, no rerank)", *(f"{fused(study, rows, s):.4f}" for s in SPLITS)],
        ["the shipped rerank (LoCoMo-trained, 32 features)"]
        + [
            f"{mean([ndcg(study, i, rows.ranked(i, shipped)) for i in study.split(s)]):.4f}"
            for s in SPLITS
        ],
    ]
    cases: list[tuple[str, Rows, Learner]] = [
        ("logistic, the 10 signal features (a learned fusion)", rows.masked(range(10)), logistic()),
        ("logistic, the rerank's 32 features", rows.masked(range(len(NAMES))), logistic()),
        ("logistic, 32 + 4 document cues", rows, logistic()),
        ("logistic, 32 + 4 document cues, C 0.1", rows, logistic(0.1)),
        ("logistic, 32 + 4 document cues, C 10", rows, logistic(10.0)),
        ("gradient-boosted trees, 32 + 4 document cues", rows, trees),
        ("deeper: each signal's best 100, rerank of the best 100, logistic, 36", deep, logistic()),
        ("deeper, gradient-boosted trees, 36", deep, trees),
        ("deeper, logistic, 36 + a cosine for every candidate (3)", deep_exact, logistic()),
    ]
    defaults = [ndcg(study, i, rows.pools[i]) for i in study.split("test")]
    out[0].append("-")
    out[1].append(
        gain([ndcg(study, i, rows.ranked(i, shipped)) for i in study.split("test")], defaults)
    )
    out += [[label, *_figures(study, r, make, defaults)] for label, r, make in cases]
    return out


def locomo_held_out(
    study: Study, rows: Rows, make: Learner, extra: Rows | None
) -> tuple[float, float]:
    """LoCoMo recall@10, @5, each conversation scored by a model fitted on the other four
    (and on ``extra``, SciFact's train rows, when given)."""
    out = [(0.0, 0.0)] * len(study.questions)
    for conv in lf.conversations(study):
        held = [i for i, q in enumerate(study.questions) if q.conversation == conv]
        rest = [i for i, q in enumerate(study.questions) if q.conversation != conv]
        model = rows.fit(rest, make, extra)
        for i in held:
            out[i] = lf.recalls(study, study.questions[i], rows.ranked(i, model)[:10])
    return lf.micro(out)


def joint(study: SciStudy, rows: Rows, loc: Study, loc_rows: Rows) -> list[list[str]]:
    """Rows of (model, LoCoMo @10, @5 held out, SciFact train figure, test figure)."""
    train = study.split("train")
    out: list[list[str]] = []
    cases: list[tuple[str, bool, Learner, bool]] = [
        ("LoCoMo alone, 36 features (section 4b's folds)", False, logistic(), False),
        ("LoCoMo + SciFact train, 36 features + kind", True, logistic(), False),
        ("LoCoMo + SciFact train, 36 features x kind", True, logistic(), True),
        ("LoCoMo + SciFact train, trees, 36 features + kind", True, trees, False),
    ]
    for label, with_scifact, make, interact in cases:
        loc_tagged, sci_tagged = loc_rows.tagged(0.0, interact), rows.tagged(1.0, interact)
        sci_train = Rows(
            [sci_tagged.pools[i] for i in train],
            [sci_tagged.x[i] for i in train],
            [sci_tagged.y[i] for i in train],
        )
        at10, at5 = locomo_held_out(loc, loc_tagged, make, sci_train if with_scifact else None)
        loc_all = loc_tagged
        if with_scifact:
            cv = f"{train_cv(study, sci_tagged, make, loc_all):.4f}"
            test = f"{on_test(study, sci_tagged, make, loc_all):.4f}"
        else:
            everyone = loc_all.fit(range(len(loc.questions)), make)
            cv = "-"
            tested = [ndcg(study, i, sci_tagged.ranked(i, everyone)) for i in study.split("test")]
            test = f"{mean(tested):.4f}"
        out.append([label, f"{at10:.3f}", f"{at5:.3f}", cv, test])
    return out


def run(ctx: RunContext | None = None) -> Section:
    from benchmarks import locomo_candidates

    section = Section("scifact_rerank", "3b. SciFact: a learned rerank fitted on train queries")
    reason = missing(scifact_dir() / "qrels" / "train.tsv", locomo_file())
    if reason:
        section.skipped = reason
        return section
    study = load()
    rows = scifact_rows(study)
    deep_fusion = lf.Fusion(depth=100)
    deep = scifact_rows(study, deep_fusion, 100)
    deep_exact = scifact_rows(study, deep_fusion, 100, cosines(study))
    alone = scifact_alone(study, rows, deep, deep_exact)
    loc = locomo_candidates.load()
    together = joint(study, rows, loc, locomo_rows(loc))
    # The headline model is the one best on the train folds; test only scores it.
    picked = max(alone[2:], key=lambda r: float(r[1]))
    best_test = max(float(r[2]) for r in alone[2:])
    section.checks.append(
        Check(
            "SciFact nDCG@10, the rerank best on the train folds, on test",
            f"{float(picked[2]):.3f}",
            f">= {TARGET}",
            f"defaults {float(alone[0][2]):.3f}",
            float(picked[2]) >= TARGET,
        )
    )
    reach, deep_reach = (
        mean(
            [
                float(any(study.doc_of[f] in study.queries[i].relevant for f in r.pools[i]))
                for i in study.split("test")
            ]
        )
        for r in (rows, deep)
    )
    shipped_locomo = together[0]
    verdict = (
        f"Picked on the train folds: {picked[0]} (train {picked[1]}), test {picked[2]}, a "
        f"gain of {picked[3]} over the defaults per test query (mean, standard error); "
        f"the best test figure of any row is {best_test:.4f} (read, not chosen on). "
    )
    if best_test < TARGET:
        learned = [float(r[2]) for r in alone[2:]]
        verdict += (
            f"No rerank reaches {TARGET} on test: the gains the train folds show (up to "
            f"{max(float(r[1]) for r in alone[2:]) - float(alone[0][1]):+.3f} over the "
            "defaults) shrink on the test queries, where every learned model scores "
            f"{min(learned):.3f}-{max(learned):.3f}, about the convex ranker's 0.734 "
            "(section 3). Nothing shipped: the rerank's model stays the LoCoMo one, which "
            "leaves documents as fused (applied to them it scores "
            f"{float(alone[1][2]):.3f} on test). No joint model keeps LoCoMo's held-out "
            f"recall (the closest, kind multiplied in: {together[2][1]}/{together[2][2]} "
            f"against {shipped_locomo[1]}/{shipped_locomo[2]} for LoCoMo alone), and none "
            "gives SciFact more than the SciFact-only models."
        )
    section.add(
        f"{len(study.split('train'))} train and {len(study.split('test'))} test queries over "
        "the 5,183 abstracts (one fragment each, as in section 3). Candidates: each signal's "
        "best 100 through memex's own stores, cached; the default fusion (RRF w 0.4, k 10, "
        "depth 40) and relevance floor replayed; the best 50 fused candidates re-ordered "
        f"({reach:.3f} of the test queries have a relevant abstract among them; "
        f"{deep_reach:.3f} among the deeper pool's 100). Train "
        "figure: 5-fold cross-validation over the train queries; test: the model fitted on "
        "all train queries, scored once. The document cues (memex_rerank.doc_features): the "
        "question's words in the title, in the best sentence, as adjacent pairs, and weighted "
        "by how few candidates hold them. 'A cosine for every candidate': each one's exact "
        "cosine from the stored vectors, its gap to the pool's best and its rank by it (the "
        "semantic signal scores only its own best 40 or 100; the ranker reads the catalog, "
        "not the vectors, so this one would need the vectors read at rerank time).",
        table(
            [
                "model",
                "train nDCG@10 (5-fold CV)",
                "test nDCG@10",
                "test gain over the defaults (standard error, paired)",
            ],
            alone,
        ),
        "One model for both kinds of home: LoCoMo (recall held out by conversation, each "
        "fold's model fitted on the other four conversations and all SciFact train queries) "
        "and SciFact (train: 5-fold CV, each fold's model also fitted on all of LoCoMo; "
        "test). 'kind' is 1 for a document's row, 0 for a turn's; 'x kind' multiplies it "
        "into every feature too (one file, each kind its own weights):",
        table(
            ["model", "LoCoMo recall@10", "LoCoMo recall@5", "SciFact train (CV)", "SciFact test"],
            together,
        ),
        verdict,
    )
    return section


def main() -> int:
    print(run().text())
    return 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["Rows", "joint", "locomo_rows", "run", "scifact_alone", "scifact_rows"]
