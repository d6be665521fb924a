"""Small statistics the stages use per frame, without numpy's general-purpose overhead."""

from __future__ import annotations

from typing import TypeVar

import numpy as np
from numpy.typing import NDArray

S = TypeVar("S", bound=np.floating)
A = TypeVar("A", bound=np.generic)
F32 = NDArray[np.float32]

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
    return _middle(part, n, axis, x.dtype)


def clamp(x: NDArray[A], lo: float, hi: float) -> NDArray[A]:
    """``np.clip(x, lo, hi)`` for ``lo <= hi``, the same values, without its overhead (a few
    microseconds a call, which the stages' many small arrays add up)."""
    return np.asarray(np.minimum(np.maximum(x, lo), hi), dtype=x.dtype)


def median_and_quantile(x: NDArray[S], q: float) -> tuple[float, float]:
    """The median of all of ``x`` (as ``median`` gives it) and the value at place ``int(q * n)`` of
    its n values in order (q from 0.5 to 1), from one partition; for data without NaNs."""
    flat = x.reshape(-1)
    n = flat.size
    k = n // 2
    top = min(n - 1, max(k, int(q * n)))
    part = np.partition(flat, (max(k - 1, 0), k, top))
    return float(_middle(part, n, 0, flat.dtype)), float(part[top])


def _middle(part: NDArray[S], n: int, axis: int, dtype: np.dtype[S]) -> NDArray[S]:
    """The median along ``axis`` of ``part`` (n long there), partitioned at its middle place(s)."""
    k = n // 2
    if n % 2:
        return np.asarray(np.take(part, k, axis=axis), dtype=dtype)
    # np.median averages the two middle values in the data's own precision: (a + b) / 2
    both = np.take(part, k - 1, axis=axis) + np.take(part, k, axis=axis)
    return np.asarray(both / 2, dtype=dtype)


def _reflected(i: NDArray[np.intp], n: int) -> NDArray[np.intp]:
    """Indices ``i`` (within n - 1 of the range 0..n - 1) mirrored into it about its end pixels (OpenCV's
    default border, BORDER_REFLECT_101)."""
    i = np.abs(i)
    return np.asarray(np.where(i > n - 1, 2 * (n - 1) - i, i), dtype=np.intp)


def window_means(image: NDArray[np.float32], ys: NDArray[np.intp], xs: NDArray[np.intp], k: int) -> F32:
    """(n, c) mean of the k x k window (k odd) round each pixel (``ys``, ``xs``) of ``image`` (h, w, c):
    the value ``cv2.blur(image, (k, k))`` has there, borders included, for an image of whole numbers
    (OpenCV sums in double precision and scales by 1 / k**2; sums of whole numbers are exact in any
    order, so summing just the windows asked for gives the same numbers)."""
    h, w = image.shape[:2]
    span = np.arange(k) - k // 2
    rows = _reflected(ys[:, None] + span[None, :], h)
    cols = _reflected(xs[:, None] + span[None, :], w)
    windows = image[rows[:, :, None], cols[:, None, :]]  # (n, k, k, c)
    total = windows.sum(axis=(1, 2), dtype=np.float64)
    return np.asarray(total * (1.0 / (k * k)), dtype=np.float32)
