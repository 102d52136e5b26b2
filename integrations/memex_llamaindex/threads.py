"""Calling a (synchronous) Memex from LlamaIndex's async code without racing it.

A :class:`~memex_core.api.Memex` is not safe to use from two threads at once:
it opens its catalog and indexes lazily, its write lock counts re-entries per
object rather than per thread, and every thread shares one SQLite connection,
so two concurrent ``remember`` calls fail with "cannot start a transaction
within a transaction". LlamaIndex runs blocks and retrievers concurrently
(``asyncio.gather`` over memory blocks, several agent sessions in one loop), so
every call into a Memex from this package goes through :func:`call`, which
holds one lock per Memex object. Async callers reach it from a worker thread
(:func:`acall`) so the event loop never waits on SQLite or an embedder.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from memex_core.api import Memex

P = ParamSpec("P")
R = TypeVar("R")

_locks: weakref.WeakKeyDictionary[Memex, threading.RLock] = weakref.WeakKeyDictionary()
_locks_guard = threading.Lock()


def lock_for(memex: Memex) -> threading.RLock:
    """The lock that serialises this package's calls into ``memex`` (one per object)."""
    with _locks_guard:
        lock = _locks.get(memex)
        if lock is None:
            lock = _locks[memex] = threading.RLock()
        return lock


def call(memex: Memex, fn: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
    """Run ``fn(*args, **kwargs)`` (a call into ``memex``) holding its lock."""
    with lock_for(memex):
        return fn(*args, **kwargs)


async def acall(memex: Memex, fn: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
    """:func:`call` in a worker thread, so the event loop keeps running meanwhile."""
    return await asyncio.to_thread(call, memex, fn, *args, **kwargs)


__all__ = ["acall", "call", "lock_for"]
