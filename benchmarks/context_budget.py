"""Benchmark 6: LoCoMo (development split) evidence recall when the context must fit 2,000 chars.

An agent rarely gets "the top 10"; it gets a character budget. This phase asks,
per question, which evidence turns reach a 2,000-character context, two ways:

- *whole hits*: ``Memex.search(question, limit=50)`` in rank order, keeping whole
  fragments while their total content length fits the budget (it stops at the
  first hit that does not fit, as a caller pasting hits in order would);
- *context pack*: ``Memex.context(question, budget_chars=2000)``, which mixes
  search hits (cut to a window around the query words when long), linked notes
  and recent material, each item with its reason.

Both run for hybrid and (as a cheap baseline) keyword mode, always with
``time_phrases=False`` and the question's own conversation as filter. A turn
counts as retrieved when its fragment id is in the context; the pack is also
scored counting only items that were not truncated. The home is built like
benchmark 4's: one fragment per turn, ``"speaker: text"``, real components.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from benchmarks.context import RunContext, StderrProgress, log
from benchmarks.data import load_locomo, locomo_file, missing
from benchmarks.fragments import locomo_fragments
from benchmarks.locomo import CATEGORIES, subset
from benchmarks.metrics import mean
from benchmarks.report import Check, Section, table
from memex_core.api import Memex
from memex_core.domain.disclosure import LINKED, QUERY_MATCH, RECENCY, ContextPack

BUDGET = 2_000
SEARCH_LIMIT = 50
TOP_K = 10  # the unbudgeted reference row: benchmark 4's recall@10
QUICK_QUESTIONS = 40
REASONS = (QUERY_MATCH, LINKED, RECENCY)
#: Reason recorded for items of the plain-search methods.
SEARCH_HIT = "search hit"


@dataclass(frozen=True)
class Packed:
    """One question's context under one method: item ids in order, as included."""

    ids: tuple[str, ...]
    whole_ids: tuple[str, ...]  # items included untruncated
    reasons: tuple[str, ...]
    chars: int


def fit_whole(hits: Sequence[tuple[str, str]], budget: int) -> Packed:
    """Whole ``(id, content)`` hits in rank order while their total length fits ``budget``.

    Stops at the first hit that would overflow (no skipping ahead to shorter ones).
    """
    ids: list[str] = []
    used = 0
    for fragment_id, content in hits:
        if used + len(content) > budget:
            break
        ids.append(fragment_id)
        used += len(content)
    return Packed(tuple(ids), tuple(ids), (SEARCH_HIT,) * len(ids), used)


def top_k(hits: Sequence[tuple[str, str]], k: int) -> Packed:
    """The first ``k`` hits whatever their length (the unbudgeted reference)."""
    chosen = list(hits[:k])
    ids = tuple(i for i, _ in chosen)
    return Packed(ids, ids, (SEARCH_HIT,) * len(ids), sum(len(c) for _, c in chosen))


def from_pack(pack: ContextPack) -> Packed:
    return Packed(
        tuple(i.id for i in pack.items),
        tuple(i.id for i in pack.items if not i.truncated),
        tuple(i.reason for i in pack.items),
        pack.used_chars,
    )


def turn_recall(ids: Sequence[str], turn_of: dict[str, str], evidence: Sequence[str]) -> float:
    """Share of the ``evidence`` turn ids whose fragment is among ``ids``."""
    found = {turn_of[i] for i in ids if i in turn_of}
    return len(found.intersection(evidence)) / len(set(evidence))


@dataclass
class MethodResult:
    """Per-question figures of one method, in question order."""

    name: str
    recall: list[float] = field(default_factory=list)
    recall_whole: list[float] = field(default_factory=list)
    items: list[int] = field(default_factory=list)
    chars: list[int] = field(default_factory=list)
    reasons: Counter[str] = field(default_factory=Counter)
    evidence_by_reason: Counter[str] = field(default_factory=Counter)
    truncated: int = 0
    seconds_per_query: float = 0.0

    def add(self, packed: Packed, turn_of: dict[str, str], evidence: Sequence[str]) -> None:
        self.recall.append(turn_recall(packed.ids, turn_of, evidence))
        self.recall_whole.append(turn_recall(packed.whole_ids, turn_of, evidence))
        self.items.append(len(packed.ids))
        self.chars.append(packed.chars)
        self.reasons.update(packed.reasons)
        self.truncated += len(packed.ids) - len(packed.whole_ids)
        wanted = set(evidence)
        for fragment_id, reason in zip(packed.ids, packed.reasons, strict=True):
            if turn_of.get(fragment_id) in wanted:
                self.evidence_by_reason[reason] += 1


@dataclass
class BudgetFigures:
    turns: int
    conversations: int
    questions: int
    categories: list[int]  # per question
    methods: dict[str, MethodResult]
    add_seconds: float


def _methods(mx: Memex) -> dict[str, Callable[[str, str], Packed]]:
    """Method name -> (question, conversation) -> the context it gets."""

    def searched(
        mode: str, pick: Callable[[Sequence[tuple[str, str]]], Packed]
    ) -> Callable[[str, str], Packed]:
        def run(question: str, conversation: str) -> Packed:
            found = mx.search(
                question,
                mode=mode,
                limit=SEARCH_LIMIT,
                time_phrases=False,
                conversation=conversation,
            )
            return pick([(r.fragment.id, r.fragment.content) for r in found])

        return run

    def packed(mode: str) -> Callable[[str, str], Packed]:
        def run(question: str, conversation: str) -> Packed:
            return from_pack(
                mx.context(
                    question,
                    budget_chars=BUDGET,
                    mode=mode,
                    time_phrases=False,
                    conversation=conversation,
                )
            )

        return run

    return {
        "hybrid, whole hits": searched("hybrid", lambda hits: fit_whole(hits, BUDGET)),
        "hybrid, context pack": packed("hybrid"),
        "keyword, whole hits": searched("keyword", lambda hits: fit_whole(hits, BUDGET)),
        "keyword, context pack": packed("keyword"),
        f"hybrid, top {TOP_K} (no budget)": searched("hybrid", lambda hits: top_k(hits, TOP_K)),
    }


