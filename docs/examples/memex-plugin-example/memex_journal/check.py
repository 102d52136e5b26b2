"""``memex journal-check``: what the source reads from a journal, without ingesting it."""

from __future__ import annotations

from pathlib import Path

import click
from memex_core.domain import SourceError

from memex_journal.source import parse_entries, read_text


def check(path: str) -> str:
    """A summary of the entries in ``path``: how many, and each one's stamp and title."""
    try:
        entries = parse_entries(read_text(Path(path)), Path(path))
    except SourceError as exc:
        raise click.ClickException(str(exc)) from exc
    if not entries:
        return f"{path}: no entries"
    lines = [f"{path}: {len(entries)} entries, {entries[0].stamp} .. {entries[-1].stamp}"]
    lines += [f"  line {e.line:>4}  {e.stamp:<16}  {e.title or '(untitled)'}" for e in entries]
    return "\n".join(lines)
