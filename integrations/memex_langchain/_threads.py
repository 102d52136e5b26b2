"""One lock per Memex, so that LangChain's async and batch paths can share one.

A :class:`~memex_core.api.Memex` opens its SQLite catalog with
``check_same_thread=False``, so any thread may use it, but it builds its
components (the keyword index, the embedder, the vector store) lazily and
without a lock, and BM25 and Chroma are not written for concurrent readers.
``ainvoke`` runs searches in worker threads and ``abatch``/``gather`` run many
at once, so every call into one Memex from this package holds that Memex's
lock. Searches are CPU-bound Python under the GIL anyway, so little is lost.
"""

from __future__ import annotations

import threading
import weakref
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memex_core.api import Memex

_LOCKS: weakref.WeakKeyDictionary[Memex, threading.RLock] = weakref.WeakKeyDictionary()
_GUARD = threading.Lock()


def memex_lock(memex: Memex) -> threading.RLock:
    """The lock every call from this package into ``memex`` holds (reentrant)."""
    with _GUARD:
        lock = _LOCKS.get(memex)
        if lock is None:
            lock = _LOCKS[memex] = threading.RLock()
        return lock
