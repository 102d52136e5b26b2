"""A memex plugin for plain-text journals (``*.journal`` files).

memex finds this module through the ``memex`` entry-point group in
``pyproject.toml`` and calls the ``@hookimpl`` functions below. Importing it
must stay cheap, because ``memex --help`` imports every plugin: the reader is
imported only when memex builds the source, and the command imports what it
needs when it runs.

Configure it in ``$MEMEX_HOME/config.toml``::

    [source.journal]
    max_chars = 2000   # longer entries are split into linked chunks
"""

from __future__ import annotations

from typing import Any

import click
from memex_core import hookimpl
from memex_core.domain import PluginContext


def _build(context: PluginContext) -> Any:
    # Called lazily, once per `memex ingest`, with this source's config table.
    from memex_journal.source import JournalSource

    return JournalSource(max_chars=int(context.settings.get("max_chars", 2000)))


@hookimpl
def register_sources(register: Any) -> None:
    register(
        "journal",
        _build,
        description="Plain-text journal (*.journal): entries headed [YYYY-MM-DD HH:MM] Title.",
    )


@hookimpl
def register_commands(cli: click.Group) -> None:
    @cli.command(name="journal-check")
    @click.argument("path", type=click.Path(exists=True, dir_okay=False))
    def journal_check(path: str) -> None:
        """Show the entries memex would read from a journal file, without ingesting it."""
        from memex_journal.check import check

        click.echo(check(path))
