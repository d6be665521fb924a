"""A board's proportions read off a frame: the width of its bar.

Real boards differ from ``BoardGeometry()``'s proportions: a folding long-nardy board has a hinge
where a tournament board has a bar about a point wide. A reader that assumes the wrong bar looks for
the points beside it up to a third of a point off (``benchmarks/vision_proportions.py``: on boards
with a hinge 0.04 of the playing area's width, 89.7% of points right assuming the default bar,
96.0% told the hinge, 95.1% with the bar measured here).

The bar's two sides are straight lines the full height of the playing area, as far either side of
its middle. In a straight-on view of the playing area (from the corners alone) the median over the
rows of each column's horizontal colour gradient peaks at both: checkers, the points' slanted sides
and the board's grain rarely line up down one column. The width whose two sides peak the most is
taken when both stand out clearly over the median column; otherwise nothing is said, and the caller
keeps the proportions it has.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np
from numpy.typing import NDArray

from nardy.vision.config import BarConfig
from nardy.vision.geometry import BoardGeometry, checked_corners


@dataclass(frozen=True)
class BarMeasure:
    """The bar as read off one frame."""

    width: float
    """The bar's width, a fraction of the playing area's width."""
    ratio: float
    """How much its two sides stand out over the view's median column (their mean)."""


def bar_profile(
    config: BarConfig, frame: NDArray[np.uint8], corners: NDArray[np.floating], height: float
) -> NDArray[np.float32]:
    """frame (H, W, 3) uint8 BGR, corners (4, 2) of the playing area (top-left, top-right,
    bottom-right, bottom-left), ``height`` its height over its width -> (view_px,) float32: per column
    of the straight-on view, the median over ``rows`` of the horizontal colour gradient (summed over
    the Lab channels)."""
    w = int(config.view_px)
    h = max(8, int(round(w * height)))
    target = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float32)
    m = cv2.getPerspectiveTransform(np.asarray(corners, np.float32).reshape(4, 2), target)
    view = cv2.warpPerspective(frame, m, (w, h), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
    if config.blur > 0:
        view = cv2.GaussianBlur(view, (0, 0), config.blur)
    lab = cv2.cvtColor(view, cv2.COLOR_BGR2LAB).astype(np.float32)
    gx = np.abs(cv2.Sobel(lab, cv2.CV_32F, 1, 0, ksize=3)).sum(axis=2)
    y0, y1 = int(config.rows[0] * h), max(int(config.rows[0] * h) + 1, int(config.rows[1] * h))
    return np.asarray(np.median(gx[y0:y1], axis=0), dtype=np.float32)


def measure_bar(
    config: BarConfig, frame: NDArray[np.uint8], corners: NDArray[np.floating], height: float
) -> BarMeasure | None:
    """The bar's width in ``frame`` (H, W, 3) uint8 BGR whose playing area has ``corners`` (4, 2) and
    is ``height`` as high as wide -- or None when no width's two sides stand out by ``min_ratio``."""
    if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
        raise ValueError(f"expected an (H, W, 3) uint8 BGR frame, got {frame.shape} {frame.dtype}")
    profile = bar_profile(config, frame, checked_corners(corners), height)
    w = len(profile)
    floor = float(np.median(profile)) + 1e-6
    mid = w // 2
    best: tuple[float, int, float] | None = None
    for half in range(max(1, int(config.widths[0] * w / 2)), int(config.widths[1] * w / 2) + 1):
        a, b = mid - half, mid + half
        if a < 1 or b > w - 2:
            break
        left, right = float(profile[a - 1 : a + 2].max()), float(profile[b - 1 : b + 2].max())
        if best is None or left + right > best[0]:
            best = (left + right, half, (left + right) / 2.0 / floor)
    if best is None or best[2] < config.min_ratio:
        return None
    return BarMeasure(2.0 * best[1] / w, best[2])


def with_measured_bar(
    config: BarConfig, frame: NDArray[np.uint8], corners: NDArray[np.floating], geometry: BoardGeometry
) -> BoardGeometry:
    """``geometry`` with the bar's width as measured in ``frame`` (``measure_bar``), or as it is when
    the bar cannot be measured there or measures within ``precision`` of it."""
    return with_bar(config, measure_bar(config, frame, corners, geometry.height), geometry)


def with_bar(config: BarConfig, found: BarMeasure | None, geometry: BoardGeometry) -> BoardGeometry:
    """``geometry`` with the bar ``found`` (a ``measure_bar`` answer), unless there is none or it is
    within ``precision`` of the one ``geometry`` has."""
    if found is None or abs(found.width - geometry.bar_width) <= config.precision:
        return geometry
    return replace(geometry, bar_width=found.width)
