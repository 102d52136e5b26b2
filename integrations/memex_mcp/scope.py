"""Who the server acts for, fixed at start-up: the user, the collection, the corpus.

The scope comes from the command line (or the environment), never from a tool
argument: an agent chooses what to search, not whose memory to search.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from memex_core.domain.memory.namespaces import covers, validate_collection
from memex_core.domain.memory.paths import validate_user_id
from memex_core.errors import MemexError

#: The environment variable ``--user`` defaults to.
USER_ENV = "MEMEX_USER"
#: The user a server acts for when neither ``--user`` nor ``MEMEX_USER`` says: one person's
#: own agents on their own machine share this memory.
DEFAULT_USER = "local"
#: The name the access log records for calls made through this server.
AGENT_NAME = "mcp"


def default_user() -> str:
    """``MEMEX_USER`` if set (and not blank), else :data:`DEFAULT_USER`."""
    return os.environ.get(USER_ENV, "").strip() or DEFAULT_USER


@dataclass(frozen=True)
class ServerScope:
    """The scope every tool call runs in.

    ``collection`` (``""``: every collection) bounds memory reads and writes:
    a tool may name that collection or one below it, never a wider or unrelated
    one. The operator's corpus has no collections, so a server started with a
    collection reads memory only. ``corpus`` false hides the operator's
    ingested exports, transcripts and notes from the agent.
    """

    user: str = DEFAULT_USER
    collection: str = ""
    corpus: bool = True
    name: str = AGENT_NAME

    def __post_init__(self) -> None:
        validate_user_id(self.user)
        validate_collection(self.collection)

    def narrow(self, requested: str | None) -> str | None:
        """The collection a tool call may use: ``None`` (the server's own) or ``requested``
        when it lies inside the server's collection. Anything else is refused."""
        if requested is None or requested == "":
            return None
        validate_collection(requested)
        if not covers(self.collection, requested):
            raise MemexError(
                f"This server is limited to collection {self.collection!r} and the ones below it "
                f"(e.g. '{self.collection}:notes'); pass one of those, or leave collection out."
            )
        return requested

    def describe(self) -> str:
        """One line for start-up messages and the server's instructions."""
        parts = [f"user {self.user!r}"]
        parts.append(f"collection {self.collection!r}" if self.collection else "every collection")
        parts.append("with the corpus" if self.corpus else "without the corpus")
        return ", ".join(parts)
