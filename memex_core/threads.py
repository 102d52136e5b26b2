"""Calling one :class:`~memex_core.api.Memex` from several threads without racing it.

A Memex is built for one caller at a time: it opens its catalog and indexes
lazily, every thread shares its one SQLite connection, and its write lock
counts re-entries per object, not per thread. Integrations run it from worker
threads (LangChain's ``ainvoke``/``abatch``, LlamaIndex's ``asyncio.gather``
over memory blocks, an MCP server's handlers), so every such call goes
through :func:`call`, which holds the Memex's own ``call_lock``. One lock per
Memex, shared by every integration, so an application mixing them is safe.
Searches are CPU-bound Python under the GIL anyway, so little is lost. A
``memex_client.MemexClient`` has a ``call_lock`` too, which locks nothing: HTTP
calls need no such care.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, ParamSpec, TypeVar

if TYPE_CHECKING:
    from memex_core.memex_like import HasCallLock

P = ParamSpec("P")
R = TypeVar("R")


def call(memex: HasCallLock, fn: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
    """Run ``fn(*args, **kwargs)`` (a call into ``memex``) holding its call lock."""
    with memex.call_lock:
        return fn(*args, **kwargs)


async def acall(memex: HasCallLock, fn: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
    """:func:`call` in a worker thread, so the event loop keeps running meanwhile."""
    return await asyncio.to_thread(call, memex, fn, *args, **kwargs)


__all__ = ["acall", "call"]
