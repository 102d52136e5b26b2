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

KNOWN_SETTINGS = ("tool_output_budget",)


class CodexSettingError(MemexError):
    """``[source.codex]`` in config.toml holds a setting memex cannot use."""


@dataclass(frozen=True)
class CodexSettings:
    tool_output_budget: int = DEFAULT_TOOL_OUTPUT_BUDGET


def parse_settings(settings: Mapping[str, Any] | None) -> CodexSettings:
    """Check the table and fill defaults; raises :class:`CodexSettingError` saying the fix."""
    settings = dict(settings or {})
    unknown = sorted(set(settings) - set(KNOWN_SETTINGS))
    if unknown:
        raise CodexSettingError(
            f"config.toml [source.codex] has unknown setting(s) {', '.join(unknown)}; "
            f"known settings are: {', '.join(KNOWN_SETTINGS)}."
        )
    budget = settings.get("tool_output_budget", DEFAULT_TOOL_OUTPUT_BUDGET)
    if isinstance(budget, bool) or not isinstance(budget, int) or budget <= 0:
        raise CodexSettingError(
            f"config.toml [source.codex] tool_output_budget must be a positive whole number "
            f"of characters (default {DEFAULT_TOOL_OUTPUT_BUDGET}), not {budget!r}."
        )
    return CodexSettings(tool_output_budget=budget)
