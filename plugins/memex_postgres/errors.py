"""A PostgreSQL server that cannot be reached, refused us, or went away mid-statement, told in
words: which server (``host:port/database``, never the password), what happened, what to do.
"""

from __future__ import annotations

from memex_core.catalog.faults import CatalogUnavailableError
from memex_postgres.urls import where

#: Where the URL is set, for the fix in every message.
URL_SETTINGS = "[catalog.postgres] url in config.toml or MEMEX_CATALOG_URL"


def cannot_connect(url: str, detail: str) -> CatalogUnavailableError:
    """The server refused a new connection, or none came within the timeout."""
    server, reason = where(url), _first_line(detail)
    fix = (
        f"Check that the server is running and reachable and that {URL_SETTINGS} names it "
        "(user, host, port, database), then run the command again."
    )
    return CatalogUnavailableError(
        f"Cannot connect to the PostgreSQL catalog at {server}: {reason}. {fix}",
        server=server,
        reason=reason,
        fix=fix,
    )


def connection_lost(url: str, detail: str, *, writing: bool) -> CatalogUnavailableError:
    """A connection died under a statement (the server stopped or restarted, the network
    dropped)."""
    outcome = (
        "The write was rolled back whole (or, if the connection was lost during its commit, "
        "may have landed): run the command again, it finishes the job without doubling it."
        if writing
        else "Nothing was written."
    )
    server, reason = where(url), _first_line(detail)
    fix = f"If the server is down, start it; {URL_SETTINGS} names the server memex uses."
    return CatalogUnavailableError(
        f"Lost the connection to the PostgreSQL catalog at {server}: {reason}. {outcome} {fix}",
        server=server,
        reason=reason,
        fix=fix,
    )


def _first_line(detail: str) -> str:
    lines = [line.strip() for line in detail.strip().splitlines() if line.strip()]
    return lines[0].rstrip(".") if lines else "no reason given"
