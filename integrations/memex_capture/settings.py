"""The ``[capture]`` table of config.toml: how the capture plane behaves.

Example (every key, with its default)::

    [capture]
    session_start_budget = 2000  # characters of the brief printed at session start
    summarizer = "auto"          # "rules" | "llm" | "auto" (llm when a chat model is set)
    worker_idle_minutes = 10     # the worker exits after this long with nothing to do
    settle_seconds = 1.0         # wait after an event before re-reading its transcript

    [capture.llm]                # optional: the chat model that writes session summaries
    chat_model = "langchain_openai:ChatOpenAI"
    chat_model_args = { model = "gpt-4o-mini", temperature = 0 }

With ``summarizer = "auto"`` the LLM summarizer is used when ``[capture.llm]``
names a chat model, or else when ``[extractor.llm]`` does (the model already
set up for memory extraction); otherwise summaries are built by rules.
``summarizer = "llm"`` without any chat model is an error (named below).

This module is read by the worker, the CLI and the hook's helpers; it imports
only memex's config loader and settings checks (no model or storage library).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memex_core.config import Config, load_config
from memex_core.errors import MemexError
from memex_core.settings_table import (
    SettingsTable,
    is_finite_number,
    is_whole_number,
    not_a_table,
)

#: The config.toml table this module reads.
TABLE = "capture"
SUMMARIZERS = ("auto", "rules", "llm")
_CHAT_SPEC = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*")
_LLM_KEYS = ("chat_model", "chat_model_args", "max_retries")


class CaptureSettingError(MemexError):
    """A ``[capture]`` setting has a value the capture plane cannot use."""


@dataclass(frozen=True)
class CaptureSettings:
    session_start_budget: int = 2000
    summarizer: str = "auto"
    worker_idle_minutes: float = 10.0
    settle_seconds: float = 1.0
    #: The chat model table the LLM summarizer would use (``chat_model``,
    #: ``chat_model_args``, ``max_retries``), or empty when none is configured.
    llm: Mapping[str, Any] = field(default_factory=dict)
    #: Where ``llm`` came from: ``"capture.llm"``, ``"extractor.llm"`` or ``""``.
    llm_table: str = ""

    @property
    def use_llm(self) -> bool:
        """Whether session summaries are written by the chat model."""
        if self.summarizer == "rules":
            return False
        return bool(self.llm)

    @property
    def worker_idle_seconds(self) -> float:
        return self.worker_idle_minutes * 60.0


_HINTS = {
    "session_start_budget": "a whole number of characters, at least 200 (default 2000)",
    "summarizer": '"auto", "rules" or "llm" (default "auto")',
    "worker_idle_minutes": "a number of minutes above 0 (default 10)",
    "settle_seconds": "a number of seconds, 0 or more (default 1.0)",
    "llm": 'a table, e.g. [capture.llm] chat_model = "langchain_openai:ChatOpenAI"',
}


def _where(path: Path | str | None) -> str:
    return f"{path}: [{TABLE}]" if path else f"config.toml [{TABLE}]"


def parse_settings(
    table: Mapping[str, Any] | None,
    *,
    extractor_llm: Mapping[str, Any] | None = None,
    path: Path | str | None = None,
) -> CaptureSettings:
    """Check the ``[capture]`` table and return its values.

    ``extractor_llm`` is the ``[extractor.llm]`` table, the chat model ``auto``
    falls back to. Raises :class:`CaptureSettingError` naming the key and the fix.
    """
    where = _where(path)
    checks = SettingsTable(where, CaptureSettingError, hints=_HINTS)
    table = checks.checked(table)
    values = checks.values(table, _valid, skip=("llm",))
    for key in ("worker_idle_minutes", "settle_seconds"):
        if key in values:
            values[key] = float(values[key])

    llm: dict[str, Any] = {}
    llm_table = ""
    if "llm" in table:
        llm = _check_llm(table["llm"], f"{_where(path)[:-1]}.llm]")
        llm_table = "capture.llm"
    elif isinstance(extractor_llm, Mapping) and extractor_llm.get("chat_model"):
        # Not validated here: [extractor.llm] belongs to memex_llm, which checks it
        # when the model is built (and its errors name that table).
        llm = dict(extractor_llm)
        llm_table = "extractor.llm"
    settings = CaptureSettings(**values, llm=llm, llm_table=llm_table)
    if settings.summarizer == "llm" and not settings.llm:
        raise CaptureSettingError(
            f'{where} summarizer = "llm" but no chat model is configured: add '
            '[capture.llm] chat_model = "package.module:callable" (e.g. '
            '"langchain_openai:ChatOpenAI") or set summarizer = "auto" or "rules".'
        )
    return settings


def load_settings(home: str | Path | None = None) -> CaptureSettings:
    """The ``[capture]`` settings of the home's config.toml (defaults when absent)."""
    return settings_from_config(load_config(home))


def settings_from_config(config: Config) -> CaptureSettings:
    """The ``[capture]`` settings of a loaded config (``Memex.config``)."""
    table = config.raw.get(TABLE, {})
    if not isinstance(table, dict):
        raise CaptureSettingError(
            not_a_table(config.config_path, TABLE, "session_start_budget = 2000")
        )
    extractor = config.raw.get("extractor", {})
    extractor_llm = extractor.get("llm") if isinstance(extractor, dict) else None
    return parse_settings(
        table,
        extractor_llm=extractor_llm if isinstance(extractor_llm, dict) else None,
        path=config.config_path,
    )


def _check_llm(value: Any, where: str) -> dict[str, Any]:
    example = (
        f'[{TABLE}.llm]\nchat_model = "langchain_openai:ChatOpenAI"\n'
        'chat_model_args = { model = "gpt-4o-mini", temperature = 0 }'
    )
    if not isinstance(value, Mapping):
        raise CaptureSettingError(f"{where} must be a table, for example:\n{example}")
    keys = SettingsTable(where, CaptureSettingError, known=_LLM_KEYS, known_label="known are")
    keys.checked(value)
    spec = value.get("chat_model")
    if not isinstance(spec, str) or not _CHAT_SPEC.fullmatch(spec):
        raise CaptureSettingError(
            f"{where} chat_model = {spec!r}: name the chat model as "
            f'"package.module:callable", for example:\n{example}'
        )
    args = value.get("chat_model_args", {})
    if not isinstance(args, Mapping):
        raise CaptureSettingError(
            f"{where} chat_model_args = {args!r}: use a table of keyword arguments, "
            'e.g. { model = "gpt-4o-mini" }.'
        )
    retries = value.get("max_retries", 1)
    if not is_whole_number(retries) or retries < 0:
        raise CaptureSettingError(
            f"{where} max_retries = {retries!r}: use a whole number, 0 or more."
        )
    return {"chat_model": spec, "chat_model_args": dict(args), "max_retries": retries}


def _valid(key: str, value: Any) -> bool:
    if key == "session_start_budget":
        return is_whole_number(value) and value >= 200
    if key == "summarizer":
        return value in SUMMARIZERS
    if key == "worker_idle_minutes":
        return is_finite_number(value) and value > 0
    if key == "settle_seconds":
        return is_finite_number(value) and value >= 0
    return False
