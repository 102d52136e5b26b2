"""Benchmark 4c (issue 33, levers 3 and 4): turns with their context as retrieval units,
and time phrases once the turns carry their session's date.

Scored like section 4b (:mod:`benchmarks.locomo_levers`): on the lever study's cached
candidates, per held-out conversation; a variant that changes a signal replaces that
signal's candidates (:mod:`benchmarks.locomo_units`, :mod:`benchmarks.locomo_time`).
Only the time boost has anything to choose (its weight), and it is chosen on four
conversations and scored on the fifth; every other row is a fixed setting.

``python -m benchmarks.locomo_context_levers`` prints the section.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import numpy as np

from benchmarks import locomo_fusion as lf
from benchmarks import locomo_time as lt
from benchmarks import locomo_units as lu
from benchmarks.context import RunContext, log
from benchmarks.locomo_candidates import Study, load
from benchmarks.locomo_dated import Dated, load_dated
from benchmarks.report import Section, table

PerQuery = list[tuple[float, float]]
#: Texts per embedding-rate sample (each kind timed twice, alternating).
RATE_SAMPLE = 256


def row(study: Study, label: str, per_query: PerQuery, subset: Sequence[int] = ()) -> list[object]:
    folds = lf.fixed(study, per_query)
    at10, at5 = lf.micro(per_query)
    part = f"{lt.subset_recall(per_query, subset):.3f}" if subset else "-"
    convs = lf.conversations(study)
    return [label, f"{at10:.3f}", f"{at5:.3f}", part, *(f"{folds.at10[c]:.3f}" for c in convs)]


def cv_row(study: Study, label: str, grid: dict, subset: Sequence[int]) -> tuple[list[object], str]:
    """The grid's setting best on four conversations, scored on the fifth, per fold."""
    out: PerQuery = [(0.0, 0.0)] * len(study.questions)
    picked = []
    for conv in lf.conversations(study):
        train = [i for i, q in enumerate(study.questions) if q.conversation != conv]
        best = max(grid, key=lambda key: sum(grid[key][i][0] for i in train))
        picked.append(f"{conv}: weight {best[0]:g}, before x{best[1]:g}")
        for i, q in enumerate(study.questions):
            if q.conversation == conv:
                out[i] = grid[best][i]
    return row(study, label, out, subset), "; ".join(picked)


def keyword_rows(study: Study, dated: Dated) -> list[list[object]]:
    out = []
    for label, fragments in (
        ("3c. the session's date and speakers in the keyword title line", {"title": True}),
        ("captions: a shared photo's caption in the keyword text", {"captions": True}),
    ):
        hits, shares = lu.keyword_hits(study, lu.dated_fragments(dated, **fragments))
        out.append(row(study, label, lu.with_keyword(study, hits, shares)))
    return out


def vector_rows(study: Study, dated: Dated, vectors: lu.Vectors) -> list[list[object]]:
    ids = list(study.turns)
    own = dict(zip(ids, vectors.of([lu.own_text(study, f) for f in ids]), strict=True))
    with_date = dict(
        zip(ids, vectors.of([lu.dated_text(study, dated, f) for f in ids]), strict=True)
    )
    windows = {f: w for f in ids if (w := lu.window_text(study, f)) is not None}
    window = dict(zip(windows, vectors.of(list(windows.values())), strict=True))
    captioned = dict(
        zip(ids, vectors.of([lu.captioned_text(study, dated, f) for f in ids]), strict=True)
    )

    def around(
        fid: str,
    ) -> np.ndarray:  # the windows a turn is in: it and the next; the last and it
        before = study.neighbour(fid, -1)
        rows = [window[k] for k in (fid, before) if k is not None and k in window]
        return np.stack(rows)

    queries = vectors.queries([q.question for q in study.questions])
    units = {
        "the turn alone, exact cosine (memex's vector index: the baseline)": {
            f: own[f][None] for f in ids
        },
        "3a. max(turn, turn with speaker and session date)": {
            f: np.stack([own[f], with_date[f]]) for f in ids
        },
        "3b. windows of two turns (each scores both its turns)": {f: around(f) for f in ids},
        "3b. max(turn, its two windows)": {f: np.vstack([own[f][None], around(f)]) for f in ids},
        "captions: a shared photo's caption in the turn's vector": {
            f: captioned[f][None] for f in ids
        },
    }
    out = []
    nearest = {}
    for label, table_ in units.items():
        nearest[label] = hits = lu.nearest(study, queries, table_)
        out.append(row(study, label, lu.with_semantic(study, hits)))
    dated_only = lu.nearest(study, queries, {f: with_date[f][None] for f in ids})
    window_only = nearest["3b. windows of two turns (each scores both its turns)"]
    for label, extra in (
        (
            "3a. turn with speaker and date as a third RRF signal (1/4 of the semantic weight)",
            dated_only,
        ),
        ("3b. windows as a third RRF signal (1/4 of the semantic weight)", window_only),
    ):
        per_query = [
            lf.recalls(study, q, lu.three_way(q, extra[i], 0.25, study.floor))
            for i, q in enumerate(study.questions)
        ]
        out.append(row(study, label, per_query))
    return out


