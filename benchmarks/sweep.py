"""Sweeping the retrieval knobs memex exposes, on one benchmark's home and queries.

Knobs: ``semantic_weight`` (passed to ``search``, the same as ``[search]
semantic_weight``), ``[search] candidate_depth``, the RRF ``k`` of the default ranker
(``[ranker.rerank] k``: it fuses like ``rrf`` before it reranks),
the bm25 tokenizer (``[keyword.bm25] stemmer/stopwords``) and turn context (``[index]
keyword_context_turns / vector_context_turns``; the index concerned is rebuilt with
``Memex.rebuild``), all through config.toml. The defaults are read from memex itself,
so the sweep stays right when they change. Each setting is evaluated once.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from benchmarks.context import RunContext, log, write_config
from benchmarks.quality import Outcome, Task, evaluate
from benchmarks.report import table
from memex_core.api import Memex
from memex_core.config import DEFAULT_COMPONENTS
from memex_core.domain import PluginContext
from memex_core.domain.turn_context import parse_index_table
from memex_core.plugins import load_registry
from memex_core.services.search import DEFAULT_CANDIDATE_DEPTH, DEFAULT_SEMANTIC_WEIGHT

DEFAULT_TOKENIZER = "stemmer english, stopwords english (default)"
TOKENIZERS = {
    DEFAULT_TOKENIZER: "",
    "no stemmer, stopwords english": "stemmer = false\n",
    "stemmer english, no stopwords": "stopwords = false\n",
    "no stemmer, no stopwords": "stemmer = false\nstopwords = false\n",
}
WEIGHTS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7)
DEPTHS = (10, 20, 30, 40, 60, 100, 200)
RRF_KS = (5, 10, 20, 30, 60, 120)
GRID_DEPTHS = (10, 20, 40, 60)
GRID_WEIGHTS = (0.3, 0.4, 0.5, 0.6)
GRID_KS = (5, 10, 20, 60)
K_GRID_WEIGHTS = (0.3, 0.4, 0.5, 0.6, 0.7)
#: Turn-context settings compared on conversations: (keyword turns, vector turns).
TURN_CONTEXTS = ((0, 0), (1, 0), (2, 0), (3, 0), (2, 1), (2, 2))
#: Results asked for in the "long result list" check: the top 10 of a ``--limit 50`` search.
LONG_LIMIT = 50


_INDEX_DEFAULTS = parse_index_table({})


@dataclass(frozen=True)
class Knobs:
    weight: float
    depth: int
    rrf_k: float
    tokenizer: str = DEFAULT_TOKENIZER
    keyword_turns: int = _INDEX_DEFAULTS.keyword.turns
    vector_turns: int = _INDEX_DEFAULTS.vectors.turns
    keyword_titles: bool = _INDEX_DEFAULTS.keyword.titles

    def index_settings(self) -> tuple[int, float, str, int, int, bool]:
        """What needs config.toml (the weight is passed per search)."""
        return (
            self.depth,
            self.rrf_k,
            self.tokenizer,
            self.keyword_turns,
            self.vector_turns,
            self.keyword_titles,
        )


def memex_defaults() -> Knobs:
    """The defaults memex ships: search constants, the default ranker's ``k``, turn context."""
    with tempfile.TemporaryDirectory() as folder:
        ranker = load_registry().build(
            "ranker", DEFAULT_COMPONENTS["ranker"], PluginContext(home=Path(folder))
        )
    return Knobs(DEFAULT_SEMANTIC_WEIGHT, DEFAULT_CANDIDATE_DEPTH, getattr(ranker, "k", 60))


#: What memex shipped before issue 6 (turn context, fusion defaults), for comparison.
PREVIOUS_DEFAULTS = Knobs(0.5, 10, 60.0, keyword_turns=0, vector_turns=0)


def describe(knobs: Knobs, base: Knobs) -> str:
    changed = [
        f"{name} {getattr(knobs, attr):g}"
        for attr, name in (
            ("weight", "semantic_weight"),
            ("depth", "candidate_depth"),
            ("rrf_k", "rrf k"),
            ("keyword_turns", "keyword_context_turns"),
            ("vector_turns", "vector_context_turns"),
        )
        if getattr(knobs, attr) != getattr(base, attr)
    ]
    if knobs.keyword_titles != base.keyword_titles:
        changed.append("keyword_titles " + str(knobs.keyword_titles).lower())
    if knobs.tokenizer != base.tokenizer:
        changed.append(f"tokenizer {knobs.tokenizer}")
    return ", ".join(changed) or "defaults"


