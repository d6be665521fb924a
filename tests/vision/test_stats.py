"""The stages' small statistics give exactly what the general-purpose calls they replace give."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from nardy.vision.stats import PAIR_FROM, clamp, median, median_and_quantile, window_means


@pytest.mark.parametrize("n", [1, 2, 7, 8, PAIR_FROM, PAIR_FROM + 1, PAIR_FROM + 2, 1001])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_median_is_numpys_median_in_the_datas_own_precision(n: int, dtype: type) -> None:
    rng = np.random.default_rng(n)
    x = rng.normal(size=(3, n)).astype(dtype)
    assert median(x).dtype == np.dtype(dtype)
    assert median(x) == np.median(x).astype(dtype)
    along = median(x, axis=1)
    assert along.dtype == np.dtype(dtype) and np.array_equal(along, np.median(x, axis=1).astype(dtype))


@pytest.mark.parametrize("n", [2, 7, 8, 1001])
@pytest.mark.parametrize("q", [0.5, 0.95, 1.0])
def test_median_and_quantile_are_the_median_and_the_sorted_value_at_the_place(n: int, q: float) -> None:
    x = np.random.default_rng(n).normal(size=(n, 1)).astype(np.float32)  # any shape: all of it counts
    middle, top = median_and_quantile(x, q)
    assert middle == float(median(x))
    assert top == float(np.sort(x.reshape(-1))[min(n - 1, int(q * n))])


@pytest.mark.parametrize("k", [1, 3, 5, 9])
def test_window_means_are_cv2_blur_at_the_pixels_asked_for_borders_included(k: int) -> None:
    rng = np.random.default_rng(k)
    image = rng.integers(0, 256, size=(23, 31, 3)).astype(np.float32)  # whole numbers, as Lab is
    ys = np.array([0, 0, 22, 22, 11, 1, 21, 5], dtype=np.intp)
    xs = np.array([0, 30, 0, 30, 15, 1, 29, 17], dtype=np.intp)
    blurred = cv2.blur(image, (k, k))
    assert np.array_equal(window_means(image, ys, xs, k), blurred[ys, xs])


@pytest.mark.parametrize("dtype", [np.int64, np.intp, np.float32, np.float64])
def test_clamp_is_numpys_clip_in_the_arrays_own_type(dtype: type) -> None:
    x = (np.random.default_rng(3).normal(size=(5, 7)) * 40).astype(dtype)
    for lo, hi in ((0, 30), (-10, -10), (-3.5, 2.25)):
        if np.issubdtype(dtype, np.integer) and not float(lo).is_integer():
            continue
        clamped = clamp(x, lo, hi)
        assert clamped.dtype == np.dtype(dtype)
        assert np.array_equal(clamped, np.clip(x, lo, hi))
