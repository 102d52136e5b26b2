"""The ``[consolidator.rules]`` table of config.toml, checked before the consolidator is built.

Example::

    [consolidator]
    use = "rules"
    [consolidator.rules]
    near_duplicate = 0.9   # cosine at or above which a fact that only adds detail is folded
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from memex_core.errors import MemexError


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


def parse_settings(settings: Mapping[str, Any] | None) -> RulesSettings:
    """Check the table and return the values; raise :class:`RulesSettingError` naming the fix."""
    settings = dict(settings or {})
    unknown = sorted(set(settings) - set(_HINTS))
    if unknown:
        raise RulesSettingError(
            f"config.toml [consolidator.rules] has unknown setting(s) {', '.join(unknown)}; "
            f"known settings are: {', '.join(_HINTS)}."
        )
    if "near_duplicate" not in settings:
        return RulesSettings()
    value = settings["near_duplicate"]
    # bool is an int subclass: `near_duplicate = true` is a typo, not 1.
    valid = isinstance(value, int | float) and not isinstance(value, bool)
    if not valid or not math.isfinite(value) or not 0 < value <= 1:
        raise RulesSettingError(
            f"config.toml [consolidator.rules] near_duplicate = {value!r}: use "
            f"{_HINTS['near_duplicate']}, e.g. near_duplicate = 0.9."
        )
    return RulesSettings(near_duplicate=float(value))
