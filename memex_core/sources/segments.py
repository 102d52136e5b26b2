"""A piece of a conversation on its way to a fragment, as a source renders it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Segment:
    """One fragment-to-be (for :func:`~memex_core.domain.chunking.message_fragments`): its
    role, text and extra metadata. Sources subclass it for what they decide per segment."""

    role: str
    text: str
    metadata: dict[str, Any] = field(default_factory=dict)
