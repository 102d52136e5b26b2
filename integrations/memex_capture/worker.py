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
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import fcntl
import glob
import hashlib
import json
import logging
import logging.handlers
import os
import signal
import sqlite3
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memex_capture import layout, spool

if TYPE_CHECKING:
    from memex_core.api import Memex
    from memex_core.domain.results import IngestReport

#: How often a transcript may fail before its records are moved to ``spool/failed/``.
MAX_ATTEMPTS = 3
#: How long an idle worker sleeps between looks at the spool (seconds).
POLL_SECONDS = 0.2
#: After renaming the spool, how long to let a hook's append already under way land.
APPEND_GRACE_SECONDS = 0.05
#: How long one ingest waits for another process's write lock before backing off.
LOCK_WAIT_SECONDS = 2.0
#: Backoff after a home problem: doubles from the first value up to the second.
BACKOFF_SECONDS = (1.0, 60.0)
#: Events after which a session's summary and its project's briefs are refreshed.
FINAL_EVENTS = frozenset({"Stop", "SessionEnd", "agent-turn-complete"})
#: The event of a transcript re-read because it grew after its last event (see above).
CATCH_UP = "catch-up"
#: How long a remembered transcript must be unchanged before it is caught up.
QUIET_SECONDS = 60.0
#: How long a transcript is remembered after it was last ingested, and how many at most.
SEEN_SECONDS = 14 * 24 * 3600.0
SEEN_MAX = 2000
CODEX_HOME_ENV = "CODEX_HOME"
REJECTED = "rejected"
FAILED = "failed"
WORK_SUFFIX = ".work"

log = logging.getLogger("memex_capture.worker")


# -- files --------------------------------------------------------------------------


def rejected_dir(home: str) -> str:
    return os.path.join(layout.spool_dir(home), REJECTED)


def failed_dir(home: str) -> str:
    return os.path.join(layout.spool_dir(home), FAILED)


def work_files(home: str) -> list[Path]:
    """Batches taken but not finished, oldest first (names start with a time in ns)."""
    return sorted(Path(layout.spool_dir(home)).glob(f"*{WORK_SUFFIX}"))


def spool_waiting(home: str) -> bool:
    """Whether anything waits to be drained: a non-empty spool or an unfinished batch."""
    try:
        if os.path.getsize(layout.spool_file(home)) > 0:
            return True
    except OSError:
        pass
    return bool(work_files(home))


def read_state(home: str) -> dict[str, Any]:
    """The worker's state file (``{}`` when absent or unreadable)."""
    try:
        with open(layout.state_file(home), encoding="utf-8") as handle:
            state = json.load(handle)
    except (OSError, ValueError):
        return {}
    return state if isinstance(state, dict) else {}


