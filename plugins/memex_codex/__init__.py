"""The ``codex`` source: Codex CLI session rollouts (``~/.codex/sessions/**/rollout-*.jsonl``).

Configure in ``config.toml``::

    [source.codex]
    tool_output_budget = 1500   # characters of each tool output that are indexed

Importing this package is cheap; the reader loads when the source is built.
"""

from __future__ import annotations

from typing import Any

from memex_core.domain import PluginContext
from memex_core.hookspecs import hookimpl


def _build(context: PluginContext) -> Any:
    from memex_codex.settings import parse_settings
    from memex_codex.source import CodexSource

    settings = parse_settings(context.settings)
    return CodexSource(tool_output_budget=settings.tool_output_budget)


@hookimpl
def register_sources(register: Any) -> None:
    register(
        "codex",
        _build,
        description=(
            "Codex CLI rollouts (~/.codex/sessions/**/rollout-*.jsonl): prompts, answers, "
            "reasoning summaries, tool calls and compacted tool output."
        ),
    )
