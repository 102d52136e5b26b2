"""memex plugin ``hubs``: a link-aware ranker that lifts hubs (notes with many backlinks).

It fuses like ``rrf`` (weighted reciprocal rank fusion) and then multiplies each
fused score by ``1 + boost * ln(1 + backlinks)``, where backlinks counts the links
from other documents to the fragment's document. Choose it in config.toml::

    [ranker]
    use = "hubs"
    [ranker.hubs]
    k = 10
    boost = 0.1

Without a link graph (memex binds one through ``bind_graph``) it ranks exactly
like ``rrf``.
"""

from __future__ import annotations

from typing import Any

from memex_core.domain import PluginContext
from memex_core.hookspecs import hookimpl
from memex_hubs.ranker import HubRanker
from memex_hubs.settings import HubsSettingError, HubsSettings, parse_settings

__all__ = ["HubRanker", "HubsSettingError", "HubsSettings", "build_ranker", "parse_settings"]


def build_ranker(context: PluginContext) -> HubRanker:
    settings = parse_settings(context.settings)
    return HubRanker(k=settings.k, boost=settings.boost)


@hookimpl
def register_rankers(register: Any) -> None:
    register(
        "hubs",
        build_ranker,
        description="RRF, then a lift for notes with many backlinks (k=10, boost=0.1).",
    )
