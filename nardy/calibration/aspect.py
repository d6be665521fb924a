"""The shape of the rectangle behind four image corners: a check the board's proportions give for free.

A rectangle seen by a pinhole camera with square pixels and its principal point at the image centre
fixes the camera's focal length (its two vanishing directions must be perpendicular) and with it the
rectangle's height-to-width ratio (Zhang and He, "Whiteboard scanning"). The playing area's ratio is
known (``BoardGeometry.height``), so corners that put one long side on the frame's outer edge, or on
the top of a row of checkers, imply the wrong ratio even when every edge they lie on is a good one.

When the view is nearly straight on the focal length is not fixed, and the ratio then depends on it;
``implied_aspect`` takes it from a plausible range and says how much the answer moves when any corner
moves by a pixel, so a caller can tell a firm answer from a loose one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

F64 = NDArray[np.float64]

_NUDGES = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])


@dataclass(frozen=True)
class Aspect:
    """The height-to-width ratio of the rectangle behind four corners."""

    ratio: float
    """Height (the second side) over width (the first side)."""
    spread: float
    """Largest relative change of ``ratio`` when one corner moves by one pixel: how loose it is."""


def _ratio(corners: F64, centre: F64, focal_range: tuple[float, float]) -> float:
    c = np.asarray(corners, dtype=np.float64) - centre
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=np.float32)
    h = np.asarray(cv2.getPerspectiveTransform(unit, c.astype(np.float32)), dtype=np.float64)
    h11, h12, h21, h22, h31, h32 = h[0, 0], h[0, 1], h[1, 0], h[1, 1], h[2, 0], h[2, 1]
    lo, hi = focal_range
    denom = h31 * h32
    f2 = -(h11 * h12 + h21 * h22) / denom if abs(denom) > 1e-18 else -1.0
    f = float(np.clip(math.sqrt(f2), lo, hi)) if f2 > 0 else math.sqrt(lo * hi)
    width = math.sqrt((h11 / f) ** 2 + (h21 / f) ** 2 + h31**2)
    height = math.sqrt((h12 / f) ** 2 + (h22 / f) ** 2 + h32**2)
    return height / max(width, 1e-18)


def implied_ratio(corners: F64, size: tuple[int, int], focal_range: tuple[float, float]) -> float:
    """``implied_aspect``'s ratio alone, without how loose it is (a sixteenth of the work)."""
    w, h = size
    return _ratio(corners, np.array([w / 2.0, h / 2.0]), (focal_range[0] * w, focal_range[1] * w))


def implied_aspect(corners: F64, size: tuple[int, int], focal_range: tuple[float, float]) -> Aspect:
    """The ratio of the rectangle whose image is ``corners`` (4, 2) (TL, TR, BR, BL) in an image of
    ``size`` (width, height) pixels, for a focal length in ``focal_range`` (fractions of the width)."""
    w, h = size
    centre = np.array([w / 2.0, h / 2.0])
    focal = (focal_range[0] * w, focal_range[1] * w)
    ratio = _ratio(corners, centre, focal)
    spread = 0.0
    for i in range(4):
        for nudge in _NUDGES:
            moved = np.array(corners, dtype=np.float64)
            moved[i] += nudge
            spread = max(spread, abs(_ratio(moved, centre, focal) / ratio - 1.0))
    return Aspect(ratio, spread)


def completed(
    corners: F64, size: tuple[int, int], focal_range: tuple[float, float], ratio: float, most: float = 1.0
) -> list[F64]:
    """The two rectangles of height-to-width ``ratio`` that continue the rectangle behind ``corners``
    (4, 2) (TL, TR, BR, BL, in an image of ``size``) past one of its ends -- when its implied ratio is
    higher: too short -- or past one of its long sides -- when lower: too narrow -- as (4, 2) corners
    in the same order: a part of the board (some points of each row cut off at an end) grown back to
    the whole. They share its vanishing points, so they imply its focal length and ``ratio``. Grown by
    at most ``most`` of its length or width; one that would reach past the horizon is left out."""
    c = np.asarray(corners, dtype=np.float64)
    implied = implied_ratio(c, size, focal_range)
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=np.float32)
    h = np.asarray(cv2.getPerspectiveTransform(unit, c.astype(np.float32)), dtype=np.float64)
    if implied > ratio:
        grow = min(implied / ratio - 1.0, most)
        boxes = [(-grow, 0.0, 1.0, 1.0), (0.0, 0.0, 1.0 + grow, 1.0)]
    else:
        grow = min(ratio / max(implied, 1e-9) - 1.0, most)
        boxes = [(0.0, -grow, 1.0, 1.0), (0.0, 0.0, 1.0, 1.0 + grow)]
    front = float(np.sum(h[2]))  # w at the far corner: its sign is that of the plane in front
    out = []
    for x0, y0, x1, y1 in boxes:
        rect = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float64)
        p = np.c_[rect, np.ones(4)] @ h.T
        if np.any(p[:, 2] * front <= 0.0):  # grown past the horizon: no rectangle the camera sees
            continue
        out.append(np.asarray(p[:, :2] / p[:, 2:], dtype=np.float64))
    return out
