"""A statement read from a sentence, and the fact types its shape suggests."""

from __future__ import annotations

from dataclasses import dataclass

PREFERENCE, DETAIL, PLAN = "preference", "personal_detail", "plan"
ACTIVITY, HEALTH, WORK, MISC = "activity_preference", "health", "professional", "misc"


@dataclass(frozen=True)
class Statement:
    """A fact read from one sentence: its third-person text and the fact type it suggests."""

    text: str
    hint: str
