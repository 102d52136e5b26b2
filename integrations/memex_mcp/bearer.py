"""The bearer token that guards ``memex mcp --http``.

Chosen in this order: ``--token``, ``MEMEX_MCP_TOKEN``, the token stored in the
memex home (``mcp-token``), or a new random one stored there with 0600
permissions so that only its owner can read it, and reused on the next start
so client configurations keep working.
"""

from __future__ import annotations

import hmac
import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path

from memex_core.errors import MemexError

TOKEN_ENV = "MEMEX_MCP_TOKEN"
TOKEN_FILE = "mcp-token"
MIN_TOKEN_CHARS = 16


@dataclass(frozen=True)
class Token:
    value: str
    origin: str  # "option", "environment", "file" or "generated"
    path: Path | None = None  # the file it was read from or written to


def token_path(home: Path) -> Path:
    return home / TOKEN_FILE


def _checked(value: str, where: str) -> str:
    value = value.strip()
    if len(value) < MIN_TOKEN_CHARS or any(c.isspace() for c in value):
        raise MemexError(
            f"The token from {where} is too short or contains spaces: use at least "
            f"{MIN_TOKEN_CHARS} characters without spaces, or leave it out and memex "
            "generates one."
        )
    return value


def resolve_token(option: str | None, home: Path) -> Token:
    """The token to require, creating and storing one on first use."""
    if option:
        return Token(_checked(option, "--token"), "option")
    env = os.environ.get(TOKEN_ENV, "")
    if env.strip():
        return Token(_checked(env, TOKEN_ENV), "environment")
    path = token_path(home)
    if path.exists():
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            path.chmod(0o600)  # a token others can read guards nothing
        return Token(_checked(path.read_text(encoding="utf-8"), str(path)), "file", path)
    home.mkdir(parents=True, exist_ok=True)
    value = secrets.token_urlsafe(32)
    # O_EXCL: never follow or overwrite a file someone put there; 0600 from the start.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(value + "\n")
    return Token(value, "generated", path)


def matches(expected: str, presented: str) -> bool:
    """Whether ``presented`` is the token, compared in constant time."""
    return hmac.compare_digest(expected.encode("utf-8"), presented.encode("utf-8"))