def describe_defaults(base: Knobs) -> str:
    return (
        f"semantic_weight {base.weight:g}, candidate_depth {base.depth} (each signal hands "
        f"the ranker its top max(limit, {base.depth})), ranker {DEFAULT_COMPONENTS['ranker']} "
        f"(RRF k {base.rrf_k:g}), stemmer and "
        f"stopwords english, turn context: keyword index {base.keyword_turns} earlier "
        f"turn(s) of up to {_INDEX_DEFAULTS.keyword.chars} characters"
        f"{' and the conversation title' if base.keyword_titles else ''}, vectors "
        f"{base.vector_turns}"
    )


class Sweeper:
    """Evaluates settings on one home, rewriting its config.toml only when needed."""

    def __init__(
        self, ctx: RunContext, mx: Memex, home: Path, task: Task, defaults: dict[str, Outcome]
    ) -> None:
        self.ctx, self.mx, self.home, self.task = ctx, mx, home, task
        self.base = memex_defaults()
        self.outcomes: dict[tuple[Knobs, str], Outcome] = {
            (self.base, mode): outcome for mode, outcome in defaults.items()
        }
        self.current = self.base

    @property
    def memo(self) -> dict[tuple[Knobs, str], float]:
        return {key: outcome.mean for key, outcome in self.outcomes.items()}

    def config_text(self, knobs: Knobs) -> str:
        text = (
            f"[search]\ncandidate_depth = {knobs.depth}\n\n[ranker.{DEFAULT_COMPONENTS['ranker']}]"
            f"\nk = {knobs.rrf_k:g}\n\n[index]\nkeyword_context_turns = {knobs.keyword_turns}\n"
            f"vector_context_turns = {knobs.vector_turns}\n"
            f"keyword_titles = {'true' if knobs.keyword_titles else 'false'}\n"
        )
        if TOKENIZERS[knobs.tokenizer]:
            text += "\n[keyword.bm25]\n" + TOKENIZERS[knobs.tokenizer]
        return text

    def configure(self, knobs: Knobs) -> None:
        if knobs.index_settings() == self.current.index_settings():
            return
        self.mx.close()
        write_config(self.home, "" if knobs == self.base else self.config_text(knobs))
        self.mx = self.ctx.memex(self.home)
        keyword = (knobs.tokenizer, knobs.keyword_turns, knobs.keyword_titles) != (
            self.current.tokenizer,
            self.current.keyword_turns,
            self.current.keyword_titles,
        )
        vectors = knobs.vector_turns != self.current.vector_turns
        if keyword or vectors:
            self.mx.rebuild(keyword=keyword, vectors=vectors)
        self.current = knobs

    def outcome(self, knobs: Knobs, mode: str = "hybrid") -> Outcome:
        base = self.base
        if mode == "keyword":  # what the other signal or the fusion would use is moot
            knobs = replace(knobs, weight=base.weight, vector_turns=base.vector_turns)
        elif mode == "semantic":
            knobs = replace(
                knobs,
                weight=base.weight,
                keyword_turns=base.keyword_turns,
                tokenizer=base.tokenizer,
            )
        key = (knobs, mode)
        if key not in self.outcomes:
            self.configure(knobs)
            weight = knobs.weight if mode == "hybrid" else None
            self.outcomes[key] = evaluate(self.mx, self.task, mode, weight)
        return self.outcomes[key]

    def value(self, knobs: Knobs, mode: str = "hybrid") -> float:
        return self.outcome(knobs, mode).mean

    def restore(self) -> Memex:
        self.configure(self.base)
        return self.mx


def run(
    ctx: RunContext,
    mx: Memex,
    home: Path,
    task: Task,
    metric: str,
    defaults: dict[str, Outcome],
    target: float,
    *,
    conversations: bool = False,
    extra: Callable[[Sweeper], list[str]] | None = None,
) -> tuple[Memex, list[str]]:
    """The sweep as markdown blocks, and the Memex reopened with the default config.

    ``conversations``: also compare turn-context settings (each rebuilds an index).
    ``extra`` adds blocks computed with the same sweeper (its outcomes are kept).
    A failure becomes a line in the report instead of losing the section's figures.
    """
    sweeper = Sweeper(ctx, mx, home, task, defaults)
    try:
        blocks = _sweep(sweeper, metric, target)
        if conversations:
            blocks += _turn_context(sweeper, metric)
        if extra is not None:
            blocks += extra(sweeper)
        blocks.append(_best_line(sweeper, metric, target))
        mx = sweeper.restore()
        long_list = Sweeper(ctx, mx, home, replace(task, limit=LONG_LIMIT), {})
        blocks += _long_list(long_list, metric)
        mx = long_list.restore()
    except Exception as exc:
        log(f"  sweep failed: {type(exc).__name__}: {exc}")
        blocks = [f"Sweep FAILED: {type(exc).__name__}: {exc}"]
        mx = sweeper.restore()
    return mx, blocks


