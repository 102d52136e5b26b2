"""Whom ``memex serve`` believes about where a request came from and whom it was sent to:
``[serve] trusted_proxies`` and ``[serve] allowed_hosts`` of config.toml.

``trusted_proxies`` (default: none) lists the addresses or networks of reverse proxies
whose ``X-Forwarded-For`` and ``X-Forwarded-Proto`` uvicorn applies: from them, the
client's address (what :mod:`memex_server.throttle` counts wrong credentials under) and
scheme (whether the viewer's cookie is Secure) are the forwarded ones. From anyone else the
headers are ignored. uvicorn's own default trusted this machine's loopback, so any local
process could claim a new address on every request and guess credentials without limit;
memex turns that off unless it is configured, and ignores ``FORWARDED_ALLOW_IPS``.

``allowed_hosts`` (default: none) names the ``Host`` headers the server answers besides
loopback ones (see :mod:`memex_server.hosts`): the public name a proxy passes on.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memex_core.errors import MemexError
from memex_core.settings_table import SettingsTable

#: uvicorn's setting that memex replaces with ``[serve] trusted_proxies``.
UVICORN_ENV = "FORWARDED_ALLOW_IPS"


def _table(config_path: Path | str) -> SettingsTable:
    return SettingsTable(
        f"{config_path} [serve]",
        MemexError,
        hints={
            "trusted_proxies": "a list of the addresses or networks of your reverse proxies, "
            'as in trusted_proxies = ["127.0.0.1", "10.0.0.0/24"] (default [], none)',
            "allowed_hosts": "a list of the host names clients reach this server by, as in "
            'allowed_hosts = ["memex.example.com"] (default [], loopback names only)',
        },
    )


def _is_network(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        ipaddress.ip_network(value.strip(), strict=False)
    except ValueError:
        return False
    return True


def _is_host_name(value: Any) -> bool:
    if _is_network(value):
        return True
    return isinstance(value, str) and bool(value.strip()) and not any(c in value for c in "/:@ *")


@dataclass(frozen=True)
class NetworkSettings:
    """``[serve] trusted_proxies`` and ``allowed_hosts``."""

    trusted_proxies: tuple[str, ...] = ()
    allowed_hosts: tuple[str, ...] = ()

    @classmethod
    def from_table(cls, table: Mapping[str, Any], config_path: Path | str) -> NetworkSettings:
        """The two settings of ``table`` (the ``[serve]`` table, whose other keys belong
        to other parts of the server), each a list of strings; a bad one raises
        :class:`MemexError` naming the file, the key and what to write."""
        checks = {"trusted_proxies": _is_network, "allowed_hosts": _is_host_name}
        values = _table(config_path).values(
            table,
            lambda key, value: isinstance(value, list) and all(map(checks[key], value)),
            order=tuple(checks),
        )
        return cls(
            trusted_proxies=tuple(v.strip() for v in values.get("trusted_proxies", ())),
            allowed_hosts=tuple(v.strip().lower() for v in values.get("allowed_hosts", ())),
        )

    def uvicorn_options(self) -> dict[str, Any]:
        """What ``uvicorn.Config`` takes: forwarded headers applied from the trusted
        proxies only, and not at all (the client's address as connected) without any."""
        return {
            "proxy_headers": bool(self.trusted_proxies),
            "forwarded_allow_ips": list(self.trusted_proxies),
        }
