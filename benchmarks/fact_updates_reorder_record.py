"""Record what recall's newer-first step sees on benchmark 21's tuning splits (never fresh),
for the study of a learned reorder (:mod:`benchmarks.fact_updates_reorder`).

Every case of the splits asked is told to one home (the ``on`` variant of
:mod:`benchmarks.fact_updates_e2e`); each current question of an update and each question of
an unrelated pair's fact is asked, and what ``newer_first`` was handed (the hits, their
validity, their vectors) is kept with the fact that should lead and the fact that led::

    nice python -m benchmarks.fact_updates_reorder_record --splits broad --out /dev/shm/r.pkl
"""

from __future__ import annotations

import argparse
import pickle
import shutil
from pathlib import Path
from typing import Any

import memex_core.facade.reading as reading
from benchmarks.context import log, write_config
from benchmarks.fact_updates_cases import FRESH, TUNING_FILES, UNRELATED, load, pair_questions
from benchmarks.fact_updates_e2e import VARIANTS
from benchmarks.fact_updates_memex import cached_context
from memex_core.api import Memex
from memex_core.domain import SEMANTIC
from memex_core.services.slot_signal import SLOT


def _hit(result: Any) -> dict[str, Any]:
    return {
        "memory_id": result.fragment.conversation_id,
        "fragment_id": result.fragment.id,
        "owner": result.fragment.owner,
        "text": result.fragment.content,
        "semantic": result.scores.get(SEMANTIC),
        "slot": result.ranks.get(SLOT),
        "score": result.score,
        "ranks": dict(result.ranks),
        "scores": dict(result.scores),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", default="dev,test,broad", type=lambda s: s.split(","))
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    if FRESH in args.splits:
        parser.error("fresh is the held-out split: measured once, by benchmarks.run")
    cases = [c for c in load(TUNING_FILES) if c.split in args.splits]
    questions = pair_questions()
    ctx = cached_context("fact-updates-reorder-", cases)
    tmp = ctx.tmp
    seen: dict[str, Any] = {}
    plain = reading.newer_first

    def recording(results: Any, valid_from: Any, vectors_of: Any, **options: Any) -> Any:
        ids = [r.fragment.id for r in results]
        out = plain(results, valid_from, vectors_of, **options)
        seen["hits"] = [_hit(r) for r in results]
        seen["valid_from"] = dict(valid_from)
        seen["vectors"] = {
            k: list(v) for k, v in (vectors_of(ids) if vectors_of is not None else {}).items()
        }
        return out

    reading.newer_first = recording  # type: ignore[assignment]
    records: list[dict[str, Any]] = []
    try:
        home = ctx.home("reorder")
        write_config(home, VARIANTS["on"])
        with Memex(home=home, registry=ctx.registry()) as mx:
            for number, case in enumerate(cases, 1):
                ids = [
                    (mx.remember(f.text, user=case.user, at=f.at).memory_ids or [""])[0]
                    for f in case.facts
                ]
                asks: list[tuple[str, str, str]] = []
                if case.type == UNRELATED:
                    asks = [("pair", p.question, ids[p.fact]) for p in questions.get(case.id, ())]
                elif case.current is not None:
                    asks = [("current", case.question, ids[case.current.fact])]
                for kind, question, want in asks:
                    seen.clear()
                    hits = mx.recall(question, user=case.user, limit=5)
                    records.append(
                        {
                            "split": case.split,
                            "case": case.id,
                            "kind": kind,
                            "query": question,
                            "want": want,
                            "top": hits[0].memory_id if hits else "",
                            "final": [h.memory_id for h in hits],
                            **seen,
                        }
                    )
                if number % 200 == 0:
                    log(f"reorder record: {number}/{len(cases)} cases")
    finally:
        reading.newer_first = plain
        shutil.rmtree(tmp, ignore_errors=True)
    args.out.write_bytes(pickle.dumps(records))
    log(f"{len(records)} questions recorded to {args.out}")


if __name__ == "__main__":
    main()
