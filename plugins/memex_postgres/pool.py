"""A small pool of autocommit connections that recovers the moment the server does.

psycopg_pool's ``ConnectionPool`` reconnects in the background with an exponential backoff
(1 s, 2 s, 4 s ... for up to five minutes): after a restart of some seconds, clients wait
out the backoff although the server is back. Here a borrower that finds no idle
connection connects itself, at once, and gets the server's own reason when that fails
("connection refused", "database does not exist"). What the pool keeps:

- at most ``max_size`` connections lent at a time (a borrower waits up to ``timeout``);
- idle connections, newest first; each is checked with an empty query before it is
  lent (the check ``ConnectionPool.check_connection`` makes), so one broken by a server
  restart is closed and replaced instead of failing the caller's statement;
- nothing idle for longer than ``max_idle`` seconds (the server may have dropped it).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import psycopg
from psycopg import pq

Connect = Callable[[], "psycopg.Connection[Any]"]

DEFAULT_MAX_IDLE_S = 300.0


class PoolExhausted(Exception):
    """Every connection stayed lent for the whole wait."""


class ConnectionPool:
    """Lends autocommit connections made by ``connect`` (thread-safe)."""

    def __init__(
        self,
        connect: Connect,
        *,
        max_size: int,
        timeout: float,
        max_idle: float = DEFAULT_MAX_IDLE_S,
    ) -> None:
        self._connect = connect
        self.max_size = max(1, max_size)
        self.timeout = timeout
        self.max_idle = max_idle
        self._slots = threading.BoundedSemaphore(self.max_size)
        self._idle: list[tuple[psycopg.Connection[Any], float]] = []
        self._lock = threading.Lock()
        self._closed = False

    def getconn(self) -> psycopg.Connection[Any]:
        """A working connection: a checked idle one, else a new one (raises the driver's
        error when the server refuses, :class:`PoolExhausted` when none is free)."""
        if not self._slots.acquire(timeout=self.timeout):
            raise PoolExhausted(
                f"all {self.max_size} connections stayed busy for {self.timeout:g} s"
            )
        try:
            while True:
                conn = self._take_idle()
                if conn is None:
                    return self._connect()
                if self._works(conn):
                    return conn
                conn.close()
        except BaseException:
            self._slots.release()
            raise

    def putconn(self, conn: psycopg.Connection[Any]) -> None:
        """Take a connection back: kept if it is healthy and idle, closed otherwise."""
        try:
            healthy = (
                not self._closed
                and not conn.closed
                and not conn.broken
                and conn.info.transaction_status == pq.TransactionStatus.IDLE
            )
            if healthy:
                with self._lock:
                    self._idle.append((conn, time.monotonic()))
            else:
                conn.close()
        finally:
            self._slots.release()

    def put_idle(self, conn: psycopg.Connection[Any]) -> None:
        """Keep a connection made outside :meth:`getconn` (the first one) for later."""
        with self._lock:
            self._idle.append((conn, time.monotonic()))

    def close(self) -> None:
        self._closed = True
        with self._lock:
            idle, self._idle = self._idle, []
        for conn, _ in idle:
            conn.close()

    def _take_idle(self) -> psycopg.Connection[Any] | None:
        now = time.monotonic()
        with self._lock:
            while self._idle:
                conn, since = self._idle.pop()
                if now - since <= self.max_idle:
                    return conn
                conn.close()
        return None

    @staticmethod
    def _works(conn: psycopg.Connection[Any]) -> bool:
        try:
            conn.execute("")
        except psycopg.Error:
            return False
        return True
