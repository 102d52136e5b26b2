"""A chroma server that stopped answering: fail fast for a few seconds, then try again.

Measured against a real ``chroma run`` on 127.0.0.1 (chromadb 1.5.9): a query to a
stopped server fails with a refused connection in about 1 ms, and the same client
works again as soon as the server is back on its port. A server that hangs (or a
host that drops packets) costs the connect or request timeout instead
(:class:`memex_chroma.connection.Timeouts`), which is why, after a failure, calls
fail at once without touching the network until a retry time: 1 s after the first
failure, doubling up to 10 s while the server stays down. A long-running process
(an MCP server, an app) therefore notices a returning server within 10 s; each CLI
command is a new process and simply tries once.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from memex_chroma.connection import (
    ChromaUnreachableError,
    ServerAddress,
    describe_failure,
    unreachable,
)

FIRST_RETRY_S = 1.0
MAX_RETRY_S = 10.0


@dataclass
class _Outage:
    problem: str
    failures: int
    retry_at: float


class ServerHealth:
    """Remembers whether the server answered, and when to try it again."""

    def __init__(
        self,
        server: ServerAddress,
        clock: Callable[[], float] = time.monotonic,
        first_retry: float = FIRST_RETRY_S,
        max_retry: float = MAX_RETRY_S,
    ) -> None:
        self.server = server
        self.clock = clock
        self.first_retry = first_retry
        self.max_retry = max_retry
        self._outage: _Outage | None = None

    @property
    def down(self) -> bool:
        return self._outage is not None

    @contextmanager
    def guarded(self) -> Iterator[None]:
        """Run one call to the server; a connection failure becomes ChromaUnreachableError.

        Inside the retry delay after a failure, raises at once without running the call.
        """
        import httpx

        outage = self._outage
        if outage is not None:
            wait = outage.retry_at - self.clock()
            if wait > 0:
                raise unreachable(self.server, f"{outage.problem}; next try in {wait:.1f} s")
        try:
            yield
        except ChromaUnreachableError as exc:  # from connecting: the heartbeat or client
            cause = exc.__cause__
            self._failed(describe_failure(cause) if cause is not None else str(exc))
            raise
        except httpx.TransportError as exc:  # refused, reset, timed out mid-call
            self._failed(describe_failure(exc))
            raise unreachable(self.server, describe_failure(exc)) from exc
        self._outage = None

    def _failed(self, problem: str) -> None:
        failures = self._outage.failures + 1 if self._outage else 1
        delay = min(self.max_retry, self.first_retry * 2 ** (failures - 1))
        self._outage = _Outage(problem, failures, self.clock() + delay)
