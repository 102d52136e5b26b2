"""Every benchmark ``benchmarks.run`` can run: its key, its section title on the page and
its ``run`` function.

Its own module because both the runner (:mod:`benchmarks.run`) and the page assembler
(:mod:`benchmarks.assemble`, which needs the titles) read it, and the runner writes the
page through the assembler. Importing it imports every benchmark module.
"""

from __future__ import annotations

from collections.abc import Callable

from benchmarks import (
    abstention,
    adds,
    archive_rate,
    ask_recall,
    capture_freshness,
    capture_hooks,
    cold_start,
    context_budget,
    encoder_quality,
    fact_updates,
    growth,
    hybrid_latency,
    ingest_throughput,
    keyword_latency,
    locomo,
    locomo_context_levers,
    locomo_levers,
    locomo_query_adapter,
    locomo_sentence_units,
    locomo_token_match,
    memory_duplicates,
    memory_throughput,
    migrate_rate,
    peak_memory,
    scale_out,
    scifact,
    scifact_rerank,
    service,
    vault,
    vector_servers,
    viewer_render,
)
from benchmarks.context import RunContext
from benchmarks.report import Section

BENCHMARKS: dict[str, tuple[str, Callable[[RunContext], Section]]] = {
    "keyword": ("1. Keyword query latency", keyword_latency.run),
    "adds": ("2. Adding fragments to a large keyword index", adds.run),
    "scifact": ("3. BEIR SciFact nDCG@10", scifact.run),
    "scifact_rerank": (
        "3b. SciFact: a learned rerank fitted on train queries",
        scifact_rerank.run,
    ),
    "locomo": ("4. LoCoMo evidence recall@10", locomo.run),
    "locomo_levers": ("4b. LoCoMo levers, leave one conversation out", locomo_levers.run),
    "locomo_context_levers": (
        "4c. LoCoMo levers 3 and 4: turn units and dated time phrases",
        locomo_context_levers.run,
    ),
    "locomo_query_adapter": (locomo_query_adapter.TITLE, locomo_query_adapter.run),
    "locomo_sentence_units": (locomo_sentence_units.TITLE, locomo_sentence_units.run),
    "locomo_token_match": (locomo_token_match.TITLE, locomo_token_match.run),
    "cold": ("5. Cold `memex dig` wall time", cold_start.run),
    "context_budget": (
        "6. LoCoMo evidence recall within a 2,000-character context",
        context_budget.run,
    ),
    "vault": ("7. Obsidian vault ingest and re-sync", vault.run),
    "remember_throughput": ("8. Remembering facts one call at a time", memory_throughput.run),
    "dream_duplicates": ("9. Reworded duplicate facts and `dream()`", memory_duplicates.run),
    "hybrid": ("10. Hybrid query latency against LangChain and LlamaIndex", hybrid_latency.run),
    "ingest": ("11. Ingest throughput against the embedder alone", ingest_throughput.run),
    "encoders": ("11b. MiniLM encoders: quality and speed side by side", encoder_quality.run),
    "memory": ("12. Peak memory (RSS) at 100,000 fragments", peak_memory.run),
    "growth": ("13. Growth from 1,000 to 1,000,000 fragments", growth.run),
    "service": (service.TITLE, service.run),
    "abstention": (abstention.TITLE, abstention.run),
    "hooks": (capture_hooks.TITLE, capture_hooks.run),
    "freshness": (capture_freshness.TITLE, capture_freshness.run),
    "ask": (ask_recall.TITLE, ask_recall.run),
    "viewer": (viewer_render.TITLE, viewer_render.run),
    "vector_servers": (vector_servers.TITLE, vector_servers.run),
    "scale_out": (scale_out.TITLE, scale_out.run),
    "migrate": (migrate_rate.TITLE, migrate_rate.run),
    "fact_updates": (fact_updates.TITLE, fact_updates.run),
    "archive": (archive_rate.TITLE, archive_rate.run),
}
