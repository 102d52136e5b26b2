"""The ``[ranker.hubs]`` table of config.toml, checked before the ranker is built.

Example::

    [ranker]
    use = "hubs"
    [ranker.hubs]
    k = 10        # RRF damping, as in [ranker.rrf]
    boost = 0.1   # fused score x (1 + boost * ln(1 + backlinks)); 0 means plain RRF
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from memex_core.errors import MemexError
from memex_rrf import DEFAULT_K


class HubsSettingError(MemexError):
    """A ``[ranker.hubs]`` setting in config.toml has a value the ranker cannot use."""


@dataclass(frozen=True)
class HubsSettings:
    k: float = DEFAULT_K
    boost: float = 0.1


_HINTS = {
    "k": f"RRF's damping constant, a non-negative number (default {DEFAULT_K:g})",
    "boost": "how much backlinks lift a note, a non-negative number (default 0.1; 0 = plain RRF)",
}


def parse_settings(settings: Mapping[str, Any] | None) -> HubsSettings:
    """Check the table and return the values; raise :class:`HubsSettingError` naming the fix."""
    settings = dict(settings or {})
    unknown = sorted(set(settings) - set(_HINTS))
    if unknown:
        raise HubsSettingError(
            f"config.toml [ranker.hubs] has unknown setting(s) {', '.join(unknown)}; "
            f"known settings are: {', '.join(_HINTS)}."
        )
    values: dict[str, float] = {}
    for key, hint in _HINTS.items():
        if key not in settings:
            continue
        value = settings[key]
        # bool is an int subclass: `k = true` is a typo, not 1.
        valid = isinstance(value, int | float) and not isinstance(value, bool)
        if not valid or not math.isfinite(value) or value < 0:
            raise HubsSettingError(f"config.toml [ranker.hubs] {key} = {value!r}: use {hint}.")
        values[key] = float(value)
    return HubsSettings(**values)
