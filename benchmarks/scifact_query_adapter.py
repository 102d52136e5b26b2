"""SciFact's part of benchmark 4d (issue 33): the query adapter fitted on train queries.

The adapter (:mod:`benchmarks.query_adapter`) is fitted on the 809 train queries (each
query's candidates: all 5,183 abstracts; its evidence: its relevant abstracts) at the
strength LoCoMo's training folds picked most (a fit over every abstract takes minutes on
2 cores, so nothing is chosen on SciFact); it is scored once on the 300 test queries: the
semantic signal alone (exact cosine over every abstract) and hybrid with the default fusion
and floor, replayed on section 3b's cached candidates with the semantic signal replaced.

Abstention: the 200 generated queries of benchmark 18 (100 random letter strings, 100
off-topic questions), each asked against all SciFact abstracts and all LoCoMo turns; a
query passes the semantic side of the floor when some vector's cosine reaches the floor
(0.417). This reads the floor on the semantic signal only (the keyword side is unchanged
by the adapter).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from benchmarks import locomo_fusion as lf
from benchmarks import query_adapter as qa
from benchmarks.metrics import mean, ndcg_at_k
from benchmarks.report import table
from benchmarks.scifact_candidates import DEPTH, SciStudy, load


class Sci:
    """SciFact's query and abstract vectors (unit), and each query's relevant rows."""

    def __init__(self, study: SciStudy) -> None:
        from benchmarks.context import RunContext, Sizes
        from benchmarks.scifact_candidates import ROOT, cosines

        self.study = study
        cosines_ready = (ROOT / "query_vectors.npy").exists()
        if not cosines_ready:  # embeds and caches the queries
            cosines(study)
        self.queries = qa.unit(np.load(ROOT / "query_vectors.npy"))
        self.ids = list(study.fragments)
        ctx = RunContext(tmp=ROOT, sizes=Sizes(), quick=False)
        self.docs = qa.unit(ctx.disk_cache().matrix([study.fragments[i].content for i in self.ids]))
        row_of_doc = {study.doc_of[f]: n for n, f in enumerate(self.ids)}
        self.positives = [
            [row_of_doc[d] for d, grade in q.relevant.items() if grade > 0 and d in row_of_doc]
            for q in study.queries
        ]

    def fit(self, members: list[int], strength: float) -> np.ndarray:
        questions = [(self.queries[i], self.positives[i]) for i in members if self.positives[i]]
        name = f"scifact|{strength}|{','.join(map(str, members))}"
        return qa.cached_fit(name, lambda: qa.fit_softmax([(self.docs, questions)], strength))

    def scores(self, w: np.ndarray | None, members: list[int]) -> np.ndarray:
        return qa.apply(w, self.queries[members]) @ self.docs.T

    def ndcg(self, index: int, ranked: list[str]) -> float:
        study = self.study
        return ndcg_at_k([study.doc_of[f] for f in ranked], study.queries[index].relevant, 10)

    def figures(
        self, w: np.ndarray | None, members: list[int], raw_scores: bool = False
    ) -> tuple[float, float]:
        """(semantic alone nDCG@10 (exact, floor off), hybrid nDCG@10 with the default
        fusion and floor) over ``members``."""
        adapted = self.scores(w, members)
        raw = self.scores(None, members) if raw_scores else adapted
        semantic, hybrid = [], []
        for n, i in enumerate(members):
            order = np.argsort(-adapted[n], kind="stable")[:DEPTH]
            ranked = [self.ids[j] for j in order]
            semantic.append(self.ndcg(i, ranked[:10]))
            q = self.study.queries[i].candidates
            hits = [(self.ids[j], float(raw[n][j])) for j in order]
            fused = lf.hybrid(replace(q, semantic=hits), lf.Fusion(), self.study.floor)
            hybrid.append(self.ndcg(i, fused))
        return mean(semantic), mean(hybrid)


def passes(queries: np.ndarray, corpus: np.ndarray, w: np.ndarray | None, floor: float) -> float:
    """Share of queries with some corpus vector at cosine >= ``floor``."""
    best = (qa.apply(w, queries) @ corpus.T).max(axis=1)
    return float(np.mean(best >= floor))


def abstention(
    sci: Sci, w_sci: np.ndarray, turns: np.ndarray, w_locomo: np.ndarray
) -> list[list[object]]:
    """Generated queries passing the semantic side of the floor, adapter off and on, over
    SciFact's abstracts and LoCoMo's turns (``turns``: their unit vectors)."""
    from benchmarks.abstention import generated_queries

    generated = generated_queries()
    vectors = qa.unit(qa.cached_queries(qa.CACHE / "generated.npy", [q for _, q in generated]))
    floor = sci.study.floor or 0.0
    rows: list[list[object]] = []
    for kind in ("nonsense", "off-topic"):
        picked = vectors[[n for n, (k, _) in enumerate(generated) if k == kind]]
        rows.append(
            [
                kind,
                f"{passes(picked, sci.docs, None, floor):.1%}",
                f"{passes(picked, sci.docs, w_sci, floor):.1%}",
                f"{passes(picked, turns, None, floor):.1%}",
                f"{passes(picked, turns, w_locomo, floor):.1%}",
            ]
        )
    return rows


def scifact_part(
    turns: np.ndarray, w_locomo: np.ndarray, locomo_strength: float
) -> tuple[list[str], dict[str, float]]:
    """(body, headline figures); ``turns`` and ``w_locomo``: LoCoMo's turn vectors and its
    adapter fitted on all five conversations, for the abstention table."""
    sci = Sci(load())
    picked = locomo_strength  # a fit over every abstract takes minutes: no CV here
    w = sci.fit(sci.study.split("train"), picked)
    test = sci.study.split("test")
    off, on = sci.figures(None, test), sci.figures(w, test)
    raw_floor = sci.figures(w, test, raw_scores=True)
    cross = sci.figures(w_locomo, test)
    abstain = abstention(sci, w, turns, w_locomo)
    figures = {
        "semantic_off": off[0],
        "semantic_on": on[0],
        "hybrid_off": off[1],
        "hybrid_on": on[1],
        "cross_semantic": cross[0],
        "cross_hybrid": cross[1],
        "abstain_off": float(str(abstain[0][1]).rstrip("%")),
        "abstain_on": float(str(abstain[0][2]).rstrip("%")),
    }
    body = [
        f"SciFact: the adapter fitted on the {len(sci.study.split('train'))} train queries "
        f"(strength {picked:g}, the one LoCoMo's training folds picked most; nothing chosen "
        f"on SciFact), scored once on the {len(test)} test queries:",
        table(
            ["", "semantic nDCG@10 (exact, floor off)", "hybrid nDCG@10 (default fusion, floor)"],
            [
                ["adapter off", f"{off[0]:.3f}", f"{off[1]:.3f}"],
                ["adapter on (floor on the adapted cosine)", f"{on[0]:.3f}", f"{on[1]:.3f}"],
                [
                    "adapter on (floor on the raw cosine)",
                    f"{raw_floor[0]:.3f}",
                    f"{raw_floor[1]:.3f}",
                ],
                [
                    f"LoCoMo's adapter instead (all five conversations, strength "
                    f"{locomo_strength:g})",
                    f"{cross[0]:.3f}",
                    f"{cross[1]:.3f}",
                ],
            ],
        ),
        "Generated queries of benchmark 18 (100 of each kind) passing the semantic side of "
        f"the floor (some vector at cosine >= {sci.study.floor}); LoCoMo's adapter is fitted "
        f"on all five conversations at strength {locomo_strength:g}:",
        table(
            ["queries", "SciFact off", "SciFact on", "LoCoMo off", "LoCoMo on"],
            abstain,
        ),
    ]
    return body, figures


__all__ = ["Sci", "scifact_part"]
