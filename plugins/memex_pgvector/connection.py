"""Connecting to PostgreSQL, and what the store says when it does not answer.

One connection per store, opened on first use (psycopg is imported then, not when the
plugin loads). Not a pool: memex calls a store one call at a time (``Memex.call_lock``),
and psycopg_pool's ``getconn`` waits, up to its timeout, for a connection its background
workers make, which back off after failures (the postgres catalog measured its first
statement after a restart timing out that way), where a refused connection of its own
fails in a millisecond.

After a failure, calls fail at once without touching the network until a retry time: 1 s
after the first failure, doubling up to 10 s while the server stays down (as the chroma
store does for a chroma server), so a dead server costs one failed connection, not one
per query, and a long-running process notices a returning server within 10 s.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from memex_core.backoff import FIRST_RETRY_S as FIRST_RETRY_S  # the delays, named here too
from memex_core.backoff import MAX_RETRY_S as MAX_RETRY_S
from memex_core.backoff import RetryBackoff
from memex_core.errors import VectorStoreUnavailableError
from memex_pgvector.location import PgvectorLocation, Timeouts

if TYPE_CHECKING:
    import psycopg

APPLICATION_NAME = "memex-pgvector"


class PgvectorUnreachableError(VectorStoreUnavailableError):
    """PostgreSQL did not answer (searches fall back to keyword results, vectors wait)."""


def unreachable(location: PgvectorLocation, problem: str) -> PgvectorUnreachableError:
    """The error for a database that does not answer, with what to do about it."""
    return PgvectorUnreachableError(
        f"The pgvector store's {location.describe()} is not answering ({problem}). Start "
        "PostgreSQL or fix the URL; memex reconnects by itself. Or use the default vector "
        'store instead: [vector] use = "chroma" in config.toml, then `memex backfill`.'
    )


def describe_failure(exc: BaseException) -> str:
    """The first line of a psycopg error, e.g. ``OperationalError: connection refused``."""
    lines = str(exc).strip().splitlines()
    text = lines[0] if lines else "no answer"
    return f"{type(exc).__name__}: {text}"


def connect(location: PgvectorLocation, timeouts: Timeouts) -> psycopg.Connection[Any]:
    """A new autocommit connection with the store's statement timeout."""
    import psycopg

    conn = psycopg.connect(
        location.url,
        autocommit=True,
        # libpq reads whole seconds and treats 1 as 2.
        connect_timeout=max(2, math.ceil(timeouts.connect)),
        application_name=APPLICATION_NAME,
    )
    try:
        conn.execute(
            "SELECT set_config('statement_timeout', %s, false)",
            (f"{int(timeouts.request * 1000)}ms",),
        )
    except BaseException:
        conn.close()
        raise
    return conn


class ServerHealth(RetryBackoff):
    """Remembers whether the database answered, and when to try it again."""

    def __init__(self, location: PgvectorLocation, **backoff: Any) -> None:
        super().__init__(**backoff)  # clock, first_retry, max_retry
        self.location = location

    def check(self) -> None:
        """Raise at once while inside the retry delay after a failure."""
        waiting = self.waiting()
        if waiting is not None:
            raise unreachable(self.location, waiting)

    def failure(self, problem: str) -> PgvectorUnreachableError:
        """Record the failure; returns the error to raise."""
        self.failed(problem)
        return unreachable(self.location, problem)