def measure(ctx: RunContext) -> BudgetFigures:
    """Build the LoCoMo home and score every method on every question."""
    data = subset(load_locomo(), ctx.sizes.locomo_conversations)
    questions = data.questions[:QUICK_QUESTIONS] if ctx.quick else data.questions
    fragments = list(locomo_fragments(data))
    turn_of = {f.id: f.provenance.source_id for f in fragments}
    mx = ctx.memex(ctx.home("context_budget"))
    try:
        log(f"context budget: adding {len(fragments):,} turns (embedding what is new)")
        started = time.perf_counter()
        mx.add_fragments(fragments, origin="bench:locomo-dev", progress=StderrProgress())
        add_seconds = time.perf_counter() - started
        results: dict[str, MethodResult] = {}
        for name, method in _methods(mx).items():
            log(f"  {name}: {len(questions)} questions")
            ctx.query_vectors.clear()  # each method pays for embedding its queries
            result = MethodResult(name)
            started = time.perf_counter()
            for question in questions:
                packed = method(question.question, question.conversation_id)
                result.add(packed, turn_of, question.evidence)
            result.seconds_per_query = (time.perf_counter() - started) / max(len(questions), 1)
            results[name] = result
    finally:
        mx.close()
    return BudgetFigures(
        turns=len(fragments),
        conversations=len({t.conversation_id for t in data.turns}),
        questions=len(questions),
        categories=[q.category for q in questions],
        methods=results,
        add_seconds=add_seconds,
    )


def _share(counter: Counter[str], key: str) -> str:
    total = sum(counter.values())
    return f"{counter[key] / total:.0%}" if total else "-"


def render(figures: BudgetFigures, section: Section) -> Section:
    methods = figures.methods
    hybrid_whole, hybrid_pack = methods["hybrid, whole hits"], methods["hybrid, context pack"]
    section.checks.append(
        Check(
            f"LoCoMo dev recall in {BUDGET:,} chars, hybrid context pack",
            f"{mean(hybrid_pack.recall):.3f}",
            "-",
            f"hybrid whole hits {mean(hybrid_whole.recall):.3f}",
        )
    )
    rows: list[list[object]] = []
    for result in methods.values():
        pack = "context pack" in result.name
        rows.append(
            [
                result.name,
                f"{mean(result.recall):.3f}",
                f"{mean(result.recall_whole):.3f}" if pack else "(all whole)",
                f"{mean(result.items):.1f}",
                f"{mean(result.chars):,.0f}",
                f"{result.truncated / max(sum(result.items), 1):.0%}" if pack else "-",
                f"{result.seconds_per_query * 1000:.1f} ms",
            ]
        )
    reason_rows: list[list[object]] = []
    for r in methods.values():
        if "context pack" in r.name:
            brought = ", ".join(f"{reason} {r.evidence_by_reason[reason]}" for reason in REASONS)
            total = sum(r.evidence_by_reason.values())
            shares = [_share(r.reasons, reason) for reason in REASONS]
            reason_rows.append([r.name, *shares, f"{brought} (of {total})"])
    category_rows: list[list[object]] = []
    for category, label in CATEGORIES.items():
        members = [i for i, c in enumerate(figures.categories) if c == category]
        if members:
            category_rows.append(
                [label, len(members)]
                + [f"{mean([r.recall[i] for i in members]):.3f}" for r in methods.values()]
            )
    section.add(
        f"{figures.turns:,} turns from {figures.conversations} conversation(s) in one home (as in "
        f"benchmark 4); {figures.questions} questions, each searched within its own "
        f"conversation with `time_phrases=False`. Budget: {BUDGET:,} characters of fragment "
        f"text. *Whole hits*: `search(limit={SEARCH_LIMIT})` in rank order, whole fragments "
        "while the total fits (stopping at the first that does not). *Context pack*: "
        f"`context(budget_chars={BUDGET})` at its defaults (seeds up to 70% of the budget, "
        "items cut to 600 characters around the query words, links, then recent turns of the "
        "conversation). Recall: share of a question's evidence turns whose fragment is in the "
        "context; *whole items only* counts just the pack's untruncated items. The last row "
        "is benchmark 4's recall@10, which ignores the budget.",
        table(
            [
                "method",
                "evidence recall",
                "recall, whole items only",
                "mean items",
                "mean chars used",
                "items truncated",
                "time per question",
            ],
            rows,
        ),
        "Context pack items by reason (share of all items), and the evidence turns each "
        "reason brought in (counted over all questions):",
        table(["method", *REASONS, "evidence turns by reason"], reason_rows),
        "Evidence recall by question category:",
        table(["category", "questions", *methods], category_rows),
        f"Adding the turns took {figures.add_seconds:.0f} s (vectors embedded by an earlier "
        "phase of the same run are reused). Time per question includes embedding the query.",
    )
    return section


def run(ctx: RunContext) -> Section:
    section = Section(
        "context_budget", f"6. LoCoMo evidence recall within a {BUDGET:,}-character context"
    )
    reason = missing(locomo_file()) or ctx.embedder_available()
    if reason:
        section.skipped = reason
        return section
    return render(measure(ctx), section)
