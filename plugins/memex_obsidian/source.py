"""The ``obsidian`` folder source: an Obsidian vault, synced note by note.

A vault is a folder of Markdown notes (plus attachments) linked by wikilinks.
memex syncs it as a whole: :meth:`ObsidianSource.scan` lists notes and files
cheaply, :meth:`ObsidianSource.read_document` parses one note (see
:mod:`memex_obsidian.note`), and memex's core hashes, replaces, removes and
resolves links itself (with :class:`memex_core.domain.link_resolution.LinkResolver`).

Errors, decided once: a note that cannot be read (missing, not UTF-8, outside
the vault, a link loop) raises :class:`SourceError`; broken frontmatter only warns, the
note is still indexed without its properties.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from memex_core.domain import FolderScan, ParsedDocument, SourceError
from memex_core.domain.chunking import DEFAULT_MAX_CHARS
from memex_obsidian.note import SOURCE_KIND, parse_note
from memex_obsidian.vault import looks_like_vault, scan_vault


class ObsidianSource:
    """Reads Obsidian vaults (a :class:`memex_core.domain.FolderSource`)."""

    source_kind = SOURCE_KIND

    def __init__(self, *, max_chars: int = DEFAULT_MAX_CHARS) -> None:
        self.max_chars = max_chars

    def can_handle_folder(self, folder: Path) -> bool:
        """Whether ``folder`` is an Obsidian vault.

        Yes when it holds a ``.obsidian/`` settings folder (every vault opened in
        Obsidian has one). A vault checked into git often lacks it (the Obsidian
        Help vault does), so otherwise: yes when it (or a visible subfolder)
        holds ``.md`` files and no chat-export or transcript files (``*.jsonl``,
        ``conversations.json``), which belong to the other sources even when
        notes sit beside them.
        """
        return looks_like_vault(Path(folder))

    def scan(self, folder: Path) -> FolderScan:
        """Notes (``*.md``) and all files (attachments too): relative, sorted, hidden skipped."""
        folder = Path(folder)
        if not folder.is_dir():
            raise SourceError(folder, "not a folder; pass the vault's folder to ingest")
        return scan_vault(folder)

    def read_document(self, folder: Path, path: str) -> ParsedDocument:
        """Parse the note at relative ``path`` in vault ``folder``."""
        folder = Path(folder)
        parts = PurePosixPath(path).parts
        if not parts or PurePosixPath(path).is_absolute() or ".." in parts:
            raise SourceError(folder, f"{path!r} is not a path inside the vault", "read_document")
        file = folder.joinpath(*parts)
        try:
            # A note swapped for a link after the scan must not lead out of the vault either.
            if not file.resolve(strict=True).is_relative_to(folder.resolve()):
                raise SourceError(
                    file, "a symbolic link to a file outside the vault; memex reads only the vault"
                )
            raw = file.read_bytes()
            mtime = file.stat().st_mtime
        except FileNotFoundError as exc:
            raise SourceError(file, "note not found; scan the vault again") from exc
        except (OSError, RuntimeError) as exc:  # RuntimeError: a link loop (Python < 3.13)
            reason = getattr(exc, "strerror", None) or exc
            raise SourceError(file, f"cannot read the note ({reason})") from exc
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise SourceError(
                file,
                "not UTF-8 text; Obsidian notes are UTF-8: re-save the note as UTF-8",
                f"byte {exc.start}",
            ) from exc
        return parse_note(text, vault=folder, rel_path=path, mtime=mtime, max_chars=self.max_chars)
