"""The built ONNX graphs, cached once per machine and keyed by what they were built from.

Building the graph from the safetensors takes ~1 s and quantising it another few
seconds, so each variant is built once and kept under the cache folder:

* ``MEMEX_MODEL_CACHE`` if set, else ``$XDG_CACHE_HOME/memex/models``, else
  ``~/.cache/memex/models``;
* one file per variant: ``minilm-<precision>-w<weights hash>-b<builder version>
  [-ort<onnxruntime version>].onnx``. The weights' hash (blake2b of
  model.safetensors) means new weights never reuse an old graph; the builder
  version means a changed graph is rebuilt; int8 files also carry onnxruntime's
  version, whose quantiser wrote them.

Files are written to a temporary name in the same folder and renamed into place,
so a reader never sees half a file and two processes building at once both end
with a whole one. A folder that cannot be written raises :class:`OnnxCacheError`
naming it and the fix; the embedder then falls back to the numpy encoder.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

from memex_core.errors import MemexError
from memex_minilm.onnx_graph import BUILDER_VERSION

CACHE_ENV = "MEMEX_MODEL_CACHE"
PRECISIONS = ("fp32", "int8")
_HASH_CHUNK = 1 << 22
_weights_hashes: dict[tuple[str, int, int], str] = {}


class OnnxCacheError(MemexError):
    """The ONNX graph could not be built or stored in the cache folder."""


def cache_root(environ: Mapping[str, str] = os.environ) -> Path:
    """Where built graphs live (see the module docstring for the order)."""
    if environ.get(CACHE_ENV):
        return Path(environ[CACHE_ENV]).expanduser()
    base = environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).expanduser() / "memex" / "models"


def weights_hash(path: Path) -> str:
    """blake2b of the weights file (memoised per process by path, size and mtime)."""
    stat = path.stat()
    memo = (str(path), stat.st_size, stat.st_mtime_ns)
    if memo not in _weights_hashes:
        digest = hashlib.blake2b(digest_size=8)
        with path.open("rb") as handle:
            while chunk := handle.read(_HASH_CHUNK):
                digest.update(chunk)
        _weights_hashes[memo] = digest.hexdigest()
    return _weights_hashes[memo]


def cache_key(folder: Path, precision: str) -> str:
    """The file name of ``precision``'s graph for the weights in ``folder``."""
    if precision not in PRECISIONS:
        raise OnnxCacheError(
            f"Unknown precision {precision!r}; set [embedder.minilm] precision to one of: "
            f"{', '.join(PRECISIONS)}."
        )
    key = f"minilm-{precision}-w{weights_hash(folder / 'model.safetensors')}-b{BUILDER_VERSION}"
    if precision == "int8":
        import onnxruntime

        key += f"-ort{onnxruntime.__version__}"
    return key + ".onnx"


def graph_path(folder: Path, precision: str = "fp32", root: Path | None = None) -> Path:
    """The cached graph of ``precision``, built and stored first if it is not there yet."""
    root = cache_root() if root is None else root
    target = root / cache_key(folder, precision)
    if target.is_file():
        return target
    try:
        root.mkdir(parents=True, exist_ok=True)
        if precision == "fp32":
            _write_fp32(folder, target)
        else:
            _write_int8(graph_path(folder, "fp32", root), target)
    except OSError as exc:
        raise OnnxCacheError(
            f"Cannot store the ONNX graph in {root} ({exc.strerror or exc}). Make the folder "
            f"writable, or point {CACHE_ENV} at a writable folder."
        ) from exc
    return target


def _temporary(target: Path) -> Path:
    handle, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.stem}-", suffix=".tmp")
    os.close(handle)
    return Path(name)


def _write_fp32(folder: Path, target: Path) -> None:
    try:
        import onnx  # noqa: F401 - only needed to build, not to run
    except ImportError as exc:
        raise OnnxCacheError(
            f"Building the ONNX graph needs the onnx package, which is not installed. Install "
            f"it with: pip install 'memex[embeddings]' (or copy a built graph into "
            f"{target.parent})."
        ) from exc
    from memex_minilm.onnx_graph import build_model

    data = build_model(folder).SerializeToString()
    temporary = _temporary(target)
    try:
        with temporary.open("wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)


#: Dynamic int8: weights per output channel in 7 bits (``reduce_range``: AVX2 without
#: VNNI multiplies u8 x s8 pairs into int16 and would saturate with 8-bit weights),
#: activations per tensor at run time. Only the MatMuls: the fused Attention's own
#: projection stays float32. Cosine to float32 on 200 chat passages (mean / lowest):
#: this 0.9936 / 0.9882; Attention quantised too 0.9921 / 0.9856 (same speed); per-tensor
#: s8 weights 0.951 / 0.889 (saturation); per-tensor u8 weights 0.979 / 0.955. ORT's
#: MatMulNBits with 8-bit blocks of 32 kept 0.9998 but ran slower than float32 here
#: (18.2 against 23.1 texts per CPU-second), so it is not used.
INT8_OPTIONS = {"per_channel": True, "reduce_range": True, "op_types_to_quantize": ["MatMul"]}


def _write_int8(source: Path, target: Path) -> None:
    import logging

    from onnx import TensorProto
    from onnxruntime.quantization import QuantType, quantize_dynamic

    temporary = _temporary(target)
    quant_logger = logging.getLogger()
    level = quant_logger.level
    quant_logger.setLevel(logging.ERROR)  # the quantiser warns about pre-processing on root
    try:
        quantize_dynamic(
            source,
            temporary,
            weight_type=QuantType.QInt8,
            # The fused com.microsoft nodes have no shape inference: their outputs are float.
            extra_options={"DefaultTensorType": TensorProto.FLOAT},
            **INT8_OPTIONS,
        )
        os.replace(temporary, target)
    finally:
        quant_logger.setLevel(level)
        temporary.unlink(missing_ok=True)
