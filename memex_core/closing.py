"""``with thing:`` for the objects that hold a connection, files or a lock until closed.

Imports nothing of memex: the core, the plugins and the integrations may all use it.
"""

from __future__ import annotations

from typing import Self


class ClosesOnExit:
    """A context manager that is itself the resource: ``with`` gives the object back and
    calls its :meth:`close` on the way out, whatever happened inside."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
