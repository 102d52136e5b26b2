"""The memory handle both kinds of caller share: reads, writes and dreams in one scope."""

from __future__ import annotations

from memex_core.handles.archives import ArchiveCalls
from memex_core.handles.dreaming import MemoryDreams
from memex_core.handles.reading import MemoryReads
from memex_core.handles.writing import MemoryWrites


class MemoryHandle(MemoryReads, MemoryWrites, MemoryDreams, ArchiveCalls):
    """What both handles share: scope, logging, lookups, search, writes, dreams, archives."""
