""":class:`Caller`: the checked credentials of one request, an agent key or the operator.

Its own module because both :mod:`memex_server.auth` (which makes one per request) and
:mod:`memex_server.state` (which opens that caller's memory) need it, and the state must
not import the auth dependencies that look the state up.
"""

from __future__ import annotations

from dataclasses import dataclass

from memex_core.domain.agent_keys import AgentKey


@dataclass(frozen=True)
class Caller:
    """The credentials of one request, checked."""

    operator: bool
    name: str  # the key's name (or "operator"): the actor in the access log
    user_id: str | None = None  # the user an agent acts for; None for the operator
    collection: str = ""
    corpus: bool = True
    key_id: str | None = None
    tool_call_id: str | None = None

    @classmethod
    def of_key(cls, key: AgentKey, tool_call_id: str | None = None) -> Caller:
        """The caller an agent key makes: its user, collection bound and corpus access."""
        return cls(
            operator=False,
            name=key.name,
            user_id=key.user_id,
            collection=key.collection,
            corpus=key.corpus,
            key_id=key.id,
            tool_call_id=tool_call_id,
        )

    def describe(self) -> dict[str, object]:
        return {
            "kind": "operator" if self.operator else "agent",
            "name": self.name,
            "user_id": self.user_id,
            "collection": self.collection,
            "corpus": self.corpus,
            "key_id": self.key_id,
        }