def seen_transcripts(state: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The transcripts the worker ingested for hook events (``state["transcripts"]``):
    path -> agent, session_id, cwd, and the size/mtime_ns the file had when read."""
    found = state.get("transcripts")
    if not isinstance(found, dict):
        return {}
    return {p: e for p, e in found.items() if isinstance(p, str) and isinstance(e, dict)}


def grown_since_read(entry: dict[str, Any], path: str, now: float) -> os.stat_result | None:
    """The file's stat if it changed since the worker read it and has been quiet for
    :data:`QUIET_SECONDS` since (a session whose last events were lost), else None."""
    try:
        stat = os.stat(path)
    except OSError:
        return None  # deleted or moved: nothing to catch up
    if (stat.st_size, stat.st_mtime_ns) == (entry.get("size"), entry.get("mtime_ns")):
        return None
    if now - stat.st_mtime < QUIET_SECONDS:
        return None
    return stat


def _write_json(path: str, value: Any) -> None:
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as handle:
        json.dump(value, handle, indent=1, sort_keys=True)
    os.replace(tmp, path)


# -- reading a batch ---------------------------------------------------------------------


@dataclass
class BadLine:
    number: int
    reason: str
    raw: str


@dataclass
class ReadBatch:
    records: list[dict[str, Any]] = field(default_factory=list)
    bad: list[BadLine] = field(default_factory=list)


_RECORD_START = b'{"v":'


def read_work_file(path: Path) -> ReadBatch:
    """Parse a taken batch line by line; a bad line never hides the lines after it.

    A hook killed mid-write leaves a line without its end, and the next hook's
    whole record is appended to that same line: the record is recovered from the
    last ``{"v":`` in the line when what precedes it does not parse.
    """
    batch = ReadBatch()
    with open(path, "rb") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                batch.records.append(spool.parse_line(line))
                continue
            except ValueError as error:
                reason = str(error)
            start = line.rfind(_RECORD_START)
            if start > 0:
                try:
                    batch.records.append(spool.parse_line(line[start:]))
                    reason = f"{reason}; a whole record after it was recovered"
                    line = line[:start]
                except ValueError:
                    pass
            raw = line.decode("utf-8", "replace").rstrip("\n")
            batch.bad.append(BadLine(number, reason, raw[: spool.MAX_LINE_BYTES]))
    return batch


# -- what a batch asks for -------------------------------------------------------------


@dataclass
class Target:
    """One transcript a batch touched, with the records that point to it."""

    key: str
    agent: str
    session_id: str | None
    path: Path | None
    records: list[dict[str, Any]] = field(default_factory=list)
    #: The transcript's stat taken just before it was ingested (what was read covers it).
    read_stat: os.stat_result | None = None

    @property
    def last_at(self) -> float:
        return max((_number(r.get("at")) for r in self.records), default=0.0)

    @property
    def events(self) -> list[str]:
        return [str(r.get("event")) for r in self.records]

    @property
    def cwd(self) -> str | None:
        for record in reversed(self.records):
            if isinstance(record.get("cwd"), str) and record["cwd"]:
                return str(record["cwd"])
        return None


def _number(value: Any) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


class RolloutFinder:
    """Finds a Codex rollout by thread id, remembering what it found."""

    def __init__(self) -> None:
        self._found: dict[tuple[str, str], str] = {}

    def find(self, thread_id: str, codex_home: str | None = None) -> str | None:
        root = os.path.expanduser(
            codex_home or os.environ.get(CODEX_HOME_ENV) or os.path.join("~", ".codex")
        )
        key = (root, thread_id)
        known = self._found.get(key)
        if known is not None and os.path.exists(known):
            return known
        if not thread_id or any(ch in thread_id for ch in "/*?[]"):
            return None
        sessions = os.path.join(root, "sessions")
        name = f"rollout-*-{thread_id}.jsonl"
        # Codex files rollouts by date (sessions/YYYY/MM/DD); look there first, then anywhere.
        hits = glob.glob(os.path.join(sessions, "*", "*", "*", name)) or glob.glob(
            os.path.join(sessions, "**", name), recursive=True
        )
        if not hits:
            return None
        found = max(hits, key=lambda p: (os.path.getmtime(p), p))
        self._found[key] = found
        return found


def subagent_files(transcript: Path) -> list[Path]:
    """A Claude Code session's sub-agent transcripts (``<session>/subagents/agent-*.jsonl``)."""
    folder = transcript.with_suffix("") / "subagents"
    return sorted(folder.glob("agent-*.jsonl")) if folder.is_dir() else []


# -- reports -------------------------------------------------------------------------------


@dataclass
class DrainReport:
    """What a drain did (``memex capture drain --format json`` prints it)."""

    batches: int = 0
    records: int = 0
    transcripts: int = 0
    fragments_added: int = 0
    fragments_removed: int = 0
    embedded: int = 0
    rejected_lines: int = 0
    moved_aside: int = 0
    summaries: int = 0
    briefs: int = 0
    waiting: int = 0
    #: Transcripts re-read because they grew after their last event (see the docstring).
    caught_up: int = 0
    errors: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "caught_up": self.caught_up,
            "batches": self.batches,
            "records": self.records,
            "transcripts": self.transcripts,
            "fragments_added": self.fragments_added,
            "fragments_removed": self.fragments_removed,
            "embedded": self.embedded,
            "rejected_lines": self.rejected_lines,
            "moved_aside": self.moved_aside,
            "summaries": self.summaries,
            "briefs": self.briefs,
            "waiting": self.waiting,
            "errors": list(self.errors),
        }


_HOME_ERRNOS = frozenset(
    {errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOSPC, errno.EDQUOT, errno.EFBIG}
)


class HomeProblem(Exception):
    """The home cannot take writes right now; the batch stays and is retried."""


def is_home_problem(exc: BaseException) -> bool:
    """Errors of the home as a whole (not of one transcript): retried, never failed."""
    from memex_core.catalog.faults import StorageError
    from memex_core.errors import WriteLockedError

    if isinstance(exc, StorageError | WriteLockedError | sqlite3.DatabaseError):
        return True
    return isinstance(exc, OSError) and exc.errno in _HOME_ERRNOS


# -- the worker ------------------------------------------------------------------------------


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
        self._failures: dict[str, tuple[int, str]] = {}
        self._vectors_due = False
        #: Transcripts ingested since the state file was last written (path -> entry).
        self._seen: dict[str, dict[str, Any]] = {}

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
        spool_file = layout.spool_file(self.home)
        try:
            if os.path.getsize(spool_file) > 0:
                name = f"{time.time_ns():020d}-{os.getpid()}{WORK_SUFFIX}"
                os.rename(spool_file, os.path.join(layout.spool_dir(self.home), name))
                time.sleep(APPEND_GRACE_SECONDS)  # a hook's write under way lands in it
        except FileNotFoundError:
            pass
        except OSError as exc:
            if not is_home_problem(exc):
                raise
            # Batches already taken can still be ingested; the spool waits for the fix.
            log.error(
                "cannot take the spool %s: %s. Make the home writable (or free space); "
                "the events wait there and are drained then.",
                spool_file,
                exc,
            )
            if not work_files(self.home):
                raise HomeProblem(f"the spool {spool_file} cannot be taken: {exc}") from exc
        return work_files(self.home)

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
            self._reject(work, batch.bad)
            report.rejected_lines += len(batch.bad)
        report.batches += 1
        report.records += len(batch.records)
        targets, unmatched = self._targets(batch.records)
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
                    self._forget_failure(self._failure_key(work, target))
                    self._remember(target)
                    self._after_ingest(target, report)
                    done_keys.append(target.key)
                    continue
                attempts = self._count_failure(work, target, error)
                if attempts >= MAX_ATTEMPTS:
                    moved.append((target, error))
                else:
                    left.extend(target.records)
        except HomeProblem:
            # Keep the batch; drop from it what already landed so a retry starts there.
            finished = set(done_keys)
            kept = [r for t in targets if t.key not in finished for r in t.records]
            with contextlib.suppress(OSError):  # else the whole batch stays: idempotent
                self._rewrite(work, kept)
            raise
        self._save_seen()
        for target, error in moved:
            self._move_aside(work, target, error)
            report.moved_aside += len(target.records)
        if left:
            self._rewrite(work, left)
            report.waiting += len(left)
            return False
        work.unlink(missing_ok=True)
        return True

    def _targets(
        self, records: Iterable[dict[str, Any]]
    ) -> tuple[list[Target], list[dict[str, Any]]]:
        targets: dict[str, Target] = {}
        unmatched: list[dict[str, Any]] = []
        for record in records:
            agent = str(record.get("agent"))
            session = record.get("session_id")
            session = str(session) if session else None
            path = record.get("transcript_path")
            detail = record.get("detail") or {}
            if not (isinstance(path, str) and path) and agent == "codex" and session:
                codex_home = detail.get("codex_home")
                path = self.rollouts.find(
                    session, codex_home if isinstance(codex_home, str) else None
                )
                if path is None:
                    # Not written yet, or CODEX_HOME differs: keep the record under a
                    # key that retries the lookup next time.
                    key = f"codex:{session}"
                    targets.setdefault(key, Target(key, agent, session, None)).records.append(
                        record
                    )
                    continue
            if not (isinstance(path, str) and path):
                if session and record.get("event") in FINAL_EVENTS | {"SessionStart"}:
                    key = f"session:{agent}:{session}"
                    targets.setdefault(key, Target(key, agent, session, None)).records.append(
                        record
                    )
                else:
                    unmatched.append(record)
                continue
            full = Path(os.path.abspath(os.path.expanduser(path)))
            key = str(full)
            targets.setdefault(key, Target(key, agent, session, full)).records.append(record)
        return list(targets.values()), unmatched

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

    def _remember(self, target: Target) -> None:
        """Remember a transcript just ingested, with the stat it had before it was read."""
        if target.path is None or target.read_stat is None:
            return
        self._seen[str(target.path)] = {
            "agent": target.agent,
            "session_id": target.session_id,
            "cwd": target.cwd,
            "size": target.read_stat.st_size,
            "mtime_ns": target.read_stat.st_mtime_ns,
            "at": time.time(),
        }

    def _save_seen(self) -> None:
        """Write the transcripts remembered since the last save into the state file,
        forgetting those not read for :data:`SEEN_SECONDS` (and the oldest past
        :data:`SEEN_MAX`)."""
        if not self._seen:
            return
        state = read_state(self.home)
        seen = {**seen_transcripts(state), **self._seen}
        horizon = time.time() - SEEN_SECONDS
        kept = sorted(
            (item for item in seen.items() if _number(item[1].get("at")) >= horizon),
            key=lambda item: -_number(item[1].get("at")),
        )[:SEEN_MAX]
        state["transcripts"] = dict(sorted(kept))
        self._save_state(state)
        self._seen = {}

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
            self._remember(target)
            self._after_ingest(target, report)
        self._save_seen()
        self.backfill(report)
        return report

    # -- bookkeeping -------------------------------------------------------------

    def _failure_key(self, work: Path, target: Target) -> str:
        return f"{work.name}:{target.key}"

    def _count_failure(self, work: Path, target: Target, error: str) -> int:
        """One more failed attempt at ``target``; counted in the state file too, so a
        transcript that fails under every ``memex capture drain`` is moved aside as well."""
        key = self._failure_key(work, target)
        state = read_state(self.home)
        found = state.get("failures")
        stored: dict[str, Any] = found if isinstance(found, dict) else {}
        before = stored.get(key, [0])[0] if isinstance(stored.get(key), list) else 0
        attempts = max(self._failures.get(key, (0, ""))[0], int(before)) + 1
        self._failures[key] = (attempts, error)
        state["failures"] = {**stored, key: [attempts, error]}
        self._save_state(state)
        log.warning(
            "%s (%d record(s) of %s, attempt %d of %d)",
            error,
            len(target.records),
            work.name,
            attempts,
            MAX_ATTEMPTS,
        )
        return attempts

    def _forget_failure(self, key: str) -> None:
        self._failures.pop(key, None)
        state = read_state(self.home)
        if isinstance(state.get("failures"), dict) and key in state["failures"]:
            del state["failures"][key]
            self._save_state(state)

    def _rewrite(self, work: Path, records: list[dict[str, Any]]) -> None:
        tmp = work.with_name(work.name + ".tmp")
        with open(tmp, "wb") as handle:
            for record in records:
                handle.write(spool.encode(record))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, work)

    def _reject(self, work: Path, bad: list[BadLine]) -> None:
        for line in bad:
            log.warning("%s line %d skipped: %s", work.name, line.number, line.reason)
        path = os.path.join(rejected_dir(self.home), work.stem + ".jsonl")
        try:
            os.makedirs(rejected_dir(self.home), mode=0o700, exist_ok=True)
            with open(path, "a", encoding="utf-8") as handle:
                for line in bad:
                    entry = {"batch": work.name, "line": line.number, "reason": line.reason}
                    handle.write(json.dumps({**entry, "raw": line.raw}, ensure_ascii=False) + "\n")
        except OSError as exc:  # the log above has them; the good records go on
            log.warning("could not keep the skipped lines in %s: %s", path, exc)

    def _move_aside(self, work: Path, target: Target, error: str) -> None:
        os.makedirs(failed_dir(self.home), mode=0o700, exist_ok=True)
        digest = hashlib.sha1(target.key.encode("utf-8", "surrogateescape")).hexdigest()[:8]
        stem = f"{work.stem}-{digest}"
        with open(os.path.join(failed_dir(self.home), stem + ".jsonl"), "wb") as handle:
            for record in target.records:
                handle.write(spool.encode(record))
        with open(os.path.join(failed_dir(self.home), stem + ".reason"), "w") as handle:
            handle.write(f"{error}\n")
        self._forget_failure(self._failure_key(work, target))
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
        state = read_state(self.home)
        state["last_error"] = {"at": time.time(), "message": message, "pid": os.getpid()}
        self._save_state(state)

    def record_drained(self) -> None:
        state = read_state(self.home)
        state["last_drain"] = time.time()
        state.pop("last_error", None)
        self._save_state(state)

    def _save_state(self, state: dict[str, Any]) -> None:
        try:
            os.makedirs(layout.capture_dir(self.home), mode=0o700, exist_ok=True)
            _write_json(layout.state_file(self.home), state)
        except OSError as exc:
            log.warning("could not write %s: %s", layout.state_file(self.home), exc)

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


# -- the process ----------------------------------------------------------------------------


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
