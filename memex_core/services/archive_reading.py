"""Reading an archive without trusting it: every check an import makes before it writes.

The zip is read, never extracted. Before a single row reaches the catalog, every member
name must be a plain known name (no folder, no ``..``, no duplicate, no link), pass the
zip-bomb guard export zips get (:mod:`memex_core.sources.archives`), be listed in the
manifest, and match the manifest's row count, byte count and SHA-256. Rows are then read
a batch at a time, each one a JSON object of exactly the manifest's columns with plain
values (text, numbers, null).
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from memex_core.domain import SourceError
from memex_core.services.archive_format import (
    BATCH,
    BY_NAME,
    MANIFEST,
    VECTORS,
    ArchiveError,
    MemberDigest,
    is_safe_member_name,
    parse_manifest,
)
from memex_core.services.archive_vectors import IDENTITY_KEY, dimension_of, parse_vectors
from memex_core.sources.archives import CORRUPT_ERRORS, READ_ERRORS, check_member
from memex_core.sources.limits import DEFAULT_LIMITS

#: The longest row an archive may hold (a fragment is a few kB; this leaves room).
MAX_LINE_BYTES = 64 * 1024**2
_MAX_MANIFEST_BYTES = 1024**2


def _not_a_number(name: str) -> Any:
    raise ValueError(f"{name} is not a value a memex archive holds")


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, str) or type(value) in (int, float)


class ArchiveReader:
    """One archive, checked (:meth:`verify`) and then read member by member."""

    def __init__(self, source: Path | IO[bytes]) -> None:
        self.source = source
        self.where = str(source) if isinstance(source, Path) else "the archive"
        try:
            self.zip = zipfile.ZipFile(source)
        except FileNotFoundError as exc:
            raise ArchiveError(f"{self.where}: file not found") from exc
        except (*CORRUPT_ERRORS, RuntimeError) as exc:
            raise ArchiveError(
                f"not a readable memex archive (truncated or not a zip file: {exc})"
            ) from exc
        self.infos: dict[str, zipfile.ZipInfo] = {}
        self.manifest: dict[str, Any] = {}
        self.dimension = 0  # of the archive's vectors, when it holds some

    def close(self) -> None:
        self.zip.close()

    def verify(self) -> dict[str, Any]:
        """Check names, sizes, the manifest and every member's checksum; the manifest."""
        for info in self.zip.infolist():
            name = info.filename
            if not is_safe_member_name(name):
                raise ArchiveError(
                    f"the archive holds a member with an unsafe name ({name!r}); memex "
                    "archives hold only plain names such as fragments.jsonl"
                )
            if name in self.infos:
                raise ArchiveError(f"the archive holds member {name} twice")
            if (info.external_attr >> 16) & 0o170000 == 0o120000:
                raise ArchiveError(f"member {name} is a symbolic link")
            if name not in (MANIFEST, VECTORS) and name not in BY_NAME:
                raise ArchiveError(f"the archive holds a member memex does not know: {name}")
            try:
                check_member(self.where, info, DEFAULT_LIMITS)
            except SourceError as exc:
                raise ArchiveError(str(exc)) from exc
            self.infos[name] = info
        if MANIFEST not in self.infos:
            raise ArchiveError("the archive has no manifest.json (is it a memex archive?)")
        if self.infos[MANIFEST].file_size > _MAX_MANIFEST_BYTES:
            raise ArchiveError("manifest.json is larger than any memex writes")
        self.manifest = parse_manifest(self._read(MANIFEST))
        listed = set(self.manifest["members"])
        present = set(self.infos) - {MANIFEST}
        if listed != present:
            missing = sorted(listed - present)
            extra = sorted(present - listed)
            raise ArchiveError(
                "the archive's members differ from its manifest ("
                + "; ".join(
                    part
                    for part in (
                        f"missing: {', '.join(missing)}" if missing else "",
                        f"not listed: {', '.join(extra)}" if extra else "",
                    )
                    if part
                )
                + ")"
            )
        if VECTORS in listed:
            if self.manifest["members"][VECTORS]["columns"] != ["id", "vector"]:
                raise ArchiveError(f"manifest.json describes member {VECTORS} wrongly")
            self.dimension = dimension_of(self.manifest.get(IDENTITY_KEY))  # type: ignore[arg-type]
        for name in sorted(listed):
            self._check_digest(name)
        return self.manifest

    @property
    def vector_identity(self) -> dict[str, str] | None:
        """The embedder the archive's vectors were built with; None: it holds none."""
        if VECTORS not in self.manifest.get("members", {}):
            return None
        return dict(self.manifest[IDENTITY_KEY])

    def vectors(self) -> Iterator[list[tuple[str, list[float]]]]:
        """Batches of the archive's ``(fragment id, vector)``, each checked."""
        if self.vector_identity is None:
            return iter(())
        return parse_vectors(self._lines(VECTORS), self.dimension)

    def _read(self, name: str) -> bytes:
        try:
            return self.zip.read(self.infos[name])
        except READ_ERRORS as exc:
            raise ArchiveError(f"member {name} is corrupt ({exc})") from exc

    def _lines(self, name: str) -> Iterator[bytes]:
        try:
            with self.zip.open(self.infos[name]) as stream:
                while True:
                    data = stream.readline(MAX_LINE_BYTES + 1)
                    if not data:
                        return
                    if len(data) > MAX_LINE_BYTES:
                        raise ArchiveError(f"member {name} holds a row over 64 MB")
                    yield data
        except READ_ERRORS as exc:
            raise ArchiveError(f"member {name} is corrupt ({exc})") from exc

    def _check_digest(self, name: str) -> None:
        expected = self.manifest["members"][name]
        digest = MemberDigest()
        for data in self._lines(name):
            digest.update(data, 1)
        if digest.sha256 != expected["sha256"] or digest.size != expected["bytes"]:
            raise ArchiveError(
                f"member {name} does not match its checksum in manifest.json (corrupted or "
                "altered); export it again"
            )
        if digest.rows != expected["rows"]:
            raise ArchiveError(
                f"member {name} holds {digest.rows} rows, manifest.json says {expected['rows']}"
            )

    def rows(self, name: str) -> Iterator[list[dict[str, Any]]]:
        """Batches of ``name``'s rows, each checked to be an object of the manifest's
        columns with plain values."""
        columns = self.manifest["members"][name]["columns"]
        wanted = set(columns)
        batch: list[dict[str, Any]] = []
        for number, data in enumerate(self._lines(name), 1):
            try:
                row = json.loads(data, parse_constant=_not_a_number)
            except ValueError as exc:
                raise ArchiveError(f"{name} line {number} is not JSON ({exc})") from exc
            if not isinstance(row, dict) or set(row) != wanted:
                raise ArchiveError(
                    f"{name} line {number} does not hold the columns manifest.json lists"
                )
            if not all(_scalar(v) for v in row.values()):
                raise ArchiveError(f"{name} line {number} holds a value that is not plain")
            batch.append(row)
            if len(batch) >= BATCH:
                yield batch
                batch = []
        if batch:
            yield batch
