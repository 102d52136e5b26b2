"""What a drain did, counted (``memex capture drain --format json`` prints it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class DrainReport:
    """What a drain did (``memex capture drain --format json`` prints it)."""

    batches: int = 0
    records: int = 0
    transcripts: int = 0
    fragments_added: int = 0
    fragments_removed: int = 0
    embedded: int = 0
    rejected_lines: int = 0
    moved_aside: int = 0
    summaries: int = 0
    briefs: int = 0
    waiting: int = 0
    #: Transcripts re-read because they grew after their last event (see the docstring).
    caught_up: int = 0
    errors: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "caught_up": self.caught_up,
            "batches": self.batches,
            "records": self.records,
            "transcripts": self.transcripts,
            "fragments_added": self.fragments_added,
            "fragments_removed": self.fragments_removed,
            "embedded": self.embedded,
            "rejected_lines": self.rejected_lines,
            "moved_aside": self.moved_aside,
            "summaries": self.summaries,
            "briefs": self.briefs,
            "waiting": self.waiting,
            "errors": list(self.errors),
        }
