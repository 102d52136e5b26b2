"""Benchmark 21's end-to-end level alone, on the tuning splits (dev, test, broad, blind...;
never fresh), for recall's switches: ``[search] newer_first``, ``floor_kin``, ``floor_near``
and ``floor_chain`` off and on (``nonear``: the first two on, the last two off; ``nochain``:
all on but ``floor_chain``; ``nochange``: all on but ``newer_first_change``; ``nostanding``:
all on but ``newer_first_standing``; ``nosuccessor``: all on but ``chain_successor``;
``nonamed``: all on, the rules judge's ``changes_named_again`` off (its default since
2026-11-29); ``named``: all on and ``changes_named_again`` on; ``typed``: all on and
``newer_first_typed``).

Each variant is one home (the rules judge, MiniLM + Chroma with the facts' vectors from the
bench cache) holding every case of the splits asked; figures per split: current on top,
as-of on top, no hit at all (now, as of), and the unrelated pairs' questions whose fact
leads (:func:`benchmarks.fact_updates_memex.asked_on_top`). A few minutes on a quiet machine::

    nice python -m benchmarks.fact_updates_e2e --splits broad --variants off,newer,kin,on

The default leaves out *blind* (written 2026-11-28 by a fourth writer, blind to the rules:
``--splits blind`` asks it) and *blind2* (written 2026-11-29 by two more writers: ``--splits
blind2``).
"""

from __future__ import annotations

import argparse
import shutil
import time

from benchmarks.context import RunContext, write_config
from benchmarks.fact_updates_cases import (
    FRESH,
    TUNING_FILES,
    Case,
    Pick,
    load,
    pair_questions,
)
from benchmarks.fact_updates_memex import accuracy, asked_on_top, cached_context, empty, run_home
from memex_core.api import Memex

VARIANTS = {
    "off": "[search]\nnewer_first = false\nfloor_kin = false\nfloor_near = false\n"
    "floor_chain = false\n",
    "newer": "[search]\nnewer_first = true\nfloor_kin = false\nfloor_near = false\n"
    "floor_chain = false\n",
    "kin": "[search]\nnewer_first = false\nfloor_kin = true\nfloor_near = false\n"
    "floor_chain = false\n",
    "nonear": "[search]\nnewer_first = true\nfloor_kin = true\nfloor_near = false\n"
    "floor_chain = false\n",
    "nochain": "[search]\nnewer_first = true\nfloor_kin = true\nfloor_near = true\n"
    "floor_chain = false\n",
    "nochange": "[search]\nnewer_first = true\nfloor_kin = true\nfloor_near = true\n"
    "floor_chain = true\nnewer_first_change = false\n",
    "nostanding": "[search]\nnewer_first = true\nfloor_kin = true\nfloor_near = true\n"
    "floor_chain = true\nnewer_first_standing = false\n",
    "nosuccessor": "[search]\nnewer_first = true\nfloor_kin = true\nfloor_near = true\n"
    "floor_chain = true\nchain_successor = false\n",
    "on": "[search]\nnewer_first = true\nfloor_kin = true\nfloor_near = true\nfloor_chain = true\n",
    "nonamed": "[search]\nnewer_first = true\nfloor_kin = true\nfloor_near = true\n"
    "floor_chain = true\n\n[supersession.rules]\nchanges_named_again = false\n",
    "named": "[search]\nnewer_first = true\nfloor_kin = true\nfloor_near = true\n"
    "floor_chain = true\n\n[supersession.rules]\nchanges_named_again = true\n",
    "typed": "[search]\nnewer_first = true\nfloor_kin = true\nfloor_near = true\n"
    "floor_chain = true\nnewer_first_typed = true\n",
}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", default="dev,test,broad")
    parser.add_argument("--variants", default="off,on")
    args = parser.parse_args(argv)
    splits = args.splits.split(",")
    if FRESH in splits:
        parser.error("fresh is the held-out split: measured once, by benchmarks.run")
    cases = [c for c in load(TUNING_FILES) if c.split in splits]
    questions = pair_questions()
    ctx = cached_context("fact-updates-e2e-", cases)
    try:
        _run(ctx, splits, args.variants.split(","), cases, questions)
    finally:
        shutil.rmtree(ctx.tmp, ignore_errors=True)


def _run(
    ctx: RunContext,
    splits: list[str],
    variants: list[str],
    cases: list[Case],
    questions: dict[str, list[Pick]],
) -> None:
    for variant in variants:
        home = ctx.home("e2e-" + variant)
        write_config(home, VARIANTS[variant])
        started = time.perf_counter()
        with Memex(home=home, registry=ctx.registry()) as mx:
            run = run_home(mx, variant, cases, questions)
        for split in splits:
            mine = [a for a in run.answered if a.outcome.case.split == split]
            print(
                f"{variant} {split}: current {accuracy(mine, 'current')}"
                f" as_of {accuracy(mine, 'as_of')} no hit now {empty(mine, 'current')}"
                f" as_of {empty(mine, 'as_of')} pairs asked fact on top {asked_on_top(mine)}"
                f" ({time.perf_counter() - started:.0f} s)",
                flush=True,
            )


if __name__ == "__main__":
    main()
