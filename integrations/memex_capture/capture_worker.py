"""The capture worker's work: drain one home's spool, ingest the transcripts it points to,
catch up with transcripts that grew, and the loop ``python -m memex_capture.worker`` runs.

How a batch is drained, and why, is told in :mod:`memex_capture.worker`.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memex_capture import layout
from memex_capture.batch_files import (
    failed_dir,
    keep_rejected,
    read_work_file,
    rewrite_batch,
    set_aside,
    spool_waiting,
    take_batches,
)
from memex_capture.drain_report import DrainReport
from memex_capture.home_problems import HomeProblem, is_home_problem
from memex_capture.targets import (
    CATCH_UP,
    FINAL_EVENTS,
    RolloutFinder,
    Target,
    group_targets,
    subagent_files,
)
from memex_capture.worker_state import (
    MAX_ATTEMPTS,
    WorkerState,
    grown_since_read,
    read_state,
    seen_transcripts,
)

if TYPE_CHECKING:
    from memex_core.api import Memex
    from memex_core.domain.results import IngestReport

#: How often an idle worker looks at the spool (seconds).
POLL_SECONDS = 0.2
#: How long one ingest waits for another process's write lock before backing off.
LOCK_WAIT_SECONDS = 2.0
#: Backoff after a home problem: doubles from the first value up to the second.
BACKOFF_SECONDS = (1.0, 60.0)

#: The worker's log (``memex_capture.worker.setup_logging`` routes it to the home).
log = logging.getLogger("memex_capture.worker")


class CaptureWorker:
    """Drains one home's spool through one :class:`~memex_core.api.Memex`, kept open.

    ``memex`` (or ``memex_factory``) lets tests and ``memex capture drain`` give
    the instance; otherwise one is opened on ``home`` at first use.
    ``settle_seconds`` and ``idle_seconds`` default to the ``[capture]`` settings.
    """

    def __init__(
        self,
        home: str | os.PathLike[str],
        *,
        memex: Memex | None = None,
        memex_factory: Callable[[], Memex] | None = None,
        settle_seconds: float | None = None,
        idle_seconds: float | None = None,
        embed: bool = True,
        lock_wait: float = LOCK_WAIT_SECONDS,
    ) -> None:
        self.home = os.path.abspath(os.fspath(home))
        self._mx = memex
        self._factory = memex_factory
        self._settle = settle_seconds
        self._idle = idle_seconds
        self.embed = embed
        self.lock_wait = lock_wait
        self.rollouts = RolloutFinder()
        self.stopping = False
        self._vectors_due = False
        #: The state file: failures counted, transcripts ingested (for catching up).
        self.state = WorkerState(self.home)

    # -- setup ------------------------------------------------------------------

    @property
    def mx(self) -> Memex:
        if self._mx is None:
            if self._factory is not None:
                self._mx = self._factory()
            else:
                from memex_core.api import Memex

                self._mx = Memex(self.home)
            self._quiet_lock(self._mx)
        return self._mx

    def _quiet_lock(self, mx: Memex) -> None:
        # Wait briefly for another writer, then back off and retry: a long `memex
        # ingest` must not be blocked by the worker, nor the worker block forever.
        mx.lock.timeout = self.lock_wait
        mx.lock.notify = log.info

    def _settings(self) -> tuple[float, float]:
        settle, idle = self._settle, self._idle
        if settle is None or idle is None:
            try:
                from memex_capture.settings import load_settings

                settings = load_settings(self.home)
                settle = settings.settle_seconds if settle is None else settle
                idle = settings.worker_idle_seconds if idle is None else idle
            except Exception as exc:  # a bad setting must not stop capture
                log.warning("[capture] settings unusable, defaults used: %s", exc)
        return (1.0 if settle is None else settle, 600.0 if idle is None else idle)

    @property
    def settle_seconds(self) -> float:
        return self._settings()[0]

    @property
    def idle_seconds(self) -> float:
        return self._settings()[1]

    # -- taking batches ----------------------------------------------------------

    def take(self) -> list[Path]:
        """Unfinished batches first, then the spool renamed to a new batch."""
        return take_batches(self.home)

    # -- one batch ---------------------------------------------------------------

    def drain_batch(self, work: Path, report: DrainReport, *, settle: bool = True) -> bool:
        """Handle every record of one taken batch. True when the batch is done (file gone).

        Raises :class:`HomeProblem` (batch kept) when the home cannot be written.
        """
        try:
            batch = read_work_file(work)
        except FileNotFoundError:
            return True
        if batch.bad:
            keep_rejected(self.home, work, batch.bad)
            report.rejected_lines += len(batch.bad)
        report.batches += 1
        report.records += len(batch.records)
        targets, unmatched = group_targets(batch.records, self.rollouts)
        for record in unmatched:
            log.info(
                "%s: %s %s of session %s names no transcript; nothing to ingest",
                work.name,
                record.get("agent"),
                record.get("event"),
                record.get("session_id"),
            )
        if settle:
            self._settle_for(targets)
        left: list[dict[str, Any]] = []
        moved: list[tuple[Target, str]] = []
        done_keys: list[str] = []
        try:
            for target in targets:
                if self.stopping and done_keys:
                    left.extend(target.records)  # SIGTERM: finish what is in hand only
                    continue
                error = self._ingest_target(target, report)
                if error is None:
                    self.state.forget_failure(self.state.failure_key(work, target))
                    self.state.remember(target)
                    self._after_ingest(target, report)
                    done_keys.append(target.key)
                    continue
                attempts = self.state.count_failure(work, target, error)
                if attempts >= MAX_ATTEMPTS:
                    moved.append((target, error))
                else:
                    left.extend(target.records)
        except HomeProblem:
            # Keep the batch; drop from it what already landed so a retry starts there.
            finished = set(done_keys)
            kept = [r for t in targets if t.key not in finished for r in t.records]
            with contextlib.suppress(OSError):  # else the whole batch stays: idempotent
                rewrite_batch(work, kept)
            raise
        self.state.save_seen()
        for target, error in moved:
            self._move_aside(work, target, error)
            report.moved_aside += len(target.records)
        if left:
            rewrite_batch(work, left)
            report.waiting += len(left)
            return False
        work.unlink(missing_ok=True)
        return True

    def _settle_for(self, targets: list[Target]) -> None:
        settle = self.settle_seconds
        if settle <= 0 or not targets:
            return
        due = max(t.last_at for t in targets) + settle
        wait = min(settle, due - time.time())
        if wait > 0:
            time.sleep(wait)

    def _ingest_target(self, target: Target, report: DrainReport) -> str | None:
        """Ingest one transcript (and its sub-agents). The error that failed it, or None."""
        if target.path is None:
            if target.key.startswith("codex:") and not set(target.events) <= {"SessionStart"}:
                return f"no Codex rollout found for thread {target.session_id}"
            return None  # a session event without a transcript: only summaries to do
        paths = [target.path]
        if not target.path.exists():
            if set(target.events) <= {"SessionStart"}:
                return None  # Claude Code creates the transcript after SessionStart
            return f"transcript {target.path} does not exist (deleted or moved?)"
        if target.agent != "codex":
            paths.extend(subagent_files(target.path))
        try:
            target.read_stat = target.path.stat()
        except OSError:
            target.read_stat = None
        try:
            result = self.mx.ingest(*paths, embed=False)
        except Exception as exc:
            if is_home_problem(exc):
                raise HomeProblem(str(exc)) from exc
            log.exception("ingest of %s failed", target.path)
            return f"{type(exc).__name__}: {exc}"
        self._vectors_due = True
        self._count(result, report)
        failed = [f for f in result.failed if f.path == str(target.path)]
        for outcome in result.failed:
            log.warning("could not read %s: %s", outcome.path, outcome.error)
        return (failed[0].error or "failed") if failed else None

    def _count(self, result: IngestReport, report: DrainReport) -> None:
        report.transcripts += 1
        report.fragments_added += result.fragments_added
        report.fragments_removed += result.fragments_removed
        log.info(
            "ingested %s: %d fragment(s) added, %d removed",
            ", ".join(f"{Path(f.path).name} ({f.status})" for f in result.files),
            result.fragments_added,
            result.fragments_removed,
        )

    # -- summaries and briefs ----------------------------------------------------

    def _after_ingest(self, target: Target, report: DrainReport) -> None:
        events = set(target.events)
        cwd = target.cwd
        if events & (FINAL_EVENTS | {CATCH_UP}) and target.session_id:
            if self._call("summary", "write_session_summary", self.mx, target.session_id):
                report.summaries += 1
            if cwd:
                self._call("folders", "resolve_unresolved", self.mx)
                written = self._call("briefing", "write_briefs", self.mx, self.home, cwd)
                report.briefs += len(written or ())
        elif (
            "SessionStart" in events
            and cwd
            and not os.path.exists(layout.brief_files(self.home, cwd)[0])
        ):
            folder, root = layout.folder_and_root(cwd)
            if self._call("briefing", "write_brief", self.mx, self.home, root, folder):
                report.briefs += 1

    def _call(self, module: str, function: str, *args: Any) -> Any:
        """Call ``memex_capture.<module>.<function>``; what it returned (True for None),
        or False when it failed. A home that cannot be written raises
        :class:`HomeProblem` (the event stays in its batch, so the summary is written on
        the retry); any other failure is logged, never raised: a summary or brief can be
        written again at the next event, a record that blocks the spool cannot."""
        try:
            target = getattr(__import__(f"memex_capture.{module}", fromlist=[function]), function)
        except (ImportError, AttributeError) as exc:
            log.info("memex_capture.%s.%s is not available (%s); skipped", module, function, exc)
            return False
        try:
            result = target(*args)
        except Exception as exc:
            if is_home_problem(exc):
                raise HomeProblem(str(exc)) from exc
            log.warning("%s.%s failed: %s: %s", module, function, type(exc).__name__, exc)
            return False
        return True if result is None else result

    # -- transcripts seen, and catching up with those that grew --------------------

    # -- catching up with transcripts that grew ----------------------------------

    def catch_up(self, report: DrainReport | None = None) -> DrainReport:
        """Re-read the remembered transcripts that grew after the worker last read them
        and have been quiet since (their last hook events were lost: see the module's
        docstring), then write their summaries and briefs. Raises :class:`HomeProblem`
        when the home cannot be written (they are found again next time)."""
        report = report or DrainReport()
        now = time.time()
        for path, entry in seen_transcripts(read_state(self.home)).items():
            if self.stopping:
                break
            if grown_since_read(entry, path, now) is None:
                continue
            session = entry.get("session_id")
            cwd = entry.get("cwd")
            record = {"event": CATCH_UP, "at": now, "cwd": cwd if isinstance(cwd, str) else None}
            target = Target(
                path,
                str(entry.get("agent") or "claude-code"),
                str(session) if session else None,
                Path(path),
                [record],
            )
            error = self._ingest_target(target, report)
            if error is not None:
                log.warning("catching up with %s failed: %s", path, error)
                continue
            log.info("caught up with %s: it grew after its last hook event", path)
            report.caught_up += 1
            self.state.remember(target)
            self._after_ingest(target, report)
        self.state.save_seen()
        self.backfill(report)
        return report

    # -- bookkeeping -------------------------------------------------------------

    def _move_aside(self, work: Path, target: Target, error: str) -> None:
        set_aside(self.home, work, target, error)
        self.state.forget_failure(self.state.failure_key(work, target))
        log.error(
            "moved %d record(s) of %s aside to %s after %d attempts: %s",
            len(target.records),
            target.path or target.key,
            failed_dir(self.home),
            MAX_ATTEMPTS,
            error,
        )

    def record_error(self, message: str) -> None:
        """Remember the last error for ``memex doctor`` (best effort: the home may be full)."""
        self.state.record_error(message)

    def record_drained(self) -> None:
        self.state.record_drained()

    # -- draining ----------------------------------------------------------------

    def drain(
        self,
        report: DrainReport | None = None,
        *,
        settle: bool = True,
        on_batch: Callable[[Path, int], None] | None = None,
        max_rounds: int = 1000,
    ) -> DrainReport:
        """Drain until the spool is empty (or only failing records wait their retry).

        Raises :class:`HomeProblem` when the home cannot be written: nothing is lost,
        the batches stay for the next drain.
        """
        report = report or DrainReport()
        for _ in range(max_rounds):
            works = self.take()
            if not works:
                break
            progressed = False
            for work in works:
                if self.stopping:
                    break
                try:
                    done = self.drain_batch(work, report, settle=settle)
                except OSError as exc:  # the spool's own files: rewrite, move aside, delete
                    if not is_home_problem(exc):
                        raise
                    raise HomeProblem(f"cannot update the spool batch {work}: {exc}") from exc
                progressed = progressed or done
                if on_batch is not None:
                    on_batch(work, len(works))
            if self.stopping or (not progressed and not self._spool_grew()):
                break
        self.backfill(report)
        return report

    def _spool_grew(self) -> bool:
        try:
            return os.path.getsize(layout.spool_file(self.home)) > 0
        except OSError:
            return False

    def backfill(self, report: DrainReport) -> None:
        """Embed what was ingested (vectors after keywords: see the module docstring)."""
        if not (self.embed and self._vectors_due):
            return
        try:
            if self.mx.semantic_unavailable_reason() is None:
                report.embedded += self.mx.backfill()
            self._vectors_due = False
        except Exception as exc:
            if is_home_problem(exc):
                raise HomeProblem(str(exc)) from exc
            # Fragments stay keyword-searchable; the next drain (or `memex backfill`) embeds.
            log.warning("embedding deferred: %s: %s", type(exc).__name__, exc)

    def run(self, *, once: bool = False) -> int:
        """The worker's loop: drain, sleep, exit after the idle time (or at once with
        ``once`` when the spool is empty). Returns the exit status."""
        backoff = 0.0
        idle_since = time.monotonic()
        caught_up = False
        while not self.stopping:
            if spool_waiting(self.home):
                try:
                    report = self.drain()
                except HomeProblem as problem:
                    if once:
                        message = f"{problem} (spool kept for the next drain)"
                        log.error("%s", message)
                        self.record_error(message)
                        return 1
                    backoff = min(max(backoff * 2, BACKOFF_SECONDS[0]), BACKOFF_SECONDS[1])
                    message = f"{problem} (spool kept; retrying in {backoff:g} s)"
                    log.error("%s", message)
                    self.record_error(message)
                    self._sleep(backoff)
                    continue
                backoff = 0.0
                if report.batches:
                    self.record_drained()
                idle_since = time.monotonic()
                if report.waiting:  # failing transcripts wait their next attempt
                    self._sleep(BACKOFF_SECONDS[0])
                continue
            idle = time.monotonic() - idle_since >= self.idle_seconds
            if not caught_up or once or idle:
                # Once the spool is drained at start, and again before exiting.
                caught_up = True
                if not self._catch_up_logged() and once:
                    return 1
                if spool_waiting(self.home):
                    continue
            if once:
                break
            if idle:
                log.info("idle for %g s: exiting", self.idle_seconds)
                break
            self._sleep(POLL_SECONDS)
        return 0

    def _catch_up_logged(self) -> bool:
        """:meth:`catch_up`, its home problems logged and recorded; False on one."""
        try:
            report = self.catch_up()
        except HomeProblem as problem:
            message = f"{problem} (catching up with grown transcripts next time)"
            log.error("%s", message)
            self.record_error(message)
            return False
        if report.caught_up:
            self.record_drained()
        return True

    def _sleep(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while not self.stopping and time.monotonic() < end:
            time.sleep(min(POLL_SECONDS, max(0.0, end - time.monotonic())))

    def close(self) -> None:
        if self._mx is not None:
            self._mx.close()
