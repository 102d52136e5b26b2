"""What ``explore(note)`` hands back: a note's links out, its backlinks, and similar notes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from memex_core.domain.documents import DocumentRecord


@dataclass(frozen=True)
class Outlink:
    target: str
    kind: str
    heading: str | None
    block: str | None
    display: str | None
    target_path: str | None  # None: unresolved (the note does not exist)
    target_title: str | None
    target_document: str | None

    @property
    def anchor(self) -> str:
        """``#Heading`` or ``#^block`` when the link points into the note, else empty:
        four links to four sections of one note are four different links."""
        if self.heading:
            return f"#{self.heading}"
        return f"#^{self.block}" if self.block else ""

    @property
    def label(self) -> str:
        """The target as a reader names it: its title (or the link text) and the anchor."""
        return (self.target_title or self.target) + self.anchor

    def to_dict(self, concise: bool = False) -> dict[str, Any]:
        if concise:
            short = {"path": self.target_path, "title": self.target_title or self.target}
            return {**short, "anchor": self.anchor} if self.anchor else short
        return dict(vars(self))


class _NoteRow:
    """A row naming a note; concise, it is just the note's path and title."""

    _CONCISE: ClassVar[tuple[str, str]] = ("path", "title")  # the attributes holding them

    def to_dict(self, concise: bool = False) -> dict[str, Any]:
        if concise:
            path, title = self._CONCISE
            return {"path": getattr(self, path), "title": getattr(self, title)}
        return dict(vars(self))


@dataclass(frozen=True)
class Backlink(_NoteRow):
    _CONCISE = ("source_path", "source_title")

    source_document: str
    source_path: str
    source_title: str
    fragment_id: str
    context: str


@dataclass(frozen=True)
class SimilarNote(_NoteRow):
    document_id: str
    path: str
    title: str
    score: float


@dataclass
class Exploration:
    note: DocumentRecord
    outlinks: list[Outlink]
    backlinks: list[Backlink]
    similar: list[SimilarNote]
    notes: list[str] = field(default_factory=list)

    def to_dict(self, concise: bool = False) -> dict[str, Any]:
        head: dict[str, Any] = {"path": self.note.path, "title": self.note.title}
        if not concise:
            head.update(
                id=self.note.id,
                root=self.note.root,
                aliases=list(self.note.aliases),
                tags=list(self.note.tags),
            )
        return {
            "note": head,
            "outlinks": [o.to_dict(concise) for o in self.outlinks],
            "backlinks": [b.to_dict(concise) for b in self.backlinks],
            "similar": [s.to_dict(concise) for s in self.similar],
            "notes": self.notes,
        }
