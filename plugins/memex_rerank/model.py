"""The rerank model: a logistic regression over :data:`memex_rerank.features.NAMES`, kept
as plain JSON (names, weights, bias, provenance) so the plugin needs no learning library.

``model.json`` next to this file is the default, trained by ``python -m
benchmarks.locomo_levers --train`` (see docs/benchmarks.md, section 4b, for its data,
folds and figures); ``[ranker.rerank] model`` names another file.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memex_core.errors import MemexError
from memex_rerank.features import NAMES

DEFAULT_MODEL = Path(__file__).with_name("model.json")


class RerankModelError(MemexError):
    """The rerank model file is missing, unreadable or for other features."""


@dataclass(frozen=True)
class RerankModel:
    weights: tuple[float, ...]
    bias: float = 0.0
    provenance: dict[str, Any] = field(default_factory=dict, compare=False)

    def score(self, rows: Sequence[Sequence[float]]) -> list[float]:
        """The model's log-odds that each row is an evidence turn (higher: earlier)."""
        weights, bias = self.weights, self.bias
        return [bias + sum(w * x for w, x in zip(weights, row, strict=True)) for row in rows]

    def to_json(self) -> dict[str, Any]:
        return {
            "features": list(NAMES),
            "weights": list(self.weights),
            "bias": self.bias,
            "provenance": self.provenance,
        }


def load_model(path: Path | None = None) -> RerankModel:
    """The model in ``path`` (default: the shipped ``model.json``)."""
    path = path or DEFAULT_MODEL
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        names, weights = data["features"], [float(w) for w in data["weights"]]
        bias = float(data.get("bias", 0.0))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise RerankModelError(
            f"cannot read the rerank model {path} ({type(exc).__name__}: {exc}): retrain it "
            "with `python -m benchmarks.locomo_levers --train` or remove [ranker.rerank] model"
        ) from exc
    if list(names) != list(NAMES) or len(weights) != len(NAMES):
        raise RerankModelError(
            f"the rerank model {path} is for other features ({', '.join(names)}): retrain it "
            "with `python -m benchmarks.locomo_levers --train`"
        )
    return RerankModel(tuple(weights), bias, dict(data.get("provenance", {})))
