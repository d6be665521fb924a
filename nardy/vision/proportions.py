"""A board's proportions read off a frame: the width of its bar and its height.

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

The height comes from the checkers: a line of them is about a diameter a step, so a board less high
than assumed shows them further apart along its points in a view stretched to the height assumed
(``measure_height``; a board 0.72 as high as wide: 90.2% of points assuming 0.8, 95.6% measured). A
higher board shows them closer together, as smaller checkers would; it is taken only past what
those could explain (``with_height``; a square board: 91.7% -> 95.7%).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np
from numpy.typing import NDArray

from nardy.vision.config import BarConfig, HeightConfig, RecognizerConfig
from nardy.vision.detect import Detector
from nardy.vision.geometry import BoardGeometry, checked_corners
from nardy.vision.observation import Observation
from nardy.vision.recognizer import Recognizer
from nardy.vision.rectify import Intrinsics


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


@dataclass(frozen=True)
class HeightMeasure:
    """The playing area's height as read off one frame."""

    height: float
    """Its height over its width."""
    step: float
    """The median step from one checker to the next in a line, in diameters of the reading's view."""
    steps: int
    """How many steps it is the median of."""
    stacks: int
    """How many stacks they come from."""


def _peaks(profile: NDArray[np.float64], floor: float) -> NDArray[np.float64]:
    """(L,) values -> the sub-pixel positions of their local maxima that are positive and reach
    ``floor`` of the best."""
    p = profile
    if len(p) < 3:
        return np.zeros(0)
    a, b, c = p[:-2], p[1:-1], p[2:]
    top = float(p.max())
    at = np.flatnonzero((b >= a) & (b > c) & (b > 0) & (b >= floor * top))
    den = a[at] - 2 * b[at] + c[at]
    shift = np.where(den != 0, 0.5 * (a[at] - c[at]) / np.where(den != 0, den, 1.0), 0.0)
    return np.asarray(at + 1 + shift, dtype=np.float64)


def line_steps(
    config: HeightConfig, observation: Observation, column_x: NDArray[np.floating], diameter: float
) -> list[list[float]]:
    """For each stack of ``observation`` read with ``counts`` checkers: the steps between the detector's
    disc peaks along its point's centre line, in ``diameter`` (rectified pixels), from the base out
    (steps outside ``steps`` dropped). ``column_x`` (12,): the columns' centre lines in the view."""
    score = np.asarray(observation.debug["score"], dtype=np.float64)
    h, w = score.shape
    layout = observation.point_layout()
    out: list[list[float]] = []
    for row, stacks in (("top", layout.top), ("bottom", layout.bottom)):
        for k, stack in enumerate(stacks):
            if not config.counts[0] <= stack.count <= config.counts[1]:
                continue
            x = int(round(float(column_x[k])))
            profile = score[:, max(0, x - 2) : min(w, x + 3)].max(axis=1)
            if row == "bottom":
                profile = profile[::-1]
            reach = min(h // 2 + 1, int(diameter * (0.5 + stack.count * config.steps[1])))
            found = np.diff(_peaks(profile[:reach], config.peak_floor)) / diameter
            kept = found[(found >= config.steps[0]) & (found <= config.steps[1])]
            if len(kept):
                out.append([float(v) for v in kept])
    return out


def measure_height(
    config: HeightConfig, recognizer: Recognizer, frame: NDArray[np.uint8]
) -> HeightMeasure | None:
    """The playing area's height over its width in ``frame`` (H, W, 3) uint8 BGR, read by
    ``recognizer`` (its corners, assuming its geometry's height) -- or None when too few of its lines
    of checkers show their steps (``min_steps`` over ``min_stacks``) or the height is past belief.

    The checkers in a line touch, or nearly: one diameter and ``gap`` apart. In the reading's view
    (the playing area stretched to the height assumed) a board that is really less high shows them
    further apart along its points, by the ratio of the two heights; across, they stay one point
    wide. So the height is the one assumed times (1 + ``gap``) over the median step."""
    observation = recognizer.read(frame)
    masks = recognizer.masks
    assert masks is not None  # read() prepared them
    stacks = line_steps(config, observation, masks.column_x, recognizer.diameter_px)
    steps = [v for s in stacks for v in s]
    if len(steps) < config.min_steps or len(stacks) < config.min_stacks:
        return None
    step = float(np.median(steps))
    height = recognizer.config.geometry.height * (1.0 + config.gap) / step
    if not config.heights[0] <= height <= config.heights[1]:
        return None
    return HeightMeasure(height, step, len(steps), len(stacks))


def with_height(config: HeightConfig, found: HeightMeasure | None, geometry: BoardGeometry) -> BoardGeometry:
    """``geometry`` with the height ``found`` (a ``measure_height`` answer), unless there is none, it
    is within ``precision`` (a share) of the one ``geometry`` has, or it is higher by less than
    smaller checkers could explain (``smallest_checkers``)."""
    if found is None:
        return geometry
    ratio = found.height / geometry.height
    if abs(ratio - 1.0) <= config.precision:
        return geometry
    if 1.0 < ratio <= geometry.checker_diameter / config.smallest_checkers:
        return geometry  # as likely smaller checkers
    return replace(geometry, height=round(found.height, 3))


def with_measured_height(
    config: RecognizerConfig,
    frame: NDArray[np.uint8],
    corners: NDArray[np.floating],
    detector: Detector | None = None,
    intrinsics: Intrinsics | None = None,
) -> BoardGeometry:
    """``config.geometry`` with the height as measured in ``frame`` (``measure_height``, read with
    ``config``), or as it is when it cannot be measured there or measures within ``precision``."""
    recognizer = Recognizer(config, checked_corners(corners), detector=detector, intrinsics=intrinsics)
    return with_height(config.height, measure_height(config.height, recognizer, frame), config.geometry)


def with_measured_proportions(
    config: RecognizerConfig,
    frame: NDArray[np.uint8],
    corners: NDArray[np.floating],
    detector: Detector | None = None,
    intrinsics: Intrinsics | None = None,
) -> BoardGeometry:
    """``config.geometry`` with the bar's width and then the height measured in ``frame`` where they
    can be (``with_measured_bar``, ``with_measured_height``)."""
    geometry = with_measured_bar(config.bar, frame, corners, config.geometry)
    return with_measured_height(replace(config, geometry=geometry), frame, corners, detector, intrinsics)
