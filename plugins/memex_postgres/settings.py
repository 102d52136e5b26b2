"""Where the postgres catalog finds its server: ``[catalog.postgres]`` in config.toml, and
``MEMEX_CATALOG_URL``, which wins over the file (a deployment keeps its password out of
it).

::

    [catalog]
    use = "postgres"
    [catalog.postgres]
    url = "postgresql://memex@db.internal:5432/memex"
    pool_size = 8            # connections each process keeps at most
    connect_timeout = 10     # seconds to wait for the server before saying it is down
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from memex_core.errors import MemexError
from memex_core.settings_table import is_number
from memex_postgres.connection import DEFAULT_CONNECT_TIMEOUT_S, DEFAULT_POOL_SIZE
from memex_postgres.urls import mask_password

URL_ENV = "MEMEX_CATALOG_URL"
SCHEMES = ("postgresql", "postgres")
_EXAMPLE = 'url = "postgresql://memex@db.example:5432/memex"'


@dataclass(frozen=True)
class PostgresSettings:
    url: str
    pool_size: int = DEFAULT_POOL_SIZE
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT_S


def is_postgres_url(url: str) -> bool:
    try:
        return urlsplit(url.strip()).scheme in SCHEMES
    except ValueError:
        return False


def postgres_settings(
    table: Mapping[str, Any], environ: Mapping[str, str] | None = None
) -> PostgresSettings:
    """The settings of ``[catalog.postgres]``, the URL from ``MEMEX_CATALOG_URL`` if set."""
    environ = os.environ if environ is None else environ
    from_env = environ.get(URL_ENV, "").strip()
    url = from_env or table.get("url")
    where = URL_ENV if from_env else "[catalog.postgres] url"
    if not url:
        raise MemexError(
            'The postgres catalog ([catalog] use = "postgres") needs its server: add '
            f"[catalog.postgres] {_EXAMPLE} to config.toml, or set {URL_ENV}."
        )
    if not isinstance(url, str) or not is_postgres_url(url):
        shown = mask_password(url) if isinstance(url, str) else repr(url)
        raise MemexError(
            f"{where} = {shown!r} is not a PostgreSQL URL. Write it as "
            "postgresql://user[:password]@host[:port]/database, e.g. "
            f"[catalog.postgres] {_EXAMPLE}."
        )
    if not urlsplit(url).path.strip("/"):
        raise MemexError(
            f"{where} ({mask_password(url)}) names no database: add one after the host, e.g. "
            "postgresql://memex@db.example:5432/memex (create it first: createdb memex)."
        )
    return PostgresSettings(
        url=url.strip(),
        pool_size=_positive(table, "pool_size", DEFAULT_POOL_SIZE, int),
        connect_timeout=_positive(table, "connect_timeout", DEFAULT_CONNECT_TIMEOUT_S, float),
    )


def _positive(table: Mapping[str, Any], key: str, default: Any, kind: type) -> Any:
    value = table.get(key, default)
    if not is_number(value) or value <= 0:
        raise MemexError(
            f"[catalog.postgres] {key} = {value!r} must be a positive number (default {default:g})."
        )
    return kind(value)
