"""The ``[extractor.llm]`` and ``[consolidator.llm]`` tables: which chat model to build.

Example::

    [extractor]
    use = "llm"

    [extractor.llm]
    chat_model = "langchain_openai:ChatOpenAI"            # "package.module:callable"
    chat_model_args = { model = "gpt-4o-mini", temperature = 0 }
    max_retries = 1                                      # retries after an invalid reply

``chat_model`` names any callable returning a langchain-core chat model (a
class such as ``ChatOpenAI`` or ``ChatOllama``, or a function of your own);
it is called with ``chat_model_args`` as keyword arguments. Keep API keys in
the provider's environment variables rather than in config.toml.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from memex_core.settings_table import is_whole_number, unknown_settings
from memex_llm.errors import LLMSettingError

_SPEC = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*")
_KNOWN = ("chat_model", "chat_model_args", "max_retries")


@dataclass(frozen=True)
class LLMSettings:
    chat_model: str
    chat_model_args: Mapping[str, Any] = field(default_factory=dict)
    max_retries: int = 1


def example(role: str) -> str:
    """The config.toml snippet that sets up the ``llm`` component for ``role``."""
    return (
        f"[{role}]\n"
        'use = "llm"\n\n'
        f"[{role}.llm]\n"
        'chat_model = "langchain_openai:ChatOpenAI"\n'
        'chat_model_args = { model = "gpt-4o-mini", temperature = 0 }'
    )


def _fail(role: str, problem: str) -> LLMSettingError:
    return LLMSettingError(
        f"config.toml [{role}.llm]: {problem}\nFor example:\n\n{example(role)}\n\n"
        "chat_model is any importable callable returning a langchain-core chat model."
    )


def parse_settings(settings: Mapping[str, Any] | None, *, role: str) -> LLMSettings:
    """Check the ``[<role>.llm]`` table (``role`` is ``extractor`` or ``consolidator``)."""
    settings = dict(settings or {})
    unknown = unknown_settings(settings, _KNOWN, known_label="known are")
    if unknown:
        raise _fail(role, unknown)
    spec = settings.get("chat_model")
    if spec is None:
        raise _fail(role, "chat_model is not set: say which chat model to use.")
    if not isinstance(spec, str) or not _SPEC.fullmatch(spec):
        raise _fail(role, f'chat_model = {spec!r} is not of the form "package.module:callable".')
    args = settings.get("chat_model_args", {})
    if not isinstance(args, Mapping):
        raise _fail(role, f"chat_model_args = {args!r} must be a table of keyword arguments.")
    retries = settings.get("max_retries", 1)
    if not is_whole_number(retries) or retries < 0:
        raise _fail(role, f"max_retries = {retries!r} must be a whole number, 0 or more.")
    return LLMSettings(spec, dict(args), retries)


def load_chat_model(settings: LLMSettings, *, role: str) -> Any:
    """Import ``chat_model`` and call it with ``chat_model_args``."""
    module_name, _, attribute = settings.chat_model.partition(":")
    try:
        target: Any = importlib.import_module(module_name)
    except ImportError as exc:
        package = module_name.split(".")[0].replace("_", "-")
        raise _fail(
            role,
            f"cannot import {module_name!r} ({exc}). Install it (pip install {package}) "
            "or fix the name.",
        ) from exc
    for part in attribute.split("."):
        if not hasattr(target, part):
            raise _fail(role, f"{module_name!r} has no {attribute!r}; check the name.")
        target = getattr(target, part)
    if not callable(target):
        raise _fail(role, f"{settings.chat_model} is not callable.")
    try:
        model = target(**settings.chat_model_args)
    except Exception as exc:  # the provider's own complaint, passed on with where it came from
        raise _fail(
            role,
            f"{settings.chat_model}(**chat_model_args) failed: {type(exc).__name__}: {exc}",
        ) from exc
    if not callable(getattr(model, "invoke", None)):
        raise _fail(
            role,
            f"{settings.chat_model} returned a {type(model).__name__}, not a chat model "
            "(it has no invoke method).",
        )
    return model
