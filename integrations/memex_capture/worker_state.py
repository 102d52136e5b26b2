"""The worker's state file (``layout.state_file``): the transcripts it ingested, how often
each failing transcript failed, and the last drain or error, for ``memex doctor``.

*Catching up* reads it: each transcript ingested is remembered with the size and
modification time it had, so one that grew after its last hook event (whose pointer
was lost while the home could not be written) is found and read again.
"""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path
from typing import Any

from memex_capture import layout
from memex_capture.targets import Target, number

#: How often a transcript may fail before its records are moved to ``spool/failed/``.
MAX_ATTEMPTS = 3
#: How long a remembered transcript must be unchanged before it is caught up.
QUIET_SECONDS = 60.0
#: How long a transcript is remembered after it was last ingested, and how many at most.
SEEN_SECONDS = 14 * 24 * 3600.0
SEEN_MAX = 2000

#: The worker's log (``memex_capture.worker.setup_logging`` routes it to the home).
log = logging.getLogger("memex_capture.worker")


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


def write_json(path: str, value: Any) -> None:
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as handle:
        json.dump(value, handle, indent=1, sort_keys=True)
    os.replace(tmp, path)


class WorkerState:
    """The state file as one worker keeps it: the failures it counted and the
    transcripts it ingested since the file was last written."""

    def __init__(self, home: str) -> None:
        self.home = home
        self._failures: dict[str, tuple[int, str]] = {}
        #: Transcripts ingested since the state file was last written (path -> entry).
        self._seen: dict[str, dict[str, Any]] = {}

    def remember(self, target: Target) -> None:
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

    def save_seen(self) -> None:
        """Write the transcripts remembered since the last save into the state file,
        forgetting those not read for :data:`SEEN_SECONDS` (and the oldest past
        :data:`SEEN_MAX`)."""
        if not self._seen:
            return
        state = read_state(self.home)
        seen = {**seen_transcripts(state), **self._seen}
        horizon = time.time() - SEEN_SECONDS
        kept = sorted(
            (item for item in seen.items() if number(item[1].get("at")) >= horizon),
            key=lambda item: -number(item[1].get("at")),
        )[:SEEN_MAX]
        state["transcripts"] = dict(sorted(kept))
        self.save(state)
        self._seen = {}

    def failure_key(self, work: Path, target: Target) -> str:
        return f"{work.name}:{target.key}"

    def count_failure(self, work: Path, target: Target, error: str) -> int:
        """One more failed attempt at ``target``; counted in the state file too, so a
        transcript that fails under every ``memex capture drain`` is moved aside as well."""
        key = self.failure_key(work, target)
        state = read_state(self.home)
        found = state.get("failures")
        stored: dict[str, Any] = found if isinstance(found, dict) else {}
        before = stored.get(key, [0])[0] if isinstance(stored.get(key), list) else 0
        attempts = max(self._failures.get(key, (0, ""))[0], int(before)) + 1
        self._failures[key] = (attempts, error)
        state["failures"] = {**stored, key: [attempts, error]}
        self.save(state)
        log.warning(
            "%s (%d record(s) of %s, attempt %d of %d)",
            error,
            len(target.records),
            work.name,
            attempts,
            MAX_ATTEMPTS,
        )
        return attempts

    def forget_failure(self, key: str) -> None:
        self._failures.pop(key, None)
        state = read_state(self.home)
        if isinstance(state.get("failures"), dict) and key in state["failures"]:
            del state["failures"][key]
            self.save(state)

    def record_error(self, message: str) -> None:
        """Remember the last error for ``memex doctor`` (best effort: the home may be full)."""
        state = read_state(self.home)
        state["last_error"] = {"at": time.time(), "message": message, "pid": os.getpid()}
        self.save(state)

    def record_drained(self) -> None:
        state = read_state(self.home)
        state["last_drain"] = time.time()
        state.pop("last_error", None)
        self.save(state)

    def save(self, state: dict[str, Any]) -> None:
        try:
            os.makedirs(layout.capture_dir(self.home), mode=0o700, exist_ok=True)
            write_json(layout.state_file(self.home), state)
        except OSError as exc:
            log.warning("could not write %s: %s", layout.state_file(self.home), exc)
