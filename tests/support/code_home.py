"""A home holding memory (chats and notes) and a repository's code indexed by ``memex ask``,
where the code matches :data:`QUERY` far better than memory does: what every surface's
"no code unless asked" test searches (issue 32).

Build it once per test module (``scope="module"``): :func:`build_code_home` takes a few
tenths of a second on a keyword-only home.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from memex_core.api import Memex
from tests.support.export_builders import T0, chatgpt_conversation, write_chatgpt_export
from tests.support.git_repos import make_repo

#: What each surface searches: every word is in memory, and many times in the code.
QUERY = "sqlite database locked busy timeout"
#: Memory fragments that match QUERY (2 chats of 2 turns, 2 notes): a search for 3 hits
#: must get 3 of them, never fewer because code took the places before the filter.
MEMORY_MATCHES = 6
KEYWORD_ONLY = '[embedder]\nuse = "none"\n'

_CHATS = [
    chatgpt_conversation(
        "conv-locked",
        "SQLite database locked",
        [
            ("user", "The sqlite database is locked when two writers run at once.", T0),
            ("assistant", "Set a busy timeout so the sqlite database waits when locked.", T0 + 9),
        ],
    ),
    chatgpt_conversation(
        "conv-timeout",
        "Busy timeout",
        [
            ("user", "Which busy timeout suits a sqlite database that is often locked?", T0 + 99),
            ("assistant", "Five seconds of busy timeout; a locked database then waits.", T0 + 999),
        ],
    ),
]
_NOTES = {
    "Locking.md": "# Locking\n\nOur sqlite database was locked; a busy timeout fixed it.\n",
    "Timeouts.md": "# Timeouts\n\nBusy timeout for the sqlite database: locked writers wait.\n",
}
_LINE = "sqlite database locked busy timeout"
_CODE = {
    "store/db.py": "\n\n".join(
        f'def open_{n}(path):\n    """{_LINE}: {_LINE}."""\n    # {_LINE}\n    return "{_LINE}"'
        for n in range(6)
    )
    + "\n",
    "tests/test_db.py": "\n\n".join(
        f'def test_{n}():\n    """{_LINE} {_LINE}"""\n    assert "{_LINE}"' for n in range(4)
    )
    + "\n",
    "docs/locking.md": f"# Locking\n\n{_LINE}. {_LINE}. {_LINE}.\n",
}


@dataclass(frozen=True)
class CodeHome:
    """The home, the repository whose code ``ask`` indexed in it, and its vault."""

    home: Path
    repo: Path
    vault: Path


def build_code_home(
    root: Path, open_home: Callable[[Path], Memex] = Memex, *, vault_in_repo: bool = False
) -> CodeHome:
    """Under ``root``: a keyword-only home (``open_home`` may add an embedder, say
    ``fast_memex``) with two chats and two notes about a locked sqlite database, and a git
    repository (``locked-db``) about the same whose code ``Memex.ask`` indexed (code chunks
    out-number and out-score memory for :data:`QUERY`). With ``vault_in_repo`` the notes'
    vault is an untracked folder of the repository (a project's own notes)."""
    home = root / "home"
    home.mkdir(parents=True)
    (home / "config.toml").write_text(KEYWORD_ONLY, encoding="utf-8")
    export = write_chatgpt_export(root / "inputs" / "conversations.json", _CHATS)
    repo = make_repo(root / "locked-db", dict(_CODE))
    vault = repo / "notes" if vault_in_repo else root / "vault"
    (vault / ".obsidian").mkdir(parents=True)
    for name, text in _NOTES.items():
        (vault / name).write_text(text, encoding="utf-8")
    with open_home(home) as mx:
        mx.ingest(export, vault)
        mx.ask(QUERY, repo=repo, answer=False)
        held = mx.stats().code
    assert held["fragments"] >= 10, held  # the code is there to be left out
    return CodeHome(home, repo.resolve(), vault.resolve())


def source_kinds(hits: Iterable[object]) -> list[str]:
    """The source kind of each hit: a SearchResult, a Fragment, or a dict with
    ``source_kind``/``source`` (a JSON hit)."""
    kinds = []
    for hit in hits:
        fragment = getattr(hit, "fragment", hit)
        kind = getattr(fragment, "source_kind", None)
        if kind is None and isinstance(hit, dict):
            kind = hit.get("source_kind") or hit.get("source")
        kinds.append(str(kind))
    return kinds
