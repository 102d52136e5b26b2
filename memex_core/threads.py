"""Calling one :class:`~memex_core.api.Memex` from several threads without racing it.

A Memex opens its catalog and indexes lazily, and most of what it does (ingest,
remembering, a rebuild) changes several of them in steps. Integrations run it from
worker threads (LangChain's ``ainvoke``/``abatch``, LlamaIndex's ``asyncio.gather`` over
memory blocks, an MCP server's handlers, ``memex serve``'s request threads), so every
such call goes through :func:`call`, which holds the Memex's own ``call_lock`` (one per
Memex, shared by every integration, so an application mixing them is safe).

That lock is a readers-writer lock (:class:`~memex_core.rwlock.ReadWriteLock`):

* a call marked with :func:`reads` (searches, ``context``) holds it *shared*, alongside
  other searches, once the Memex says its components allow it
  (:meth:`~memex_core.api.Memex.reads_may_share`: each says it can be read from several
  threads at once, as SQLite, the BM25 index, chroma on a folder and MiniLM do). The
  slow parts of a search release the GIL (numpy's matrix products, chroma's query in
  Rust, SQLite), so two searches use two cores;
* every other call holds it *exclusive*: it waits for the searches in flight, and
  searches that arrive meanwhile wait for it (writers go first), so no search sees half
  a write.

A ``memex_client.MemexClient`` has a ``call_lock`` too, which locks nothing: HTTP calls
need no such care.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any, ParamSpec, Protocol, TypeVar

P = ParamSpec("P")
R = TypeVar("R")
F = TypeVar("F", bound=Callable[..., Any])


class HasCallLock(Protocol):
    """Anything integrations hold a lock of around each call: a ``Memex``, or a
    ``memex_client.MemexClient`` (whose lock locks nothing)."""

    @property
    def call_lock(self) -> AbstractContextManager[Any]: ...


#: The attribute :func:`reads` sets on a method (bound methods show their function's).
READS_ATTRIBUTE = "__memex_reads__"


def reads(fn: F) -> F:
    """Mark a method that only reads (what it writes is its own line in the access log),
    so that :func:`call` runs it alongside other such calls."""
    setattr(fn, READS_ATTRIBUTE, True)
    return fn


def only_reads(fn: Callable[..., Any]) -> bool:
    """Whether ``fn`` (a function or a bound method) is marked with :func:`reads`."""
    return bool(getattr(fn, READS_ATTRIBUTE, False))


@contextmanager
def reading(memex: HasCallLock) -> Iterator[None]:
    """Hold ``memex``'s call lock for a call that only reads: shared, alongside other
    reads, when the Memex allows it (see the module docstring); exclusive otherwise."""
    lock: Any = memex.call_lock
    may_share = getattr(memex, "reads_may_share", None)
    shared = getattr(lock, "acquire_shared", None)
    if shared is not None and callable(may_share) and may_share():
        shared()
        try:
            # Asked before the lock was held: a write may have closed a component since.
            still = may_share()
            if still:
                yield
        finally:
            lock.release_shared()
        if still:
            return
    with lock:
        yield


@contextmanager
def reading_now(memex: HasCallLock) -> Iterator[bool]:
    """:func:`reading` for a thread that must not wait, such as an event loop: the block
    gets True holding the call lock shared when that waits for nothing, and False holding
    nothing when it would wait (a write in progress or waiting, reads not yet shared), so
    that the caller hands its work to a worker thread instead."""
    lock: Any = memex.call_lock
    may_share = getattr(memex, "reads_may_share", None)
    try_shared = getattr(lock, "try_acquire_shared", None)
    if try_shared is None or not callable(may_share) or not may_share() or not try_shared():
        yield False
        return
    try:
        yield bool(may_share())  # asked again with the lock held, as reading() does
    finally:
        lock.release_shared()


def call(memex: HasCallLock, fn: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
    """Run ``fn(*args, **kwargs)`` (a call into ``memex``) holding its call lock: shared
    for a call marked with :func:`reads`, exclusive for any other."""
    if only_reads(fn):
        with reading(memex):
            return fn(*args, **kwargs)
    with memex.call_lock:
        return fn(*args, **kwargs)


async def acall(memex: HasCallLock, fn: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
    """:func:`call` in a worker thread, so the event loop keeps running meanwhile."""
    import asyncio  # here: a command-line search has no event loop (and asyncio costs ~20 ms)

    return await asyncio.to_thread(call, memex, fn, *args, **kwargs)


__all__ = ["acall", "call", "only_reads", "reading", "reading_now", "reads"]
