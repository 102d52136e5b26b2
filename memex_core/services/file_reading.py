"""What ingest and folder sync share: hashing a file, and turning a source's failure into
a reported outcome (a bad or unreadable file never stops the run)."""

from __future__ import annotations

import hashlib
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from memex_core.domain import FileOutcome, SkippedItemWarning, SourceError

#: Failures a source may raise for bad input; anything else is a bug in the source.
READ_ERRORS = (SourceError, OSError, UnicodeDecodeError, ValueError)


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def failed_outcome(label: str, source_kind: str, exc: Exception) -> FileOutcome:
    """A ``failed`` outcome whose error says where and why (or that the source crashed)."""
    if isinstance(exc, SourceError):
        where = f"{exc.location}: " if exc.location else ""
        error = where + exc.reason
    elif isinstance(exc, UnicodeEncodeError) and "surrogates" in str(exc):
        # A name (or text) holding bytes that are not UTF-8: the catalog cannot store it.
        error = "the file name (or a path in it) is not valid UTF-8; rename the file to ingest it"
    elif isinstance(exc, READ_ERRORS):
        error = str(exc)
    else:
        error = (
            f"the {source_kind} source crashed ({type(exc).__name__}: {exc}); "
            "please report this with the file's structure"
        )
    return FileOutcome(label, "failed", source_kind, error=error)


@contextmanager
def collect_skips() -> Iterator[list[str]]:
    """Collect the :class:`SkippedItemWarning` messages raised inside the block.

    They become part of the file's outcome (reported with the file, the place and
    the reason) instead of reaching the user in Python's warning format. Other
    warnings pass through unchanged.
    """
    skipped: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            yield skipped
        finally:
            skipped.extend(
                str(w.message) for w in caught if issubclass(w.category, SkippedItemWarning)
            )
    for warning in caught:
        if not issubclass(warning.category, SkippedItemWarning):
            warnings.warn_explicit(
                warning.message, warning.category, warning.filename, warning.lineno
            )
