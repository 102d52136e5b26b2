"""The ``[consolidator.rules]`` table of config.toml, checked before the consolidator is built.

Example::

    [consolidator]
    use = "rules"
    [consolidator.rules]
    near_duplicate = 0.9   # cosine at or above which a fact that only adds detail is folded
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from memex_core.errors import MemexError
from memex_core.settings_table import SettingsTable, is_finite_number


class RulesSettingError(MemexError):
    """A ``[consolidator.rules]`` setting in config.toml has a value the consolidator cannot use."""


@dataclass(frozen=True)
class RulesSettings:
    near_duplicate: float = 0.9


_HINTS = {
    "near_duplicate": (
        "the embedding cosine at or above which a new fact that only adds to (or only leaves "
        "out of) a memory's content words is folded into it, a number above 0 and at most 1 "
        "(default 0.9); rewordings fold and facts with a changed word stay apart at any cosine"
    ),
}
_TABLE = SettingsTable("config.toml [consolidator.rules]", RulesSettingError, hints=_HINTS)


def parse_settings(settings: Mapping[str, Any] | None) -> RulesSettings:
    """Check the table and return the values; raise :class:`RulesSettingError` naming the fix."""
    settings = _TABLE.checked(settings)
    if "near_duplicate" not in settings:
        return RulesSettings()
    value = settings["near_duplicate"]
    if not is_finite_number(value) or not 0 < value <= 1:
        hint = f"{_HINTS['near_duplicate']}, e.g. near_duplicate = 0.9"
        raise _TABLE.invalid("near_duplicate", value, hint)
    return RulesSettings(near_duplicate=float(value))