def confirm(
    ctx: RunContext, mx: Memex, home: Path, task: Task, metric: str, label: str
) -> tuple[Memex, list[str]]:
    """Hybrid ``metric`` of a few candidate defaults on another query set (``label``)."""
    sweeper = Sweeper(ctx, mx, home, task, {})
    base = sweeper.base
    candidates = dict.fromkeys(
        [
            base,
            replace(PREVIOUS_DEFAULTS, keyword_turns=base.keyword_turns),
            replace(base, rrf_k=20),
            replace(base, rrf_k=60),
            replace(base, depth=20),
            replace(base, depth=60),
            replace(base, weight=0.5),
            replace(base, weight=0.3),
        ]
    )
    log(f"  confirming candidate defaults on {label}")
    try:
        rows = [[describe(k, base), f"{sweeper.value(k):.3f}"] for k in candidates]
        blocks = [
            f"Candidate defaults on {label}, which no setting was picked on (hybrid {metric}):",
            table(["setting", metric], rows),
        ]
    except Exception as exc:
        log(f"  confirmation failed: {type(exc).__name__}: {exc}")
        blocks = [f"Confirmation on {label} FAILED: {type(exc).__name__}: {exc}"]
    return sweeper.restore(), blocks


def _sweep(sweeper: Sweeper, metric: str, target: float) -> list[str]:
    f = "{:.3f}".format
    value, base = sweeper.value, sweeper.base
    log("  sweep: semantic_weight, candidate_depth, rrf k")
    weights = [[w, f(value(replace(base, weight=w)))] for w in WEIGHTS]
    depths = [[d, f(value(replace(base, depth=d)))] for d in DEPTHS]
    ks = [[k, f(value(replace(base, rrf_k=k)))] for k in RRF_KS]
    log("  sweep: grids")
    depth_weight = [
        [d, *(f(value(replace(base, weight=w, depth=d))) for w in GRID_WEIGHTS)]
        for d in GRID_DEPTHS
    ]
    depth_k = [
        [d, *(f(value(replace(base, depth=d, rrf_k=k))) for k in GRID_KS)] for d in GRID_DEPTHS
    ]
    weight_k = [
        [w, *(f(value(replace(base, weight=w, rrf_k=k))) for k in GRID_KS)] for w in K_GRID_WEIGHTS
    ]
    log("  sweep: tokenizer (keyword index rebuilt for each)")
    tokenizers = [
        [
            label,
            f(value(replace(base, tokenizer=label), "keyword")),
            f(value(replace(base, tokenizer=label))),
        ]
        for label in TOKENIZERS
    ]
    return [
        *_ideas(sweeper, metric),
        f"Sweep of hybrid {metric} (keyword {metric} where stated). One knob at a time, the "
        f"others at memex's defaults ({describe_defaults(base)}), then three small grids. "
        "These are development figures: a setting picked here should be confirmed on "
        "held-out data.",
        table(["semantic_weight", metric], weights),
        table(["[search] candidate_depth", metric], depths),
        table([f"[ranker.{DEFAULT_COMPONENTS['ranker']}] k", metric], ks),
        table(["candidate_depth \\ semantic_weight", *map(str, GRID_WEIGHTS)], depth_weight),
        table([f"candidate_depth \\ rrf k (weight {base.weight:g})", *map(str, GRID_KS)], depth_k),
        table([f"semantic_weight \\ rrf k (depth {base.depth})", *map(str, GRID_KS)], weight_k),
        table(["[keyword.bm25] tokenizer", f"keyword {metric}", f"hybrid {metric}"], tokenizers),
    ]


