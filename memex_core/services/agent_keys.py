"""Agent API keys: create one for a user, list them, revoke one, check one on a request.

>>> keys = Memex(home).agent_keys()                            # doctest: +SKIP
>>> key, token = keys.create("alice", name="support-bot")      # doctest: +SKIP
>>> keys.verify(token).user_id                                 # doctest: +SKIP
'alice'

A key acts for its user exactly as ``mx.agent(user)`` does, within its
collection bound and, if it may, reading the operator's corpus. Revoking takes
effect on the next request: every request looks its key up in the catalog.
"""

from __future__ import annotations

import contextlib
import time
from typing import Protocol

from memex_core.domain.agent_keys import (
    DECOY_SECRET,
    AgentKey,
    StoredSecret,
    new_key,
    secret_matches,
    split_key,
)
from memex_core.domain.memory.namespaces import validate_collection
from memex_core.domain.memory.paths import validate_user_id
from memex_core.errors import MemexError, UnknownIdError

#: A key's last use is written at most this often (a write per request would cost more
#: than the request).
TOUCH_EVERY_SECONDS = 60.0
MAX_NAME_CHARS = 80


class AgentKeyCatalog(Protocol):
    def add_agent_key(self, key: AgentKey, stored: StoredSecret) -> None: ...
    def agent_key(self, key_id: str) -> tuple[AgentKey, StoredSecret] | None: ...
    def agent_keys(self, *, include_revoked: bool = False) -> list[AgentKey]: ...
    def revoke_agent_key(self, key_id: str, at: float) -> bool: ...
    def touch_agent_key(self, key_id: str, at: float) -> None: ...


def validate_key_name(name: str) -> str:
    cleaned = name.strip() if isinstance(name, str) else ""
    if not cleaned or len(cleaned) > MAX_NAME_CHARS or not cleaned.isprintable():
        raise MemexError(
            f"A key name is 1-{MAX_NAME_CHARS} printable characters (like 'support-bot'); "
            f"got {name!r}."
        )
    return cleaned


class AgentKeys:
    """The agent keys of one home."""

    def __init__(self, catalog: AgentKeyCatalog) -> None:
        self.catalog = catalog
        self._touched: dict[str, float] = {}

    def create(
        self, user_id: str, *, name: str, collection: str = "", corpus: bool = True
    ) -> tuple[AgentKey, str]:
        """A new key for ``user_id``: the key as listed, and its text (shown only now)."""
        made = new_key()
        key = AgentKey(
            id=made.key_id,
            name=validate_key_name(name),
            user_id=validate_user_id(user_id),
            collection=validate_collection(collection),
            corpus=corpus,
            created_at=time.time(),
        )
        self.catalog.add_agent_key(key, made.stored)
        return key, made.token

    def list(self, *, include_revoked: bool = False) -> list[AgentKey]:
        return self.catalog.agent_keys(include_revoked=include_revoked)

    def find(self, ref: str) -> AgentKey:
        """The live key with this id or name (an id wins)."""
        live = self.catalog.agent_keys()
        for key in live:
            if ref in (key.id, f"mxk_{key.id}"):
                return key
        for key in live:
            if key.name == ref:
                return key
        names = ", ".join(sorted(k.name for k in live)) or "none"
        raise UnknownIdError(
            f"No live key has the id or name {ref!r} (live keys: {names}; see memex keys list)."
        )

    def revoke(self, ref: str) -> AgentKey:
        """Revoke the live key with this id or name; it stops working on the next request."""
        key = self.find(ref)
        at = time.time()
        self.catalog.revoke_agent_key(key.id, at)
        return AgentKey(**{**key.__dict__, "revoked_at": at})

    def revoked(self, token: str) -> bool:
        """Whether ``token`` is exactly a key that was revoked (its id and its secret): a
        refusal that is not a guess, which a server's limit on failed credentials does not
        count (an agent still holding the key it was told to replace)."""
        parts = split_key(token)
        found = None if parts is None else self.catalog.agent_key(parts[0])
        if parts is None or found is None:
            return False
        key, stored = found
        return not key.active and secret_matches(stored, parts[1])

    def verify(self, token: str, *, touch: bool = True) -> AgentKey | None:
        """The live key ``token`` is, or None (unknown, mistyped or revoked).

        Once a minute per key, a key found also has its last use written to the catalog;
        ``touch=False`` leaves that out (a caller that must not wait for a write: see
        :meth:`touch_due`)."""
        parts = split_key(token)
        if parts is None:
            return None
        key_id, secret = parts
        found = self.catalog.agent_key(key_id)
        key, stored = found if found is not None else (None, DECOY_SECRET)
        if not secret_matches(stored, secret) or key is None or not key.active:
            return None
        if touch and self.touch_due(key.id):
            now = time.time()
            self._touched[key.id] = now
            # Advisory: a busy catalog must not fail the request the key came with.
            with contextlib.suppress(Exception):
                self.catalog.touch_agent_key(key.id, now)
        return key

    def touch_due(self, key_id: str) -> bool:
        """Whether :meth:`verify` would write this key's last use now (a minute has passed
        since this process last did)."""
        return time.time() - self._touched.get(key_id, 0.0) >= TOUCH_EVERY_SECONDS
