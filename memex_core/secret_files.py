"""A secret a server requires: given on the command line, in the environment, or kept in
the home.

Chosen in this order: an option, an environment variable, the file in the
memex home, or a new random secret written there with mode 0600 (created with
``O_EXCL``, so a file someone planted is never followed or overwritten) and
reused on the next start, so client configurations keep working. A stored file
others can read is narrowed to 0600 when it is read. ``memex mcp --http`` keeps
its bearer token this way, ``memex serve`` its operator secret.
"""

from __future__ import annotations

import hmac
import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path

from memex_core.errors import MemexError

MIN_SECRET_CHARS = 16


@dataclass(frozen=True)
class Secret:
    value: str
    origin: str  # "option", "environment", "file" or "generated"
    path: Path | None = None  # the file it was read from or written to


def checked_secret(value: str, where: str) -> str:
    value = value.strip()
    if len(value) < MIN_SECRET_CHARS or any(c.isspace() for c in value):
        raise MemexError(
            f"The secret from {where} is too short or contains spaces: use at least "
            f"{MIN_SECRET_CHARS} characters without spaces, or leave it out and memex "
            "generates one."
        )
    return value


def resolve_secret(option: str | None, env: str, path: Path, option_name: str) -> Secret:
    """The secret to require, creating and storing one in ``path`` on first use."""
    if option:
        return Secret(checked_secret(option, option_name), "option")
    given = os.environ.get(env, "")
    if given.strip():
        return Secret(checked_secret(given, env), "environment")
    if path.exists():
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            path.chmod(0o600)  # a secret others can read guards nothing
        return Secret(checked_secret(path.read_text(encoding="utf-8"), str(path)), "file", path)
    path.parent.mkdir(parents=True, exist_ok=True)
    value = secrets.token_urlsafe(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(value + "\n")
    return Secret(value, "generated", path)


def secret_matches(expected: str, presented: str) -> bool:
    """Whether ``presented`` is the secret, compared in constant time."""
    return hmac.compare_digest(expected.encode("utf-8"), presented.encode("utf-8"))
