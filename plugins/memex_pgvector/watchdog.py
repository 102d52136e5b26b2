"""A deadline for one call to PostgreSQL that the client enforces itself.

``statement_timeout`` bounds a slow statement only while the server is alive to enforce
it, and libpq has no timeout of its own once connected: a frozen server (a stopped
process, a network that drops packets without a reset) would hang a search for ever.
When a call outlives its deadline the watchdog shuts the connection's socket down, so
libpq sees the connection end and psycopg raises ``OperationalError`` in the waiting
thread; the store then drops that connection and reports the server as not answering.

One thread per store waits for the deadlines (arming one costs a notify, not a thread).
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager


class Watchdog:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._cond = threading.Condition()
        self._deadline: float | None = None
        self._fileno = -1
        self._thread: threading.Thread | None = None
        self._closed = False
        #: Set when the last guarded call was cut off by its deadline.
        self.fired = False

    @contextmanager
    def guard(self, fileno: int, seconds: float) -> Iterator[None]:
        """Shut ``fileno`` down if the block is still running after ``seconds``."""
        with self._cond:
            self._start()
            self.fired = False
            self._fileno = fileno
            self._deadline = self.clock() + seconds
            self._cond.notify()
        try:
            yield
        finally:
            with self._cond:
                self._deadline = None
                self._fileno = -1

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def _start(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._closed = False
            self._thread = threading.Thread(
                target=self._watch, name="memex-pgvector-watchdog", daemon=True
            )
            self._thread.start()

    def _watch(self) -> None:
        with self._cond:
            while not self._closed:
                if self._deadline is None:
                    self._cond.wait()
                    continue
                remaining = self._deadline - self.clock()
                if remaining > 0:
                    self._cond.wait(remaining)
                    continue
                self.fired = True
                _shut_down(self._fileno)
                self._deadline = None


def _shut_down(fileno: int) -> None:
    """End the connection on ``fileno`` for both sides without closing libpq's descriptor."""
    if fileno < 0:
        return
    try:
        with socket.socket(fileno=os.dup(fileno)) as sock:
            sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass  # already closed: the call is ending anyway
