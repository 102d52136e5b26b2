"""The ``[source.claude_code]`` table of config.toml, checked.

Example::

    [source.claude_code]
    include_thinking = false     # index Claude's thinking blocks too
    tool_output_budget = 1500    # characters of each tool output the indexes see
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from memex_core.domain.compaction import DEFAULT_TOOL_OUTPUT_BUDGET
from memex_core.errors import MemexError
from memex_core.settings_table import SettingsTable, is_whole_number

KNOWN_KEYS = ("include_thinking", "tool_output_budget")


class ClaudeCodeSettingError(MemexError):
    """A ``[source.claude_code]`` setting in config.toml has a value the source cannot use."""


@dataclass(frozen=True)
class ClaudeCodeSettings:
    include_thinking: bool = False
    tool_output_budget: int = DEFAULT_TOOL_OUTPUT_BUDGET


_TABLE = SettingsTable("config.toml [source.claude_code]", ClaudeCodeSettingError, known=KNOWN_KEYS)


def parse_settings(settings: Mapping[str, Any] | None) -> ClaudeCodeSettings:
    """Checked settings; an unknown key or a wrong type says which and what is expected."""
    settings = _TABLE.checked(settings)
    include = settings.get("include_thinking", False)
    if not isinstance(include, bool):
        raise ClaudeCodeSettingError(
            f"{_TABLE.where} include_thinking must be true or false, not {include!r}."
        )
    budget = settings.get("tool_output_budget", DEFAULT_TOOL_OUTPUT_BUDGET)
    if not is_whole_number(budget) or budget < 1:
        raise ClaudeCodeSettingError(
            f"{_TABLE.where} tool_output_budget must be a positive whole number of characters "
            f"(default {DEFAULT_TOOL_OUTPUT_BUDGET}), not {budget!r}."
        )
    return ClaudeCodeSettings(include_thinking=include, tool_output_budget=budget)
