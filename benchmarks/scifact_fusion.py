"""SciFact: the ``convex`` ranker against memex's default ``rrf``, picked on train queries.

The semantic weight of the convex ranker is chosen on the 809 SciFact train queries and
that one setting is scored on the 300 test queries (issue 33: tune on train, report
test). The home's config.toml is rewritten for the convex ranker and restored after.
"""

from __future__ import annotations

from pathlib import Path

from benchmarks.context import RunContext, log, write_config
from benchmarks.quality import Task, evaluate
from benchmarks.report import table
from memex_core.api import Memex

#: Semantic weights tried for the convex ranker (train queries only).
CONVEX_WEIGHTS = (0.4, 0.5, 0.55, 0.6, 0.7)


def convex_vs_rrf(
    ctx: RunContext, mx: Memex, home: Path, train: Task, test: Task, test_default: float
) -> tuple[Memex, list[str]]:
    """Markdown blocks comparing the two rankers, and the Memex reopened at the defaults.

    ``test_default``: hybrid nDCG@10 of the defaults on the test queries (already run)."""
    log("SciFact: the convex ranker, weight picked on the train queries")
    train_default = evaluate(mx, train, "hybrid").mean
    mx.close()
    write_config(home, '[ranker]\nuse = "convex"\n')
    mx = ctx.memex(home)
    try:
        on_train = {w: evaluate(mx, train, "hybrid", w).mean for w in CONVEX_WEIGHTS}
        picked = max(CONVEX_WEIGHTS, key=lambda w: (on_train[w], -w))
        on_test = evaluate(mx, test, "hybrid", picked).mean
    finally:
        mx.close()
        write_config(home, "")
    rows: list[list[object]] = [
        ["rrf (the default), semantic_weight 0.4", f"{train_default:.3f}", f"{test_default:.3f}"]
    ]
    rows += [
        [
            f"convex, semantic_weight {w:g}" + (" (picked on train)" if w == picked else ""),
            f"{on_train[w]:.3f}",
            f"{on_test:.3f}" if w == picked else "-",
        ]
        for w in CONVEX_WEIGHTS
    ]
    return ctx.memex(home), [
        'The `convex` ranker (`[ranker] use = "convex"`: each signal\'s score over its best '
        "score for the query, weighted; candidate_depth 40) against the default `rrf`. "
        "The weight is picked on the train queries; only that setting is scored on test:",
        table(["ranker", "train nDCG@10 (809 queries)", "test nDCG@10 (300 queries)"], rows),
    ]
