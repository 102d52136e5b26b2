"""Sections 21b and 21c of docs/benchmarks.md: what superseding (issue 30) costs.

Two standalone benchmarks measure it, each for minutes, so they are not part of
``python -m benchmarks.run``; with ``--store`` each stores its figures as a section of the
page (``docs/benchmarks/<key>.json``, with the run that measured them) and reassembles
``docs/benchmarks.md`` from the store:

* 21b, ``remember`` at 10,000 stored facts (:mod:`benchmarks.remember_cost`): p50 of the
  same new facts remembered one call at a time in three copies of one home, the code before
  issue 30, today with the ``rules`` judge and today with ``[supersession] use = "none"``,
  interleaved fact by fact;
* 21c, recall and duplicates on benchmark 9's set (:mod:`benchmarks.supersession_recall`):
  the same 2,000 ``remember`` calls and ``dream`` with the judge on and off.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from benchmarks.provenance import Run, capture
from benchmarks.report import Check, Section, table

COST_KEY = "fact_updates_cost"
COST_TITLE = "21b. Facts that change over time: what `remember` costs at 10,000 facts"
RECALL_KEY = "fact_updates_recall"
RECALL_TITLE = "21c. Facts that change over time: recall and duplicates on benchmark 9's set"
#: The issue's bound on the rules judge's remember p50 against the code before it.
COST_BOUND = 1.5

COST_RERUN = (
    "**Rerun.** `git worktree add --detach /tmp/memex-pre30 c0e3bda` (the code before issue "
    "30), then `nice python -m benchmarks.remember_cost --baseline-tree /tmp/memex-pre30 "
    "--root /tmp/remember-cost --store`. `--root` keeps the homes: `--fill-only` fills the "
    "baseline home once (minutes: 10,000 calls), and a later run with the same `--root` "
    "reuses it, so re-measuring a newer tree costs only the timed calls. MiniLM vectors come "
    "from the bench vector cache (`benchmarks/vector_cache.py`)."
)
RECALL_RERUN = (
    "**Rerun.** `nice python -m benchmarks.supersession_recall --store` (two homes of "
    "2,000 `remember` calls and a `dream` each; MiniLM vectors from the bench vector cache)."
)


class Timer:
    """The run a ``--store`` measurement is recorded under: taken when it starts."""

    def __init__(self, command: str) -> None:
        self.run = capture(command, quick=False)
        self.started = time.perf_counter()

    def finished(self) -> tuple[Run, float]:
        seconds = time.perf_counter() - self.started
        return self.run.finished(seconds / 60), seconds


def _ms(value: float) -> str:
    return f"{value:.1f} ms"


def cost_section(result: dict[str, Any]) -> Section:
    """Section 21b from :func:`benchmarks.remember_cost.measure`'s figures."""
    homes = result["homes"]
    before, rules, off = (homes[n] for n in ("before issue 30", "today", "today, supersession off"))
    ratio = rules["p50_vs_before"]
    section = Section(COST_KEY, COST_TITLE)
    section.checks.append(
        Check(
            "`remember` p50 at 10,000 stored facts, rules judge, against the code before "
            "issue 30 (same calls, interleaved)",
            f"{ratio:.2f}x ({_ms(rules['p50_ms'])} vs {_ms(before['p50_ms'])})",
            f"<= {COST_BOUND}x",
            f'`use = "none"`: {off["p50_vs_before"]:.2f}x ({_ms(off["p50_ms"])})',
            ratio <= COST_BOUND,
        )
    )
    fill = result["fill"]
    reused = " (in an earlier run with the same `--root`)" if fill.get("reused") else ""
    rows = [
        (
            name,
            _ms(h["p50_ms"]),
            _ms(h["p95_ms"]),
            _ms(h["mean_ms"]),
            f"{h['p50_vs_before']:.2f}x",
            ", ".join(f"{k} {v}" for k, v in sorted(h["actions"].items())),
            "-" if h["closed_facts"] is None else h["closed_facts"],
        )
        for name, h in (
            ("before issue 30 (c0e3bda)", before),
            ('today, `[supersession] use = "rules"` (default)', rules),
            ('today, `[supersession] use = "none"`', off),
        )
    ]
    section.add(
        f"One home of {result['facts']:,} distinct facts over {result['users']} users (MiniLM "
        f"+ Chroma), filled by the code before issue 30{reused}, copied three times; "
        f"{result['timed']} new facts then remembered one `remember` call each in all three, "
        "interleaved fact by fact (the order of the three rotating), each home in its own "
        "process, so load on the shared machine falls on all three alike. Absolute times "
        "follow the machine's load (in the run line above), and so does the ratio: on a "
        "loaded machine every call waits longer and the judge's own work is a smaller share "
        "of it, so a run on a quiet machine (load about 1) is the one to quote.",
        table(
            ("home", "p50", "p95", "mean", "p50 against before", "decisions", "facts closed"),
            rows,
        ),
        "Each worker runs its own tree's core, plugins and integrations (first on "
        "`PYTHONPATH`), the baseline a worktree of c0e3bda and today "
        f"{result.get('today_commit', 'this checkout')}. "
        "The extra is what the judge adds to a call: the candidate search among the user's "
        "facts (a vector search; its `embed_query` vector is the one the new fact is then "
        "indexed with, so the text is embedded once, as before), then the rules; with "
        '`use = "none"` '
        "there is none. The timed facts are unrelated to the stored ones, so they close "
        "nothing: this is the cost of asking, which every call pays.",
        COST_RERUN,
    )
    return section


