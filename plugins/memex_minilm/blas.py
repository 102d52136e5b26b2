"""Keeping numpy's BLAS on one thread while the encoder runs.

OpenBLAS splits every matrix product across all cores and makes its threads wait
for each other. The encoder makes hundreds of mid-sized products per batch, so
when another process holds a core those waits dominate: measured on 2 busy cores,
one query took 0.35 s instead of 0.02 s and bulk encoding ran 5-10x slower. With
BLAS on one thread per call, the encoder parallelises itself instead, one batch
per core (see ``NumpyMiniLM.encode``), which degrades gracefully under load.

``threadpoolctl`` (a dependency of scikit-learn, which sentence-transformers
pulls in) sets the limit at run time; without it BLAS keeps its own threading.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from typing import Any

_controller: Any = None  # None: not looked up yet; False: threadpoolctl is missing
_controller_lock = threading.Lock()
# The limit is process-wide (OpenBLAS with pthreads keeps one thread count), while several
# threads may encode at once (concurrent searches): the first to enter sets it, the last
# to leave puts it back, so no thread's exit lifts it under another still encoding (which
# then ran its products on two threads, rounding differently, ~7e-8).
_limit_holders = 0
_limiter: Any = None


def _release_control() -> None:
    """threadpoolctl (3.6+) lets one thread at a time change OpenBLAS's thread count (the
    "controlling thread", released when that thread's ``with limit()`` ends) and ignores
    the others. Here the thread that sets the limit and the one that restores it may
    differ, so release it around both (under ``_controller_lock``: memex changes it from
    one thread at a time anyway)."""
    try:
        from threadpoolctl import OpenBLASController
    except ImportError:
        return
    clear = getattr(OpenBLASController, "clear_controlling_thread", None)
    if callable(clear):
        clear(force=True)


def _blas_controller() -> Any:
    """threadpoolctl's handle on the BLAS libraries loaded now, or None without it."""
    global _controller
    with _controller_lock:
        if _controller is None:
            try:
                from threadpoolctl import ThreadpoolController
            except ImportError:
                _controller = False
            else:
                _controller = ThreadpoolController().select(user_api="blas")
        return _controller or None


@contextlib.contextmanager
def single_threaded_blas() -> Iterator[None]:
    """Limit BLAS to one thread inside the block (a no-op without threadpoolctl); the
    original count comes back when the last thread inside leaves."""
    global _limit_holders, _limiter
    controller = _blas_controller()
    if controller is None:
        yield
        return
    with _controller_lock:
        if not _limit_holders:
            _release_control()
            _limiter = controller.limit(limits=1)
            _release_control()
        _limit_holders += 1
    try:
        yield
    finally:
        with _controller_lock:
            _limit_holders -= 1
            if not _limit_holders:
                _release_control()
                _limiter.restore_original_limits()
                _limiter = None
                _release_control()


def available_cores() -> int:
    """Cores this process may run on (its affinity mask, not the whole machine)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1
