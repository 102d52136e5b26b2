"""Read a plain-text journal into fragments: one per entry, long entries in linked chunks.

The format::

    [2024-05-03 09:30] Fixed the flaky upload test
    The retry decorator swallowed the timeout ...

    [2024-05-04] Sourdough, third attempt
    Fed the starter twice before mixing ...

An entry starts at a header line: a date in square brackets, optionally with a
time (``HH:MM`` or ``HH:MM:SS``), then the entry's title. Every line up to the
next header is its body. Times carry no offset, so they are read as UTC. Text
before the first header is skipped with a warning that names the line.

Ids stay stable when the journal grows: an entry is identified by the journal's
name and its date stamp, not by its position, so appending entries adds only the
new ones and editing one entry replaces only that entry.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from memex_core.domain import Fragment, SourceError
from memex_core.domain.chunking import message_fragments
from memex_core.source_kit import open_export_member, parse_timestamp, warn_skipped

SOURCE_KIND = "journal"
SUFFIX = ".journal"
PEEK_BYTES = 4096

HEADER = re.compile(r"^\[(\d{4}-\d{2}-\d{2})(?:[ T](\d{2}:\d{2}(?::\d{2})?))?\][ \t]*(.*)$")


@dataclass(frozen=True)
class Entry:
    """One journal entry as written: where it starts, its date stamp, title and body."""

    line: int
    stamp: str  # "2024-05-03T09:30" or "2024-05-03"
    title: str
    body: str

    @property
    def text(self) -> str:
        """What gets indexed: the title and the body, so both are searchable."""
        return "\n\n".join(part for part in (self.title, self.body) if part)


def read_text(path: Path) -> str:
    """The journal's text. Raises :class:`SourceError` saying what to do when it is unreadable."""
    # open_export_member reads a plain file too, and brings the size limit and the
    # "file not found" / "cannot read" errors every memex source gives.
    raw = open_export_member(path)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SourceError(
            path, "not UTF-8 text; save it as UTF-8 and ingest it again", f"byte {exc.start}"
        ) from exc


def parse_entries(text: str, path: Path) -> list[Entry]:
    """Every entry in ``text``, in order. Text before the first header is skipped (a warning)."""
    lines = text.splitlines()
    starts = [(n, match) for n, line in enumerate(lines) if (match := HEADER.match(line))]
    if not starts:
        if not text.strip():
            return []  # an empty journal is not an error, just nothing to index
        raise SourceError(
            path,
            "no journal entries: an entry starts with a line like '[2024-05-03 09:30] Title'",
            "line 1",
        )
    first = starts[0][0]
    if any(line.strip() for line in lines[:first]):
        warn_skipped(path, f"lines 1-{first}", "text before the first [date] header")
    entries = []
    ends = [n for n, _ in starts[1:]] + [len(lines)]
    for (start, header), end in zip(starts, ends, strict=True):
        date, time, title = header.groups()
        body = "\n".join(lines[start + 1 : end]).strip()
        entries.append(Entry(start + 1, f"{date}T{time}" if time else date, title.strip(), body))
    return entries


class JournalSource:
    """memex source for ``*.journal`` files (see the module docstring for the format)."""

    source_kind = SOURCE_KIND
    # A journal is edited in place: when it changes, fragments of entries that are
    # gone or were rewritten are removed instead of kept next to the new text.
    replace_changed_files = True

    def __init__(self, *, max_chars: int = 2000) -> None:
        self.max_chars = max_chars

    def can_handle(self, path: Path) -> bool:
        """A ``.journal`` file with a header line near the top. Cheap, and never raises."""
        if path.suffix.lower() != SUFFIX or not path.is_file():
            return False
        try:
            with path.open("rb") as handle:
                head = handle.read(PEEK_BYTES).decode("utf-8", errors="ignore")
        except OSError:
            return False
        return any(HEADER.match(line) for line in head.splitlines())

    def ingest(self, path: Path) -> Iterator[Fragment]:
        """Fragments of every entry, in the order they are written."""
        journal = path.stem
        conversation_id = f"journal:{journal}"
        used: set[str] = set()
        for entry in parse_entries(read_text(path), path):
            # Two entries with the same stamp get distinct ids: the second is "<stamp>@<line>".
            message_id = entry.stamp if entry.stamp not in used else f"{entry.stamp}@{entry.line}"
            used.add(message_id)
            yield from message_fragments(
                source_kind=SOURCE_KIND,
                source_path=str(path),
                conversation_id=conversation_id,
                message_id=message_id,
                role="note",
                text=entry.text,
                timestamp=parse_timestamp(entry.stamp),
                title=entry.title or f"{journal} {entry.stamp}",
                metadata={"journal": journal},
                max_chars=self.max_chars,
            )
