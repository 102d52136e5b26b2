"""The ``obsidian`` source: Obsidian vaults (folders of linked Markdown notes), synced as a whole.

``memex ingest VAULT`` hands the folder to this source (see
:meth:`memex_obsidian.source.ObsidianSource.can_handle_folder` for what counts
as a vault). Each note becomes one fragment per heading section; wikilinks,
embeds and Markdown links between notes are recorded and resolved by memex.

Configure in ``config.toml``::

    [source.obsidian]
    max_chars = 2000   # longer sections are split into linked chunks

Importing this package is cheap; the reader loads when the source is built.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memex_core.domain import PluginContext
from memex_core.hookspecs import hookimpl

__all__ = ["document_id", "register_sources"]


def document_id(vault: Path, rel_path: str) -> str:
    """The stable id of the note at ``rel_path`` in ``vault``.

    ``"obsidian-"`` and a blake2b digest of the resolved vault path and ``rel_path``;
    see :func:`memex_obsidian.note.document_id`.
    """
    from memex_obsidian.note import document_id as _document_id

    return _document_id(vault, rel_path)


def _build(context: PluginContext) -> Any:
    from memex_core.domain.chunking import DEFAULT_MAX_CHARS
    from memex_obsidian.source import ObsidianSource

    return ObsidianSource(max_chars=int(context.settings.get("max_chars", DEFAULT_MAX_CHARS)))


@hookimpl
def register_sources(register: Any) -> None:
    register(
        "obsidian",
        _build,
        description="Obsidian vault (a folder of .md notes): sections, tags, wikilinks and embeds.",
    )
