"""The ``[ranker.hubs]`` table of config.toml, checked before the ranker is built.

Example::

    [ranker]
    use = "hubs"
    [ranker.hubs]
    k = 10        # RRF damping, as in [ranker.rrf]
    boost = 0.1   # fused score x (1 + boost * ln(1 + backlinks)); 0 means plain RRF
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from memex_core.errors import MemexError
from memex_core.settings_table import SettingsTable, is_finite_number
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
_TABLE = SettingsTable("config.toml [ranker.hubs]", HubsSettingError, hints=_HINTS)


def parse_settings(settings: Mapping[str, Any] | None) -> HubsSettings:
    """Check the table and return the values; raise :class:`HubsSettingError` naming the fix."""
    settings = _TABLE.checked(settings)
    values = _TABLE.values(
        settings, lambda _key, value: is_finite_number(value) and value >= 0, order=_HINTS
    )
    return HubsSettings(**{key: float(value) for key, value in values.items()})
