"""When to try a server again after it stopped answering: 1 s, doubling up to 10 s.

A store backed by a server (a ``chroma run`` server, PostgreSQL for pgvector) fails fast
inside the delay instead of paying a connect timeout per call, so a dead server costs one
failed connection, not one per query, and a long-running process notices a returning
server within the longest delay. Each store wraps this in the error it raises.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

FIRST_RETRY_S = 1.0
MAX_RETRY_S = 10.0


@dataclass(frozen=True)
class Outage:
    """The last failure: what went wrong, how many times in a row, when to try again."""

    problem: str
    failures: int
    retry_at: float


class RetryBackoff:
    """Remembers whether a server answered, and when to try it again."""

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        first_retry: float = FIRST_RETRY_S,
        max_retry: float = MAX_RETRY_S,
    ) -> None:
        self.clock = clock
        self.first_retry = first_retry
        self.max_retry = max_retry
        self.outage: Outage | None = None

    @property
    def down(self) -> bool:
        return self.outage is not None

    def waiting(self) -> str | None:
        """Inside the retry delay: why the server is taken as down and when it is tried
        again (``"<problem>; next try in 2.0 s"``); None when a call may go ahead."""
        outage = self.outage
        if outage is None:
            return None
        wait = outage.retry_at - self.clock()
        return f"{outage.problem}; next try in {wait:.1f} s" if wait > 0 else None

    def failed(self, problem: str) -> None:
        failures = self.outage.failures + 1 if self.outage else 1
        delay = min(self.max_retry, self.first_retry * 2 ** (failures - 1))
        self.outage = Outage(problem, failures, self.clock() + delay)

    def succeeded(self) -> None:
        self.outage = None
