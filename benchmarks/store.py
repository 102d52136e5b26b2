"""The stored results docs/benchmarks.md is assembled from: one JSON file per section.

``docs/benchmarks/<key>.json`` holds a section's summary rows, its Markdown body and the run
that measured it (:class:`benchmarks.provenance.Run`). A run with ``--merge`` replaces the
files of the sections it measured and leaves the others alone, so the assembled page never
has to be parsed back. One file per section keeps two helpers rerunning different sections
out of each other's way (each write is atomic; the page is reassembled from whatever is
stored).
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.provenance import Run
from benchmarks.report import Check, Section

#: Bumped when a stored field changes meaning; older files are refused, not misread.
FORMAT = 1


@dataclass(frozen=True)
class StoredSection:
    section: Section
    run: Run
    #: Wall time of this section alone (None when imported from a report, which has none).
    seconds: float | None = None

    @property
    def key(self) -> str:
        return self.section.key

    def to_json(self) -> dict[str, Any]:
        section = self.section
        return {
            "format": FORMAT,
            "key": section.key,
            "title": section.title,
            "seconds": self.seconds,
            "run": self.run.to_json(),
            "checks": [
                {
                    "name": c.name,
                    "figure": c.figure,
                    "target": c.target,
                    "peer": c.peer,
                    "met": c.met,
                }
                for c in section.checks
            ],
            # A block per list, a line per string: the stored files diff line by line.
            "body": [block.split("\n") for block in section.body],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], *, source: Path) -> StoredSection:
        if data.get("format") != FORMAT:
            raise ValueError(
                f"{source}: stored result format {data.get('format')!r}, this code reads "
                f"{FORMAT}: rerun the section with `python -m benchmarks.run --only "
                f"{source.stem} --merge`"
            )
        section = Section(
            key=data["key"],
            title=data["title"],
            checks=[Check(**check) for check in data["checks"]],
            body=["\n".join(lines) for lines in data["body"]],
        )
        return cls(section, Run.from_json(data["run"]), data.get("seconds"))


class ResultStore:
    """The folder of stored sections; the assembled page sits next to it (``<folder>.md``)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @property
    def page(self) -> Path:
        """docs/benchmarks/ is assembled into docs/benchmarks.md."""
        return self.folder.with_suffix(".md")

    def path(self, key: str) -> Path:
        return self.folder / f"{key}.json"

    def load(self) -> dict[str, StoredSection]:
        stored = {}
        for path in sorted(self.folder.glob("*.json")):
            entry = read(path)
            stored[entry.key] = entry
        return stored

    def get(self, key: str) -> StoredSection | None:
        path = self.path(key)
        return read(path) if path.exists() else None

    def save(self, entry: StoredSection) -> Path:
        if entry.section.skipped:
            raise ValueError(f"section {entry.key} was not measured: {entry.section.skipped}")
        path = self.path(entry.key)
        text = json.dumps(entry.to_json(), indent=1, ensure_ascii=False) + "\n"
        write_atomically(path, text)
        return path

    def finish(self, run: Run, finished: Run) -> None:
        """Rewrite the sections ``run`` stored with its end (wall time, load at end), unless
        another run has replaced them meanwhile."""
        for entry in self.load().values():
            if entry.run.identity == run.identity:
                self.save(StoredSection(entry.section, finished, entry.seconds))


def read(path: Path) -> StoredSection:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(
            f"{path}: unreadable stored result ({exc}); restore it from git or rerun "
            f"`python -m benchmarks.run --only {path.stem} --merge`"
        ) from exc
    entry = StoredSection.from_json(data, source=path)
    if entry.key != path.stem:
        raise ValueError(f"{path}: holds section {entry.key!r}; name it {entry.key}.json")
    return entry


def write_atomically(path: Path, text: str) -> None:
    """Readers (a concurrent assembly) see the old file or the new one, never half of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
