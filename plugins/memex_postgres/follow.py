"""Waking a follower when the catalog changes: ``LISTEN memex_changes`` (the journal's
trigger sends one notification per committed transaction that added journal entries).

:class:`ChangeListener` holds a connection of its own in autocommit, listening.
:meth:`~ChangeListener.wait` returns as soon as a notification arrives, or after the
timeout; the follower (``memex_server.follower``) polls at that interval anyway, so a
notification lost while the connection was down only delays it by one interval. A broken
connection (a server restart) raises from :meth:`~ChangeListener.wait`; the follower
drops the listener, polls, and makes a new one later.
"""

from __future__ import annotations

import contextlib
from typing import Any

from memex_postgres.schema import CHANGES_CHANNEL


class ChangeListener:
    def __init__(self, url: str, connect_timeout: int = 10) -> None:
        import psycopg

        self._conn: Any = psycopg.connect(
            url,
            autocommit=True,
            connect_timeout=connect_timeout,
            application_name="memex follower",
        )
        self._conn.execute(f"LISTEN {CHANGES_CHANNEL}")
        #: The newest journal entry announced so far (the notifications' payload).
        self.announced = 0

    def wait(self, timeout: float) -> bool:
        """Until a change is announced (True) or ``timeout`` seconds pass (False)."""
        woke = False
        for notify in self._conn.notifies(timeout=timeout, stop_after=1):
            woke = True
            with contextlib.suppress(ValueError):
                self.announced = max(self.announced, int(notify.payload))
        return woke

    def close(self) -> None:
        with contextlib.suppress(Exception):  # already broken: closing is best effort
            self._conn.close()
