"""Keeping numpy's OpenBLAS on the calling thread while our small networks run.

OpenBLAS hands a matrix product to its thread pool once it is big enough (rows x inner x
columns past about 262,144). For the batches a hint evaluates, on a machine whose cores are
busy, the pool costs far more than it saves: measured here, 20 x 204 by 204 x 256 took 35 ms
through the pool against 0.04 ms on one thread. :func:`one_thread` sets OpenBLAS to one thread
for the duration of a ``with`` block and puts the old setting back afterwards, so nothing
changes for the rest of the process. Where the library's thread controls cannot be found (not
Linux, another BLAS), :func:`matmul` cuts products into row blocks small enough to stay on the
calling thread instead.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

THREAD_THRESHOLD = 200_000
"""Products below this many multiply-adds stay on the calling thread in OpenBLAS (with margin)."""

_lock = threading.RLock()


@dataclass(frozen=True)
class _Controls:
    get: Any
    set: Any


@lru_cache(maxsize=1)
def _controls() -> _Controls | None:
    """OpenBLAS's get/set thread-count functions in the library numpy has loaded, if found."""
    np.ones((2, 2)) @ np.ones((2, 2))  # make sure the BLAS library is loaded
    try:
        maps = Path("/proc/self/maps").read_text()
    except OSError:
        return None
    paths = sorted(
        {line.split()[-1] for line in maps.splitlines() if "openblas" in line.lower() and "/" in line}
    )
    for path in paths:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for prefix in ("scipy_openblas", "openblas"):
            for suffix in ("64_", ""):
                get = getattr(lib, f"{prefix}_get_num_threads{suffix}", None)
                put = getattr(lib, f"{prefix}_set_num_threads{suffix}", None)
                if get is not None and put is not None:
                    get.restype = ctypes.c_int
                    get.argtypes = []
                    put.restype = None
                    put.argtypes = [ctypes.c_int]
                    return _Controls(get, put)
    return None


def available() -> bool:
    """Whether OpenBLAS's thread count can be set (else :func:`matmul` works in row blocks)."""
    return _controls() is not None


@contextmanager
def one_thread() -> Iterator[bool]:
    """Run the block with OpenBLAS on one thread; yields whether that could be arranged."""
    controls = _controls()
    if controls is None:
        yield False
        return
    with _lock:
        old = int(controls.get())
        if old != 1:
            controls.set(1)
        try:
            yield True
        finally:
            if old != 1:
                controls.set(old)


def matmul(x: NDArray[np.float32], w: NDArray[np.float32], single: bool) -> NDArray[np.float32]:
    """``x @ w``; unless ``single`` (BLAS already on one thread), in row blocks below the threshold."""
    n = x.shape[0]
    rows = max(1, THREAD_THRESHOLD // (w.shape[0] * w.shape[1]))
    if single or n <= rows:
        out: NDArray[np.float32] = x @ w
        return out
    out = np.empty((n, w.shape[1]), dtype=np.result_type(x, w))
    for i in range(0, n, rows):
        np.matmul(x[i : i + rows], w, out=out[i : i + rows])
    return out
