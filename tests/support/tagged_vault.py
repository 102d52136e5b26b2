"""An Obsidian-like vault whose few tagged notes rank below many untagged ones, and a home
built from it: what the tag filter's tests (tests/core/test_tag_filter.py and
tests/integrations/test_tag_filter_surfaces.py) search, one home per module.

Every note says "sqlite locking"; the untagged ones say it far more often, so a search
without a tag filter ranks them first, and a filter applied after top-k would find none of
the tagged notes. The tags cover the cases a nested, case-insensitive filter must tell apart.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from memex_core.api import Memex
from memex_core.config import Config, load_config
from memex_core.domain import Fragment
from memex_core.plugins import load_registry
from tests.support.component_doubles import DoublesPlugin

#: Untagged notes that outrank every tagged one for QUERY.
UNTAGGED = 40
QUERY = "sqlite locking"

#: Tagged notes: path -> (frontmatter tags, body). Tag "project" covers the first two only.
TAGGED = {
    "Memex plan.md": ("[project/memex, planning]", "One line on sqlite locking, in passing."),
    "Garden.md": ("", "Weeding, and once sqlite locking. #Project"),
    "Many projects.md": ("", "A list; sqlite locking came up. #projects"),
    "Elsewhere.md": ("", "Someone else's sqlite locking. #other/project"),
}
#: What each filter finds (paths), as Obsidian's tag pane would.
EXPECTED = {
    ("project",): {"Memex plan.md", "Garden.md"},
    ("project/memex",): {"Memex plan.md"},
    ("PROJECT",): {"Memex plan.md", "Garden.md"},
    ("#planning",): {"Memex plan.md"},
    ("projects", "other"): {"Many projects.md", "Elsewhere.md"},
}


def write_tagged_vault(vault: Path) -> Path:
    """The vault at ``vault``: the tagged notes and :data:`UNTAGGED` untagged ones."""
    (vault / ".obsidian").mkdir(parents=True, exist_ok=True)
    for name, (tags, body) in TAGGED.items():
        front = f"---\ntags: {tags}\n---\n" if tags else ""
        (vault / name).write_text(f"{front}# {name[:-3]}\n{body}\n", encoding="utf-8")
    for i in range(UNTAGGED):
        text = f"# Untagged {i}\nsqlite locking, sqlite locking: sqlite locking again.\n"
        (vault / f"Untagged {i:02}.md").write_text(text, encoding="utf-8")
    return vault


def tagged_home(
    root: Path, vector_store: str = "chroma", raw: dict[str, Any] | None = None
) -> Memex:
    """A home at ``root / "home"`` holding the vault (written at ``root / "vault"``): the real
    keyword store, ``vector_store`` (the real chroma by default; ``raw`` is its config) and
    the hashing embedder, so both stores apply the filter and nothing loads a model."""
    registry = load_registry()
    home = root / "home"
    registry.register_plugin(DoublesPlugin(home), name="doubles")
    components = {**load_config(home).components, "embedder": "hashing"}
    components["vector_store"] = vector_store
    memex = Memex(registry=registry, config=Config(home=home, components=components, raw=raw or {}))
    report = memex.ingest(write_tagged_vault(root / "vault"))
    assert not report.failed, report
    return memex


def note_paths(fragments: Iterable[Fragment]) -> set[str]:
    """The vault paths of ``fragments``' notes."""
    return {fragment.provenance.source_id for fragment in fragments}
