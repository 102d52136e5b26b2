"""benchmarks.fact_updates_slot asks each question with and without the slot signal, on one
home, and leaves the reader as it found it (a small home with the embedding doubles)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from benchmarks.fact_updates_cases import UPDATE, load
from benchmarks.fact_updates_slot import _ask
from memex_core.facade.reading import Reader
from tests.support.supersession_doubles import judged_memex


def test_each_question_is_asked_with_and_without_the_signal(memex_home: Path) -> None:
    case = next(c for c in load() if c.type == UPDATE and c.id.startswith("w-employer"))
    real = Reader._answering
    mx = judged_memex(memex_home)
    try:
        ids = [mx.remember(f.text, user=case.user, at=f.at).memory_ids[0] for f in case.facts]
        tally: Counter[tuple[str, ...]] = Counter()
        _ask(mx, case, ids, tally)
    finally:
        mx.close()
    assert Reader._answering is real
    asked = {key[:4]: n for key, n in tally.items() if key[4] == "asked"}
    assert len(asked) == 8 and set(asked.values()) == {1}  # 2 signals x now/as-of x 2 floors
    # with the signal, the floor keeps the fact that answers (the doubles share no word)
    assert tally[(case.split, "on", "now", "auto", "right")] == 1
