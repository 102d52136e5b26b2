"""How much an export may hold before memex refuses it (the zip-bomb guard's settings)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from memex_core.errors import MemexError

#: The file chat services put their conversations in.
DEFAULT_MEMBER = "conversations.json"

#: Refuse anything bigger than this (uncompressed), unless the source's settings raise it.
MAX_MEMBER_BYTES = 2 * 1024**3

#: A zip member that decompresses to more than this many times its stored size is refused
#: (exports compress about 3-10:1; a deflate bomb reaches 1000:1).
MAX_COMPRESSION_RATIO = 200.0

#: Below this uncompressed size the ratio is not checked: a small member cannot hurt.
RATIO_CHECK_FROM_BYTES = 1024**2


class ExportSettingError(MemexError):
    """An export limit in config.toml (``max_export_bytes``, ``max_compression_ratio``) is wrong."""


@dataclass(frozen=True)
class ExportLimits:
    """How much an export may hold before memex refuses it (the zip-bomb guard).

    ``table`` names the config.toml table the limits come from, so a refusal can
    say which setting to raise.
    """

    max_bytes: int = MAX_MEMBER_BYTES
    max_ratio: float = MAX_COMPRESSION_RATIO
    table: str = ""

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any] | None, table: str) -> ExportLimits:
        """Limits from a source's settings (``max_export_bytes``, ``max_compression_ratio``)."""
        settings = settings or {}
        max_bytes = settings.get("max_export_bytes", MAX_MEMBER_BYTES)
        if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 1:
            raise ExportSettingError(
                f"config.toml [{table}] max_export_bytes must be a positive whole number of "
                f"bytes (default {MAX_MEMBER_BYTES}), not {max_bytes!r}."
            )
        ratio = settings.get("max_compression_ratio", MAX_COMPRESSION_RATIO)
        if isinstance(ratio, bool) or not isinstance(ratio, int | float) or not ratio >= 1:
            raise ExportSettingError(
                f"config.toml [{table}] max_compression_ratio must be a number of at least 1 "
                f"(default {MAX_COMPRESSION_RATIO:g}), not {ratio!r}."
            )
        return cls(max_bytes=max_bytes, max_ratio=float(ratio), table=table)

    def hint(self, setting: str, value: str) -> str:
        where = f"under [{self.table}] " if self.table else ""
        return f"if you trust this file, set {setting} = {value} {where}in config.toml"


DEFAULT_LIMITS = ExportLimits()
