"""The ``code`` folder source: a git repository's tracked files, chunked at definitions.

A :class:`memex_core.domain.FolderSource` that never claims a folder by itself
(:meth:`CodeSource.can_handle_folder` is always False): a notes folder or vault that
happens to be a git repository still goes to its own source under ``memex ingest``. It is
used only when asked for by name (``memex ingest --source code REPO``, and ``memex ask``).

:meth:`CodeSource.scan` lists tracked files with their git blob hashes as fingerprints,
so memex's folder sync re-reads (and re-embeds) only files whose blob changed, and removes
files that left the repository.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path, PurePosixPath

from memex_code.chunks import DEFAULT_CHUNK_CHARS, CodeChunk, blank_line_blocks
from memex_code.files import (
    DEFAULT_MAX_FILE_BYTES,
    language_of,
    skip_by_content,
    skip_by_name,
)
from memex_code.git import git_root, tracked_files
from memex_core.domain import FolderScan, Fragment, ParsedDocument, Provenance, SourceError
from memex_core.domain.fragment import fragment_id
from memex_core.source_kit import warn_skipped

SOURCE_KIND = "code"
#: Prefix of the fingerprints this source hands folder sync (the ``sha256`` column).
FINGERPRINT_PREFIX = "git-blob:"

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")
_CAMEL = re.compile(r"[A-Z]+[0-9]*(?![a-z])|[A-Z]?[a-z0-9]+")
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$")


def document_id(root: Path, rel_path: str) -> str:
    """``"code-"`` and a digest of the resolved repository folder and the relative path."""
    digest = hashlib.blake2b(digest_size=12)
    digest.update(str(Path(root).resolve()).encode("utf-8", "surrogateescape"))
    digest.update(b"\x1f" + rel_path.encode("utf-8", "surrogateescape"))
    return f"code-{digest.hexdigest()}"


def identifier_words(text: str) -> list[str]:
    """The parts of compound identifiers (``compute_idf`` -> ``compute idf``,
    ``BM25Store`` -> ``bm25 store``), once each, in order of first use: the keyword index
    splits on non-word characters only, so a question's "idf" would not meet ``_idf``."""
    seen: dict[str, None] = {}
    for name in _IDENTIFIER.findall(text):
        parts = [p.lower() for chunk in name.split("_") for p in _CAMEL.findall(chunk)]
        if len(parts) > 1:
            seen.update(dict.fromkeys(p for p in parts if len(p) > 1))
    return list(seen)


