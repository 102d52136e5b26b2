"""Session-level facts of a rollout: its id, working folder, git state and CLI version.

They come from the ``session_meta`` record (line 1). Every fragment carries
them in its metadata, and the session id is the conversation id and the
provenance ``source_id``. A rollout without a usable ``session_meta`` (a
damaged first line) still gets a stable id: the UUID in Codex's file name
(``rollout-<time>-<uuid>.jsonl``), else a digest of the file name.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memex_codex.content import as_dict
from memex_codex.records import RolloutRecord

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.IGNORECASE)


def _text(value: object) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


@dataclass(frozen=True)
class SessionInfo:
    session_id: str
    timestamp: float | None = None
    cwd: str | None = None
    git_branch: str | None = None
    git_commit: str | None = None
    cli_version: str | None = None

    def metadata(self) -> dict[str, Any]:
        """The facts every fragment of the session carries (only those known)."""
        fields = {
            "session_id": self.session_id,
            "cwd": self.cwd,
            "git_branch": self.git_branch,
            "git_commit": self.git_commit,
            "cli_version": self.cli_version,
        }
        return {key: value for key, value in fields.items() if value is not None}


def fallback_session_id(path: Path) -> str:
    """The UUID in a rollout's file name, else a digest of the name."""
    match = _UUID.findall(path.name)
    if match:
        return match[-1].lower()
    return (
        "codex-"
        + hashlib.blake2b(path.name.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()
    )


def session_info(records: list[RolloutRecord], path: Path) -> SessionInfo:
    """Facts from the first ``session_meta`` record (later ones, as in forks, are ignored)."""
    meta = next((r for r in records if r.kind == "session_meta"), None)
    if meta is None:
        return SessionInfo(session_id=fallback_session_id(path))
    payload = meta.payload
    git = as_dict(payload.get("git"))
    session_id = (
        _text(payload.get("id")) or _text(payload.get("session_id")) or fallback_session_id(path)
    )
    return SessionInfo(
        session_id=session_id,
        timestamp=meta.timestamp,
        cwd=_text(payload.get("cwd")),
        git_branch=_text(git.get("branch")),
        git_commit=_text(git.get("commit_hash")),
        cli_version=_text(payload.get("cli_version")),
    )
