"""``memex capture drain``: drain the capture spool now, in the foreground.

The worker started by the hooks does this by itself; ``drain`` is for a spool
left waiting (no hook fired since, a home that was full) and for scripts. It runs
the worker's own code (:class:`memex_capture.capture_worker.CaptureWorker`) once, holding
the worker lock, until the spool is empty, then catches up with the transcripts
that grew after their last hook event (``CaptureWorker.catch_up``). When a worker
already runs, it waits for that one to empty the spool instead.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import click

from memex_capture import layout
from memex_capture.cli_brief import COMMANDS as BRIEF_COMMANDS
from memex_core.cli.opening import format_option, home_option, open_memex, quiet_option
from memex_core.errors import MemexError

if TYPE_CHECKING:
    from memex_capture.drain_report import DrainReport
    from memex_core.api import Memex

#: How long ``drain`` waits for a running worker to empty the spool.
WAIT_FOR_WORKER_SECONDS = 120.0


@click.group()
def capture() -> None:
    """Live capture from Claude Code and Codex (see `memex hooks`)."""


# `memex capture brief` and `memex capture summarize` (helper BRIEF's module).
for _command in BRIEF_COMMANDS:
    capture.add_command(_command)


@capture.command()
@home_option("The memex home (default: memex's own, MEMEX_HOME or ~/.memex).")
@click.option(
    "--retry-failed",
    is_flag=True,
    help="Put back the batches moved aside after failing every attempt, and drain them too.",
)
@quiet_option()
@format_option("panel", "json")
def drain(
    ctx: click.Context, home: str | None, retry_failed: bool, quiet: bool, output_format: str
) -> None:
    """Ingest every event waiting in the capture spool, then exit.

    \b
    Exit status 0 when the spool is empty afterwards, 1 when events still wait
    (a home that cannot be written, transcripts that failed: see the summary).
    """
    from memex_capture.batch_files import failed_dir, spool_waiting
    from memex_capture.capture_worker import CaptureWorker
    from memex_capture.drain_report import DrainReport
    from memex_capture.home_problems import HomeProblem
    from memex_capture.worker import WorkerLock, setup_logging

    root_home = (ctx.find_root().obj or {}).get("home")
    folder = os.path.abspath(layout.resolve_home(home or root_home))
    if retry_failed:
        _put_back(Path(failed_dir(folder)), Path(layout.spool_dir(folder)))
    lock = WorkerLock(folder)
    try:
        locked = lock.try_acquire()
    except OSError as exc:
        raise MemexError(
            f"Cannot take the capture worker lock {lock.path}: {exc}. Check that the "
            f"home {folder} exists and is writable."
        ) from exc
    report = DrainReport()
    if locked:
        setup_logging(folder)  # the worker's log, not this terminal: the summary says it all
    if not locked:
        waited = _wait_for_worker(folder, quiet or output_format == "json")
        report.errors.extend(waited)
    else:
        try:
            mx = _open(ctx, home, folder)
            worker = CaptureWorker(folder, memex=mx)
            progress = _Progress(quiet or output_format == "json")
            try:
                worker.drain(report, settle=False, on_batch=progress.batch_done)
                # Then the transcripts that grew after their last hook event (lost
                # while the home could not be written): no event will bring them.
                worker.catch_up(report)
                if report.batches or report.caught_up:
                    worker.record_drained()
            except HomeProblem as problem:
                message = f"{problem} The spool is kept; run `memex capture drain` again."
                report.errors.append(message)
                worker.record_error(message)
            finally:
                progress.finish()
        finally:
            lock.release()
    report.waiting = report.waiting if report.errors else _count_waiting(folder)
    if output_format == "json":
        click.echo(json.dumps({"home": folder, **report.to_dict()}, indent=2))
    else:
        _print(folder, report)
    if report.errors or spool_waiting(folder):
        sys.exit(1)


def _open(ctx: click.Context, home: str | None, folder: str) -> Memex:
    if home is None:
        return open_memex(ctx)
    from memex_core.api import Memex

    return Memex(folder)


def _count_waiting(folder: str) -> int:
    from memex_capture.batch_files import work_files

    count = 0
    for path in [*work_files(folder), Path(layout.spool_file(folder))]:
        try:
            with open(path, "rb") as handle:
                count += sum(1 for line in handle if line.strip())
        except OSError:
            continue
    return count


def _put_back(failed: Path, spool_dir: Path) -> None:
    from memex_capture.batch_files import WORK_SUFFIX

    for path in sorted(failed.glob("*.jsonl")):
        os.replace(path, spool_dir / (path.stem + WORK_SUFFIX))
        path.with_suffix(".reason").unlink(missing_ok=True)


def _wait_for_worker(folder: str, quiet: bool) -> list[str]:
    from memex_capture.batch_files import spool_waiting
    from memex_capture.launch import worker_running

    if not quiet:
        click.echo("A capture worker is running on this home; waiting for it to drain.", err=True)
    deadline = time.monotonic() + WAIT_FOR_WORKER_SECONDS
    while spool_waiting(folder) and worker_running(folder):
        if time.monotonic() > deadline:
            return [
                f"The running capture worker has not emptied the spool in "
                f"{WAIT_FOR_WORKER_SECONDS:g} s; see {layout.worker_log(folder)}."
            ]
        time.sleep(0.2)
    return []


class _Progress:
    """A bar over the batches taken (it grows when hooks add events meanwhile)."""

    def __init__(self, quiet: bool) -> None:
        from memex_core.cli.progress import RichProgress

        self.bar = RichProgress(quiet)
        self.started = False

    def batch_done(self, work: Path, total: int) -> None:
        if not self.started:
            self.bar.start("Draining the capture spool", total)
            self.started = True
        self.bar.advance(1, description=work.name)

    def finish(self) -> None:
        self.bar.finish()


def _print(folder: str, report: DrainReport) -> None:
    lines = [
        f"Capture spool of {folder}:",
        f"  {report.records:,} event(s) in {report.batches:,} batch(es); "
        f"{report.transcripts:,} transcript read(s), {report.fragments_added:,} fragment(s) "
        f"added, {report.fragments_removed:,} replaced, {report.embedded:,} embedded",
    ]
    if report.caught_up:
        lines.append(
            f"  {report.caught_up} transcript(s) caught up: they grew after their last hook "
            "event (events lost while the home could not be written)"
        )
    if report.summaries or report.briefs:
        lines.append(f"  {report.summaries} session summary(ies), {report.briefs} brief(s)")
    if report.rejected_lines:
        lines.append(f"  {report.rejected_lines} unreadable line(s) skipped (see `memex doctor`)")
    if report.moved_aside:
        lines.append(
            f"  {report.moved_aside} event(s) moved aside after failing every attempt "
            "(see `memex doctor`)"
        )
    if report.waiting:
        lines.append(f"  {report.waiting} event(s) still wait")
    lines.extend(f"  error: {error}" for error in report.errors)
    if not (report.records or report.errors or report.caught_up):
        lines.append("  nothing was waiting.")
    click.echo("\n".join(lines))
