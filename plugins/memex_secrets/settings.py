"""The ``[redactor.detect_secrets]`` table of config.toml, checked before the redactor is built.

Example::

    [redactor]
    use = "detect_secrets"
    [redactor.detect_secrets]
    entropy = true          # redact random-looking base64 strings (false: only known formats)
    entropy_limit = 4.5     # Shannon entropy (bits/char) above which a string is a secret
    min_entropy_length = 20 # shorter unquoted strings are never checked for entropy
    disable = []            # detect-secrets plugins to skip, e.g. ["KeywordDetector"]
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from memex_core.errors import MemexError
from memex_core.settings_table import SettingsTable, is_finite_number, is_whole_number


class SecretsSettingError(MemexError):
    """A ``[redactor.detect_secrets]`` setting has a value the redactor cannot use."""


@dataclass(frozen=True)
class SecretsSettings:
    entropy: bool = True
    entropy_limit: float = 4.5
    min_entropy_length: int = 20
    disable: tuple[str, ...] = ()


_HINTS = {
    "entropy": "true or false: whether random-looking strings are redacted (default true)",
    "entropy_limit": "a number between 3 and 6 bits per character (default 4.5)",
    "min_entropy_length": "a whole number of characters, at least 8 (default 20)",
    "disable": 'a list of detect-secrets plugin names, e.g. ["KeywordDetector"] (default [])',
}
_TABLE = SettingsTable("config.toml [redactor.detect_secrets]", SecretsSettingError, hints=_HINTS)


def parse_settings(settings: Mapping[str, Any] | None) -> SecretsSettings:
    """Check the table and return the values; raise :class:`SecretsSettingError` naming the fix."""
    values = _TABLE.values(_TABLE.checked(settings), _valid)
    if "disable" in values:
        values["disable"] = tuple(values["disable"])
    if "entropy_limit" in values:
        values["entropy_limit"] = float(values["entropy_limit"])
    return SecretsSettings(**values)


def _valid(key: str, value: Any) -> bool:
    if key == "entropy":
        return isinstance(value, bool)
    if key == "entropy_limit":
        return is_finite_number(value) and 3 <= value <= 6
    if key == "min_entropy_length":
        return is_whole_number(value) and value >= 8
    return isinstance(value, list | tuple) and all(isinstance(v, str) for v in value)
