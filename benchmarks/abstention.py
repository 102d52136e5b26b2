"""Benchmark 18: the relevance floor, knowing when nothing matches (issue 18, part 1).

Before (``floor="off"``) and after (``floor="auto"``, the default) in the same run, on
the same homes:

- false hits: 200 queries generated here from a fixed seed, 100 strings of random
  letters ("zzqxj qqvvkw") and 100 fluent questions about things absent from the
  corpora (deep-sea animals, ancient empires, particle physics...), searched with
  ``dig`` (hybrid) against a home of the sample exports and a home of the LoCoMo dev
  conversations (no filter). A query is a false hit when it returns anything. The floor
  is calibrated by :mod:`memex_core.services.calibration` on texts and probes of its own
  (another seed, other topics); none of these queries is seen by it;
- what the floor costs on real questions: LoCoMo dev evidence recall@10 (hybrid, each
  question in its conversation) and SciFact nDCG@10 (hybrid, 300 test queries);
- LoCoMo's adversarial questions (category 5, unanswerable from the conversation): how
  often the top hit is returned (and so taken for evidence) versus nothing.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Sequence
from pathlib import Path

from benchmarks.context import RunContext, StderrProgress, log
from benchmarks.data import (
    data_root,
    load_locomo,
    load_scifact,
    locomo_file,
    missing,
    scifact_dir,
)
from benchmarks.fragments import locomo_fragments, scifact_fragments
from benchmarks.metrics import mean, ndcg_at_k, recall_at_k
from benchmarks.report import Check, Section, table
from memex_core.api import Memex, make_filters
from memex_core.domain import SearchFilters

TITLE = "18. Relevance floor: abstention when nothing matches"
SEED = 18
QUERIES = 200
TARGET_FALSE_HITS = 0.05
FLOORS = ("off", "auto")

#: Things none of the corpora talks about, and what one might ask of them.
_SUBJECTS = (
    "the giant squid",
    "the anglerfish",
    "the Mariana Trench",
    "the Hanseatic League",
    "the Treaty of Westphalia",
    "the Kingdom of Aksum",
    "the Higgs boson",
    "quark confinement",
    "a neutron star merger",
    "the okapi",
    "the axolotl",
    "the Silk Road caravanserais",
    "Gregorian chant",
    "the harpsichord",
    "the Byzantine iconoclasm",
    "a tardigrade",
    "the Krakatoa eruption",
    "the Antikythera mechanism",
    "Linear B tablets",
    "the Voynich manuscript",
)
_FRAMES = (
    "What is known about {}?",
    "When was {} first described?",
    "Why is {} important to historians or scientists?",
    "How big can {} get?",
    "Where can one learn more about {}?",
)


def generated_queries(seed: int = SEED, count: int = QUERIES) -> list[tuple[str, str]]:
    """``count`` (kind, query) pairs: half random letter strings, half off-topic questions."""
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyz"
    out: list[tuple[str, str]] = []
    for _ in range(count // 2):
        words = [
            "".join(rng.choice(letters) for _ in range(rng.randint(4, 9)))
            for _ in range(rng.randint(1, 3))
        ]
        out.append(("nonsense", " ".join(words)))
    questions = [frame.format(subject) for subject in _SUBJECTS for frame in _FRAMES]
    rng.shuffle(questions)
    out.extend(("off-topic", q) for q in questions[: count - len(out)])
    return out


def _returns_anything(mx: Memex, queries: Sequence[str], floor: str) -> list[bool]:
    return [
        bool(mx.search(q, "hybrid", 10, floor=floor, time_phrases=False).results) for q in queries
    ]


def _false_hit_rows(name: str, mx: Memex, queries: list[tuple[str, str]]) -> list[list[object]]:
    rows: list[list[object]] = []
    texts = [q for _, q in queries]
    outcome = {floor: _returns_anything(mx, texts, floor) for floor in FLOORS}
    for kind in ("nonsense", "off-topic", "all"):
        members = [i for i, (k, _) in enumerate(queries) if kind in ("all", k)]
        cells = [f"{mean([float(outcome[f][i]) for i in members]):.1%}" for f in FLOORS]
        rows.append([name, kind, len(members), *cells])
    return rows


def _category5(path: Path) -> list[tuple[str, str, tuple[str, ...]]]:
    samples = json.loads(path.read_text(encoding="utf-8"))
    return [
        (s["sample_id"], item["question"], tuple(item.get("evidence", [])))
        for s in samples
        for item in s["qa"]
        if item.get("category") == 5
    ]


def run(ctx: RunContext) -> Section:
    section = Section("abstention", TITLE)
    exports = data_root() / "exports"
    reason = (
        missing(exports)
        or missing(locomo_file())
        or missing(scifact_dir() / "corpus.jsonl")
        or ctx.embedder_available()
    )
    if reason:
        section.skipped = reason
        return section
    queries = generated_queries()

    log("abstention: a home of the sample exports")
    exports_mx = ctx.memex(ctx.home("abstention-exports"))
    exports_mx.ingest(exports, embed_progress=StderrProgress())
    started = time.perf_counter()
    calibration = exports_mx.calibrated_floor(recalibrate=True)
    calibrate_seconds = time.perf_counter() - started

    log("abstention: a home of the LoCoMo dev conversations")
    data = load_locomo()
    locomo_mx = ctx.memex(ctx.home("abstention-locomo"))
    locomo_mx.add_fragments(
        list(locomo_fragments(data)), origin="bench:locomo-dev", progress=StderrProgress()
    )

    log("abstention: false hits")
    false_rows = _false_hit_rows("sample exports", exports_mx, queries)
    false_rows += _false_hit_rows("LoCoMo dev", locomo_mx, queries)
    worst_after = max(float(str(row[4]).rstrip("%")) / 100 for row in false_rows if row[1] == "all")

    log("abstention: LoCoMo recall@10 with and without the floor")
    questions = data.questions
    recall: dict[str, list[float]] = {f: [] for f in FLOORS}
    evidence_count: dict[str, dict[str, int]] = {f: {} for f in FLOORS}
    seconds: dict[str, float] = {f: 0.0 for f in FLOORS}
    for q in questions:
        filters = make_filters(conversation=q.conversation_id)
        # Untimed first: the run's embedder caches the query's vector, so neither timed
        # search pays for embedding it (that cost is the same with and without a floor).
        locomo_mx.search(q.question, "hybrid", 10, filters=filters, floor="off")
        for floor in FLOORS:
            started = time.perf_counter()
            found = locomo_mx.search(q.question, "hybrid", 10, filters=filters, floor=floor)
            seconds[floor] += time.perf_counter() - started
            ranked = [r.fragment.provenance.source_id for r in found]
            recall[floor].append(recall_at_k(ranked, q.evidence, 10))
            for r in found:
                label = r.evidence or "none"
                evidence_count[floor][label] = evidence_count[floor].get(label, 0) + 1

    log("abstention: LoCoMo adversarial questions (category 5)")
    adversarial = _category5(locomo_file())
    top_hit: dict[str, int] = {f: 0 for f in FLOORS}
    top_is_evidence: dict[str, int] = {f: 0 for f in FLOORS}
    for conv_id, question, evidence in adversarial:
        filters = make_filters(conversation=conv_id)
        for floor in FLOORS:
            found = locomo_mx.search(question, "hybrid", 10, filters=filters, floor=floor)
            if found.results:
                top_hit[floor] += 1
                if found.results[0].fragment.provenance.source_id in evidence:
                    top_is_evidence[floor] += 1

    log("abstention: SciFact nDCG@10 with and without the floor")
    scifact = load_scifact()
    scifact_mx = ctx.memex(ctx.home("abstention-scifact"))
    scifact_mx.add_fragments(
        list(scifact_fragments(scifact.docs, whole=True)),
        origin="bench:beir-scifact",
        progress=StderrProgress(),
    )
    ndcg: dict[str, list[float]] = {f: [] for f in FLOORS}
    empty: dict[str, int] = {f: 0 for f in FLOORS}
    for query_id, text in scifact.test_queries():
        for floor in FLOORS:
            found = scifact_mx.search(text, "hybrid", 10, filters=SearchFilters(), floor=floor)
            ranked = list(dict.fromkeys(r.fragment.provenance.source_id for r in found))
            ndcg[floor].append(ndcg_at_k(ranked, scifact.qrels[query_id], 10))
            empty[floor] += not found.results

    recall_off, recall_on = mean(recall["off"]), mean(recall["auto"])
    ndcg_off, ndcg_on = mean(ndcg["off"]), mean(ndcg["auto"])
    n_adv = len(adversarial)
    section.checks += [
        Check(
            "False-hit rate, 200 generated nonsense/off-topic queries (worst home), floor auto",
            f"{worst_after:.1%}",
            f"<= {TARGET_FALSE_HITS:.0%}",
            "floor off: "
            + ", ".join(f"{row[0]} {row[3]}" for row in false_rows if row[1] == "all"),
            worst_after <= TARGET_FALSE_HITS,
        ),
        Check(
            "LoCoMo dev evidence recall@10, hybrid, floor auto",
            f"{recall_on:.3f}",
            f">= floor off ({recall_off:.3f})",
            "issue 18: today 0.742",
            recall_on >= recall_off - 1e-9,
        ),
        Check(
            "SciFact nDCG@10, hybrid, floor auto",
            f"{ndcg_on:.3f}",
            f">= floor off ({ndcg_off:.3f})",
            "issue 18: today 0.726",
            ndcg_on >= ndcg_off - 1e-9,
        ),
        Check(
            "LoCoMo adversarial questions answered with nothing, floor auto",
            f"{1 - top_hit['auto'] / n_adv:.1%}",
            "-",
            f"floor off: {1 - top_hit['off'] / n_adv:.1%}",
        ),
    ]
    section.add(
        f"Floor calibrated for this run's embedder ({calibration.embedder}): "
        f"{calibration.value:.3f} (highest similarity among {calibration.pairs:,} unrelated "
        f"probe/reference pairs {calibration.highest_unrelated:.3f}, plus the margin), "
        f"measured in {calibrate_seconds:.1f} s; method `{calibration.method}`.",
        f"False hits: share of the {len(queries)} generated queries (seed {SEED}) for which "
        "`dig` returns anything.",
        table(["home", "queries", "n", "floor off", "floor auto"], false_rows),
        f"Real questions, floor off vs auto (same homes, same run): LoCoMo dev "
        f"{len(questions)} questions (categories 1-4), SciFact 300 test queries.",
        table(
            ["set", "metric", "floor off", "floor auto", "queries left with no result (auto)"],
            [
                [
                    "LoCoMo dev",
                    "evidence recall@10",
                    f"{recall_off:.3f}",
                    f"{recall_on:.3f}",
                    "-",
                ],
                [
                    "SciFact",
                    "nDCG@10",
                    f"{ndcg_off:.3f}",
                    f"{ndcg_on:.3f}",
                    f"{empty['auto']} (off: {empty['off']})",
                ],
            ],
        ),
        "Time per LoCoMo hybrid search (in-process, query vector cached, the two floors "
        "interleaved query by query): "
        + ", ".join(f"floor {f} {seconds[f] / len(questions) * 1000:.1f} ms" for f in FLOORS)
        + f" (ratio auto/off {seconds['auto'] / seconds['off']:.2f}).",
        "Evidence of the LoCoMo results (all top-10 hits of the categories 1-4 questions; with "
        "the floor off a label only says which signals found the hit, with it what kept it): "
        + "; ".join(
            f"floor {f}: " + ", ".join(f"{k} {v:,}" for k, v in sorted(evidence_count[f].items()))
            for f in FLOORS
        ),
        f"LoCoMo adversarial questions (category 5, {n_adv}, each in its conversation): the "
        "top hit is what an agent would take as the answer's evidence.",
        table(
            ["floor", "a top hit is returned", "nothing returned", "top hit in the listed turns"],
            [
                [
                    f,
                    f"{top_hit[f] / n_adv:.1%}",
                    f"{1 - top_hit[f] / n_adv:.1%}",
                    f"{top_is_evidence[f] / n_adv:.1%}",
                ]
                for f in FLOORS
            ],
        ),
    )
    return section
