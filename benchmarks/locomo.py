"""Benchmark 4: LoCoMo (development split) evidence recall@10 through the real Memex pipeline.

One home holds every turn of the development conversations, one fragment per
turn with content ``"speaker: text"`` and role ``user`` or ``assistant`` (the two
speakers), so memex indexes them as conversation turns, with turn context
(``[index]``) as it would a chat export. Each question searches its own
conversation (the ``conversation`` filter) and scores the share of its evidence
turns among the top 10. Category 5 (adversarial) is skipped, as are evidence ids
that name no turn of the conversation; a question left without evidence is skipped.
"""

from __future__ import annotations

import time
from collections import defaultdict

import numpy as np

from benchmarks import quality, sweep
from benchmarks.context import RunContext, StderrProgress, log
from benchmarks.data import LocomoSet, Question, load_locomo, locomo_file, missing
from benchmarks.fragments import locomo_fragments
from benchmarks.metrics import mean, recall_at_k
from benchmarks.report import Check, Section, table
from memex_core.api import make_filters
from memex_core.config import DEFAULT_COMPONENTS

TARGET_HYBRID = 0.72  # issue 6
REFERENCE = {"keyword": 0.527, "semantic": 0.508, "hybrid": 0.576}
PEER_NAMES = {"keyword": "rank_bm25", "semantic": "exact cosine", "hybrid": "RRF of both"}
CATEGORIES = {1: "1 multi-hop", 2: "2 temporal", 3: "3 open-domain", 4: "4 single-hop"}


def subset(data: LocomoSet, conversations: int | None) -> LocomoSet:
    """Quick runs: the first ``conversations`` conversations and their questions."""
    if conversations is None:
        return data
    keep = list(dict.fromkeys(t.conversation_id for t in data.turns))[:conversations]
    return LocomoSet(
        [t for t in data.turns if t.conversation_id in keep],
        [q for q in data.questions if q.conversation_id in keep],
        data.skipped_category5,
        data.malformed_ids,
        data.skipped_no_evidence,
    )


def recall_task(data: LocomoSet) -> quality.Task:
    """Evidence recall@10 of each question, searched within its own conversation."""
    questions = data.questions
    return quality.Task(
        queries=[q.question for q in questions],
        filters=[make_filters(conversation=q.conversation_id) for q in questions],
        score=lambda i, ranked: recall_at_k(ranked, questions[i].evidence, 10),
        key=lambda result: result.fragment.provenance.source_id,
    )


def by_conversation_blocks(sweeper: sweep.Sweeper, questions: list[Question]) -> list[str]:
    """Hybrid recall per conversation, and a leave-one-conversation-out check.

    The data holds five conversations and no held-out split, so each conversation in
    turn is held out: the best hybrid setting of the whole sweep on the other four is
    scored on it, next to the defaults (chosen for the general case, not per split).
    """
    groups: dict[str, list[int]] = defaultdict(list)
    for index, question in enumerate(questions):
        groups[question.conversation_id].append(index)
    hybrid = {k: o for (k, mode), o in sweeper.outcomes.items() if mode == "hybrid"}
    base, previous = sweeper.base, sweeper.outcome(sweep.PREVIOUS_DEFAULTS)

    def on(outcome: quality.Outcome, members: list[int]) -> float:
        return mean([outcome.per_query[i] for i in members])

    rows: list[list[object]] = []
    for conversation, members in groups.items():
        held_out = set(members)
        others = [i for i in range(len(questions)) if i not in held_out]
        tuned = max(hybrid, key=lambda k: (on(hybrid[k], others), k == base))
        rows.append(
            [
                conversation,
                len(members),
                f"{on(previous, members):.3f}",
                f"{on(hybrid[base], members):.3f}",
                f"{on(hybrid[tuned], members):.3f} ({sweep.describe(tuned, base)})",
            ]
        )
    return [
        "Hybrid recall@10 per conversation. Leave one conversation out: the best of the "
        f"{len(hybrid)} hybrid settings above on the other four conversations, scored on the "
        "one left out (what tuning on this data would get on a new conversation):",
        table(
            [
                "conversation",
                "questions",
                "previous defaults",
                "defaults",
                "tuned on the other four",
            ],
            rows,
        ),
    ]


def _ranker_note() -> list[str]:
    """Why the hybrid figure is in-sample when the default ranker is the learned rerank."""
    if DEFAULT_COMPONENTS["ranker"] != "rerank":
        return []
    return [
        "The default ranker, rerank, re-orders the hybrid candidates with a model fitted on "
        "these five conversations, so the hybrid figure here is not held out: section 4b "
        "scores each conversation with a model fitted on the other four, the figure to "
        'expect on a new conversation. `[ranker] use = "rrf"` ranks by the fusion alone.'
    ]