class CodeSource:
    """Reads a git repository's tracked files (a :class:`memex_core.domain.FolderSource`)."""

    source_kind = SOURCE_KIND
    #: Named explicitly only: ingest hands it the folders given with ``--source code``.
    explicit_only = True

    def __init__(
        self,
        *,
        max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
        max_chunk_chars: int = DEFAULT_CHUNK_CHARS,
    ) -> None:
        self.max_file_bytes = max_file_bytes
        self.max_chunk_chars = max_chunk_chars

    def can_handle_folder(self, folder: Path) -> bool:
        """Always False: plain ``memex ingest`` must never take a folder from its own
        source because it is a git repository. Ask for this source by name instead."""
        return False

    def repository_root(self, folder: Path) -> Path:
        """The top folder of the git work tree ``folder`` is in (SourceError when none)."""
        return git_root(folder)

    def accepts_folder(self, folder: Path) -> bool:
        """Whether ``folder`` is inside a git work tree (when named with ``--source code``)."""
        try:
            git_root(folder)
        except SourceError:
            return False
        return True

    def scan(self, folder: Path) -> FolderScan:
        """Tracked regular files under ``folder`` that exist on disk, with their blob hashes;
        binary, lock, generated-by-name and oversized files are left out (and reported)."""
        folder = Path(folder)
        git_root(folder)  # a clear error when it is not a work tree
        documents: list[str] = []
        fingerprints: dict[str, str] = {}
        for entry in tracked_files(folder):
            try:
                size = (folder / entry.path).stat().st_size
            except OSError:
                continue  # gone between git's listing and now
            reason = skip_by_name(entry.path, size, self.max_file_bytes)
            if reason is not None:
                warn_skipped(folder / entry.path, "file", reason)
                continue
            documents.append(entry.path)
            fingerprints[entry.path] = FINGERPRINT_PREFIX + entry.blob
        return FolderScan(documents=documents, files=list(documents), fingerprints=fingerprints)

    def read_document(self, folder: Path, path: str) -> ParsedDocument:
        """Chunk the tracked file at relative ``path``: one fragment per chunk."""
        folder = Path(folder)
        parts = PurePosixPath(path).parts
        if not parts or PurePosixPath(path).is_absolute() or ".." in parts:
            raise SourceError(folder, f"{path!r} is not a path inside the repository")
        file = folder.joinpath(*parts)
        try:
            if not file.resolve(strict=True).is_relative_to(folder.resolve()):
                raise SourceError(file, "leads outside the repository; memex reads only the repo")
            data = file.read_bytes()
        except FileNotFoundError as exc:
            raise SourceError(file, "file not found; index the repository again") from exc
        except OSError as exc:
            raise SourceError(file, f"cannot read the file ({exc.strerror or exc})") from exc
        doc_id = document_id(folder, path)
        language = language_of(path)
        blob = _blob_of(data)
        empty = ParsedDocument(id=doc_id, path=path, title=path, fragments=[])
        reason = skip_by_content(data)
        if reason is None:
            try:
                text = data.decode("utf-8-sig")
            except UnicodeDecodeError as exc:
                reason = f"not UTF-8 text (byte {exc.start})"
        if reason is not None:
            warn_skipped(file, "file", reason)
            return empty
        chunks = self.chunk(text, language)
        fragments = [
            self._fragment(folder, file, path, doc_id, language, blob, chunk, number)
            for number, chunk in enumerate(chunks)
            if chunk.text.strip()
        ]
        return ParsedDocument(
            id=doc_id,
            path=path,
            title=path,
            fragments=fragments,
            properties={"language": language, "blob": blob},
        )

    def chunk(self, text: str, language: str) -> list[CodeChunk]:
        """Definitions for Python (``ast``) and tree-sitter languages, else blank-line blocks."""
        if language == "python":
            from memex_code.python_chunks import python_chunks

            return python_chunks(text, max_chars=self.max_chunk_chars)
        from memex_code.treesitter_chunks import treesitter_chunks

        found = treesitter_chunks(text, language, max_chars=self.max_chunk_chars)
        if found is not None:
            return found
        blocks = blank_line_blocks(text, max_chars=self.max_chunk_chars)
        if language == "markdown":
            return _with_headings(text, blocks)
        return blocks

    def _fragment(
        self,
        folder: Path,
        file: Path,
        path: str,
        doc_id: str,
        language: str,
        blob: str,
        chunk: CodeChunk,
        number: int,
    ) -> Fragment:
        lines = f"L{chunk.start}-{chunk.end}"
        named = f"{path}: {chunk.symbol}" if chunk.symbol else path
        title = f"{named} ({lines})"
        # The line span is part of the id: a chunk that moved gets a new fragment, so a
        # stored title and location are never stale.
        locator = f"{path}#{chunk.symbol}#{lines}#{number}"
        words = identifier_words(f"{path} {chunk.symbol} {chunk.text}")
        index_text = f"{title}\n{chunk.text}" + (f"\n{' '.join(words)}" if words else "")
        root = str(folder.resolve())
        return Fragment(
            id=fragment_id(SOURCE_KIND, doc_id, locator, chunk.text),
            conversation_id=doc_id,
            role="note",
            content=chunk.text,
            provenance=Provenance(SOURCE_KIND, str(file), path, locator),
            title=title,
            index_text=index_text,
            metadata={
                "repo_root": root,
                "path": path,
                "language": language,
                "symbol": chunk.symbol,
                "kind": chunk.kind,
                "start_line": chunk.start,
                "end_line": chunk.end,
                "blob": blob,
            },
        )


def _blob_of(data: bytes) -> str:
    from memex_code.git import blob_hash

    return blob_hash(data)


def _with_headings(text: str, blocks: list[CodeChunk]) -> list[CodeChunk]:
    """Name each Markdown block after the heading it falls under."""
    headings: list[tuple[int, str]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        match = _HEADING.match(line)
        if match:
            headings.append((number, match.group(1)))
    named = []
    for block in blocks:
        above = [h for n, h in headings if n <= block.start]
        symbol = above[-1] if above else ""
        named.append(CodeChunk(symbol, block.kind, block.start, block.end, block.text))
    return named
