"""One holder at a time across every host on a shared PostgreSQL catalog.

A :class:`~memex_core.catalog.lock.WriteLock` is an ``flock`` on a file in one home: two
hosts (or two homes on one host) sharing a PostgreSQL catalog would each hold their own and
both believe they are the only writer. :class:`DatabaseLock` is the same lock (same methods,
same waiting, same messages) taken in the database instead: a session-level
``pg_try_advisory_lock`` on a connection of its own, held for as long as the job runs.

* PostgreSQL releases a session's advisory locks when the session ends, so a holder that
  dies (SIGKILL, a crashed host once its TCP keepalives give up) never leaves a stale lock.
* The lock connection names its process in ``application_name``
  (``memex pid N on HOST: command``), so a waiter can say whom it waits for, read from
  ``pg_stat_activity`` (visible between sessions of the same database role).
* Keys are the two-``int4`` form ``(LOCK_CLASS, crc32(name))``. PostgreSQL keeps them apart
  from one-``bigint`` keys (``objsubid`` 2 against 1), so they never meet the catalog's
  per-transaction writer lock, which uses the ``bigint`` form.
* A session-level lock ends with its session, also when the server restarts, and the lock
  connection sits idle while the job works, so nothing would tell the job. A holder made
  by the catalog (:meth:`~memex_postgres.catalog.PostgresCatalog.job_lock`) therefore
  checks, before each commit of the holding thread's catalog transactions, that its
  session still holds the lock (:meth:`DatabaseLock.check`: one round trip); a lost lock
  fails that commit, rolled back, with :class:`JobLockLostError` ("rerun"), instead of
  the job carrying on, unguarded, on the catalog's fresh connections while another
  process may take the lock. A restart after the check also breaks the transaction's
  own connection, so no commit lands without the lock.
"""

from __future__ import annotations

import contextlib
import os
import socket
import sys
import zlib
from collections.abc import Callable
from typing import Any, Protocol

from memex_core.catalog.faults import CatalogUnavailableError
from memex_core.catalog.lock import WaitingLock, _timeout_from_env, _to_stderr

#: First key of every memex job lock: "memx" in ASCII, so a DBA reading pg_locks can tell.
LOCK_CLASS = 0x6D656D78
#: PostgreSQL keeps NAMEDATALEN - 1 bytes of an application_name.
_APPLICATION_NAME_MAX = 63
#: How long a waiting process gives the holder before saying it waits for an unknown one.

_HOLDER_SQL = """
SELECT a.application_name, a.client_addr::text, a.pid
FROM pg_locks AS l
JOIN pg_stat_activity AS a ON a.pid = l.pid
WHERE l.locktype = 'advisory' AND l.granted
  AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
  AND l.classid = %s::bigint::oid AND l.objid = %s::bigint::oid AND l.objsubid = 2
LIMIT 1
"""


#: Whether this session still holds the lock (a restart or a dropped connection ends it).
_HELD_SQL = """
SELECT EXISTS (
  SELECT 1 FROM pg_locks
  WHERE locktype = 'advisory' AND granted AND pid = pg_backend_pid()
    AND classid = %s::bigint::oid AND objid = %s::bigint::oid AND objsubid = 2
)
"""


class CommitChecks(Protocol):
    """Where a holder registers its check (``PostgresConnection.check_commits``)."""

    def check_commits(self, key: object, check: Callable[[], None] | None) -> None: ...


def lock_key(name: str) -> tuple[int, int]:
    """The advisory-lock key of job ``name``: two non-negative ``int4`` values."""
    return LOCK_CLASS, zlib.crc32(name.encode("utf-8")) & 0x7FFFFFFF


def application_name(command: str | None = None) -> str:
    """``memex pid N on HOST: command``, cut to what PostgreSQL keeps (ASCII: PostgreSQL
    turns other characters into ``?``)."""
    if command is None:
        command = " ".join(os.path.basename(a) if i == 0 else a for i, a in enumerate(sys.argv))
    text = f"memex pid {os.getpid()} on {socket.gethostname()}: {command}"
    return text.encode("ascii", "replace").decode("ascii")[:_APPLICATION_NAME_MAX]


def describe_url(url: str) -> str:
    """``host:port/dbname`` of a connection URL, never its password (for messages)."""
    from psycopg.conninfo import conninfo_to_dict

    try:
        parts = conninfo_to_dict(url)
    except Exception:  # a URL psycopg cannot parse: say only that it is a PostgreSQL one
        return "the PostgreSQL catalog"
    host = parts.get("host") or "localhost"
    port = parts.get("port") or "5432"
    return f"{host}:{port}/{parts.get('dbname') or parts.get('user') or ''}"


class DatabaseLockError(CatalogUnavailableError):
    """The database that holds the job locks cannot be reached."""


class JobLockLostError(DatabaseLockError):
    """A held job lock ended under the job (the server restarted, the lock's connection
    broke): the job stops before its next commit."""


