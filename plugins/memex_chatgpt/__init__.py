"""The ``chatgpt`` source: ChatGPT "Export data" archives and their ``conversations.json``.

Configure in ``config.toml``::

    [source.chatgpt]
    include_thinking = false   # index the model's reasoning messages too

``max_export_bytes`` (default 2 GiB) and ``max_compression_ratio`` (default 200)
guard against zip bombs; raise them only for an export you trust.

Importing this package is cheap; the reader loads when the source is built.
"""

from __future__ import annotations

from typing import Any

from memex_core.domain import PluginContext
from memex_core.hookspecs import hookimpl


def _build(context: PluginContext) -> Any:
    from memex_chatgpt.source import ChatGPTSource

    return ChatGPTSource.from_settings(context.settings)


@hookimpl
def register_sources(register: Any) -> None:
    register(
        "chatgpt",
        _build,
        description="ChatGPT export (.zip or conversations.json): active branch of each chat.",
    )
