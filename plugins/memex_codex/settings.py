"""The ``[source.codex]`` table of config.toml, checked.

Example::

    [source.codex]
    tool_output_budget = 1500   # characters of each tool output that are indexed
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from memex_core.domain.compaction import DEFAULT_TOOL_OUTPUT_BUDGET
from memex_core.errors import MemexError
from memex_core.settings_table import SettingsTable, is_whole_number

KNOWN_SETTINGS = ("tool_output_budget",)


class CodexSettingError(MemexError):
    """``[source.codex]`` in config.toml holds a setting memex cannot use."""


@dataclass(frozen=True)
class CodexSettings:
    tool_output_budget: int = DEFAULT_TOOL_OUTPUT_BUDGET


_TABLE = SettingsTable("config.toml [source.codex]", CodexSettingError, known=KNOWN_SETTINGS)


def parse_settings(settings: Mapping[str, Any] | None) -> CodexSettings:
    """Check the table and fill defaults; raises :class:`CodexSettingError` saying the fix."""
    settings = _TABLE.checked(settings)
    budget = settings.get("tool_output_budget", DEFAULT_TOOL_OUTPUT_BUDGET)
    if not is_whole_number(budget) or budget <= 0:
        raise CodexSettingError(
            f"{_TABLE.where} tool_output_budget must be a positive whole number of characters "
            f"(default {DEFAULT_TOOL_OUTPUT_BUDGET}), not {budget!r}."
        )
    return CodexSettings(tool_output_budget=budget)
