"""The two ways into agent memory: an agent handle bound to one user, and an operator handle.

>>> mx = Memex(home)                                              # doctest: +SKIP
>>> alice = mx.agent("alice", name="support-bot")                 # doctest: +SKIP
>>> alice.remember("Alice prefers tea over coffee", collection="acme:support")  # doctest: +SKIP
>>> alice.write("user/projects.md", "Working on [[user/roadmap.md]]")           # doctest: +SKIP
>>> [hit.text for hit in alice.search("what does alice drink")]   # doctest: +SKIP

An agent sees ``user/...`` (its user's memory) and ``shared/...`` (read-only
unless ``MEMEX_SHARED_WRITE_MODE=rw``) and nothing else: the scope it carries is
checked by the catalog on every statement, and search filters always carry the
owner restriction. An operator reads and writes everything, sees revisions and
the access log, and can purge. Every call through either handle is logged.
"""

from memex_core.domain.memory.outcomes import MemoryHit, MemoryLinks, RememberResult
from memex_core.handles.agent import AgentMemory
from memex_core.handles.base import SHARED_WRITE_ENV, MemoryNotFound, shared_writable
from memex_core.handles.handle import MemoryHandle
from memex_core.handles.operator import OperatorMemory

__all__ = [
    "SHARED_WRITE_ENV",
    "AgentMemory",
    "MemoryHandle",
    "MemoryHit",
    "MemoryLinks",
    "MemoryNotFound",
    "OperatorMemory",
    "RememberResult",
    "shared_writable",
]
