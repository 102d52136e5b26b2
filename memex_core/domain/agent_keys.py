"""Agent API keys: what one is, how it is written, and how its secret is checked.

A key reads ``mxk_<id>_<secret>``. The id is public (it names the key in the
catalog and in ``memex keys list``); the secret is 256 random bits, shown once
when the key is created. The catalog keeps a random salt and
HMAC-SHA256(salt, secret), never the secret: a copy of the catalog opens
nothing. A fast hash is the right one here: the secret is random, not a
password a person chose, so there is nothing for a slow hash to protect against
guessing, and every request checks one.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import Any

KEY_PREFIX = "mxk_"
_ID_BYTES = 6  # 12 hex characters: enough to tell keys apart, never a secret
_SECRET_BYTES = 32


@dataclass(frozen=True)
class AgentKey:
    """A key as the operator sees it (never its secret or hash)."""

    id: str
    name: str
    user_id: str
    collection: str = ""
    corpus: bool = True
    created_at: float = 0.0
    revoked_at: float | None = None
    last_used_at: float | None = None

    @property
    def active(self) -> bool:
        return self.revoked_at is None

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "user_id": self.user_id,
            "collection": self.collection,
            "corpus": self.corpus,
            "created_at": self.created_at,
            "revoked_at": self.revoked_at,
            "last_used_at": self.last_used_at,
            "active": self.active,
        }


@dataclass(frozen=True)
class StoredSecret:
    """What the catalog keeps to check a key: a salt and the salted hash."""

    salt: str
    secret_hash: str


@dataclass(frozen=True)
class NewKey:
    """A freshly made key: the text to hand out (once) and what to store."""

    key_id: str
    token: str
    stored: StoredSecret


def hash_secret(salt: str, secret: str) -> str:
    return hmac.new(salt.encode("ascii"), secret.encode("utf-8"), hashlib.sha256).hexdigest()


def new_key() -> NewKey:
    key_id = secrets.token_hex(_ID_BYTES)
    secret = secrets.token_urlsafe(_SECRET_BYTES)
    salt = secrets.token_hex(16)
    return NewKey(
        key_id, f"{KEY_PREFIX}{key_id}_{secret}", StoredSecret(salt, hash_secret(salt, secret))
    )


def looks_like_key(token: str) -> bool:
    """Whether ``token`` is written as an agent key (it may still be wrong or revoked)."""
    return token.startswith(KEY_PREFIX)


def split_key(token: str) -> tuple[str, str] | None:
    """(id, secret) of a key written ``mxk_<id>_<secret>``; None if it is not one."""
    if not looks_like_key(token):
        return None
    key_id, sep, secret = token[len(KEY_PREFIX) :].partition("_")
    if not sep or not key_id or not secret or len(key_id) != 2 * _ID_BYTES:
        return None
    if not all(c in "0123456789abcdef" for c in key_id):
        return None
    return key_id, secret


def secret_matches(stored: StoredSecret, secret: str) -> bool:
    """Whether ``secret`` is the one ``stored`` was made from, in constant time."""
    return hmac.compare_digest(hash_secret(stored.salt, secret), stored.secret_hash)


#: Checked against when a key id is unknown, so a miss costs what a hit costs.
DECOY_SECRET = StoredSecret("0" * 32, "0" * 64)
