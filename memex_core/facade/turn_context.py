"""What the indexes see of each fragment's turn (the ``[index]`` table): the turn context
configured, the one the indexes were built with, and what differs between the two."""

from __future__ import annotations

from memex_core.catalog import SqlCatalog
from memex_core.config import Config
from memex_core.domain.turn_context import (
    IndexContext,
    TurnContextSettingError,
    parse_index_table,
)
from memex_core.errors import MemexError
from memex_core.services.index_text import IndexTexts, pending_changes, recorded_context


def index_context(config: Config) -> IndexContext:
    """The ``[index]`` table of config.toml: the turn context each index should have."""
    try:
        return parse_index_table(config.table("index"))
    except TurnContextSettingError as exc:
        raise MemexError(str(exc)) from exc


def indexed_context(catalog: SqlCatalog, config: Config) -> IndexContext:
    """The turn context the indexes of this home were built with (new fragments get the
    same until ``memex rebuild``)."""
    return recorded_context(catalog, index_context(config))


def index_setting_notes(catalog: SqlCatalog, config: Config, mode: str = "hybrid") -> list[str]:
    """Sentences saying which index was built with another turn context than configured
    (and which rebuild applies it); empty when they agree."""
    changes = pending_changes(indexed_context(catalog, config), index_context(config))
    skip = {"keyword": "vectors", "semantic": "keyword"}.get(mode)
    return [sentence for index, sentence in changes if index != skip]


def index_texts(
    catalog: SqlCatalog, config: Config, context: IndexContext | None = None
) -> IndexTexts:
    """Turn context as recorded for this home (read at each use: another process may
    rebuild), or ``context`` fixed (a rebuild applying the configured one)."""
    fixed = context
    if fixed is not None:
        return IndexTexts(catalog, lambda: fixed)
    return IndexTexts(catalog, lambda: indexed_context(catalog, config))
