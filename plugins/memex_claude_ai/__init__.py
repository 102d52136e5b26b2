"""The ``claude_ai`` source: Claude.ai "Export data" archives and their ``conversations.json``.

Configure in ``config.toml``::

    [source.claude_ai]
    include_thinking = false   # index Claude's thinking blocks too

``max_export_bytes`` (default 2 GiB) and ``max_compression_ratio`` (default 200)
guard against zip bombs; raise them only for an export you trust.

Importing this package is cheap; the reader loads when the source is built.
"""

from __future__ import annotations

from typing import Any

from memex_core.domain import PluginContext
from memex_core.hookspecs import hookimpl


def _build(context: PluginContext) -> Any:
    from memex_claude_ai.source import ClaudeAISource

    return ClaudeAISource.from_settings(context.settings)


@hookimpl
def register_sources(register: Any) -> None:
    register(
        "claude_ai",
        _build,
        description="Claude.ai export (.zip or conversations.json), thinking kept out by default.",
    )
