"""Benchmark 2: adding 1,000 fragments to a 100,000-fragment keyword index, flush included.

*Fresh*: each trial copies the flushed 100k index, opens it, then times
``add(1,000) + flush()`` (opening is reported apart). *Sustained*: one open store
takes batch after batch, each followed by a flush, so the delta segment grows
until the store merges it into the base; the slowest batch shows that merge.
*End to end*: ``Memex.add_fragments(batch, embed=False)`` on a home whose catalog
already holds the 100k passages (catalog transaction, lock, index add and flush).
"""

from __future__ import annotations

import shutil
import statistics
import time

from benchmarks.context import RunContext, log, write_config
from benchmarks.keyword_index import open_store, passage_index
from benchmarks.report import Check, Section, ms, table

TARGET = 1.0


def run(ctx: RunContext) -> Section:
    section = Section("adds", "2. Adding fragments to a large keyword index")
    sizes = ctx.sizes
    size, batch = sizes.keyword_corpus, sizes.add_batch
    index = passage_index(ctx)
    if isinstance(index, str):
        section.skipped = index
        return section
    batches = [index.spare[i : i + batch] for i in range(0, len(index.spare), batch)]

    log(f"adding {batch:,} to {size:,}: {sizes.add_trials} fresh trials")
    fresh, opens = [], []
    for trial in range(sizes.add_trials):
        home = ctx.tmp / f"adds-fresh-{trial}"
        shutil.copytree(index.home, home)
        started = time.perf_counter()
        store = open_store(home)
        opens.append(time.perf_counter() - started)
        started = time.perf_counter()
        added = store.add(batches[trial])
        store.flush()
        fresh.append(time.perf_counter() - started)
        assert added == batch, f"expected {batch} new fragments, store reported {added}"
        shutil.rmtree(home)

    log(f"sustained: {sizes.add_sustained_batches} batches into one store")
    home = ctx.tmp / "adds-sustained"
    shutil.copytree(index.home, home)
    store = open_store(home)
    sustained = []
    for one in batches[: sizes.add_sustained_batches]:
        started = time.perf_counter()
        store.add(one)
        store.flush()
        sustained.append(time.perf_counter() - started)
    shutil.rmtree(home)

    log(f"end to end: Memex.add_fragments on a {size:,}-fragment home")
    home = ctx.home("adds-memex")
    write_config(home, cached_embedder=False)
    mx = ctx.memex(home)
    started = time.perf_counter()
    mx.add_fragments(index.corpus, origin="bench:passages", embed=False)
    load_seconds = time.perf_counter() - started
    end_to_end: list[float] = []
    for one in batches[: sizes.add_trials]:
        started = time.perf_counter()
        mx.add_fragments(one, origin=f"bench:batch-{len(end_to_end)}", embed=False)
        end_to_end.append(time.perf_counter() - started)
    mx.close()
    shutil.rmtree(home)

    median = statistics.median(fresh)
    section.checks.append(
        Check(
            f"add {batch:,} to {size:,} + flush (median of {len(fresh)})",
            ms(median),
            "< 1 s",
            "-",
            median < TARGET,
        )
    )
    worst = max(range(len(sustained)), key=sustained.__getitem__)
    section.add(
        f"Index: the keyword benchmark's corpus ({index.description}). Added fragments: further "
        "passages from the same draw, never in the index.",
        table(
            ["scenario", "min", "median", "max"],
            [
                [
                    f"fresh: add {batch:,} + flush ({len(fresh)} trials)",
                    ms(min(fresh)),
                    ms(median),
                    ms(max(fresh)),
                ],
                [
                    f"fresh: opening the {size:,} index (not in the figure above)",
                    ms(min(opens)),
                    ms(statistics.median(opens)),
                    ms(max(opens)),
                ],
                [
                    f"sustained: {len(sustained)} consecutive batches, each flushed",
                    ms(min(sustained)),
                    ms(statistics.median(sustained)),
                    f"{ms(sustained[worst])} (batch {worst + 1})",
                ],
                [
                    f"end to end: `Memex.add_fragments(..., embed=False)` ({len(end_to_end)} "
                    "batches)",
                    ms(min(end_to_end)),
                    ms(statistics.median(end_to_end)),
                    ms(max(end_to_end)),
                ],
            ],
        ),
        f"Sustained batch times in order (ms): "
        f"{', '.join(f'{s * 1000:.0f}' for s in sustained)}. Loading the "
        f"{size:,} passages into the end-to-end home with one `add_fragments` call took "
        f"{load_seconds:.1f} s.",
    )
    return section
