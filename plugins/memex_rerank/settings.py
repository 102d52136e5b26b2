"""The ``[ranker.rerank]`` table of config.toml, checked before the ranker is built."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from memex_core.errors import MemexError
from memex_core.settings_table import SettingsTable, is_finite_number
from memex_rrf import DEFAULT_K


class RerankSettingError(MemexError):
    """A ``[ranker.rerank]`` setting in config.toml has a value the ranker cannot use."""


@dataclass(frozen=True)
class RerankSettings:
    k: float = DEFAULT_K
    depth: int = 50
    model: str = ""


_HINTS = {
    "k": f"RRF's damping constant, a non-negative number (default {DEFAULT_K:g})",
    "depth": "how many fused candidates the model re-orders, a whole number from 1 (default 50)",
    "model": "a rerank model file, relative to the home (default: the one memex ships)",
}
_TABLE = SettingsTable("config.toml [ranker.rerank]", RerankSettingError, hints=_HINTS)


def _valid(key: str, value: Any) -> bool:
    if key == "k":
        return is_finite_number(value) and value >= 0
    if key == "depth":
        return isinstance(value, int) and not isinstance(value, bool) and value >= 1
    return isinstance(value, str)


def parse_settings(settings: Mapping[str, Any] | None) -> RerankSettings:
    """Check the table and return the values; raise :class:`RerankSettingError` naming the fix."""
    values = _TABLE.values(_TABLE.checked(settings), _valid, order=_HINTS)
    return RerankSettings(
        k=float(values.get("k", DEFAULT_K)),
        depth=int(values.get("depth", 50)),
        model=str(values.get("model", "")),
    )
