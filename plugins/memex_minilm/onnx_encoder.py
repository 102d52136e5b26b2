"""The MiniLM encoder through ONNX Runtime: ingest and backfill, and a server's queries.

The graph comes from ``onnx_graph`` (built from the shipped weights, cached by
``onnx_cache``). Texts are tokenised exactly as the numpy encoder does (same
tokenizer, truncation at 256 tokens), sorted by length and cut into batches of a
token budget, so little work goes into padding; vectors come back in the callers'
order. A call small enough for one batch (the queries a server embeds together) is
instead split into runs of similar length wherever that saves more padding than a call
costs (:func:`padding_groups`). Mean pooling and normalisation run in numpy on the real
tokens only.

Both cores: one ORT session per core, each single-threaded, fed batches from a
thread pool (ORT releases the GIL while it runs), rather than one session whose
intra-op threads wait for each other at every operator. Measured on 600 chat
passages on the 2-core machine, same run: one session per core 28.8 texts/s, one
session with 2 intra-op threads 13.9 texts/s (numpy encoder 30.4).

Speed, measured: on an AVX2 CPU (no VNNI) the float32 graph does the same work
per CPU-second as the numpy encoder (25.3 against 25.9 texts per CPU-second,
single-threaded; 61% of ORT's time in MatMul, 27% in Attention, mostly its QKV
product), because both spend it in float32 matrix products. int8 MatMuls do
~1.3-1.5x more per CPU-second. See docs/benchmarks-ingest-and-encoders.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from memex_minilm.blas import available_cores
from memex_minilm.model_files import EncoderConfig, read_config

#: Padded tokens per forward batch, at most: measured on 600 chat passages, 2,048 ran
#: as fast as 4,096 and faster than 8,192, whose activations outgrow the cache.
TOKENS_PER_BATCH = 2048
#: "sessions": one single-threaded session per core; "threads": one session, intra-op
#: threads across the cores.
PARALLELISM = "sessions"
#: A call small enough for one batch (a server's concurrent queries) is split into groups
#: of similar length when that saves more padding than the extra calls cost; a call costs
#: about as much as this many tokens. Measured on SciFact queries (22 tokens on average, up
#: to 50), CPU per query through one single-threaded session, batches of 8 / 16: one padded
#: batch 11.2 / 12.6 ms, grouped (a call = 6, 12 or 24 tokens) 8.4-9.1 / 8.0-8.5 ms.
CALL_COST_TOKENS = 12
#: Above this many texts, the grouping below is not worth its quadratic search.
GROUPED_MAX_TEXTS = 64


def length_batches(lengths: Sequence[int], budget: int = TOKENS_PER_BATCH) -> list[list[int]]:
    """Indices grouped into batches of similar length, longest first, each holding at most
    ``budget`` padded tokens (a single text longer than the budget is a batch of one)."""
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    batches: list[list[int]] = []
    start = 0
    while start < len(order):
        size = max(1, budget // max(1, lengths[order[start]]))
        batches.append(order[start : start + size])
        start += size
    return batches


def padding_groups(lengths: Sequence[int], call_cost: int = CALL_COST_TOKENS) -> list[list[int]]:
    """Indices grouped so that padded tokens plus ``call_cost`` per group are fewest.

    Each group is a run of the texts sorted longest first, and pads to its first text's
    length: an exact split of that sorted order by dynamic programming (quadratic in the
    number of texts, so for a few dozen at most)."""
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    sorted_lengths = [lengths[i] for i in order]
    # cost[j]: the least cost of the first j texts; start[j]: where its last group starts.
    cost = [0] * (len(order) + 1)
    start = [0] * (len(order) + 1)
    for j in range(1, len(order) + 1):
        cost[j], start[j] = min(
            (cost[i] + (j - i) * sorted_lengths[i] + call_cost, i) for i in range(j)
        )
    groups: list[list[int]] = []
    j = len(order)
    while j > 0:
        groups.append(order[start[j] : j])
        j = start[j]
    return groups[::-1]


class OnnxMiniLM:
    """Tokenise with ``tokenizers``, encode with ONNX Runtime. Safe to share between threads."""

    def __init__(
        self,
        folder: Path,
        model_path: Path,
        *,
        providers: Sequence[str] = ("CPUExecutionProvider",),
        workers: int | None = None,
        parallelism: str = PARALLELISM,
        tokens_per_batch: int = TOKENS_PER_BATCH,
    ) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.config: EncoderConfig = read_config(folder)
        self.dimension = self.config.hidden_size
        self.tokenizer: Any = Tokenizer.from_file(str(folder / "tokenizer.json"))
        # As the numpy encoder: sentence-transformers truncates at max_seq_length (256)
        # and pads to the longest text of a batch, not tokenizer.json's fixed 128.
        self.tokenizer.enable_truncation(max_length=self.config.max_seq_length)
        self.tokenizer.no_padding()
        self.tokens_per_batch = tokens_per_batch
        cores = workers or available_cores()
        gpu = any(p != "CPUExecutionProvider" for p in providers)
        sessions = 1 if gpu or parallelism == "threads" else cores
        threads = cores if parallelism == "threads" else 1
        self.workers = sessions
        self._sessions = [
            ort.InferenceSession(
                str(model_path), self._options(ort, threads), providers=list(providers)
            )
            for _ in range(sessions)
        ]
        self.providers = self._sessions[0].get_providers()

    @staticmethod
    def _options(ort: Any, threads: int) -> Any:
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3  # warnings about unused initialisers are noise here
        if threads == 1:
            # A spinning idle thread steals the core the other session needs.
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        return options

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """L2-normalised embeddings, shape ``(len(texts), dimension)``, float32, in order."""
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        if not texts:
            return out
        ids = [e.ids for e in self.tokenizer.encode_batch(list(texts))]
        lengths = [len(x) for x in ids]
        # No bigger than an even share per session, so a medium call keeps every core busy.
        share = -(-sum(lengths) // len(self._sessions))
        batches = length_batches(lengths, min(self.tokens_per_batch, share))
        if len(batches) == 1 and len(texts) <= GROUPED_MAX_TEXTS:
            # One batch would pad every text to the longest: a server's queries vary from a
            # few tokens to fifty, so split where that saves more than the calls cost.
            batches = padding_groups(lengths)
        if len(self._sessions) == 1 or len(batches) == 1:
            for rows in batches:
                out[rows] = self._encode_ids(self._sessions[0], [ids[i] for i in rows])
            return out
        # Batches go longest first to whichever session is free, so the cores finish
        # together; each session is used by one thread at a time.
        free = list(self._sessions)

        def run(rows: list[int]) -> np.ndarray:
            session = free.pop()
            try:
                return self._encode_ids(session, [ids[i] for i in rows])
            finally:
                free.append(session)

        with ThreadPoolExecutor(max_workers=len(self._sessions)) as pool:
            for rows, vectors in zip(batches, pool.map(run, batches), strict=True):
                out[rows] = vectors
        return out

    def _encode_ids(self, session: Any, ids: list[list[int]]) -> np.ndarray:
        lengths = np.array([len(x) for x in ids], dtype=np.int64)
        token_ids = np.zeros((len(ids), int(lengths.max())), dtype=np.int32)  # 0 is [PAD]
        for row, seq in enumerate(ids):
            token_ids[row, : len(seq)] = seq
        mask = (np.arange(token_ids.shape[1]) < lengths[:, None]).astype(np.int32)
        (hidden,) = session.run(None, {"input_ids": token_ids, "attention_mask": mask})
        # Mean pooling over real tokens, then L2 normalisation, as sentence-transformers does.
        pooled = np.einsum("bld,bl->bd", hidden, mask.astype(np.float32))
        pooled /= lengths[:, None].astype(np.float32)
        norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return (pooled / norms).astype(np.float32, copy=False)
