"""Where memex keeps its data and which components it uses.

``MEMEX_HOME`` (default ``~/.memex``) holds ``catalog.sqlite`` (the record of
truth), ``index/`` (derived indexes that ``memex rebuild`` can recreate) and an
optional ``config.toml``. Each role has a table whose ``use`` key picks the
registered component (defaults shown) and whose sub-tables hold each
component's own settings::

    [catalog]                  # the record of truth: one file in the home, or a server
    use = "sqlite"             # "postgres": [catalog.postgres] url, or MEMEX_CATALOG_URL

    [keyword]
    use = "bm25"
    [keyword.bm25]
    stemmer = "english"

    [vector]
    use = "chroma"
    [embedder]
    use = "minilm"
    [ranker]
    use = "rerank"             # RRF, then a learned rerank of the best 50 (falls back to
                               # "rrf" when its plugin is not loaded); "rrf" turns it off;
                               # or "convex": scores over each signal's best, not ranks
    [ranker.rerank]
    k = 10                     # RRF damping ([ranker.rrf] k for "rrf")

    [search]
    candidate_depth = 40       # hits each signal hands to the ranker (at least limit)
    semantic_weight = 0.4      # share of the semantic signal in hybrid search
    newer_first = true         # memory: of two current facts about one thing, the later first
    newer_first_change = true  # memory: a later fact worded as a change ("now") joins looser
    newer_first_standing = true  # memory: so does any later fact when the question asks how
                               # things stand now ("yet", "so far", "how many", "now")
    newer_first_typed = false  # memory: so do two facts both carrying the kind of answer asked
                               # (a number for "how many", a time for "when"); off: it cost
                               # unrelated pairs on benchmark 21 (docs/concepts/memory.md)
    newer_first_series = true  # memory: so does a later fact carrying a new point of a series
                               # of numbers an earlier one told ("84.9 this morning")
    newer_first_asked = true   # memory: so does a later fact holding a word of the question
                               # the earlier one lacks ("they made Sam permanent!!")
    newer_first_slot = true    # memory: so do two facts the question's slot reading both picked
                               # ("we use Slack", "company moved everyone to Microsoft Teams")
    floor_kin = true           # memory: keep a fact under the floor beside a kept one like it
    floor_kin_change = true    # memory: ... at a looser cosine when worded as a change
    floor_near = true          # memory: keep a fact near the floor beside a kept one of its owner
    floor_chain = true         # memory: keep a fact under the floor beside a kept one of its chain
    floor_series = true        # memory: ... or of its series of numbers ("53,900 on the clock")
    chain_successor = true     # memory: a closed fact found hands its place to the current one
                               # that closed it ("therapy with Julia" -> "Julia left, Mark now")

    [index]                    # what the indexes see of a conversation turn
    keyword_context_turns = 2  # earlier turns indexed with each turn (0: the turn alone)
    vector_context_turns = 0   # the same for the vectors
    context_chars = 300        # the end of each earlier turn that is kept

    [source.claude_ai]         # a source's own settings
    include_thinking = false

    [sync]                     # what `memex sync` re-reads (only changes are ingested)
    paths = ["~/notes", "~/.claude/projects", "~/.codex/sessions"]

    [context]                  # how `memex context` spends its budget
    seed_share = 0.7           # share for search hits; links next, recent material last
    item_chars = 600           # longest single item (longer ones are cut around the match)
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memex_core.errors import MemexError
from memex_core.settings_table import not_a_table

DEFAULT_COMPONENTS = {
    "catalog": "sqlite",
    "keyword_store": "bm25",
    "vector_store": "chroma",
    "embedder": "minilm",
    "ranker": "rerank",
    "extractor": "rules",
    "consolidator": "rules",
    "redactor": "detect_secrets",
    "supersession_judge": "rules",
}

#: What hybrid search ranks with when the default ranker's plugin is not loaded and
#: config.toml does not name a ranker (``[ranker] use``): the default before ``rerank``.
FALLBACK_RANKER = "rrf"

#: config.toml table of each role: ``use`` picks the component, sub-tables hold settings.
SETTINGS_TABLES = {
    "catalog": "catalog",
    "keyword_store": "keyword",
    "vector_store": "vector",
    "embedder": "embedder",
    "ranker": "ranker",
    "extractor": "extractor",
    "consolidator": "consolidator",
    "redactor": "redactor",
    "supersession_judge": "supersession",
}


#: A ``postgresql://`` URL here selects the postgres catalog when ``[catalog] use`` is not
#: set, and is its server whatever config.toml says (see memex_postgres.settings).
CATALOG_URL_ENV = "MEMEX_CATALOG_URL"


def default_home() -> Path:
    return Path(os.environ.get("MEMEX_HOME") or Path.home() / ".memex").expanduser()


@dataclass(frozen=True)
class Config:
    home: Path
    components: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_COMPONENTS))
    raw: Mapping[str, Any] = field(default_factory=dict)

    @property
    def catalog_path(self) -> Path:
        return self.home / "catalog.sqlite"

    def component(self, role: str) -> str:
        if role not in self.components and role in DEFAULT_COMPONENTS:
            return DEFAULT_COMPONENTS[role]  # a Config built in code names only some roles
        return self.components[role]

    def component_settings(self, role: str) -> Mapping[str, Any]:
        table = self.raw.get(SETTINGS_TABLES[role], {})
        value = table.get(self.component(role), {}) if isinstance(table, dict) else {}
        return value if isinstance(value, dict) else {}

    def source_settings(self, name: str) -> Mapping[str, Any]:
        table = self.raw.get("source", {})
        value = table.get(name, {}) if isinstance(table, dict) else {}
        return value if isinstance(value, dict) else {}

    def search_setting(self, name: str, default: Any) -> Any:
        table = self.raw.get("search", {})
        return table.get(name, default) if isinstance(table, dict) else default

    def table(self, name: str) -> Mapping[str, Any]:
        value = self.raw.get(name, {})
        return value if isinstance(value, dict) else {}

    @property
    def config_path(self) -> Path:
        return self.home / "config.toml"

    def sync_paths(self) -> list[Path]:
        """The folders and files ``memex sync`` re-reads, from ``[sync] paths``."""
        paths = self.table("sync").get("paths", [])
        if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
            raise MemexError(
                f"{self.config_path}: [sync] paths must be a list of strings, e.g. "
                'paths = ["~/notes", "~/.claude/projects"]'
            )
        return [Path(os.path.expandvars(p)).expanduser() for p in paths]


def load_config(home: str | Path | None = None) -> Config:
    """Read ``config.toml`` under the home folder; a missing file means defaults."""
    root = Path(home).expanduser() if home is not None else default_home()
    path = root / "config.toml"
    raw: dict[str, Any] = {}
    if path.exists():
        try:
            raw = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise MemexError(f"{path}: invalid TOML ({exc}). Fix the file or remove it.") from exc
    components = dict(DEFAULT_COMPONENTS)
    for role, table_name in SETTINGS_TABLES.items():
        table = raw.get(table_name, {})
        if not isinstance(table, dict):
            raise MemexError(not_a_table(path, table_name, f'use = "{DEFAULT_COMPONENTS[role]}"'))
        value = table.get("use")
        if value is not None:
            if not isinstance(value, str):
                raise MemexError(f"{path}: [{table_name}] use must be a component name.")
            components[role] = value
    if raw.get("catalog", {}).get("use") is None and _postgres_url(os.environ.get(CATALOG_URL_ENV)):
        components["catalog"] = "postgres"
    return Config(home=root, components=components, raw=raw)


def _postgres_url(value: str | None) -> bool:
    return (value or "").strip().startswith(("postgresql://", "postgres://"))
