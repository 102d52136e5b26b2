"""Reporting items skipped inside an otherwise readable file, without flooding the output."""

from __future__ import annotations

import warnings
from pathlib import Path

from memex_core.domain import SkippedItemWarning


def warn_skipped(path: str | Path, location: str, reason: str) -> None:
    """Report a skipped item as a :class:`SkippedItemWarning` naming the file and the place."""
    warnings.warn(f"{path} ({location}): skipped, {reason}", SkippedItemWarning, stacklevel=3)


#: Skipped items reported one by one per file; past this, one line says how many more.
MAX_SKIP_WARNINGS = 100


class Skips:
    """Warns about the first :data:`MAX_SKIP_WARNINGS` skipped items of a file, then counts:
    a file of a million odd entries must not print a million lines."""

    def __init__(self, where: str | Path) -> None:
        self.where = where
        self.count = 0

    def skip(self, location: str, reason: str) -> None:
        self.count += 1
        if self.count <= MAX_SKIP_WARNINGS:
            warnings.warn(
                f"{self.where} ({location}): skipped, {reason}", SkippedItemWarning, stacklevel=3
            )

    def finish(self) -> None:
        if self.count > MAX_SKIP_WARNINGS:
            more = self.count - MAX_SKIP_WARNINGS
            warnings.warn(
                f"{self.where}: skipped {more} more item(s) like the ones above",
                SkippedItemWarning,
                stacklevel=3,
            )
