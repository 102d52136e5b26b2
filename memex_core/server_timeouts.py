"""How long a store backed by a server (a chroma server, PostgreSQL for pgvector) waits for it.

A refused connection fails in about a millisecond on the same machine; the timeouts
bound a server that is unreachable over the network or hung. Both settings sit in
the store's own table of config.toml::

    [vector.chroma]
    connect_timeout = 2     # seconds to connect
    timeout = 10            # seconds for any one request or statement
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from memex_core.settings_table import positive_seconds


@dataclass(frozen=True)
class Timeouts:
    """Seconds to wait for the server: to connect, and for any one request."""

    connect: float = 2.0
    request: float = 10.0

    @classmethod
    def from_settings(
        cls, settings: Mapping[str, Any], *, table: str, error: Callable[[str], Exception]
    ) -> Timeouts:
        """``connect_timeout`` and ``timeout`` of the store's ``[<table>]`` table, checked."""
        defaults = cls()
        return cls(
            connect=positive_seconds(
                settings, "connect_timeout", defaults.connect, table=table, error=error
            ),
            request=positive_seconds(
                settings, "timeout", defaults.request, table=table, error=error
            ),
        )
