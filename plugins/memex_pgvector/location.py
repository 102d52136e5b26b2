"""Which PostgreSQL database holds the vectors, and the store's settings, from config.toml.

Pure and cheap: nothing here imports psycopg, so building the store costs nothing until
it is first used. The database is ``[vector.pgvector] url``, else the catalog's own
PostgreSQL database (``MEMEX_CATALOG_URL``, or ``[catalog.postgres] url`` when
``[catalog] use = "postgres"``), so a home whose catalog is on PostgreSQL needs one line
(``[vector] use = "pgvector"``) to keep its vectors there too.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from memex_core.errors import MemexError
from memex_core.server_timeouts import Timeouts
from memex_core.settings_table import is_whole_number

#: The catalog's database, when it is PostgreSQL (the shared setting of the catalog role).
CATALOG_URL_ENV = "MEMEX_CATALOG_URL"
URL_SETTING = "[vector.pgvector] url"
CATALOG_URL_SETTING = "[catalog.postgres] url"
SCHEMES = ("postgresql", "postgres")

DEFAULT_TABLE = "memex_vectors"
#: HNSW search breadth per query (pgvector accepts 1 to 1,000). Measured on 100,000 real
#: MiniLM vectors and 300 SciFact queries (docs/benchmarks-pgvector-vs-chroma-server.md): recall@10
#: 0.967 at pgvector's default 40, 0.988 at 100, 0.997 at 200, 0.999 at 400 (2.4x the
#: p50 of 200); the chroma server with memex's ef_search 400 found 1.000 in the same run.
DEFAULT_EF_SEARCH = 200
MAX_EF_SEARCH = 1000
#: HNSW graph parameters (pgvector's defaults), fixed when the table is created.
DEFAULT_M = 16
DEFAULT_EF_CONSTRUCTION = 64
_TABLE_NAME = re.compile(r"[a-z_][a-z0-9_]{0,47}")


class PgvectorConfigError(MemexError):
    """The pgvector settings in the environment or config.toml are unusable."""


@dataclass(frozen=True)
class PgvectorLocation:
    """The database URL and where it came from (for messages; never shown with a password)."""

    url: str
    origin: str

    @property
    def safe_url(self) -> str:
        return redact(self.url)

    def describe(self) -> str:
        return f"PostgreSQL database {self.safe_url} ({self.origin})"


@dataclass(frozen=True)
class StoreSettings:
    table: str = DEFAULT_TABLE
    ef_search: int = DEFAULT_EF_SEARCH
    m: int = DEFAULT_M
    ef_construction: int = DEFAULT_EF_CONSTRUCTION
    timeouts: Timeouts = field(default_factory=Timeouts)


def redact(url: str) -> str:
    """``url`` with its password replaced by ``***``."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)
    user = (parts.username or "") + ":***"
    return urlunsplit(parts._replace(netloc=f"{user}@{netloc[-1]}"))


def check_url(url: str, origin: str) -> str:
    """``url`` stripped, or PgvectorConfigError saying what a valid one looks like."""
    url = url.strip()
    parts = urlsplit(url)
    if parts.scheme not in SCHEMES or not (parts.hostname or parts.query):
        raise PgvectorConfigError(
            f"The pgvector database {redact(url)!r} ({origin}) is not a PostgreSQL URL. "
            "Set it to a URL like postgresql://user@db.example:5432/memex."
        )
    return url


def _is_postgres_url(value: str) -> bool:
    return urlsplit(value.strip()).scheme in SCHEMES


def catalog_url(home: Path, environ: Mapping[str, str]) -> tuple[str, str] | None:
    """The catalog's PostgreSQL URL and its origin, or None when the catalog is not on it.

    As the catalog role reads it: ``[catalog] use`` picks the engine; when it is not set, a
    postgresql:// ``MEMEX_CATALOG_URL`` selects PostgreSQL. The URL is that variable, else
    ``[catalog.postgres] url``.
    """
    from memex_core.config import load_config

    table = load_config(home).table("catalog")
    use = table.get("use")
    env = environ.get(CATALOG_URL_ENV, "").strip()
    if use is None and not _is_postgres_url(env):
        return None
    if use is not None and use != "postgres":
        return None
    if env:
        return env, f"from {CATALOG_URL_ENV}, the catalog's database"
    postgres = table.get("postgres")
    url = postgres.get("url") if isinstance(postgres, dict) else None
    if isinstance(url, str) and url.strip():
        return url, f"from {CATALOG_URL_SETTING} in config.toml, the catalog's database"
    return None


def resolve_location(
    home: Path, settings: Mapping[str, Any], environ: Mapping[str, str] | None = None
) -> PgvectorLocation:
    """``[vector.pgvector] url``, else the catalog's PostgreSQL URL, else a clear error."""
    env = os.environ if environ is None else environ
    url = settings.get("url")
    if url is not None:
        if not isinstance(url, str) or not url.strip():
            raise PgvectorConfigError(
                f"{URL_SETTING} in config.toml must be a postgresql:// URL, got {url!r}."
            )
        origin = f"from {URL_SETTING} in config.toml"
        return PgvectorLocation(check_url(url, origin), origin)
    found = catalog_url(home, env)
    if found is None:
        raise PgvectorConfigError(
            f'[vector] use = "pgvector" needs a PostgreSQL database: set {URL_SETTING} = '
            f'"postgresql://user@host:5432/dbname" in {home / "config.toml"}, or put the '
            f"catalog on PostgreSQL ({CATALOG_URL_ENV} or {CATALOG_URL_SETTING} with "
            '[catalog] use = "postgres"), whose database then holds the vectors too. '
            'Or go back to the default vector store: [vector] use = "chroma".'
        )
    url, origin = found
    return PgvectorLocation(check_url(url, origin), origin)


def _positive_int(settings: Mapping[str, Any], key: str, default: int, most: int) -> int:
    value = settings.get(key, default)
    if not is_whole_number(value) or not 0 < value <= most:
        raise PgvectorConfigError(
            f"[vector.pgvector] {key} in config.toml must be an integer from 1 to {most:,}, "
            f"got {value!r}. Fix or remove it (the default is {default})."
        )
    return value


def read_settings(settings: Mapping[str, Any]) -> StoreSettings:
    """The ``[vector.pgvector]`` table, checked (the URL is :func:`resolve_location`'s)."""
    table = settings.get("table", DEFAULT_TABLE)
    if not isinstance(table, str) or not _TABLE_NAME.fullmatch(table):
        raise PgvectorConfigError(
            f"[vector.pgvector] table in config.toml must be a lower-case SQL name (letters, "
            f"digits, _; at most 48), got {table!r}. Fix or remove it (the default is "
            f"{DEFAULT_TABLE!r})."
        )
    return StoreSettings(
        table=table,
        ef_search=_positive_int(settings, "ef_search", DEFAULT_EF_SEARCH, MAX_EF_SEARCH),
        m=_positive_int(settings, "m", DEFAULT_M, 100),
        ef_construction=_positive_int(
            settings, "ef_construction", DEFAULT_EF_CONSTRUCTION, MAX_EF_SEARCH
        ),
        timeouts=Timeouts.from_settings(
            settings, table="vector.pgvector", error=PgvectorConfigError
        ),
    )
