"""Where the chroma store lives: a folder under MEMEX_HOME, or a chroma server.

Resolving the location is pure and cheap; only :func:`open_client` imports
chromadb (about 0.7 s), so building the store object costs nothing until it is
first used.

chromadb's HTTP client waits forever by default (its httpx session has no
timeout), so a server that hangs would hang every search. :func:`open_client`
first asks the server's heartbeat with a short connect timeout, then gives the
client's session :class:`Timeouts` (``request`` must cover the slowest upsert batch and
query, so its default is generous).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from memex_core.errors import MemexError
from memex_core.server_timeouts import Timeouts
from memex_core.services.search import VectorStoreUnavailableError

if TYPE_CHECKING:
    from chromadb.api import ClientAPI

#: Environment variable naming a chroma server; it wins over config.toml.
URL_ENV = "MEMEX_CHROMA_URL"
#: chroma's own default port, used when the URL names none.
DEFAULT_HTTP_PORT = 8000
#: chroma's heartbeat, asked before a client is made (the v2 API of chroma 1.x).
HEARTBEAT_PATH = "/api/v2/heartbeat"


class ChromaConfigError(MemexError):
    """The chroma location in the environment or config.toml is unusable."""


class ChromaUnreachableError(VectorStoreUnavailableError):
    """The configured chroma server did not answer (searches fall back to keyword results)."""


@dataclass(frozen=True)
class ServerAddress:
    """A chroma server, parsed from a URL such as ``http://127.0.0.1:8000``."""

    url: str
    host: str
    port: int
    ssl: bool
    origin: str  # where the URL came from, for error messages


@dataclass(frozen=True)
class ChromaLocation:
    """Exactly one of ``path`` (embedded, on disk) and ``server`` is set."""

    path: Path | None = None
    server: ServerAddress | None = None

    def describe(self) -> str:
        if self.server is not None:
            return f"chroma server {self.server.url} ({self.server.origin})"
        return f"chroma folder {self.path}"


def parse_server_url(url: str, origin: str) -> ServerAddress:
    """Split a server URL into what ``chromadb.HttpClient`` wants; explain bad ones."""
    fix = f"Set it to a URL like http://127.0.0.1:{DEFAULT_HTTP_PORT} ({origin})."
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ChromaConfigError(f"The chroma URL {url!r} is not an http(s) URL. {fix}")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ChromaConfigError(
            f"The chroma URL {url!r} has a path or query, which chroma's client cannot use. {fix}"
        )
    try:
        port = parts.port
    except ValueError:
        raise ChromaConfigError(f"The chroma URL {url!r} has an invalid port. {fix}") from None
    ssl = parts.scheme == "https"
    if port is None:
        port = 443 if ssl else DEFAULT_HTTP_PORT
    # urlsplit drops the brackets around an IPv6 address; chroma builds its URL
    # from the bare host, so put them back.
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return ServerAddress(url=url.strip(), host=host, port=port, ssl=ssl, origin=origin)


def resolve_location(
    home: Path, settings: Mapping[str, Any], environ: Mapping[str, str] | None = None
) -> ChromaLocation:
    """``MEMEX_CHROMA_URL``, else ``[vector.chroma] url``, else ``path``, else the home folder."""
    env = os.environ if environ is None else environ
    if env.get(URL_ENV, "").strip():
        return ChromaLocation(server=parse_server_url(env[URL_ENV], f"from {URL_ENV}"))
    url = settings.get("url")
    if url:
        origin = "from [vector.chroma] url in config.toml"
        return ChromaLocation(server=parse_server_url(str(url), origin))
    path = settings.get("path")
    folder = Path(str(path)).expanduser() if path else home / "index" / "chroma"
    return ChromaLocation(path=folder)


def unreachable(server: ServerAddress, problem: str) -> ChromaUnreachableError:
    """The error for a server that does not answer, with what to do about it."""
    return ChromaUnreachableError(
        f"The chroma server at {server.url} ({server.origin}) is not answering ({problem}). "
        f"Start it (for example `chroma run --path <folder> --port {server.port}`); memex "
        f"reconnects by itself. Or use the local folder instead: unset {URL_ENV} and remove "
        "`url` from [vector.chroma] in config.toml."
    )


def describe_failure(exc: BaseException) -> str:
    """A short account of a connection failure, e.g. ``ConnectError: connection refused``."""
    text = str(exc).strip() or "no answer"
    return f"{type(exc).__name__}: {text}"


def _check_heartbeat(server: ServerAddress, timeouts: Timeouts) -> None:
    import httpx

    scheme = "https" if server.ssl else "http"
    url = f"{scheme}://{server.host}:{server.port}{HEARTBEAT_PATH}"
    try:  # a heartbeat is instant, so the connect timeout bounds all of it
        httpx.get(url, timeout=timeouts.connect).raise_for_status()
    except httpx.HTTPError as exc:
        raise unreachable(server, describe_failure(exc)) from exc


def _bound_requests(client: ClientAPI, timeouts: Timeouts) -> None:
    """Give chromadb's httpx session timeouts (it has none; see the module docstring).

    ``_server._session`` is chromadb's own attribute (1.x): when a later version
    moves it, requests simply keep chromadb's default.
    """
    import httpx

    session = getattr(getattr(client, "_server", None), "_session", None)
    if isinstance(session, httpx.Client):
        session.timeout = httpx.Timeout(timeouts.request, connect=timeouts.connect)


def open_client(location: ChromaLocation, timeouts: Timeouts | None = None) -> ClientAPI:
    """Connect to chroma. Imports chromadb, so call it only when the store is used."""
    import chromadb
    from chromadb.config import Settings

    # Telemetry is a no-op in chromadb 1.5 (its Posthog client does nothing),
    # but say so explicitly in case a later version starts sending events.
    settings = Settings(anonymized_telemetry=False)
    server = location.server
    if server is None:
        assert location.path is not None
        location.path.mkdir(parents=True, exist_ok=True)
        return chromadb.PersistentClient(path=location.path, settings=settings)
    timeouts = timeouts or Timeouts()
    _check_heartbeat(server, timeouts)
    try:
        client = chromadb.HttpClient(
            host=server.host, port=server.port, ssl=server.ssl, settings=settings
        )
    except ValueError as exc:  # chromadb turns connection failures into ValueError
        raise unreachable(server, describe_failure(exc)) from exc
    _bound_requests(client, timeouts)
    return client
