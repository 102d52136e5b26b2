"""The spool's batch files: taking the spool as a batch, reading it line by line,
rewriting what is left of it, and the folders rejected lines and failed records go to.

*Take*: ``events.jsonl`` is renamed to ``<ns>-<pid>.work`` in the spool folder, so
hooks go on appending to a fresh ``events.jsonl`` while the worker reads. A hook that
opened the old file just before the rename still lands in the ``.work`` file (same
inode), hence a short wait before reading it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memex_capture import layout, spool
from memex_capture.home_problems import HomeProblem, is_home_problem
from memex_capture.targets import Target

#: After renaming the spool, how long to let a hook's append already under way land.
APPEND_GRACE_SECONDS = 0.05
REJECTED = "rejected"
FAILED = "failed"
WORK_SUFFIX = ".work"

#: The worker's log (``memex_capture.worker.setup_logging`` routes it to the home).
log = logging.getLogger("memex_capture.worker")


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
    for number, line in spool.numbered_lines(path):
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


def take_batches(home: str) -> list[Path]:
    """Unfinished batches first, then the spool renamed to a new batch."""
    spool_file = layout.spool_file(home)
    try:
        if os.path.getsize(spool_file) > 0:
            name = f"{time.time_ns():020d}-{os.getpid()}{WORK_SUFFIX}"
            os.rename(spool_file, os.path.join(layout.spool_dir(home), name))
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
        if not work_files(home):
            raise HomeProblem(f"the spool {spool_file} cannot be taken: {exc}") from exc
    return work_files(home)


def rewrite_batch(work: Path, records: list[dict[str, Any]]) -> None:
    """Replace the batch with ``records`` (what is left of it), durably."""
    tmp = work.with_name(work.name + ".tmp")
    with open(tmp, "wb") as handle:
        for record in records:
            handle.write(spool.encode(record))
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, work)


def keep_rejected(home: str, work: Path, bad: list[BadLine]) -> None:
    """Log the bad lines of a batch and keep them in ``spool/rejected/`` for ``memex doctor``."""
    for line in bad:
        log.warning("%s line %d skipped: %s", work.name, line.number, line.reason)
    path = os.path.join(rejected_dir(home), work.stem + ".jsonl")
    try:
        os.makedirs(rejected_dir(home), mode=0o700, exist_ok=True)
        with open(path, "a", encoding="utf-8") as handle:
            for line in bad:
                entry = {"batch": work.name, "line": line.number, "reason": line.reason}
                handle.write(json.dumps({**entry, "raw": line.raw}, ensure_ascii=False) + "\n")
    except OSError as exc:  # the log above has them; the good records go on
        log.warning("could not keep the skipped lines in %s: %s", path, exc)


def set_aside(home: str, work: Path, target: Target, error: str) -> None:
    """Write ``target``'s records and the reason they failed to ``spool/failed/``."""
    os.makedirs(failed_dir(home), mode=0o700, exist_ok=True)
    digest = hashlib.sha1(target.key.encode("utf-8", "surrogateescape")).hexdigest()[:8]
    stem = f"{work.stem}-{digest}"
    with open(os.path.join(failed_dir(home), stem + ".jsonl"), "wb") as handle:
        for record in target.records:
            handle.write(spool.encode(record))
    with open(os.path.join(failed_dir(home), stem + ".reason"), "w") as handle:
        handle.write(f"{error}\n")
