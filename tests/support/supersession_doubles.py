"""A small supersession judge for tests, registered through the public hook.

It knows one attribute: where someone lives ("Alice lives in Paris", "Alice moved to
Berlin", "Alice now lives in Berlin", "Alice lived in Rome in 2019"). A year in the text
("in 2019") dates the fact to that year's first day; anything else holds from when it was
said. Facts about other things never close anything, so unrelated facts stay current.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memex_core.api import Memex
from memex_core.config import Config, load_config
from memex_core.domain.memory.validity import Supersession, TimedFact
from memex_core.hookspecs import hookimpl
from memex_core.plugins import load_registry
from tests.support.component_doubles import DoublesPlugin

_LIVES = re.compile(r"^(\w+) (?:now )?(?:lives|lived|moved|has moved) (?:in|to)\b", re.I)
_YEAR = re.compile(r"\bin (\d{4})\b")


def lives_key(text: str) -> str | None:
    found = _LIVES.match(text.strip())
    return f"{found.group(1).lower()}: lives in" if found else None


class LivesInJudge:
    """Closes an earlier "<subject> lives in" fact of the same subject."""

    def __init__(self) -> None:
        self.asked: list[tuple[TimedFact, tuple[TimedFact, ...]]] = []

    def valid_from(self, text: str, said_at: float) -> float:
        year = _YEAR.search(text)
        if year is None:
            return said_at
        return datetime(int(year.group(1)), 1, 1, tzinfo=UTC).timestamp()

    def supersedes(self, new: TimedFact, earlier: Sequence[TimedFact]) -> list[Supersession]:
        self.asked.append((new, tuple(earlier)))
        key = lives_key(new.text)
        if key is None:
            return []
        return [
            Supersession(fact.memory_id or "", key, f"{key} changed")
            for fact in earlier
            if lives_key(fact.text) == key and fact.valid_from <= new.valid_from
        ]


class JudgePlugin:
    def __init__(self, judge: LivesInJudge) -> None:
        self.judge = judge

    @hookimpl
    def register_supersession_judges(self, register: Any) -> None:
        register("test-lives", lambda context: self.judge)


def timed_memex(
    home: Path,
    judge: LivesInJudge | None = None,
    search: dict[str, Any] | None = None,
    **components: str,
) -> Memex:
    """A Memex on ``home`` with the embedding doubles and the lives-in judge; ``search``:
    ``[search]`` settings."""
    registry = load_registry()
    registry.register_plugin(DoublesPlugin(home), name="doubles")
    registry.register_plugin(JudgePlugin(judge or LivesInJudge()), name="judge-double")
    chosen = {
        **load_config(home).components,
        "embedder": "hashing",
        "vector_store": "memory",
        "supersession_judge": "test-lives",
        **components,
    }
    raw = {"search": dict(search)} if search else {}
    return Memex(registry=registry, config=Config(home=home, components=chosen, raw=raw))


def only_id(result: object) -> str:
    """The one memory id a ``remember`` result names (fails when it names none or several)."""
    ids = result.memory_ids  # type: ignore[attr-defined]
    assert len(ids) == 1
    return str(ids[0])


__all__ = ["JudgePlugin", "LivesInJudge", "lives_key", "only_id", "timed_memex"]


def judged_memex(home: Path, judge: str = "rules", floor: float = 0.5) -> Memex:
    """A Memex on ``home`` with the embedding doubles, the registered supersession judge
    named ``judge`` and the relevance floor at cosine ``floor``."""
    registry = load_registry()
    registry.register_plugin(DoublesPlugin(home), name="doubles")
    chosen = {
        **load_config(home).components,
        "embedder": "hashing",
        "vector_store": "memory",
        "supersession_judge": judge,
    }
    raw = {"search": {"min_semantic_similarity": floor}}
    return Memex(registry=registry, config=Config(home=home, components=chosen, raw=raw))


def recalled(mx: Memex, question: str, user: str = "alice", **options: Any) -> list[str]:
    """The texts ``recall`` answers ``question`` with for ``user``, best first."""
    return [h.text for h in mx.recall(question, user=user, **options)]
