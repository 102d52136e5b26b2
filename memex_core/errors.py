"""Errors memex raises on purpose. Each message says what went wrong and what to do."""


class MemexError(Exception):
    """Base for every error memex reports to a user (the CLI prints it without a traceback)."""


class RefusedValue(MemexError):
    """A name or id memex refuses, said one way: ``"<what> <value!r>: <reason>. <fix>"``
    (``reason`` and ``fix`` are kept for callers that quote them)."""

    def __init__(self, what: str, value: object, reason: str, fix: str) -> None:
        self.reason = reason
        self.fix = fix
        super().__init__(f"{what} {value!r}: {reason}. {fix}")


class UnknownIdError(MemexError):
    """An id (or id prefix) names nothing stored."""


class AmbiguousIdError(MemexError):
    """An id prefix names more than one thing; the message lists some of them."""


class EmptyQueryError(MemexError, ValueError):
    """A search was given no words: an empty or blank query.

    Refused rather than answered, since ranking against nothing returns arbitrary
    fragments that look like results. Also a ``ValueError``, as bad input to a
    function is elsewhere in Python.
    """


def require_query(query: object) -> str:
    """``query`` if it holds a word; raise :class:`EmptyQueryError` if it is empty or blank."""
    if not isinstance(query, str):
        raise EmptyQueryError(f"The query must be text, not {type(query).__name__}.")
    if not query.strip():
        raise EmptyQueryError(
            "The query is empty: give some words to search for (a search for nothing "
            "would only return arbitrary fragments)."
        )
    return query


class WriteLockedError(MemexError):
    """Another process holds the write lock on this MEMEX_HOME."""


class StorageFailure(MemexError):
    """memex cannot use its storage (the home's files, the catalog's database server): not
    the fault of the item at hand, so a job stops instead of reporting each item as failed.
    The engines' errors derive from it (``memex_core.catalog.faults.StorageError``)."""


class EmbedderMismatchError(MemexError):
    """The stored vectors were built by another embedder or dimension."""


class ReadOnlyQueryError(MemexError):
    """A query tried to do more than read the catalog."""


class VectorStoreUnavailableError(MemexError):
    """The vector store cannot answer right now (say a chroma server that stopped).

    Vector stores raise it (or a subclass) for outages that may end by themselves, as
    opposed to a broken configuration. Searches then fall back to keyword results,
    marked as such, and ingest keeps the fragments' vectors pending for a later
    backfill. The message says what is down and what to do.
    """
