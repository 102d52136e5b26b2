"""Asking a home's warm process whether it is there, as ``memex warm status`` does."""

from __future__ import annotations

from pathlib import Path

from memex_core.warm import protocol, socket_client


def ping(home: Path) -> dict[str, object] | None:
    """The warm process's answer (pid, owner, requests, ...), or None when none listens."""
    try:
        return socket_client.exchange(
            protocol.socket_path(str(home)), {"v": protocol.VERSION, "op": "ping"}, 5.0
        )
    except socket_client.Declined:
        return None
