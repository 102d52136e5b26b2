"""memex plugin ``rerank``: RRF, then a learned second stage over the best 50 candidates.

It fuses like ``rrf``; hybrid search then hands it the best ``depth`` candidates the
relevance floor kept, and it re-orders them by a small logistic regression over what memex
already knows of each (each signal's rank and score, the fused score, how the turns next
to it scored, whether the question names its speaker, its length, how many of the
question's words it and its neighbours hold, the question's kind against what the turn
says (a time, a number), how many candidates sit near it). The model is a JSON
file (``model.json``, trained on the LoCoMo development conversations: see
docs/benchmarks.md, section 4b). Candidates that do not look like turns of conversations
(documents, one per conversation) stay as fused; keyword-only and semantic-only searches
are unchanged. It is the default ranker (``[ranker] use = "rrf"`` turns it off; without
this plugin, search falls back to ``rrf``). Its settings::

    [ranker]
    use = "rerank"
    [ranker.rerank]
    k = 10          # RRF damping, as in [ranker.rrf]
    depth = 50      # candidates the model re-orders
    model = ""      # another model file (default: the shipped one)
"""

from __future__ import annotations

from typing import Any

from memex_core.domain import PluginContext
from memex_core.hookspecs import hookimpl
from memex_rerank.model import RerankModel, RerankModelError, load_model
from memex_rerank.ranker import RERANK, LearnedRerank
from memex_rerank.settings import RerankSettingError, parse_settings

__all__ = [
    "RERANK",
    "LearnedRerank",
    "RerankModel",
    "RerankModelError",
    "RerankSettingError",
    "build_ranker",
    "load_model",
]


def build_ranker(context: PluginContext) -> LearnedRerank:
    settings = parse_settings(context.settings)
    model = load_model(context.home / settings.model if settings.model else None)
    return LearnedRerank(model, k=settings.k, depth=settings.depth)


@hookimpl
def register_rankers(register: Any) -> None:
    register(
        "rerank",
        build_ranker,
        description="RRF, then a learned rerank of the best 50 (the default; k=10, depth=50).",
    )
