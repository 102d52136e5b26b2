"""The session-start brief of a project whose code ``memex ask`` indexed holds the project's
notes and sessions, never its code (issue 32 item 1): the code files are not counted as the
project's notes, and the brief's search hits are memory."""

from __future__ import annotations

from pathlib import Path

from memex_capture.briefing import build_brief
from memex_core.api import Memex
from tests.support.code_home import build_code_home


def test_brief_of_a_project_with_indexed_code_has_its_notes_not_its_code(tmp_path: Path) -> None:
    built = build_code_home(tmp_path, vault_in_repo=True)
    with Memex(built.home) as mx:
        brief = build_brief(mx, str(built.repo))
        assert brief.notes == 2  # the vault's notes, not the repository's three code files
        ids = [item.id for item in brief.items]
        assert ids and {f.source_kind for f in mx.get(ids)} == {"obsidian"}
        assert "store/db.py" not in brief.render()


def test_a_project_with_only_code_has_no_brief(tmp_path: Path) -> None:
    built = build_code_home(tmp_path)  # the notes live outside the repository
    with Memex(built.home) as mx:
        brief = build_brief(mx, str(built.repo))
        assert (brief.sessions, brief.notes, brief.is_empty) == (0, 0, True)
