"""The capture worker: drain the spool, ingest the transcripts it points to.

``python -m memex_capture.worker --home H [--once]``. One worker runs per home
(an exclusive, non-blocking ``flock`` on ``layout.worker_lock(home)``; a second
one exits 0 at once). Hooks start it (``memex_capture.launch``); ``memex capture
drain`` runs the same code in the foreground.

How a batch is drained, and why:

- *Take*: ``events.jsonl`` is renamed to ``<ns>-<pid>.work`` in the spool folder,
  so hooks go on appending to a fresh ``events.jsonl`` while the worker reads. A
  hook that opened the old file just before the rename still lands in the
  ``.work`` file (same inode), hence a short wait before reading it.
- *Read*: each line is parsed with :func:`memex_capture.spool.parse_line`. A bad
  line (a hook killed mid-write, a full disk) is logged with file and line number,
  kept in ``spool/rejected/`` for ``memex doctor``, and skipped. When a partial
  line has a whole record glued after it (the next hook appended to the same
  line), that record is recovered.
- *Ingest*: records are grouped by transcript. Claude Code records name
  ``transcript_path``; Codex notify records name only the thread id, whose rollout
  (``$CODEX_HOME/sessions/**/rollout-*-<id>.jsonl``) is looked up and cached. A
  Claude Code session's sub-agent files (``<session>/subagents/agent-*.jsonl``)
  are ingested with it. Each transcript goes through ``Memex.ingest`` (the same
  sources as ``memex ingest``, so the same fragments, ids and provenance), with
  embedding left for afterwards: keyword search finds an event's content as soon
  as its transcript is ingested, and vectors follow in one ``backfill`` when the
  spool is empty. The home's write lock is held only for each of those calls.
- *Settle*: an agent may write an event's lines just after the hook fired, so a
  transcript is read no sooner than ``settle_seconds`` after its last event; every
  event (Stop and SessionEnd included) leads to one more read.
- *Finish*: the ``.work`` file is deleted only once every record in it is
  handled. A worker killed mid-batch leaves it, and the next worker drains it
  first (re-ingesting a transcript is idempotent). Records whose transcript fails
  ``MAX_ATTEMPTS`` times (deleted, unreadable) are moved to ``spool/failed/`` with
  the reason. A home that cannot be written (read-only, full, locked by another
  writer, a damaged catalog) fails nothing: the batch stays, the error is logged
  with its fix and recorded for ``memex doctor``, and the worker retries with
  backoff.
- *Summaries*: at Stop and SessionEnd (and Codex's turn-complete) the session's
  summary fragment and the session-start briefs of its project and of its folder
  are written (:mod:`memex_capture.summary`, :func:`memex_capture.briefing.write_briefs`),
  after the folders just ingested are resolved on this host
  (:mod:`memex_capture.folders`); at a SessionStart whose folder has no brief of its
  own yet, it is written (for the next session there: the hook has printed by then).
- *Catching up*: each transcript ingested is remembered in the state file with the
  size and modification time it had (``transcripts``). A hook that fires while the
  home cannot be written loses its pointer; a later event of the same session
  brings the whole transcript again, but the LAST events of a session (Stop,
  SessionEnd) have no later event. So once the spool is drained at start, and
  again before exiting idle, the worker re-reads every remembered transcript that
  has grown since and then stayed quiet for ``QUIET_SECONDS`` (a live session's
  next event reads it anyway), and writes its summary and briefs as at a Stop.
  ``memex capture drain`` does the same; ``memex doctor`` reports such transcripts.

The worker exits after ``[capture] worker_idle_minutes`` with nothing to do, and
on SIGTERM once the transcript in hand is ingested.

Where each part lives: :mod:`memex_capture.batch_files` (taking, reading and
rewriting batches; rejected and failed records), :mod:`memex_capture.targets` (the
transcripts a batch points to), :mod:`memex_capture.capture_worker` (draining,
catching up, the loop), :mod:`memex_capture.worker_state` (the state file),
:mod:`memex_capture.drain_report` and :mod:`memex_capture.home_problems`. This
module is the process: the one-worker lock, the log, the signals.
"""

from __future__ import annotations

import argparse
import fcntl
import logging
import logging.handlers
import os
import signal
import sys
import time
from typing import Any

from memex_capture import layout
from memex_capture.capture_worker import CaptureWorker

log = logging.getLogger("memex_capture.worker")


class WorkerLock:
    """The home's one-worker lock (``layout.worker_lock``): a non-blocking ``flock``."""

    def __init__(self, home: str) -> None:
        self.path = layout.worker_lock(home)
        self.fd: int | None = None

    def try_acquire(self) -> bool:
        os.makedirs(os.path.dirname(self.path), mode=0o700, exist_ok=True)
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            writable = True
        except OSError:
            # A read-only home: flock works on a read-only descriptor, so the one-worker
            # rule still holds while the worker says what is wrong and waits.
            fd = os.open(self.path, os.O_RDONLY)
            writable = False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return False
        if writable:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"pid {os.getpid()}\n".encode(), 0)
        self.fd = fd
        return True

    def holder(self) -> str:
        try:
            with open(self.path, encoding="utf-8", errors="replace") as handle:
                return handle.read(200).strip()
        except OSError:
            return ""

    def release(self) -> None:
        if self.fd is not None:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
            self.fd = None


def setup_logging(home: str) -> None:
    """Log to ``layout.worker_log(home)`` (rotated at 1 MB); stderr when it cannot be opened.
    Called again (``memex capture drain`` in one process), it replaces its handler."""
    for old in [h for h in log.handlers if getattr(h, "memex_capture", False)]:
        log.removeHandler(old)
        old.close()
    handler: logging.Handler
    try:
        os.makedirs(layout.logs_dir(home), mode=0o700, exist_ok=True)
        handler = logging.handlers.RotatingFileHandler(
            layout.worker_log(home), maxBytes=1_000_000, backupCount=2, encoding="utf-8"
        )
    except OSError:
        handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        logging.Formatter(f"%(asctime)s worker[{os.getpid()}] %(levelname)s %(message)s")
    )
    setattr(handler, "memex_capture", True)  # noqa: B010 (found again on the next call)
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    log.propagate = False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m memex_capture.worker",
        description="Drain the capture spool of a memex home (started by the capture hooks).",
    )
    parser.add_argument("--home", help="the memex home (default: MEMEX_HOME or ~/.memex)")
    parser.add_argument("--once", action="store_true", help="drain once, then exit")
    args = parser.parse_args(argv)
    home = os.path.abspath(layout.resolve_home(args.home))
    try:
        lock = WorkerLock(home)
        if not lock.try_acquire():
            return 0  # another worker drains this home
    except OSError as exc:
        sys.stderr.write(f"memex capture worker: cannot lock {layout.worker_lock(home)}: {exc}\n")
        return 0
    setup_logging(home)
    started = time.monotonic()
    worker = CaptureWorker(home)

    def stop(signum: int, frame: Any) -> None:
        log.info("signal %d: finishing the transcript in hand, then exiting", signum)
        worker.stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    log.info("started on %s", home)
    try:
        return worker.run(once=args.once)
    except Exception as exc:  # the last word for `memex doctor`, then a clean exit
        log.exception("worker stopped by an error")
        worker.record_error(f"worker stopped: {type(exc).__name__}: {exc}")
        return 1
    finally:
        log.info("exiting after %.1f s", time.monotonic() - started)
        worker.close()
        lock.release()


if __name__ == "__main__":
    sys.exit(main())
