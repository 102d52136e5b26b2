"""Errors memex raises on purpose. Each message says what went wrong and what to do."""


class MemexError(Exception):
    """Base for every error memex reports to a user (the CLI prints it without a traceback)."""


class WriteLockedError(MemexError):
    """Another process holds the write lock on this MEMEX_HOME."""


class EmbedderMismatchError(MemexError):
    """The stored vectors were built by another embedder or dimension."""


class ReadOnlyQueryError(MemexError):
    """A query tried to do more than read the catalog."""