def _ideas(sweeper: Sweeper, metric: str) -> list[str]:
    """The defaults against what memex shipped before, one change at a time."""
    log("  sweep: the defaults against the previous ones")
    base, previous = sweeper.base, PREVIOUS_DEFAULTS
    rows = [
        ("previous defaults (no turn context; weight 0.5, depth 10, k 60)", previous),
        ("turn context only", replace(previous, keyword_turns=base.keyword_turns)),
        (
            f"fusion only (weight {base.weight:g}, depth {base.depth}, k {base.rrf_k:g})",
            replace(base, keyword_turns=previous.keyword_turns),
        ),
        ("both: the defaults", base),
        # Issue 19: the conversation's title indexed with each turn.
        ("the defaults without conversation titles", replace(base, keyword_titles=False)),
    ]
    return [
        f"The defaults against the previous ones ({metric}; the keyword column does not "
        "depend on the fusion):",
        table(
            ["setting", f"keyword {metric}", f"hybrid {metric}"],
            [
                [
                    label,
                    f"{sweeper.value(knobs, 'keyword'):.3f}",
                    f"{sweeper.value(knobs):.3f}",
                ]
                for label, knobs in rows
            ],
        ),
    ]


def _turn_context(sweeper: Sweeper, metric: str) -> list[str]:
    """Turn-context settings: each rebuilds the index it concerns."""
    log("  sweep: turn context (an index rebuilt for each)")
    base = sweeper.base
    rows = []
    for keyword_turns, vector_turns in TURN_CONTEXTS:
        knobs = replace(base, keyword_turns=keyword_turns, vector_turns=vector_turns)
        rows.append(
            [
                keyword_turns,
                vector_turns,
                f"{sweeper.value(knobs, 'keyword'):.3f}",
                f"{sweeper.value(knobs, 'semantic'):.3f}",
                f"{sweeper.value(knobs):.3f}",
                f"{sweeper.value(replace(knobs, weight=0.5, depth=10, rrf_k=60.0)):.3f}",
            ]
        )
    return [
        f"Turn context ({metric}): earlier turns indexed with each turn, up to "
        f"{_INDEX_DEFAULTS.keyword.chars} characters of each, the turn's own text counting "
        "double; `[index] keyword_context_turns` / `vector_context_turns`.",
        table(
            [
                "keyword_context_turns",
                "vector_context_turns",
                "keyword",
                "semantic",
                "hybrid",
                "hybrid, previous fusion (0.5, 10, 60)",
            ],
            rows,
        ),
    ]


def _best_line(sweeper: Sweeper, metric: str, target: float) -> str:
    f = "{:.3f}".format
    base = sweeper.base
    hybrid = {k: v for (k, mode), v in sweeper.memo.items() if mode == "hybrid"}
    best = max(hybrid, key=lambda k: (hybrid[k], k == base))
    return (
        f"Best hybrid setting seen: {describe(best, base)}: {f(hybrid[best])} "
        f"(defaults: {f(hybrid[base])}); {len(hybrid)} settings evaluated. "
        + _target_line(hybrid, base, target, metric)
    )


def _long_list(sweeper: Sweeper, metric: str) -> list[str]:
    """Top-10 quality when more results are asked for: depth grows to the limit."""
    log(f"  sweep: top 10 of limit-{LONG_LIMIT} searches")
    base = sweeper.base
    rows = [
        [f"{k:g}", f"{sweeper.value(replace(base, rrf_k=k)):.3f}"]
        for k in dict.fromkeys((base.rrf_k, 20, 60))
    ]
    return [
        f"Top 10 of a hybrid search asking for {LONG_LIMIT} results (`--limit {LONG_LIMIT}`: each "
        f"signal then hands over {LONG_LIMIT} candidates), other knobs at their defaults:",
        table([f"[ranker.{DEFAULT_COMPONENTS['ranker']}] k", f"{metric} of the first 10"], rows),
    ]


def _target_line(hybrid: dict[Knobs, float], base: Knobs, target: float, metric: str) -> str:
    if hybrid[base] >= target:
        return f"The defaults meet the target ({metric} >= {target:g})."
    reaching = sorted((k for k, v in hybrid.items() if v >= target), key=lambda k: -hybrid[k])
    if not reaching:
        return f"No setting in this sweep reaches the target ({metric} >= {target:g})."
    shown = "; ".join(f"{describe(k, base)}: {hybrid[k]:.3f}" for k in reaching[:6])
    return (
        f"The defaults miss the target ({metric} >= {target:g}); {len(reaching)} of the "
        f"settings above reach it, best first: {shown}."
    )
