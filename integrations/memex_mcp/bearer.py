"""The bearer token that guards ``memex mcp --http``.

Chosen in this order: ``--token``, ``MEMEX_MCP_TOKEN``, the token stored in the
memex home (``mcp-token``), or a new random one stored there with 0600
permissions (see :mod:`memex_core.secret_files`).
"""

from __future__ import annotations

from pathlib import Path

from memex_core.secret_files import MIN_SECRET_CHARS, Secret, resolve_secret, secret_matches

TOKEN_ENV = "MEMEX_MCP_TOKEN"
TOKEN_FILE = "mcp-token"
MIN_TOKEN_CHARS = MIN_SECRET_CHARS
Token = Secret


def token_path(home: Path) -> Path:
    return home / TOKEN_FILE


def resolve_token(option: str | None, home: Path) -> Token:
    """The token to require, creating and storing one on first use."""
    return resolve_secret(option, TOKEN_ENV, token_path(home), "--token")


def matches(expected: str, presented: str) -> bool:
    """Whether ``presented`` is the token, compared in constant time."""
    return secret_matches(expected, presented)
