"""PostgreSQL URLs as memex shows them: never with the password."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

from memex_core.errors import MemexError

SCHEMES = ("postgresql", "postgres")
MASK = "***"


def check_url(url: str) -> str:
    """``url`` if it is a ``postgresql://`` URL naming a database; a clear error otherwise."""
    parts = urlsplit(url)
    if parts.scheme not in SCHEMES:
        raise MemexError(
            f"--to must be a PostgreSQL URL such as postgresql://user@host:5432/memex, not "
            f"{mask_password(url)!r}."
        )
    if not parts.path.strip("/"):
        raise MemexError(
            f"{mask_password(url)} names no database: add one after the host, e.g. "
            "postgresql://user@host:5432/memex (create it first: createdb memex)."
        )
    return url


def mask_password(url: str) -> str:
    """``url`` with its password (if any) replaced by ``***``."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparsable URL>"
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.netloc.rsplit("@", 1)[1]
    return urlunsplit(parts._replace(netloc=f"{user}:{MASK}@{host}"))


def has_password(url: str) -> bool:
    try:
        return urlsplit(url).password is not None
    except ValueError:
        return False


def where(url: str) -> str:
    """``host:port/database`` of ``url``, for messages."""
    parts = urlsplit(url)
    host = parts.hostname or "localhost"
    port = parts.port or 5432
    return f"{host}:{port}/{parts.path.strip('/')}"