class DatabaseLock(WaitingLock):
    """A job lock shared by every memex process on one PostgreSQL database.

    Same interface as :class:`~memex_core.catalog.lock.WriteLock`: :meth:`acquire` waits
    up to ``timeout`` seconds (``MEMEX_LOCK_TIMEOUT``, default 10; 0 = fail at once),
    telling ``notify`` once whom it waits for, then raises :class:`WriteLockedError`
    naming the holder; :meth:`try_acquire` never waits; both nest; :meth:`release` lets
    go when the outermost holder does. Not thread-safe, like ``WriteLock``: callers
    serialise through ``Memex.call_lock``.

    Given ``commits`` (the catalog's connection), the thread that takes the lock has
    :meth:`check` run before each of its catalog commits while it holds it.
    """

    def __init__(
        self,
        url: str,
        name: str,
        *,
        timeout: float | None = None,
        notify: Callable[[str], None] | None = _to_stderr,
        command: str | None = None,
        commits: CommitChecks | None = None,
    ) -> None:
        self.url = url
        self.commits = commits
        self.name = name
        self.key = lock_key(name)
        self.timeout = timeout if timeout is not None else _timeout_from_env()
        self.notify = notify
        self.application_name = application_name(command)
        self._conn: Any = None
        self._depth = 0

    @property
    def where(self) -> str:
        return f"the {self.name!r} lock in {describe_url(self.url)}"

    @property
    def held(self) -> bool:
        return self._depth > 0

    # -- the connection ----------------------------------------------------------------

    def _connect(self) -> Any:
        import psycopg

        try:
            conn = psycopg.connect(
                self.url,
                autocommit=True,
                application_name=self.application_name,
                connect_timeout=10,
            )
        except psycopg.Error as exc:
            reason = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc) else ''}"
            fix = (
                "Check that PostgreSQL is running and that [catalog.postgres] url (or "
                "MEMEX_CATALOG_URL) points at it."
            )
            raise DatabaseLockError(
                f"Cannot reach {describe_url(self.url)} to take {self.where} ({reason}). {fix}",
                server=describe_url(self.url),
                reason=reason,
                fix=fix,
            ) from exc
        # A holder whose host vanishes (power, network) holds the lock until the server
        # notices the session is dead; these make it notice within about a minute.
        for setting, value in (
            ("tcp_keepalives_idle", 30),
            ("tcp_keepalives_interval", 10),
            ("tcp_keepalives_count", 3),
        ):
            # Some poolers refuse SET: the server's defaults apply then.
            with contextlib.suppress(psycopg.Error):
                conn.execute(f"SET {setting} = {int(value)}")
        return conn

    def _query(self, sql: str, params: tuple[Any, ...]) -> Any:
        """Run ``sql`` on the lock connection, reconnecting once if it broke while idle (a
        server restart between two jobs). Never used while the lock is held: a new session
        would not hold it."""
        import psycopg

        for attempt in (1, 2):
            if self._conn is None or self._conn.closed:
                self._conn = self._connect()
            try:
                return self._conn.execute(sql, params).fetchone()
            except psycopg.OperationalError as exc:
                self._close()
                if attempt == 2 or self._depth > 0:
                    raise DatabaseLockError(
                        f"Lost the connection to {describe_url(self.url)} while using "
                        f"{self.where} ({str(exc).strip().splitlines()[0] if str(exc) else ''}"
                        "). Check that PostgreSQL is running, then run the command again."
                    ) from exc
        raise AssertionError("unreachable")

    def _close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):  # already broken: closing is best effort
                conn.close()

    # -- the lock ------------------------------------------------------------------------

    def try_acquire(self) -> bool:
        """Take the lock if no other session holds it, without waiting (True if taken)."""
        if self._depth > 0:
            self._depth += 1
            return True
        row = self._query("SELECT pg_try_advisory_lock(%s::int4, %s::int4)", self.key)
        if not row or not row[0]:
            return False
        self._depth = 1
        if self.commits is not None:
            self.commits.check_commits(self, self.check)
        return True

    def check(self) -> None:
        """Raise :class:`JobLockLostError` if this holder's session no longer holds the
        lock (a server restart or a broken connection ended it); nothing when not held."""
        if self._depth == 0:
            return
        import psycopg

        conn = self._conn
        try:
            if conn is None or conn.closed:
                raise psycopg.OperationalError("the lock's connection is closed")
            row = conn.execute(_HELD_SQL, self.key).fetchone()
        except psycopg.Error as exc:
            detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            self._lost()
            raise JobLockLostError(self._lost_message(f"its connection broke: {detail}")) from exc
        if not row or not row[0]:
            self._lost()
            raise JobLockLostError(self._lost_message("its session no longer holds it"))

    def _lost_message(self, why: str) -> str:
        job = self.name
        return (
            f"Lost the {job!r} lock in {describe_url(self.url)} ({why}): the database "
            "restarted, or the connection holding the lock dropped, while this job ran, so "
            f"another process may be running {job} now. This job stopped before its next "
            "write, which was rolled back; what it wrote before is kept. Run the command "
            "again to finish (it waits for the other one, if any)."
        )

    def _lost(self) -> None:
        """Forget a lock that is gone: later releases do nothing, a later acquire takes it
        anew on a new connection."""
        self._depth = 0
        self._close()
        if self.commits is not None:
            self.commits.check_commits(self, None)

    def holder(self) -> str:
        """Who holds the lock (``memex pid N on HOST: command``), or ``""`` when nobody
        does or the holder's session is not visible to this database role."""
        try:
            row = self._query(_HOLDER_SQL, self.key)
        except DatabaseLockError:
            return ""
        if not row:
            return ""
        name, address, pid = row
        if name:
            return str(name)
        return f"a session from {address or 'a local socket'} (server pid {pid})"

    def _busy(self, holder: str) -> str:
        return f"Another memex process holds {self.where} ({holder or 'holder unknown'})"

    def release(self) -> None:
        if self._depth == 0:
            return
        self._depth -= 1
        if self._depth > 0:
            return
        if self.commits is not None:
            self.commits.check_commits(self, None)
        try:
            self._query("SELECT pg_advisory_unlock(%s::int4, %s::int4)", self.key)
        except DatabaseLockError:
            # The session is gone, and with it the lock: nothing left to release.
            self._close()

    def close(self) -> None:
        """Drop the connection (and with it the lock, if still held)."""
        if self._depth and self.commits is not None:
            self.commits.check_commits(self, None)
        self._depth = 0
        self._close()