def time_rows(study: Study) -> tuple[list[list[object]], list[str], int, int]:
    ts = lt.load_time(study)
    replay = lt.Replay(ts)
    today, last = sorted(ts.phrases["today"]), sorted(ts.phrases["last session"])
    rows = [row(study, "defaults, time phrases off (section 4's setting)", replay.off(), today)]
    notes = []
    for reading, subset in (("today", today), ("last session", last)):
        per_query, fell_back = replay.filtered(reading)
        label = f"4i. default time filter, phrase read against {reading}"
        rows.append(row(study, label, per_query, subset))
        notes.append(f"read against {reading}: {len(subset)} questions, {fell_back} fell back")
    for stripped in (False, True):
        words = "phrase left out of the words" if stripped else "question as written"
        label = f"4ii. date-distance boost instead, by CV ({words}; against last session)"
        line, picked = cv_row(study, label, replay.boost_grid("last session", stripped), last)
        rows.append(line)
        notes.append(f"boost picks ({words}): {picked}")
    return rows, notes, len(today), len(last)


def rates(vectors: lu.Vectors, study: Study, dated: Dated) -> dict[str, float]:
    """Bare embedder texts/s on the turn, the turn with its date, and a window (same run,
    alternating, best of two)."""
    ids = list(study.turns)[:RATE_SAMPLE]
    kinds = {
        "turn": [lu.own_text(study, f) for f in ids],
        "turn with date": [lu.dated_text(study, dated, f) for f in ids],
        "window of two turns": [lu.window_text(study, f) or lu.own_text(study, f) for f in ids],
    }
    best: dict[str, float] = {}
    for _ in range(2):
        for kind, texts in kinds.items():
            best[kind] = max(best.get(kind, 0.0), vectors.rate(texts))
    return best


def run(ctx: RunContext | None = None) -> Section:
    section = Section(
        "locomo_context_levers", "4c. LoCoMo levers 3 and 4: turn units and dated time phrases"
    )
    study, dated = load(), load_dated()
    convs = lf.conversations(study)
    log("LoCoMo levers 3 and 4: keyword variants")
    base = lf.score_all(study, lambda q: lf.hybrid(q, lf.Fusion(), study.floor))
    rows = [row(study, "defaults (section 4b's first row)", base)]
    rows += keyword_rows(study, dated)
    log("LoCoMo levers 3 and 4: vector variants")
    vectors = lu.Vectors()
    rows += vector_rows(study, dated, vectors)
    log("LoCoMo levers 3 and 4: time phrases")
    time_table, notes, n_today, n_last = time_rows(study)
    speed = rates(vectors, study, dated)
    header = ["lever", "recall@10", "recall@5", "phrase questions @10", *convs]
    section.add(
        f"{len(study.questions)} questions, held out by conversation as in section 4b (columns "
        "five on: recall@10 of each conversation). Nothing below is tuned except the time "
        "boost's weight (picked on four conversations, scored on the fifth). Vector rows "
        "use exact cosine within the conversation over MiniLM vectors (the baseline row "
        "reproduces memex's vector index exactly); keyword rows rebuild memex's BM25 store "
        "from the same turn context memex indexes.",
        "Lever 3, what a turn is indexed as:",
        table(header, rows),
        f"Lever 4: each turn dated by its session. {n_today} questions hold a phrase read "
        f"against today ({n_last} against the conversation's last session; the questions "
        "carry no date, so they are asked after it at the earliest). The filter searches "
        "every turn of the conversation in the period; when the floor leaves nothing it "
        "searches the question as written (memex's fallback).",
        table(header, time_table),
        "; ".join(notes) + ".",
        "Embedding rate of the bare embedder (texts/s, best of two, same run): "
        + ", ".join(f"{kind} {rate:.0f}" for kind, rate in speed.items())
        + f". A second vector per turn embeds every turn twice: ingest's embedding time "
        f"grows by {speed['turn'] / speed['turn with date']:.2f}x (with the date) or "
        f"{speed['turn'] / speed['window of two turns']:.2f}x (windows) of the turn's own.",
    )
    return section


def main() -> int:
    section = run()
    print("\n\n".join(section.body))
    return 0


if __name__ == "__main__":
    sys.exit(main())

__all__ = ["main", "run"]
