"""memex plugin ``secrets``: the ``detect_secrets`` redactor every memory write passes through.

It replaces likely secrets (API keys and tokens, passwords, private keys,
random-looking strings) with ``[REDACTED:<type>]`` and reports the types found,
never the values. It uses detect-secrets' detectors without its process-wide
settings and never verifies a secret over the network. Tune it in config.toml::

    [redactor]
    use = "detect_secrets"
    [redactor.detect_secrets]
    entropy = true        # false: only known token formats, keywords and PEM blocks
    entropy_limit = 4.5
    min_entropy_length = 20
    disable = []          # detect-secrets plugin names, e.g. ["KeywordDetector"]

See ``memex_secrets.redactor`` for exactly what is detected and what is left out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memex_core.domain import PluginContext
from memex_core.hookspecs import hookimpl
from memex_core.plugins import lazy_exports

if TYPE_CHECKING:
    from memex_secrets.redactor import DetectSecretsRedactor, secret_kind
    from memex_secrets.settings import SecretsSettingError, SecretsSettings, parse_settings

#: Where each public name lives. They load on first use: every ``memex`` process imports
#: this package to find the plugins, and only memory writes redact.
_EXPORTS = {
    "DetectSecretsRedactor": "redactor",
    "secret_kind": "redactor",
    "SecretsSettingError": "settings",
    "SecretsSettings": "settings",
    "parse_settings": "settings",
}

__all__ = [
    "DetectSecretsRedactor",
    "SecretsSettingError",
    "SecretsSettings",
    "build_redactor",
    "parse_settings",
    "secret_kind",
]


__getattr__ = lazy_exports(__name__, _EXPORTS)


def build_redactor(context: PluginContext) -> DetectSecretsRedactor:
    from memex_secrets.redactor import DetectSecretsRedactor
    from memex_secrets.settings import parse_settings

    return DetectSecretsRedactor(parse_settings(context.settings))


@hookimpl
def register_redactors(register: Any) -> None:
    register(
        "detect_secrets",
        build_redactor,
        requires=("detect_secrets",),
        description="Replaces API keys, tokens, passwords and private keys with [REDACTED:<type>].",
    )
