"""Search hits and fact vectors for testing recall's newer-first ordering without a home
(:func:`memex_core.services.newer_first.newer_first`), shared by its tests."""

from __future__ import annotations

from dataclasses import dataclass
from math import acos, cos, sin
from types import SimpleNamespace
from typing import Any

import pytest

from memex_core.domain import SEMANTIC
from memex_core.domain.memory.change_words import announces_change
from memex_core.services.newer_first import CHANGE_SIMILARITY, MUTUAL_SIMILARITY, newer_first
from memex_core.services.slot_signal import SLOT

DAY = 86400.0
T0 = 1_700_000_000.0  # 2023-11-14
#: When the earlier fact ("old") and the later one ("new") were said: a month apart.
TIMES = {"old": T0, "new": T0 + 30 * DAY}
#: Between the two similarities: a plain later fact is not about the same thing, one worded
#: as a change is.
BETWEEN = (CHANGE_SIMILARITY + MUTUAL_SIMILARITY) / 2


@dataclass(frozen=True)
class Hit:
    """The fields of a search result newer_first reads (and replaces the score of)."""

    fragment: Any
    score: float
    scores: dict[str, float | None]
    ranks: dict[str, int | None]


def change_hit(memory_id: str, text: str, similarity: float, slot: int | None = None) -> Any:
    """A hit on memory ``memory_id`` (fragment ``f-<id>``) of user ``u``, saying ``text``,
    at ``similarity`` to the question, ranked ``slot`` by the slot reading (or not at all)."""
    fragment = SimpleNamespace(
        id="f-" + memory_id, conversation_id=memory_id, owner="users/u", content=text
    )
    return Hit(fragment, similarity, {SEMANTIC: similarity}, {SLOT: slot})


def two_vectors(similarity: float) -> Any:
    """The vectors of facts "old" and "new": two unit vectors at cosine ``similarity``."""
    angle = acos(similarity)
    table = {"f-old": [1.0, 0.0], "f-new": [cos(angle), sin(angle)]}
    return lambda ids: {i: table[i] for i in ids if i in table}


def newer_order(hits: list[Any], similarity: float, changed: bool = True) -> list[str]:
    """The memory ids of ``hits`` as newer-first orders them, the two facts at
    ``similarity``, with the change test on or off."""
    found = newer_first(
        hits, TIMES, two_vectors(similarity), changed=announces_change if changed else None
    )
    return [h.fragment.conversation_id for h in found]


def changed_handed(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The change test recall hands newer-first, one per call (newer-first still runs)."""
    import memex_core.facade.reading as reading

    handed: list[object] = []

    def spy(*args: Any, **options: Any) -> Any:
        handed.append(options.get("changed"))
        return newer_first(*args, **options)

    monkeypatch.setattr(reading, "newer_first", spy)
    return handed
