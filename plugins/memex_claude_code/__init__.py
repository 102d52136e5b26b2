"""The ``claude_code`` source: Claude Code session transcripts (``~/.claude/projects``).

Ingest the folder: ``memex ingest ~/.claude/projects`` reads every session
(``<project>/<session>.jsonl``) and sub-agent (``<session>/subagents/agent-*.jsonl``).
Configure in ``config.toml``::

    [source.claude_code]
    include_thinking = false     # index Claude's thinking blocks too
    tool_output_budget = 1500    # characters of each tool output the indexes see

Importing this package is cheap; the reader loads when the source is built.
"""

from __future__ import annotations

from typing import Any

from memex_core.domain import PluginContext
from memex_core.hookspecs import hookimpl


def _build(context: PluginContext) -> Any:
    from memex_claude_code.settings import parse_settings
    from memex_claude_code.source import ClaudeCodeSource

    settings = parse_settings(context.settings)
    return ClaudeCodeSource(
        include_thinking=settings.include_thinking,
        tool_output_budget=settings.tool_output_budget,
    )


@hookimpl
def register_sources(register: Any) -> None:
    register(
        "claude_code",
        _build,
        description="Claude Code transcripts (~/.claude/projects, *.jsonl): sessions and "
        "sub-agents, tool output compacted for the index.",
    )
