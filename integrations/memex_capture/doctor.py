"""What ``memex doctor`` says about the capture plane (read-only).

- ``capture.spool_stale`` (drift): events wait in the spool for longer than
  :data:`STALE_SECONDS` and no worker runs to drain them.
- ``capture.spool_waiting`` (note): events wait that long while a worker runs (it
  may be retrying a home it cannot write; see the last error).
- ``capture.moved_aside`` (drift): records whose transcript failed every attempt,
  kept in ``spool/failed/`` with the reason.
- ``capture.rejected`` (note): spool lines that could not be read and were skipped.
- ``capture.worker_error`` (note): the worker's last error since its last drain.
- ``capture.behind`` (drift): transcripts the worker read for hook events that grew
  afterwards and have been quiet since, with no worker running to catch up with
  them: their last hook events were likely lost (fired while the home could not be
  written), and no later event will bring their end.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

from memex_capture import launch, layout, spool
from memex_capture.batch_files import failed_dir, rejected_dir, work_files
from memex_capture.worker_state import grown_since_read, read_state, seen_transcripts
from memex_core.services.doctor import DRIFT, NOTE, Finding

#: How long events may wait before a spool nobody drains is reported.
STALE_SECONDS = 180.0
DRAIN = "run `memex capture drain`"


def _lines(path: Path) -> int:
    try:
        with open(path, "rb") as handle:
            return sum(1 for line in handle if line.strip())
    except OSError:
        return 0


def _first_at(path: Path) -> float | None:
    """When the oldest record of a spool file was written (its ``at``, else the file's
    modification time)."""
    try:
        with open(path, "rb") as handle:
            for line in handle:
                try:
                    at = spool.parse_line(line).get("at")
                except ValueError:
                    continue
                if isinstance(at, int | float):
                    return float(at)
                break
        return os.path.getmtime(path)
    except OSError:
        return None


def _waiting(home: str) -> tuple[int, float | None]:
    files = [*work_files(home), Path(layout.spool_file(home))]
    count = sum(_lines(f) for f in files)
    oldest = min((at for f in files if (at := _first_at(f)) is not None), default=None)
    return count, oldest


def capture_findings(home: Path | str) -> Iterator[Finding]:
    """The capture plane's findings for the home at ``home``."""
    home = os.fspath(home)
    if not os.path.isdir(layout.capture_dir(home)):
        return
    now = time.time()
    waiting, oldest = _waiting(home)
    running = launch.worker_running(home)
    if waiting and oldest is not None and now - oldest > STALE_SECONDS:
        minutes = (now - oldest) / 60
        if running:
            yield Finding(
                code="capture.spool_waiting",
                severity=NOTE,
                summary=f"{waiting:,} capture event(s) have waited {minutes:.0f} min in "
                f"{layout.spool_dir(home)} although a worker runs.",
                fix=f"See the worker's log ({layout.worker_log(home)}); it retries a home "
                "it cannot write with backoff. Once that is fixed it drains by itself.",
                count=waiting,
            )
        else:
            yield Finding(
                code="capture.spool_stale",
                severity=DRIFT,
                summary=f"{waiting:,} capture event(s) have waited {minutes:.0f} min in "
                f"{layout.spool_dir(home)} and no capture worker runs.",
                fix=f"{DRAIN} (the next hook event would also start a worker).",
                count=waiting,
            )
    failed = sorted(Path(failed_dir(home)).glob("*.jsonl"))
    if failed:
        records = sum(_lines(f) for f in failed)
        reasons = []
        for path in failed[:3]:
            try:
                reasons.append(path.with_suffix(".reason").read_text("utf-8").strip())
            except OSError:
                continue
        yield Finding(
            code="capture.moved_aside",
            severity=DRIFT,
            summary=f"{records:,} capture event(s) in {len(failed)} batch(es) were moved "
            f"aside to {failed_dir(home)} after failing every attempt.",
            fix="Read the reasons (*.reason next to them); when the transcripts are back, "
            "run `memex capture drain --retry-failed`, or delete the files to forget them "
            "(`memex ingest` of the transcript gives the same fragments).",
            count=records,
            sample=tuple(reasons),
        )
    rejected = sorted(Path(rejected_dir(home)).glob("*.jsonl"))
    if rejected:
        lines = sum(_lines(f) for f in rejected)
        yield Finding(
            code="capture.rejected",
            severity=NOTE,
            summary=f"{lines:,} spool line(s) could not be read (a hook killed mid-write, a "
            f"full disk) and were skipped; kept in {rejected_dir(home)}.",
            fix="Nothing is lost that a later event does not bring back: the next event of "
            "the session ingests its whole transcript again (or run `memex ingest` on it). "
            f"Delete the files in {rejected_dir(home)} to clear this note.",
            count=lines,
        )
    state = read_state(home)
    behind = [
        path
        for path, entry in sorted(seen_transcripts(state).items())
        if grown_since_read(entry, path, now) is not None
    ]
    if behind and not running:  # a running worker catches up before it exits
        yield Finding(
            code="capture.behind",
            severity=DRIFT,
            summary=f"{len(behind):,} transcript(s) of captured sessions grew after memex "
            "last read them and no hook event came since, so memex lacks their last lines "
            "(their last hook events were likely lost, e.g. fired while the home could not "
            "be written).",
            fix=f"{DRAIN} (it re-reads them; a capture worker starting does too).",
            count=len(behind),
            sample=tuple(behind[:3]),
        )
    error = state.get("last_error")
    if isinstance(error, dict) and error.get("message"):
        at = error.get("at") if isinstance(error.get("at"), int | float) else None
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(at)) if at else "recently"
        yield Finding(
            code="capture.worker_error",
            severity=NOTE,
            summary=f"The capture worker's last error ({when}): {error['message']}",
            fix=f"Fix what it names, then {DRAIN}; details in {layout.worker_log(home)}.",
        )
