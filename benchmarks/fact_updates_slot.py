"""Benchmark: what recall's slot signal (issue 30) does for knowledge-update questions.

One home with the default components (MiniLM, Chroma, the configured supersession judge),
each update and late case of benchmark 21 (:mod:`benchmarks.fact_updates_cases`, dev and
test splits) remembered under a user of its own, in the order said; then each question is
asked with the slot signal and without it (``Reader._answering`` answering None, as for a
question the judge cannot read), now and as of the case's earlier time, with the relevance
floor on (auto) and off. Same home, same judge, same closings: the difference is the signal
alone. Prints one line per split, signal and floor (top hit right, and questions with no hit).

Standalone only (~15 minutes on a loaded 2-core machine):
``nice python -m benchmarks.fact_updates_slot``.
"""

from __future__ import annotations

import tempfile
import time
from collections import Counter
from typing import Any

from benchmarks.fact_updates_cases import DEV, TEST, UNRELATED, Case, iso, load
from benchmarks.fact_updates_memex import LIMIT
from memex_core.api import Memex
from memex_core.domain.search_options import SearchOptions
from memex_core.facade.reading import Reader

SIGNALS = ("off", "on")
FLOORS = ("auto", "off")


def _no_signal(self: Reader, query: str, filters: Any, mode: str) -> None:
    return None


def _ask(mx: Memex, case: Case, ids: list[str], tally: Counter[tuple[str, ...]]) -> None:
    assert case.current is not None and case.as_of is not None and case.as_of.at is not None
    real = Reader._answering
    try:
        for signal in SIGNALS:
            Reader._answering = real if signal == "on" else _no_signal  # type: ignore[method-assign]
            for when, pick, at in (
                ("now", case.current, None),
                ("as_of", case.as_of, iso(case.as_of.at)),
            ):
                for floor in FLOORS:
                    asked = SearchOptions(query=case.question, limit=LIMIT, floor=floor, as_of=at)
                    hits = mx.agent(case.user).search(asked)
                    top = hits[0].memory_id if hits else ""
                    key = (case.split, signal, when, floor)
                    tally[(*key, "asked")] += 1
                    tally[(*key, "right")] += top == ids[pick.fact]
                    tally[(*key, "empty")] += top == ""
    finally:
        Reader._answering = real  # type: ignore[method-assign]


def main() -> None:
    cases = [c for c in load() if c.type != UNRELATED and c.current and c.as_of]
    tally: Counter[tuple[str, ...]] = Counter()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder, Memex(home=folder + "/home") as mx:
        for number, case in enumerate(cases, 1):
            ids = []
            for fact in case.facts:
                result = mx.remember(fact.text, user=case.user, at=fact.at)
                ids.append(result.memory_ids[0] if result.memory_ids else "")
            _ask(mx, case, ids, tally)
            if number % 100 == 0:
                print(f"{number}/{len(cases)} cases, {time.perf_counter() - started:.0f} s")
    for split in (DEV, TEST):
        for signal in SIGNALS:
            for floor in FLOORS:
                parts = []
                for when in ("now", "as_of"):
                    key = (split, signal, when, floor)
                    right, asked = tally[(*key, "right")], tally[(*key, "asked")]
                    parts.append(
                        f"{when} {right}/{asked} = {right / max(asked, 1):.3f} "
                        f"(no hit {tally[(*key, 'empty')]})"
                    )
            print(f"{split}, slot signal {signal}, floor {floor}: " + "; ".join(parts))


if __name__ == "__main__":
    main()
