"""``MemexMemoryBlock``: long-term memory for ``llama_index.core.memory.Memory``, kept in memex.

>>> block = MemexMemoryBlock(memex=Memex(), session_scope=user_of_session)   # doctest: +SKIP
>>> memory = Memory.from_defaults(                                            # doctest: +SKIP
...     session_id="chat-42", token_limit=4000, memory_blocks=[block]
... )

When ``Memory``'s chat history outgrows its token limit, the oldest messages are
flushed to the blocks: this one stores them in memex as a conversation memory of
the session's user (memex extracts facts from it, redacts secrets and drops
``<private>`` spans). Before every LLM call ``Memory`` asks the blocks for
content: this one searches that user's memory (and shared memory) for what is
relevant to the latest messages and returns it as text for the system prompt.

Scope comes from the session, on every call: ``Memory`` passes its
``session_id`` to ``aget`` and stamps it on flushed messages, and the block maps
it to a user and collection with ``session_scope`` (or uses one fixed
``user`` for single-user apps). The block holds no per-session state, so one
block object can serve any number of sessions and users at once; per-call
arguments can never change the user or collection.

``memex`` may be a ``memex_client.MemexClient`` of a ``memex serve`` instead of
a local ``Memex``. With an agent key every session must be the key's user: a
session mapped to another user fails (the key cannot reach their memory).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.bridge.pydantic import Field, model_validator
from llama_index.core.memory.memory import BaseMemoryBlock
from llama_index.core.utils import get_tokenizer
from pydantic import SkipValidation

from memex_core.api import MODES, TimeBound
from memex_core.domain import SearchResult
from memex_core.domain.fragment import ROLES
from memex_core.domain.memory.namespaces import validate_collection
from memex_core.domain.memory.paths import validate_user_id
from memex_core.domain.memory.records import CONVERSATION_KIND
from memex_core.errors import MemexError
from memex_core.handles import RememberResult
from memex_core.memex_like import MemexLike, ViewLike, acting_user
from memex_core.services.agent_memory import Message
from memex_core.threads import acall, reads
from memex_llamaindex.messages import query_from, to_turns

#: Keyword arguments that would change whose memory is read; refused in ``aget``.
SCOPE_KWARGS = frozenset(
    {
        "user",
        "user_id",
        "users",
        "owner",
        "owners",
        "collection",
        "collections",
        "search_collection",
        "include_private",
        "corpus",
        "session_scope",
        "memex",
    }
)
SESSION_KEY = "session_id"  # where BaseMemoryBlock.aput stamps the session on messages


@dataclass(frozen=True)
class SessionScope:
    """Whose memory a session reads and writes.

    ``collection`` is where flushed messages are stored; ``search_collection``
    (default: the same) is what ``aget`` searches, that collection and every one
    below it, so ``SessionScope("alice", "support:chat-42", "support")`` files
    each chat separately but recalls across all of alice's support chats.
    """

    user: str
    collection: str = ""
    search_collection: str | None = None

    def __post_init__(self) -> None:
        validate_user_id(self.user)
        validate_collection(self.collection)
        if self.search_collection is not None:
            validate_collection(self.search_collection)

    @property
    def searched(self) -> str:
        return self.collection if self.search_collection is None else self.search_collection


#: Maps a ``Memory`` session id to its scope: a :class:`SessionScope`, a bare user id (the
#: block's ``collection`` then applies), or None for an anonymous session (nothing is read
#: or stored). Raise for a session id you do not know.
SessionResolver = Callable[[str], SessionScope | str | None]


def default_format(hit: SearchResult) -> str:
    """One memory as a line of the prompt: ``- [preference] text`` for a fact or a file,
    ``- [user said] text`` for a turn of a remembered conversation."""
    fragment = hit.fragment
    kind = fragment.metadata.get("kind") or "memory"
    label = f"{fragment.role} said" if kind == CONVERSATION_KIND else kind
    return f"- [{label}] {' '.join(fragment.content.split())}"


class MemexMemoryBlock(BaseMemoryBlock[str]):
    """Stores flushed chat messages in memex and recalls the user's relevant memories.

    Give exactly one of ``user`` (every session is this user's) or
    ``session_scope`` (a function from session id to user, or to a
    :class:`SessionScope`).
    """

    name: str = Field(default="memex", description="The name of the memory block.")
    description: str | None = Field(
        default="What memex remembers about this user that bears on the conversation.",
        description="A description of the memory block.",
    )
    memex: SkipValidation[MemexLike] = Field(
        exclude=True,
        description="The memex home memories live in: a Memex, or a memex_client.MemexClient.",
    )
    user: str | None = Field(
        default=None, description="The one user every session belongs to (single-user apps)."
    )
    collection: str = Field(
        default="", description="The collection memories are stored in and recalled from."
    )
    session_scope: SessionResolver | None = Field(
        default=None, exclude=True, description="Maps a session id to its user and collection."
    )
    similarity_top_k: int = Field(default=5, description="How many memories to recall.")
    mode: str = Field(default="hybrid", description="hybrid, keyword or semantic search.")
    as_of: TimeBound = Field(
        default=None,
        description="Recall the facts as they stood then (a datetime, ISO 8601 date or time, "
        "or epoch seconds); default: current facts only, never one a later fact replaced.",
    )
    query_window: int = Field(
        default=3, description="How many of the latest user/assistant messages form the query."
    )
    roles: tuple[str, ...] = Field(
        default=("user", "assistant"),
        description="Which flushed messages are stored, by memex role (user, assistant, "
        "system, tool).",
    )
    consolidate: bool = Field(
        default=False,
        description="Run extracted facts through memex's consolidator (ADD/UPDATE/DELETE/NONE).",
    )
    agent_name: str = Field(default="llamaindex", description="Who the access log names.")
    format_hit: Callable[[SearchResult], str] = Field(
        default=default_format, exclude=True, description="Renders one memory for the prompt."
    )
    tokenizer_fn: Callable[[str], list[Any]] | None = Field(
        default=None,
        exclude=True,
        description="Counts tokens when Memory asks the block to shrink; give the one Memory "
        "uses if not LlamaIndex's default.",
    )

    @model_validator(mode="after")
    def _check(self) -> MemexMemoryBlock:
        if (self.user is None) == (self.session_scope is None):
            raise MemexError(
                "Say whose memory this block keeps: user='alice' when every session is one "
                "user's, or session_scope=<function from session id to user id or "
                "SessionScope> when sessions belong to different users (not both)."
            )
        if not callable(getattr(self.memex, "view", None)):
            raise MemexError(
                "memex must be a Memex or a memex_client.MemexClient, not "
                f"{type(self.memex).__name__}"
            )
        if self.user is not None:
            validate_user_id(self.user)
            # A remote memex's agent key reaches its own user only: say so now, not on use.
            acting_user(self.memex, self.user, what="This MemexMemoryBlock", error=MemexError)
        validate_collection(self.collection)
        if self.mode not in MODES:
            raise MemexError(f"Unknown search mode {self.mode!r}: use one of {', '.join(MODES)}.")
        if self.similarity_top_k < 1 or self.query_window < 1:
            raise MemexError("similarity_top_k and query_window must be at least 1")
        unknown = sorted(set(self.roles) - set(ROLES))
        if unknown:
            raise MemexError(f"unknown roles {unknown}: memex roles are {', '.join(ROLES)}")
        return self

    # -- scope ------------------------------------------------------------------------------

    def scope_for(self, session_id: str | None) -> SessionScope | None:
        """The user and collection of ``session_id`` (None: an anonymous session)."""
        if self.session_scope is None:
            assert self.user is not None  # the validator makes sure
            return SessionScope(self.user, self.collection)
        if session_id is None:
            raise MemexError(
                "No session id: this block maps sessions to users, and Memory passes its "
                "session_id; when calling the block directly, pass session_id=... too."
            )
        resolved = self.session_scope(session_id)
        if resolved is None or isinstance(resolved, SessionScope):
            return resolved
        if isinstance(resolved, str):
            return SessionScope(resolved, self.collection)
        raise MemexError(
            f"session_scope returned {type(resolved).__name__} for session {session_id!r}: "
            "return a user id, a SessionScope, or None for an anonymous session"
        )

    def _view(self, scope: SessionScope) -> ViewLike:
        """The session user's memory and shared memory; never the operator's corpus. Reads
        are bound to the session's search collection; writes name their collection."""
        user = acting_user(self.memex, scope.user, what="This MemexMemoryBlock", error=MemexError)
        return self.memex.view(
            user=user, name=self.agent_name, collection=scope.searched, corpus=False
        )

    # -- reading ----------------------------------------------------------------------------

    async def _aget(
        self,
        messages: list[ChatMessage] | None = None,
        session_id: str | None = None,
        **block_kwargs: Any,
    ) -> str:
        """The memories relevant to the latest messages, one per line ("" for none)."""
        refused = sorted(SCOPE_KWARGS.intersection(block_kwargs))
        if refused:
            raise MemexError(
                f"{', '.join(refused)}: the session decides whose memory is read "
                "(user= or session_scope= on the block), never a per-call argument."
            )
        scope = self.scope_for(session_id)
        query = query_from(messages or [], self.query_window)
        if scope is None or not query:
            return ""
        hits = await acall(self.memex, self._recall, scope, query)
        return self._render(hits)

    @reads  # alongside other searches on the same Memex (memex_core.threads)
    def _recall(self, scope: SessionScope, query: str) -> list[SearchResult]:
        found = self._view(scope).search(
            query,
            self.mode,
            self.similarity_top_k,
            collection=scope.searched,
            # chat text is not a search command: "last week" in a message is no time filter
            time_phrases=False,
            as_of=self.as_of,
        )
        return found.results

    def _render(self, hits: list[SearchResult]) -> str:
        lines: list[str] = []
        for hit in hits:
            line = self.format_hit(hit)
            if line and line not in lines:  # a fact and the turn it came from may match
                lines.append(line)
        return "\n".join(lines)

    async def atruncate(self, content: str, tokens_to_truncate: int) -> str | None:
        """Drop the least relevant memories (the last lines) until ``tokens_to_truncate``
        tokens are gone. Falling short would make Memory drop the whole block, so this
        counts with the tokenizer Memory counts with (``tokenizer_fn``)."""
        count = self.tokenizer_fn or get_tokenizer()
        target = len(count(content)) - tokens_to_truncate
        lines = content.splitlines()
        while lines and len(count("\n".join(lines))) > target:
            lines.pop()
        return "\n".join(lines) or None

    # -- writing ----------------------------------------------------------------------------

    async def _aput(self, messages: list[ChatMessage]) -> None:
        """Store the flushed messages as a conversation memory of each session's user."""
        # Read the session stamps now, before any await: Memory hands the same message
        # objects to every block at once, and another block may change them.
        by_session: dict[str | None, list[ChatMessage]] = {}
        for message in messages:
            session = message.additional_kwargs.get(SESSION_KEY)
            by_session.setdefault(session if isinstance(session, str) else None, []).append(message)
        for session_id, group in by_session.items():
            scope = self.scope_for(session_id)
            turns = to_turns(group, self.roles)
            if scope is not None and turns:
                await acall(self.memex, self._store, scope, turns)

    def _store(self, scope: SessionScope, turns: list[Message]) -> RememberResult:
        return self._view(scope).remember(
            messages=turns, collection=scope.collection, consolidate=self.consolidate
        )


__all__ = ["MemexMemoryBlock", "SessionResolver", "SessionScope", "default_format"]
