"""Run the benchmarks and update docs/benchmarks.md.

    python -m benchmarks.run                      # everything (hours on 2 cores)
    python -m benchmarks.run --only keyword,adds  # some of them; the page keeps the others
    python -m benchmarks.run --only service --output docs/benchmarks-search-over-http.md
                                                  # a report of its own; the page unchanged
    python -m benchmarks.run --quick --output /tmp/bench.md  # reduced sizes: a smoke run

Each section measured is stored in docs/benchmarks/<key>.json with this run's provenance
(benchmarks/store.py) as soon as it ends, and docs/benchmarks.md is reassembled from every
stored section (benchmarks/assemble.py): sections not run keep their last figures. A
section that fails or is skipped keeps its earlier figures too. With ``--output FILE`` the
run writes its own report instead (``--merge`` to store its sections as well);
``python -m benchmarks.assemble`` brings such a report's sections in later.

Temporary homes live under one temp folder, removed at the end (``--keep`` keeps it).
MiniLM vectors of the benchmark texts are cached under ``.memex-bench/`` between runs
(see benchmarks/vector_cache.py): the first run also embeds ~100,000 passages.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import sys
import tempfile
import time
import traceback
from pathlib import Path

from benchmarks import growth
from benchmarks.assemble import DEFAULT_STORE, write_page
from benchmarks.context import RunContext, Sizes, log
from benchmarks.provenance import capture
from benchmarks.registry import BENCHMARKS
from benchmarks.report import Section, render
from benchmarks.reports import link
from benchmarks.store import ResultStore, StoredSection


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.run",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--only",
        default=",".join(BENCHMARKS),
        help=f"comma-separated subset of: {', '.join(BENCHMARKS)}",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="reduced sizes for a smoke run (figures not comparable to targets)",
    )
    parser.add_argument(
        "--output",
        type=Path,
        help="write this run's own report to FILE (skipped sections listed as such) instead "
        "of updating docs/benchmarks.md",
    )
    parser.add_argument(
        "--merge",
        action="store_true",
        help="with --output: also store the sections measured and reassemble the page",
    )
    parser.add_argument(
        "--store",
        type=Path,
        default=DEFAULT_STORE,
        help="folder of stored sections; the page assembled from it is <folder>.md "
        "(default: docs/benchmarks, so docs/benchmarks.md)",
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary homes")
    args = parser.parse_args(argv)
    chosen = [name.strip() for name in args.only.split(",") if name.strip()]
    unknown = [name for name in chosen if name not in BENCHMARKS]
    if unknown or not chosen:
        parser.error(f"--only takes names from: {', '.join(BENCHMARKS)} (got {args.only!r})")
    args.only = chosen
    page = ResultStore(args.store).page.resolve()
    if args.output is not None and args.output.resolve() == page:
        args.output = None  # the page is assembled from the store, never overwritten by a run
    args.merge = args.merge or args.output is None
    if args.merge and args.quick and args.store.resolve() == DEFAULT_STORE.resolve():
        parser.error(
            "--quick figures are not comparable with the stored ones, so they never go into "
            "docs/benchmarks.md: add --output FILE for a smoke report of its own (or --store "
            "DIR for a scratch store)"
        )
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing may download at run time
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    started = time.perf_counter()
    store = ResultStore(args.store)
    docs = store.page.parent if args.merge else args.output.parent
    tmp = Path(tempfile.mkdtemp(prefix="memex-bench-"))
    ctx = RunContext(
        tmp=tmp,
        sizes=Sizes.quick() if args.quick else Sizes(),
        quick=args.quick,
        charts=docs / growth.CHART_FOLDER,
    )
    titles = {key: title for key, (title, _) in BENCHMARKS.items()}
    sections: list[Section] = []
    failed = False
    given = sys.argv[1:] if argv is None else argv
    command = shlex.join(["python", "-m", "benchmarks.run", *given])
    report = link(args.output, store.page.parent) if args.output else None
    run = capture(command, quick=args.quick, report=report)

    def write(pending: list[Section]) -> None:
        if args.output is None:
            return
        text = render(
            sections + pending,
            command=command,
            quick=args.quick,
            wall_seconds=time.perf_counter() - started,
            load_at_start=run.load_at_start,
        )
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(text, encoding="utf-8")

    try:
        todo = list(BENCHMARKS.items())
        for number, (key, (title, bench)) in enumerate(todo):
            if key not in args.only:
                sections.append(Section(key, title, skipped="not selected (--only)"))
                continue
            log(f"== {title}")
            began = time.perf_counter()
            try:
                section = bench(ctx)
            except Exception as exc:  # report the failure in the doc and go on with the rest
                failed = True
                traceback.print_exc()
                section = Section(key, title, skipped=f"FAILED: {type(exc).__name__}: {exc}")
            sections.append(section)
            # After each section, so that an interrupted run leaves what it measured.
            if args.merge and section.skipped:
                log(f"{key} not stored ({section.skipped}): its earlier figures stay")
            elif args.merge:
                store.save(StoredSection(section, run, round(time.perf_counter() - began, 1)))
                write_page(store, titles)
            write(
                [
                    Section(k, t, skipped="not run yet (run interrupted)")
                    for k, (t, _) in todo[number + 1 :]
                ]
            )
    finally:
        if args.keep:
            log(f"temporary homes kept in {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    write([])
    if args.output is not None:
        log(f"wrote {args.output}")
    if args.merge:
        store.finish(run, run.finished((time.perf_counter() - started) / 60))
        log(f"wrote {write_page(store, titles)} (sections stored in {store.folder})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
