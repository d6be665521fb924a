"""Small statistics the stages use per frame, without numpy's general-purpose overhead."""

from __future__ import annotations

from typing import TypeVar

import numpy as np
from numpy.typing import NDArray

S = TypeVar("S", bound=np.floating)

PAIR_FROM = 256
"""Arrays longer than this are partitioned at two places even for one median (see ``median``)."""


def median(x: NDArray[S], axis: int | None = None) -> NDArray[S]:
    """``np.median(x, axis)`` (all of ``x`` when ``axis`` is None), the same value in ``x``'s own dtype,
    without its overhead; for data without NaNs."""
    if axis is None:
        x, axis = x.reshape(-1), 0
    n = x.shape[axis]
    k = n // 2
    # both middle places are asked for even when one is wanted: numpy selects a pair of places in a
    # long array several times faster than a single one
    part = np.partition(x, (k - 1, k) if n % 2 == 0 or n > PAIR_FROM else k, axis=axis)
    if n % 2:
        return np.asarray(np.take(part, k, axis=axis), dtype=x.dtype)
    # np.median averages the two middle values in the data's own precision: (a + b) / 2
    both = np.take(part, k - 1, axis=axis) + np.take(part, k, axis=axis)
    return np.asarray(both / 2, dtype=x.dtype)
