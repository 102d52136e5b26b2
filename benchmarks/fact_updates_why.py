"""Why recall's newer-first (issue 30) left an older fact on top: a diagnostic over the
tuning splits (dev, test, broad, blind; never fresh).

Each case of the splits asked is told to one home (the rules judge, MiniLM + Chroma with the
facts' vectors from the bench cache, every recall switch on), its question asked now, and
for each case whose current fact is not on top this prints the facts, what led, and what
held the current fact back: not among the hits (under the floor, or past the page), alone
with no other memory hit, another owner, the slot reading picked the top fact alone, the
question margin (the ratio of the two facts' distances from the question), their mutual
similarity, or not newer. The home holds only the updates (not the unrelated pairs), so a
figure or two may differ from ``benchmarks.fact_updates_e2e``::

    nice python -m benchmarks.fact_updates_why --splits broad
"""

from __future__ import annotations

import argparse
import shutil
from collections import Counter
from math import sqrt
from typing import Any

import memex_core.facade.reading as reading
from benchmarks.context import write_config
from benchmarks.fact_updates_cases import FRESH, TUNING_FILES, UNRELATED, Case, load
from benchmarks.fact_updates_e2e import VARIANTS
from benchmarks.fact_updates_memex import cached_context
from memex_core.api import Memex
from memex_core.domain import SEMANTIC
from memex_core.services.newer_first import pair_terms
from memex_core.services.slot_signal import SLOT


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", default="dev,test,broad", type=lambda s: s.split(","))
    asked = parser.parse_args(argv).splits
    if FRESH in asked:
        parser.error("fresh is the held-out split: measured once, by benchmarks.run")
    cases = [c for c in load(TUNING_FILES) if c.split in asked and _update(c)]
    ctx = cached_context("fact-updates-why-", cases)
    tmp = ctx.tmp
    seen: dict[str, Any] = {}
    plain = reading.newer_first

    def recording(results: Any, valid_from: Any, vectors_of: Any, **options: Any) -> Any:
        ids = [r.fragment.id for r in results]
        seen.update(results=list(results), valid_from=valid_from, options=options)
        seen["vectors"] = vectors_of(ids) if vectors_of is not None else {}
        return plain(results, valid_from, vectors_of, **options)

    reading.newer_first = recording  # type: ignore[assignment]
    tally: Counter[str] = Counter()
    try:
        home = ctx.home("why")
        write_config(home, VARIANTS["on"])
        with Memex(home=home, registry=ctx.registry()) as mx:
            for case in cases:
                ids = [
                    (mx.remember(f.text, user=case.user, at=f.at).memory_ids or [""])[0]
                    for f in case.facts
                ]
                seen.clear()
                hits = mx.recall(case.question, user=case.user, limit=5)
                want = ids[case.current.fact]  # type: ignore[union-attr]
                if hits and hits[0].memory_id == want:
                    continue
                reasons = _why(seen, want, hits[0].memory_id if hits else "")
                tally.update(reason.split(" ")[0] for reason in reasons)
                print(f"{case.split} {case.id} | Q: {case.question}")
                for n, fact in enumerate(case.facts):
                    print(f"   {'*' if ids[n] == want else ' '} {fact.text}")
                top = ids.index(hits[0].memory_id) if hits and hits[0].memory_id in ids else "-"
                print(f"   top: fact {top}; held back by: {', '.join(reasons)}")
    finally:
        reading.newer_first = plain
        shutil.rmtree(tmp, ignore_errors=True)
    print("misses by reason (a miss may have several):", dict(tally.most_common()))


def _update(case: Case) -> bool:
    return case.type != UNRELATED and case.current is not None


def _why(seen: dict[str, Any], want: str, top: str) -> list[str]:
    """What kept ``want`` under ``top`` in the last search newer-first saw."""
    results = seen.get("results")
    if not results:
        return ["alone (fewer than two memory hits)"]
    by_id = {r.fragment.conversation_id: r for r in results}
    if want not in by_id:
        return ["not among the hits (floor or page)"]
    a, b = by_id[top], by_id[want]
    when = seen["valid_from"]
    if when.get(want, 0.0) <= when.get(top, 0.0):
        return ["not newer"]
    # newer-first's own terms for the pair, with the tests recall handed it
    similarity, margin, pick_holds = pair_terms(a, b, when, **seen["options"])
    found = []
    if a.fragment.owner != b.fragment.owner:
        found.append("another owner")
    if pick_holds and a.ranks.get(SLOT) is not None and b.ranks.get(SLOT) is None:
        found.append("slot picked the top fact alone")
    close_a, close_b = a.scores.get(SEMANTIC), b.scores.get(SEMANTIC)
    if close_a is not None and close_b is not None:
        ratio = (1.0 - close_b) / max(1.0 - close_a, 1e-9)
        if ratio > 1.0 + margin:
            found.append(f"margin {ratio:.3f} > {1.0 + margin:.2f}")
    va, vb = seen["vectors"].get(a.fragment.id), seen["vectors"].get(b.fragment.id)
    if va is not None and vb is not None:
        cosine = sum(x * y for x, y in zip(va, vb, strict=False)) / (
            sqrt(sum(x * x for x in va)) * sqrt(sum(y * y for y in vb)) or 1.0
        )
        if cosine < similarity:
            found.append(f"similarity {cosine:.2f} < {similarity:.2f}")
    return found or ["another hit grouped first"]


if __name__ == "__main__":
    main()
