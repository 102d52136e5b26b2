"""What Ctrl-C says: what was kept and how to finish, not a bare ``Aborted.``

A command that writes in steps (ingest: one file at a time, then the vectors in batches)
runs them inside :func:`on_interrupt` with a function that describes, at the moment of
the interrupt, what is already saved; :func:`memex_core.cli.app.run` prints it after
``Interrupted.`` and exits with status 130 (as a shell does for SIGINT). A command that
says nothing prints ``Interrupted.`` alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


class Interrupted(Exception):
    """Ctrl-C during a command that says what it kept (the message)."""


@contextmanager
def on_interrupt(describe: Callable[[], str]) -> Iterator[None]:
    """Turn Ctrl-C inside the block into :class:`Interrupted` with ``describe()``'s words."""
    try:
        yield
    except KeyboardInterrupt:
        raise Interrupted(describe()) from None


def ingest_interrupted(files: Any, vectors: Any) -> str:
    """What an interrupted ``ingest`` or ``sync`` kept, from its two progress counters
    (:class:`memex_core.cli.progress.RichProgress`): each file is stored in one
    transaction, so the files finished are kept and the one being read is not."""
    again = "Run the same command again to finish: what is already in is skipped."
    if vectors.total is not None:
        return (
            f"Every file was read and kept ({files.done:,} file(s)); {vectors.done:,} of "
            f"{vectors.total:,} fragment(s) were embedded. Keyword search finds them all "
            "now; `memex backfill` (or the same command again) embeds the rest."
        )
    if files.total is not None:
        return (
            f"{files.done:,} of {files.total:,} file(s) were read and kept; the one being "
            f"read was not stored. {again}"
        )
    return f"Folders read before the interrupt are kept. {again}"
