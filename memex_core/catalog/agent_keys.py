"""Agent API keys in the catalog (table ``agent_keys``): rows in, rows out, no policy.

Making, checking and naming keys is :mod:`memex_core.services.agent_keys`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memex_core.catalog.dbapi import CatalogPart
from memex_core.domain.agent_keys import AgentKey, StoredSecret
from memex_core.errors import MemexError

_COLUMNS = "id, name, user_id, collection, corpus, created_at, revoked_at, last_used_at"


def _key(row: Sequence[Any]) -> AgentKey:
    # _COLUMNS are AgentKey's fields in order; only ``corpus`` needs converting.
    return AgentKey(*[*row[:4], bool(row[4]), *row[5:8]])


class AgentKeyStore(CatalogPart):
    """Mixin for :class:`~memex_core.catalog.base.SqlCatalog`."""

    def add_agent_key(self, key: AgentKey, stored: StoredSecret) -> None:
        try:
            with self.transaction() as db:
                db.execute(
                    f"INSERT INTO agent_keys ({_COLUMNS}, salt, secret_hash) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        key.id,
                        key.name,
                        key.user_id,
                        key.collection,
                        int(key.corpus),
                        key.created_at,
                        key.revoked_at,
                        key.last_used_at,
                        stored.salt,
                        stored.secret_hash,
                    ),
                )
        except self.dialect.integrity_errors as exc:
            raise MemexError(
                f"A live key is already named {key.name!r}: pick another name, or revoke "
                f"that one first (memex keys revoke {key.name})."
            ) from exc

    def agent_key(self, key_id: str) -> tuple[AgentKey, StoredSecret] | None:
        row = self._db.execute(
            f"SELECT {_COLUMNS}, salt, secret_hash FROM agent_keys WHERE id = ?", (key_id,)
        ).fetchone()
        return None if row is None else (_key(row), StoredSecret(row[8], row[9]))

    def agent_keys(self, *, include_revoked: bool = False) -> list[AgentKey]:
        where = "" if include_revoked else "WHERE revoked_at IS NULL"
        rows = self._db.execute(
            f"SELECT {_COLUMNS} FROM agent_keys {where} ORDER BY created_at, id"
        ).fetchall()
        return [_key(r) for r in rows]

    def revoke_agent_key(self, key_id: str, at: float) -> bool:
        with self.transaction() as db:
            cur = db.execute(
                "UPDATE agent_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
                (at, key_id),
            )
        return cur.rowcount > 0

    def touch_agent_key(self, key_id: str, at: float) -> None:
        """Record a use (callers throttle this: it is a write)."""
        self._db.execute("UPDATE agent_keys SET last_used_at = ? WHERE id = ?", (at, key_id))