def _rate(figures: dict[str, Any]) -> str:
    return f"{figures['duplicate_rate']:.1%}"


def recall_section(result: dict[str, Any]) -> Section:
    """Section 21c from :func:`benchmarks.supersession_recall.measure`'s figures."""
    rules, none = result["rules"], result["none"]
    section = Section(RECALL_KEY, RECALL_TITLE)
    after, off = rules["after_dream"], none["after_dream"]
    section.checks += [
        Check(
            "recall@1 on benchmark 9's set after `dream`, rules judge",
            f"{after['recall_at_1']:.3f}",
            '>= `use = "none"`',
            f'`use = "none"` {off["recall_at_1"]:.3f}',
            after["recall_at_1"] >= off["recall_at_1"],
        ),
        Check(
            "duplicate rate after `dream` on benchmark 9's set, rules judge",
            _rate(after),
            "-",
            f'`use = "none"` {_rate(off)}',
        ),
        Check(
            "facts lost on benchmark 9's set (remember, then dream), rules judge",
            f"{rules['after_remember']['lost']} and {after['lost']} of {result['facts']:,}",
            "0",
            "-",
            rules["after_remember"]["lost"] == 0 and after["lost"] == 0,
        ),
    ]
    rows = []
    for judge, row in (("rules", rules), ("none", none)):
        first, then = row["after_remember"], row["after_dream"]
        rows.append(
            (
                judge,
                f"{first['closed']} ({first['closed_same_fact']} / {first['closed_other_fact']})",
                f"{first['recall_at_1']:.3f} / {first['recall_at_5']:.3f}",
                f"{first['lost']} / {then['lost']}",
                then["closed"],
                f"{then['recall_at_1']:.3f} / {then['recall_at_5']:.3f}",
                f"{_rate(then)} ({then['active'] - result['facts'] + then['lost']} of "
                f"{then['active']:,})",
            )
        )
    section.add(
        f"Benchmark 9's set ({result['facts']:,} distinct facts of 5 users and a rewording of "
        f"each, {result['texts']:,} `remember` calls, `consolidate=False`, then `dream` with "
        'the `rules` consolidator) in two homes of today\'s code: `[supersession] use = "rules"` '
        '(the default) and `use = "none"`. Each fact is asked for by its other wording '
        "(`Memex.recall`, current facts, hybrid). The duplicate rate is benchmark 9's: the "
        "active memories the agent lists that repeat a fact another one states, over those "
        "listed; a fact closed by supersession is listed too (it is history, not deleted).",
        table(
            (
                "judge",
                "closed at remember (same fact / another fact)",
                "recall@1 / @5 after remember",
                "facts lost (remember / dream)",
                "closed after dream",
                "recall@1 / @5 after dream",
                "duplicate rate after dream",
            ),
            rows,
        ),
        _closings_text(rules["after_dream"]),
        RECALL_RERUN,
    )
    return section


def _closings_text(figures: dict[str, Any]) -> str:
    """What the rules judge's closings were, with examples of each kind."""

    def listed(pairs: list[list[str]]) -> str:
        shown = "; ".join(f"{old!r} closed by {new!r}" for old, new in pairs)
        return f", e.g. {shown}" if shown else ""

    return (
        f"**The closings** ({figures['closed']} with the `rules` judge). The set's facts all "
        "stand together (it was built for duplicates, not changes), so a closing here is a "
        f"miss of the judge: {figures['closed_same_fact']} by a rewording of the same fact "
        "(since 65cf0de such a closing is folded instead, when the consolidator reads the two "
        f"as one fact both ways){listed(figures['same_fact_examples'])}; "
        f"{figures['closed_other_fact']} by another fact of the set"
        f"{listed(figures['other_fact_examples'])}. A closed fact is history, never lost "
        "(recall by time and `memex history` read it), and `dream` leaves it alone, so each "
        "closed fact whose fact also has a current memory (its rewording) counts once more "
        "in the duplicate rate."
    )


def store(section: Section, run: Run, seconds: float, folder: Path | None = None) -> Path:
    """Save ``section`` with ``run`` into the store and reassemble the page; the page."""
    from benchmarks.assemble import DEFAULT_STORE, registry_titles, write_page
    from benchmarks.store import ResultStore, StoredSection

    results = ResultStore(folder or DEFAULT_STORE)
    results.save(StoredSection(section, run, round(seconds, 1)))
    return write_page(results, registry_titles())
