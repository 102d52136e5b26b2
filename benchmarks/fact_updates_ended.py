"""Benchmark: what reading a fact's own end does end to end (issue 30, "ended by its own words").

The cases of benchmark 21 (:mod:`benchmarks.fact_updates_cases`: dev, test and the broad
tuning split; never the held-out fresh split) go through :func:`benchmarks.fact_updates_memex.
run_home` twice, each time in a new home with the default components (MiniLM from the run's
vector cache, Chroma, the rules judge): *before*, the rules judge as it was (no
``valid_until``, no closed period's start read as ``valid_from``); *after*, as it is. Same
run, same cases, same vectors: the difference is the reading alone. Prints, per split and
home, the late cases' current-on-top and as-of-on-top, the update cases' figures, wrong
closings of unrelated pairs, facts lost, and (after, broad) the late cases still missed.

Standalone only (~6 minutes on a loaded 2-core machine):
``nice python -m benchmarks.fact_updates_ended [broad,dev,test]``.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import memex_rules.supersession as rules
from benchmarks.context import RunContext, Sizes, log
from benchmarks.fact_updates import _wrong
from benchmarks.fact_updates_cases import BROAD_FILE, FILES, LATE, UPDATE, Case, case_from, load
from benchmarks.fact_updates_judge import tally
from benchmarks.fact_updates_memex import Answered, accuracy, run_home
from memex_core.api import Memex


def _figures(name: str, split: str, answered: Sequence[Answered]) -> str:
    late = [a for a in answered if a.outcome.case.type == LATE]
    updates = [a for a in answered if a.outcome.case.type == UPDATE]
    closings = tally([a.outcome for a in updates])

    def share(pair: tuple[int, int]) -> str:
        return f"{pair[0]}/{pair[1]} = {pair[0] / max(pair[1], 1):.3f}"

    return (
        f"{name}, {split}: late now {share(accuracy(late, 'current'))}, "
        f"as of {share(accuracy(late, 'as_of'))}; updates now "
        f"{share(accuracy(updates, 'current'))}, as of {share(accuracy(updates, 'as_of'))}, "
        f"closings {closings.exact}/{closings.cases}; unrelated wrongly closed "
        f"{share(_wrong([a.outcome for a in answered]))}; facts lost "
        f"{sum(a.lost for a in answered)}"
    )


def _misses(answered: Sequence[Answered]) -> list[str]:
    out = []
    for a in answered:
        case = a.outcome.case
        if case.type != LATE:
            continue
        for what, right, top in (
            ("now", a.current, a.current_top),
            ("as of", a.as_of, a.as_of_top),
        ):
            if right is False:
                out.append(f"  {what}: {case.id} “{case.facts[-1].text}” gave “{top}”")
    return out


def main(splits: Sequence[str]) -> None:
    # Never the fresh split: it is held out, measured once by benchmark 21 itself.
    lines = BROAD_FILE.read_text(encoding="utf-8").splitlines()
    every = load(FILES) + [case_from(json.loads(line)) for line in lines if line.strip()]
    cases: list[Case] = [c for c in every if c.split in splits]
    with tempfile.TemporaryDirectory() as folder:
        ctx = RunContext(tmp=Path(folder), sizes=Sizes(), quick=False)
        texts = [f.text for c in cases for f in c.facts]
        ctx.disk_cache().fill(texts, ctx.inner_embedder().embed_documents, log=log)
        reading, start = rules.RulesSupersessionJudge.valid_until, rules.period
        for name in ("before", "after"):
            if name == "before":
                del rules.RulesSupersessionJudge.valid_until
                rules.period = lambda text, said_at: None
            else:
                rules.RulesSupersessionJudge.valid_until = reading  # type: ignore[method-assign]
                rules.period = start
            started = time.perf_counter()
            with Memex(home=ctx.home("ended-" + name), registry=ctx.registry()) as mx:
                run = run_home(mx, name, cases)
            log(f"{name}: {len(cases)} cases in {time.perf_counter() - started:.0f} s")
            for split in splits:
                answered = [a for a in run.answered if a.outcome.case.split == split]
                print(_figures(name, split, answered))
                if name == "after" and split == "broad":
                    print("\n".join(_misses(answered)))


if __name__ == "__main__":
    main(sys.argv[1].split(",") if len(sys.argv) > 1 else ["broad", "dev", "test"])