def run(ctx: RunContext) -> Section:
    section = Section("locomo", "4. LoCoMo evidence recall@10")
    reason = missing(locomo_file()) or ctx.embedder_available()
    if reason:
        section.skipped = reason
        return section
    data = subset(load_locomo(), ctx.sizes.locomo_conversations)
    questions = data.questions
    task = recall_task(data)
    home = ctx.home("locomo")
    mx = ctx.memex(home)
    fragments = list(locomo_fragments(data))
    log(f"LoCoMo: adding {len(fragments):,} turns (embedding them)")
    started = time.perf_counter()
    mx.add_fragments(fragments, origin="bench:locomo-dev", progress=StderrProgress())
    add_seconds = time.perf_counter() - started
    ours = quality.evaluate_modes(ctx, mx, task)
    time_phrases = quality.time_phrase_line(mx, task, "recall@10", "questions")

    log("LoCoMo: peers per conversation (rank_bm25, exact cosine, RRF over full rankings)")
    query_vectors = np.array([mx.embedder.embed_query(q) for q in task.queries], dtype=np.float32)
    peer_scores: dict[str, list[float]] = defaultdict(list)
    by_conversation: dict[str, list[int]] = defaultdict(list)
    for index, question in enumerate(questions):
        by_conversation[question.conversation_id].append(index)
    for conv_id, indices in by_conversation.items():
        turns = [f for f in fragments if f.conversation_id == conv_id]
        texts = [f.content for f in turns]  # as stored (message_fragments strips the text)
        doc_vectors = np.stack([ctx.vectors[t] for t in texts])
        peers = quality.peer_rankings(
            texts, doc_vectors, [task.queries[i] for i in indices], query_vectors[indices]
        )
        for mode, rankings in (
            ("keyword", peers.keyword),
            ("semantic", peers.semantic),
            ("hybrid", peers.fused),
        ):
            for i, ranking in zip(indices, rankings, strict=True):
                ranked = [turns[j].provenance.source_id for j in ranking[:10]]
                peer_scores[mode].append(task.score(i, ranked))
    peer_means = {mode: mean(values) for mode, values in peer_scores.items()}

    hybrid = ours["hybrid"].mean
    section.checks.append(
        Check(
            "LoCoMo dev evidence recall@10, hybrid",
            f"{hybrid:.3f}",
            f">= {TARGET_HYBRID:g}",
            f"RRF of rank_bm25 + exact cosine {peer_means['hybrid']:.3f} (reference "
            f"{REFERENCE['hybrid']})",
            hybrid >= TARGET_HYBRID,
        )
    )
    for mode in ("keyword", "semantic"):
        section.checks.append(
            Check(
                f"LoCoMo dev evidence recall@10, {mode}",
                f"{ours[mode].mean:.3f}",
                "-",
                f"{PEER_NAMES[mode]} {peer_means[mode]:.3f} (reference {REFERENCE[mode]})",
            )
        )
    rows: list[list[object]] = [
        [
            mode,
            f"{ours[mode].mean:.3f}",
            f"{peer_means[mode]:.3f} ({PEER_NAMES[mode]})",
            REFERENCE[mode],
            f"{ours[mode].seconds_per_query * 1000:.1f} ms",
        ]
        for mode in quality.MODES
    ]
    category_rows: list[list[object]] = []
    for category, label in CATEGORIES.items():
        members = [i for i, q in enumerate(questions) if q.category == category]
        if members:
            category_rows.append(
                [label, len(members)]
                + [f"{mean([ours[m].per_query[i] for i in members]):.3f}" for m in quality.MODES]
            )
    conversations = len({t.conversation_id for t in data.turns})
    section.add(
        f"{len(fragments):,} turns from {conversations} conversations in one home, memex at its "
        f"defaults ({sweep.describe_defaults(sweep.memex_defaults())}); "
        f"{len(questions)} questions (skipped: {data.skipped_category5} of category 5, "
        f"{data.skipped_no_evidence} left without valid evidence; evidence ids dropped as "
        f"malformed: {', '.join(repr(i) for i in data.malformed_ids) or 'none'}).",
        table(
            [
                "mode",
                "memex recall@10",
                "peer, same run (per conversation, full rankings)",
                "reference (data README)",
                "memex time per query",
            ],
            rows,
        ),
        *_ranker_note(),
        "By question category (memex, recall@10; category names as commonly used):",
        table(["category", "questions", *quality.MODES], category_rows),
        "Peers: each conversation indexed on its own (rank_bm25 on lowercase `\\w+` tokens, "
        "exact cosine over the vectors memex stored, RRF k=60 over the two full rankings); "
        "memex searches one shared home with the conversation filter, so its BM25 statistics "
        f"span all conversations. Target: hybrid >= {TARGET_HYBRID:g}.",
        time_phrases,
        f"Adding the turns (embedding included) took {add_seconds:.0f} s.",
    )
    if ctx.sizes.sweeps:
        mx, blocks = sweep.run(
            ctx,
            mx,
            home,
            task,
            "recall@10",
            ours,
            TARGET_HYBRID,
            conversations=True,
            extra=lambda sweeper: by_conversation_blocks(sweeper, questions),
        )
        section.add(*blocks)
    mx.close()
    return section
