"""A tiny folder source for testing memex's folder sync without the Obsidian plugin.

A folder with a ``.fakevault`` marker holds ``*.note`` files. A note is split on
lines starting with ``# `` into sections; ``[[Target]]`` and ``[[Target#Heading]]``
are links (targets name the file, ``Other.note``, or an alias); ``aliases: a, b`` on the
first line gives aliases.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

from memex_core.domain import (
    FolderScan,
    Fragment,
    Link,
    ParsedDocument,
    Provenance,
    SourceError,
    fragment_id,
)
from memex_core.hookspecs import hookimpl

_LINK = re.compile(r"\[\[([^\]#|]*)(?:#([^\]|]+))?\]\]")


class FakeVaultSource:
    source_kind = "fakevault"

    def can_handle_folder(self, folder: Path) -> bool:
        return (folder / ".fakevault").exists()

    def scan(self, folder: Path) -> FolderScan:
        files = sorted(
            p.relative_to(folder).as_posix()
            for p in folder.rglob("*")
            if p.is_file() and not p.name.startswith(".")
        )
        return FolderScan(documents=[f for f in files if f.endswith(".note")], files=files)

    def read_document(self, folder: Path, path: str) -> ParsedDocument:
        text = (folder / path).read_text(encoding="utf-8")
        if "BROKEN" in text:
            raise SourceError(folder / path, "this note is marked BROKEN", "line 1")
        doc_id = (
            "fake-" + hashlib.blake2b(f"{folder}\x1f{path}".encode(), digest_size=8).hexdigest()
        )
        title = Path(path).stem
        aliases: tuple[str, ...] = ()
        lines = text.splitlines()
        if lines and lines[0].startswith("aliases:"):
            aliases = tuple(a.strip() for a in lines[0][8:].split(",") if a.strip())
            lines = lines[1:]
        sections: list[list[str]] = [[]]
        for line in lines:
            if line.startswith("# ") and sections[-1]:
                sections.append([])
            sections[-1].append(line)
        fragments, links = [], []
        mtime = (folder / path).stat().st_mtime
        for index, section in enumerate(s for s in sections if s):
            content = "\n".join(section)
            heading = section[0][2:] if section[0].startswith("# ") else None
            locator = f"{path}#s{index}"
            fid = fragment_id(self.source_kind, doc_id, locator, content)
            fragments.append(
                Fragment(
                    id=fid,
                    conversation_id=doc_id,
                    role="note",
                    content=content,
                    provenance=Provenance(self.source_kind, str(folder), path, locator, mtime),
                    timestamp=mtime,
                    title=title,
                    metadata={"heading": heading} if heading else {},
                    index_text=f"{title}\n{content}",
                )
            )
            for match in _LINK.finditer(content):
                links.append(Link(fid, match.group(1), heading=match.group(2)))
        return ParsedDocument(
            id=doc_id,
            path=path,
            title=title,
            fragments=fragments,
            links=links,
            aliases=aliases,
            timestamp=mtime,
        )


class FakeVaultPlugin:
    @hookimpl
    def register_sources(self, register: Any) -> None:
        register("fakevault", lambda context: FakeVaultSource(), description="test notes")


def write_vault(folder: Path, notes: dict[str, str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / ".fakevault").write_text("")
    for name, text in notes.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return folder
