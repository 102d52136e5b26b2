"""The warm-process protocol: where the socket is, what a request holds, what must match.

One request per connection: the client sends one JSON object and shuts down its
writing side; the server answers with one JSON object and closes. Every message
carries ``v``; a server that does not speak the client's version declines, and
the client runs the command itself.

A request is answered only when the warm process would print what the client
would print on its own: same home (resolved path), same ``config.toml`` bytes
and same ``MEMEX_*`` environment (bar the variables below, which do not change
what a read command prints). Anything else is declined with a reason.

Stdlib only: the ``memex`` script imports this before it knows whether it needs
anything heavier.
"""

from __future__ import annotations

import json
import os

#: 2: the client says whether its stdout and stderr are terminals (render["tty"]).
VERSION = 2
#: Set (to anything but empty or 0) to never use or offer a warm process.
NO_WARM_ENV = "MEMEX_NO_WARM"
#: Set to print on stderr why a command did not go through the warm process.
DEBUG_ENV = "MEMEX_WARM_DEBUG"
#: A read command that finds no warm process on its (local, writable) home starts a
#: ``memex warm`` process in the background, which exits after DEFAULT_IDLE_MINUTES minutes
#: without a request. The command that starts it runs here; the next ones are answered warm.
#: This variable set to 0 (or no, false, off) turns that off; a number of minutes sets the
#: idle period instead.
AUTOSTART_ENV = "MEMEX_WARM_AUTOSTART"
DEFAULT_IDLE_MINUTES = 30.0
#: Socket paths at least this long (bytes) cannot be listened on: ``sun_path`` holds 108
#: bytes on Linux, 104 on macOS, with the final NUL.
MAX_SOCKET_PATH = 104
#: Seconds the client waits for an answer before running the command itself.
TIMEOUT_ENV = "MEMEX_WARM_TIMEOUT"
DEFAULT_TIMEOUT = 30.0
#: Largest message either side reads, in bytes (a page of full results is ~100 KB).
MAX_MESSAGE = 64 * 1024 * 1024
#: Commands a warm process runs: they only read the home.
READ_COMMANDS = frozenset({"dig", "keyword", "semantic", "get", "timeline", "context"})
#: ``MEMEX_*`` variables that do not change what a read command prints: the operator
#: secret of a serve, the warm switches themselves, the home (compared resolved).
IGNORED_ENV = frozenset(
    {"MEMEX_ADMIN_SECRET", "MEMEX_HOME", "MEMEX_SHARED_WRITE_MODE", NO_WARM_ENV, DEBUG_ENV}
    | {TIMEOUT_ENV, AUTOSTART_ENV}
)


def disabled(environ: dict[str, str] | os._Environ[str] = os.environ) -> bool:
    return environ.get(NO_WARM_ENV, "").strip() not in ("", "0")


def run_dir(home: str) -> str:
    return os.path.join(home, "run")


def socket_path(home: str) -> str:
    return os.path.join(run_dir(home), "memex.sock")


def config_digest(home: str) -> str | None:
    """``<home>/config.toml`` as it is on disk now, whole (None when there is none): the
    file is small, and comparing it outright needs no hashlib (~5 ms to import)."""
    try:
        with open(os.path.join(home, "config.toml"), "rb") as file:
            return file.read().decode("utf-8", errors="surrogateescape")
    except FileNotFoundError:
        return None


def environment(environ: dict[str, str] | os._Environ[str] = os.environ) -> dict[str, str]:
    """The variables that must be the same on both sides: ``MEMEX_*`` (less
    :data:`IGNORED_ENV`) and ``TZ`` (time phrases such as "yesterday")."""
    picked = {
        name: value
        for name, value in environ.items()
        if name.startswith("MEMEX_") and name not in IGNORED_ENV
    }
    if "TZ" in environ:
        picked["TZ"] = environ["TZ"]
    return picked


def encode(message: dict[str, object]) -> bytes:
    return json.dumps(message, ensure_ascii=False).encode("utf-8")


def decode(data: bytes) -> dict[str, object]:
    message = json.loads(data.decode("utf-8"))
    if not isinstance(message, dict):
        raise ValueError("a warm-process message is a JSON object")
    return message


def read_all(sock: object, limit: int = MAX_MESSAGE) -> bytes:
    """Everything the peer sends until it closes its side (at most ``limit`` bytes)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = sock.recv(1 << 16)  # type: ignore[attr-defined]
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > limit:
            raise ValueError(f"warm-process message larger than {limit} bytes")
        chunks.append(chunk)
