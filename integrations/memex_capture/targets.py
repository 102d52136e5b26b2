"""What a batch asks for: the transcripts its records point to, one :class:`Target` each.

Claude Code records name ``transcript_path``; Codex notify records name only the
thread id, whose rollout (``$CODEX_HOME/sessions/**/rollout-*-<id>.jsonl``) is looked
up and cached by :class:`RolloutFinder`.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Events after which a session's summary and its project's briefs are refreshed.
FINAL_EVENTS = frozenset({"Stop", "SessionEnd", "agent-turn-complete"})
#: The event of a transcript re-read because it grew after its last event.
CATCH_UP = "catch-up"
CODEX_HOME_ENV = "CODEX_HOME"


@dataclass
class Target:
    """One transcript a batch touched, with the records that point to it."""

    key: str
    agent: str
    session_id: str | None
    path: Path | None
    records: list[dict[str, Any]] = field(default_factory=list)
    #: The transcript's stat taken just before it was ingested (what was read covers it).
    read_stat: os.stat_result | None = None

    @property
    def last_at(self) -> float:
        return max((number(r.get("at")) for r in self.records), default=0.0)

    @property
    def events(self) -> list[str]:
        return [str(r.get("event")) for r in self.records]

    @property
    def cwd(self) -> str | None:
        for record in reversed(self.records):
            if isinstance(record.get("cwd"), str) and record["cwd"]:
                return str(record["cwd"])
        return None


def number(value: Any) -> float:
    """``value`` if it is a number (a bool is not), else 0.0: records come from hooks."""
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


class RolloutFinder:
    """Finds a Codex rollout by thread id, remembering what it found."""

    def __init__(self) -> None:
        self._found: dict[tuple[str, str], str] = {}

    def find(self, thread_id: str, codex_home: str | None = None) -> str | None:
        root = os.path.expanduser(
            codex_home or os.environ.get(CODEX_HOME_ENV) or os.path.join("~", ".codex")
        )
        key = (root, thread_id)
        known = self._found.get(key)
        if known is not None and os.path.exists(known):
            return known
        if not thread_id or any(ch in thread_id for ch in "/*?[]"):
            return None
        sessions = os.path.join(root, "sessions")
        name = f"rollout-*-{thread_id}.jsonl"
        # Codex files rollouts by date (sessions/YYYY/MM/DD); look there first, then anywhere.
        hits = glob.glob(os.path.join(sessions, "*", "*", "*", name)) or glob.glob(
            os.path.join(sessions, "**", name), recursive=True
        )
        if not hits:
            return None
        found = max(hits, key=lambda p: (os.path.getmtime(p), p))
        self._found[key] = found
        return found


def subagent_files(transcript: Path) -> list[Path]:
    """A Claude Code session's sub-agent transcripts (``<session>/subagents/agent-*.jsonl``)."""
    folder = transcript.with_suffix("") / "subagents"
    return sorted(folder.glob("agent-*.jsonl")) if folder.is_dir() else []


def group_targets(
    records: Iterable[dict[str, Any]], rollouts: RolloutFinder
) -> tuple[list[Target], list[dict[str, Any]]]:
    """The transcripts ``records`` point to, each with its records, and the records that
    name no transcript (and need none: not a session's final or start event)."""
    targets: dict[str, Target] = {}
    unmatched: list[dict[str, Any]] = []
    for record in records:
        agent = str(record.get("agent"))
        session = record.get("session_id")
        session = str(session) if session else None
        path = record.get("transcript_path")
        detail = record.get("detail") or {}
        if not (isinstance(path, str) and path) and agent == "codex" and session:
            codex_home = detail.get("codex_home")
            path = rollouts.find(session, codex_home if isinstance(codex_home, str) else None)
            if path is None:
                # Not written yet, or CODEX_HOME differs: keep the record under a
                # key that retries the lookup next time.
                key = f"codex:{session}"
                targets.setdefault(key, Target(key, agent, session, None)).records.append(record)
                continue
        if not (isinstance(path, str) and path):
            if session and record.get("event") in FINAL_EVENTS | {"SessionStart"}:
                key = f"session:{agent}:{session}"
                targets.setdefault(key, Target(key, agent, session, None)).records.append(record)
            else:
                unmatched.append(record)
            continue
        full = Path(os.path.abspath(os.path.expanduser(path)))
        key = str(full)
        targets.setdefault(key, Target(key, agent, session, full)).records.append(record)
    return list(targets.values()), unmatched
