"""Where document embedding runs: ``[embedder.minilm] device = "auto" | "cpu" | "cuda"``.

A GPU is used through ONNX Runtime's CUDA provider when onnxruntime-gpu is
installed, else through torch (sentence-transformers) when torch sees a CUDA
device. "auto" picks the GPU only when one of those works and stays on the CPU
otherwise; "cuda" insists and says what is missing.

Looking for a GPU must stay cheap on the many machines without one: importing
torch costs 1-2 s, so torch is asked only when an NVIDIA driver is present.
"""

from __future__ import annotations

import importlib.util
import shutil
from dataclasses import dataclass
from pathlib import Path

from memex_core.errors import MemexError

CUDA_PROVIDER = "CUDAExecutionProvider"


class DeviceError(MemexError):
    """``device = "cuda"`` was asked for, but no GPU path works here."""


@dataclass(frozen=True)
class Placement:
    """The device chosen and, on a GPU, the engine that drives it ("onnx" or "torch")."""

    device: str  # "cpu" or "cuda"
    engine: str | None = None


def nvidia_driver_present() -> bool:
    return Path("/proc/driver/nvidia/version").exists() or shutil.which("nvidia-smi") is not None


def onnx_cuda_available() -> bool:
    if importlib.util.find_spec("onnxruntime") is None:
        return False
    import onnxruntime

    return CUDA_PROVIDER in onnxruntime.get_available_providers()


def torch_cuda_available() -> bool:
    if importlib.util.find_spec("torch") is None or not nvidia_driver_present():
        return False
    import torch

    return bool(torch.cuda.is_available())


def place(device: str, backend: str) -> Placement:
    """Resolve ``device`` for document batches under ``backend`` (auto/numpy/onnx/torch).

    numpy runs on the CPU only, so ``backend = "numpy"`` never looks for a GPU.
    """
    if device == "cpu" or backend == "numpy":
        if device == "cuda":
            raise DeviceError(
                'config.toml [embedder.minilm] asks for device = "cuda" with backend = '
                '"numpy", which runs on the CPU only. Set backend = "auto" (or "onnx" / '
                '"torch"), or device = "cpu".'
            )
        return Placement("cpu")
    if backend in ("auto", "onnx") and onnx_cuda_available():
        return Placement("cuda", "onnx")
    if backend in ("auto", "torch") and torch_cuda_available():
        return Placement("cuda", "torch")
    if device == "cuda":
        raise DeviceError(
            'config.toml [embedder.minilm] device = "cuda", but no GPU is usable here: '
            "neither onnxruntime-gpu's CUDA provider nor torch with CUDA sees one. Install "
            'onnxruntime-gpu (or a CUDA build of torch), or set device = "auto" or "cpu".'
        )
    return Placement("cpu")
