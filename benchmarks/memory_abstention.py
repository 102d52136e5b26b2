"""Abstention of memory recall: nonsense and off-topic questions asked of a home of facts.

Benchmark 18 asks its generated queries (:func:`benchmarks.abstention.generated_queries`:
random letter strings and questions about things no corpus talks about) of homes of
documents. Memory recall is another search: the facts of one owner, short, often few. Here
the facts of benchmark 21's broad split are remembered through ``Memex.remember`` (each case
its own user, the rules judge, MiniLM + Chroma), and each generated query is asked with
``recall(query, user=...)`` of :data:`USERS_PER_QUERY` users (round robin over the cases).
The share of recalls that answer anything is reported with the relevance floor off, with
``[search] floor_near`` off (the floor as it was) and on, then ``floor_chain`` on too, then
``floor_series`` on too, then ``floor_kin_change`` on too (the defaults). Also, as a looser
check, each update case's question asked of the next case's user (another person's facts:
sometimes a fact there does answer it, so this is not a false-hit rate).

    nice python -m benchmarks.memory_abstention
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from benchmarks.abstention import generated_queries
from benchmarks.context import RunContext, Sizes, log, write_config
from benchmarks.fact_updates_cases import BROAD, BROAD_FILE, UNRELATED, Case, load
from memex_core.api import Memex
from memex_core.domain.search_options import SearchOptions

USERS_PER_QUERY = 5
LIMIT = 5
#: The floor's later additions, off in the columns measured before them.
_LATER_OFF = "floor_series = false\nfloor_kin_change = false\n"
SETTINGS = {
    "floor off": "",
    "floor_near off": f"[search]\nfloor_near = false\nfloor_chain = false\n{_LATER_OFF}",
    "floor_near on": f"[search]\nfloor_near = true\nfloor_chain = false\n{_LATER_OFF}",
    "floor_near and floor_chain on": (
        f"[search]\nfloor_near = true\nfloor_chain = true\n{_LATER_OFF}"
    ),
    "floor_series on too": (
        "[search]\nfloor_near = true\nfloor_chain = true\nfloor_kin_change = false\n"
    ),
    "floor_kin_change on too (defaults)": "[search]\nfloor_near = true\nfloor_chain = true\n",
}


def _answered(mx: Memex, asked: list[tuple[str, str]], floor_off: bool) -> list[bool]:
    if floor_off:
        return [
            bool(mx.agent(user).search(SearchOptions(query=q, limit=LIMIT, floor="off")))
            for user, q in asked
        ]
    return [bool(mx.recall(q, user=user, limit=LIMIT)) for user, q in asked]


def main() -> None:
    cases = [c for c in load((BROAD_FILE,)) if c.split == BROAD]
    tmp = Path(tempfile.mkdtemp(prefix="memory-abstention-"))
    ctx = RunContext(tmp=tmp, sizes=Sizes.quick(), quick=False)
    ctx.disk_cache().fill(
        [f.text for c in cases for f in c.facts], ctx.inner_embedder().embed_documents, log=log
    )
    try:
        _run(ctx, cases)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _run(ctx: RunContext, cases: list[Case]) -> None:
    home = ctx.home("memory-abstention")
    with Memex(home=home, registry=ctx.registry()) as mx:
        for case in cases:
            for fact in case.facts:
                mx.remember(fact.text, user=case.user, at=fact.at)
    users = [c.user for c in cases]
    queries = generated_queries()
    asked = {
        kind: [
            (users[(n * USERS_PER_QUERY + k) % len(users)], q)
            for n, (k_, q) in enumerate(queries)
            if k_ == kind
            for k in range(USERS_PER_QUERY)
        ]
        for kind in ("nonsense", "off-topic")
    }
    asked_cases = [c for c in cases if c.type != UNRELATED and c.question]
    asked["another's question"] = [
        (asked_cases[(n + 1) % len(asked_cases)].user, c.question)
        for n, c in enumerate(asked_cases)
    ]
    print(f"{sum(len(c.facts) for c in cases)} facts of {len(cases)} users (broad split)")
    print("| queries | recalls | " + " | ".join(SETTINGS) + " |")
    print("|---|---|" + "---|" * len(SETTINGS))
    shares: dict[str, list[str]] = {kind: [] for kind in asked}
    for name, config in SETTINGS.items():
        write_config(home, config)
        with Memex(home=home, registry=ctx.registry()) as mx:
            for kind, pairs in asked.items():
                got = _answered(mx, pairs, name == "floor off")
                shares[kind].append(f"{sum(got) / len(got):.1%} ({sum(got)})")
    for kind, cells in shares.items():
        print(f"| {kind} | {len(asked[kind])} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
