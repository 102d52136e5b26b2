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

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from memex_chroma.connection import (
    ChromaUnreachableError,
    ServerAddress,
    describe_failure,
    unreachable,
)
from memex_core.backoff import FIRST_RETRY_S, MAX_RETRY_S, RetryBackoff

__all__ = ["FIRST_RETRY_S", "MAX_RETRY_S", "ServerHealth"]


class ServerHealth(RetryBackoff):
    """Remembers whether the chroma server answered, and when to try it again."""

    def __init__(self, server: ServerAddress, **backoff: Any) -> None:
        super().__init__(**backoff)  # clock, first_retry, max_retry
        self.server = server

    @contextmanager
    def guarded(self) -> Iterator[None]:
        """Run one call to the server; a connection failure becomes ChromaUnreachableError.

        Inside the retry delay after a failure, raises at once without running the call.
        """
        import httpx

        waiting = self.waiting()
        if waiting is not None:
            raise unreachable(self.server, waiting)
        try:
            yield
        except ChromaUnreachableError as exc:  # from connecting: the heartbeat or client
            cause = exc.__cause__
            self.failed(describe_failure(cause) if cause is not None else str(exc))
            raise
        except httpx.TransportError as exc:  # refused, reset, timed out mid-call
            self.failed(describe_failure(exc))
            raise unreachable(self.server, describe_failure(exc)) from exc
        self.succeeded()
