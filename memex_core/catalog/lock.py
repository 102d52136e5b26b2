"""One writer at a time per MEMEX_HOME, with a message that says who holds the lock."""

from __future__ import annotations

import fcntl
import os
import sys
import time
from pathlib import Path
from types import TracebackType

from memex_core.errors import WriteLockedError

DEFAULT_TIMEOUT_S = 10.0


class WriteLock:
    """An advisory ``flock`` on ``$MEMEX_HOME/write.lock``.

    Readers never take it (SQLite WAL lets them read while a write is under way).
    The kernel releases the lock when the holder dies, so a crash never leaves a
    stale lock behind. Waits up to ``MEMEX_LOCK_TIMEOUT`` seconds (default 10).
    """

    def __init__(self, home: Path, timeout: float | None = None) -> None:
        self.path = home / "write.lock"
        env = os.environ.get("MEMEX_LOCK_TIMEOUT")
        self.timeout = timeout if timeout is not None else float(env or DEFAULT_TIMEOUT_S)
        self._fd: int | None = None
        self._depth = 0

    def acquire(self) -> None:
        if self._fd is not None:
            self._depth += 1
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    holder = os.pread(fd, 512, 0).decode("utf-8", "replace").strip()
                    os.close(fd)
                    raise WriteLockedError(
                        f"Another memex process is writing to {self.path.parent} "
                        f"({holder or 'holder unknown'}). Wait for it to finish and run the "
                        "command again, or set MEMEX_LOCK_TIMEOUT=<seconds> to wait longer."
                    ) from None
                time.sleep(0.1)
        os.ftruncate(fd, 0)
        command = " ".join(os.path.basename(a) if i == 0 else a for i, a in enumerate(sys.argv))
        os.pwrite(fd, f"pid {os.getpid()}: {command[:200]}".encode(), 0)
        self._fd = fd
        self._depth = 1

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

    def __enter__(self) -> WriteLock:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()
