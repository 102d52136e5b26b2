"""What one running server holds: the memex home, its keys, the operator secret, and how a
checked caller becomes a view or a memory handle of the Python API."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from memex_server.auth import Caller
from memex_server.operator_reader import OperatorReader

if TYPE_CHECKING:
    from memex_core.agent_view import AgentView
    from memex_core.api import Memex
    from memex_core.handles import AgentMemory, OperatorMemory

R = TypeVar("R")


class ServerState:
    def __init__(self, memex: Memex, admin_secret: str) -> None:
        self.memex = memex
        self.keys = memex.agent_keys()
        self.admin_secret = admin_secret
        self.started_at = time.time()

    def call(self, fn: Callable[..., R], /, *args: Any, **kwargs: Any) -> R:
        """Run one call into memex, one at a time (see :mod:`memex_core.threads`)."""
        with self.memex.call_lock:
            return fn(*args, **kwargs)

    def reader(self, who: Caller, *, corpus: bool = True) -> AgentView | OperatorReader:
        """What ``who`` reads with: its user's view, or the whole home for the operator.
        ``corpus=False`` narrows an agent to memory; it never widens a key."""
        if who.operator:
            return OperatorReader(self.memex)
        return self.memex.view(
            who.user_id, name=who.name, collection=who.collection, corpus=who.corpus and corpus
        )

    def agent_memory(self, who: Caller) -> AgentMemory:
        assert who.user_id is not None  # auth.agent guarantees it
        if who.collection:  # a key's collection is a bound, not a default
            from memex_server.bounded import BoundAgentMemory

            return BoundAgentMemory(
                self.memex, who.user_id, name=who.name, collection=who.collection
            )
        return self.memex.agent(who.user_id, name=who.name, collection=who.collection)

    def operator_memory(self, who: Caller) -> OperatorMemory:
        return self.memex.operator(who.name)
