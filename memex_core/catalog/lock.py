"""One writer at a time per MEMEX_HOME, with a message that says who holds the lock."""

from __future__ import annotations

import fcntl
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Self

from memex_core.errors import MemexError, WriteLockedError

DEFAULT_TIMEOUT_S = 10.0
TIMEOUT_ENV = "MEMEX_LOCK_TIMEOUT"
#: How long a waiting writer gives the holder to write its name into the lock file
#: before saying that it waits for an unknown holder.
_NAME_GRACE_S = 1.0


def _to_stderr(message: str) -> None:
    sys.stderr.write(message + "\n")
    sys.stderr.flush()


def _timeout_from_env() -> float:
    raw = os.environ.get(TIMEOUT_ENV, "").strip()
    if not raw:
        return DEFAULT_TIMEOUT_S
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not value >= 0:  # also refuses nan
        raise MemexError(
            f"{TIMEOUT_ENV}={raw!r} is not a number of seconds. Set it to how long a writer "
            "may wait for another one (0 = do not wait), or unset it for the default "
            f"{DEFAULT_TIMEOUT_S:g} s."
        )
    return value


class WaitingLock:
    """What every memex lock shares: wait for the holder up to ``timeout`` seconds
    (``MEMEX_LOCK_TIMEOUT``, default 10; 0 = fail at once), say once through ``notify``
    whom it waits for, then raise :class:`WriteLockedError` naming the holder.

    A lock says what it guards (:meth:`_busy`) and implements ``try_acquire``,
    ``holder`` and ``release``; :class:`WriteLock` is a file in the home, the postgres
    plugin's ``DatabaseLock`` an advisory lock in the shared database.
    """

    timeout: float
    notify: Callable[[str], None] | None

    def try_acquire(self) -> bool:
        raise NotImplementedError

    def holder(self) -> str:
        raise NotImplementedError

    def release(self) -> None:
        raise NotImplementedError

    def _busy(self, holder: str) -> str:
        """``Another memex process ... (<holder>)``: what is taken, and by whom."""
        raise NotImplementedError

    def acquire(self) -> None:
        started = time.monotonic()
        told = False
        while not self.try_acquire():
            holder = self.holder()
            waited = time.monotonic() - started
            if waited >= self.timeout:
                raise WriteLockedError(self._refusal(holder))
            if not told and (holder or waited >= _NAME_GRACE_S):
                told = True
                if self.notify is not None:
                    self.notify(
                        f"{self._busy(holder)}; waiting up to {self.timeout:g} s for it to "
                        f"finish ({TIMEOUT_ENV} sets how long)."
                    )
            time.sleep(0.1)

    def refusal(self) -> str:
        """Why a writer that gave up waiting could not write, naming the holder."""
        return self._refusal(self.holder())

    def _refusal(self, holder: str) -> str:
        who = self._busy(holder)
        if self.timeout <= 0:
            return (
                f"{who}, and this command was told not to wait. Run it again when that one "
                f"has finished, or let it wait ({TIMEOUT_ENV}=<seconds>, default "
                f"{DEFAULT_TIMEOUT_S:g})."
            )
        return (
            f"{who}; gave up after waiting {self.timeout:g} s. Wait for it to finish and run "
            f"the command again, or set {TIMEOUT_ENV}=<seconds> to wait longer."
        )

    def __enter__(self) -> Self:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()


class WriteLock(WaitingLock):
    """An advisory ``flock`` on ``$MEMEX_HOME/write.lock``: one writing process per home.

    Readers never take it (SQLite WAL lets them read while a write is under way).
    The kernel releases the lock when the holder dies, so a crash never leaves a
    stale lock behind. The holder writes ``pid N: <command>`` into the file, so a
    writer that has to wait can say whom it waits for: it says so once through
    ``notify`` (stderr by default) and waits up to ``timeout`` seconds
    (``MEMEX_LOCK_TIMEOUT``, default 10; 0 = fail at once), then raises
    :class:`WriteLockedError` naming the holder.
    """

    def __init__(
        self,
        home: Path,
        timeout: float | None = None,
        notify: Callable[[str], None] | None = _to_stderr,
    ) -> None:
        self.path = home / "write.lock"
        self.timeout = timeout if timeout is not None else _timeout_from_env()
        self.notify = notify
        self._fd: int | None = None
        self._depth = 0

    def try_acquire(self) -> bool:
        """Take the lock if no other process holds it, without waiting (True if taken).

        Like :meth:`acquire`, it nests: a holder taking it again only counts deeper.
        A server uses it to wait for another process's write without holding up its
        own readers (``memex_server``)."""
        if self._fd is not None:
            self._depth += 1
            return True
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        os.ftruncate(fd, 0)
        command = " ".join(os.path.basename(a) if i == 0 else a for i, a in enumerate(sys.argv))
        os.pwrite(fd, f"pid {os.getpid()}: {command[:200]}".encode(), 0)
        self._fd = fd
        self._depth = 1
        return True

    def holder(self) -> str:
        """Who holds the lock, as the holder wrote it (``pid N: <command>``), or ``""``."""
        try:
            return self.path.read_text(encoding="utf-8", errors="replace")[:512].strip()
        except OSError:
            return ""

    def _busy(self, holder: str) -> str:
        return (
            f"Another memex process is writing to {self.path.parent} ({holder or 'holder unknown'})"
        )

    def release(self) -> None:
        if self._fd is None:
            return
        self._depth -= 1
        if self._depth > 0:
            return
        os.ftruncate(self._fd, 0)
        fcntl.flock(self._fd, fcntl.LOCK_UN)
        os.close(self._fd)
        self._fd = None
