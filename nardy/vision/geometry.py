"""Board geometry shared by the renderer, the recognizer and calibration.

Board coordinates
-----------------
All lengths are in units of the *playing-area width*: the playing area (the two halves with the bar
between them, inside the frame, bear-off trays excluded) spans ``x`` in ``[0, 1]`` from its left edge
to its right edge and ``y`` in ``[0, height]`` from its top edge down to its bottom edge. ``z`` points
*into* the board, so things standing on it (checkers, dice, a hand) have negative ``z``; with ``x``
right and ``y`` down this is a right-handed frame, the same handedness as an OpenCV camera.

"Top" and "bottom" are the board's own edges as named by the corners (top-left, top-right,
bottom-right, bottom-left), not where they happen to fall in a photo. The top row holds the 12 points
whose bases lie on the top edge, indexed 0..11 from the top-left; the bottom row the 12 whose bases
lie on the bottom edge, indexed 0..11 from the bottom-left. Index ``i`` of both rows therefore lies in
the same column.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import NDArray

Row = Literal["top", "bottom"]
ROWS: tuple[Row, Row] = ("top", "bottom")
POINTS_PER_ROW = 12
POINTS_PER_QUARTER = 6


@dataclass(frozen=True)
class BoardGeometry:
    """Proportions of a nardy / backgammon board, as fractions of its playing area.

    The defaults describe a common tournament board (five checkers fit on a point, the bar about one
    checker wide); long nardy boards have nearly the same proportions.
    """

    height: float = 0.80
    """Playing-area height divided by its width."""
    bar_width: float = 0.085
    """Width of the bar between the two halves, as a fraction of the playing-area width."""
    point_length: float = 0.45
    """Length of a point (base to tip), as a fraction of the playing-area height."""
    checker_diameter: float = 0.94
    """Checker diameter as a fraction of the point width."""
    checker_thickness: float = 0.22
    """Checker thickness as a fraction of the point width."""
    frame_width: float = 0.035
    """Width of the frame around the playing area and the tray, as a fraction of the playing width."""
    tray_gap: float = 0.035
    """Width of the frame strip between the playing area and the tray, fraction of the playing width."""
    tray_width: float = 0.075
    """Width of the bear-off tray, as a fraction of the playing-area width (0: no tray)."""
    tray_side: Literal["left", "right"] = "right"
    """Which side of the playing area the bear-off tray is on."""

    def __post_init__(self) -> None:
        if not 0.3 <= self.height <= 2.0:
            raise ValueError(f"board height/width ratio {self.height} is outside 0.3..2")
        if not 0.0 <= self.bar_width < 0.5:
            raise ValueError(f"bar width {self.bar_width} must be in [0, 0.5)")
        if not 0.1 <= self.point_length <= 0.5:
            raise ValueError(f"point length {self.point_length} must be in [0.1, 0.5]")

    # -- derived lengths -------------------------------------------------------------------------
    @property
    def half_width(self) -> float:
        """Width of one half (six points) of the playing area."""
        return (1.0 - self.bar_width) / 2.0

    @property
    def point_width(self) -> float:
        """Width of one point's base, in board units."""
        return self.half_width / POINTS_PER_QUARTER

    @property
    def checker_radius(self) -> float:
        """Checker radius in board units."""
        return 0.5 * self.checker_diameter * self.point_width

    @property
    def checker_height(self) -> float:
        """Checker thickness in board units."""
        return self.checker_thickness * self.point_width

    @property
    def point_len(self) -> float:
        """Point length (base to tip) in board units."""
        return self.point_length * self.height

    @property
    def line_capacity(self) -> int:
        """How many touching checkers fit in one line from a point's base to its tip."""
        return max(1, int(self.point_len / (2.0 * self.checker_radius) + 0.15))

    # -- points ------------------------------------------------------------------------------------
    def point_x(self, index: int) -> float:
        """x of the centre line of point ``index`` (0..11) of either row."""
        if not 0 <= index < POINTS_PER_ROW:
            raise ValueError(f"point index {index} outside 0..11")
        if index < POINTS_PER_QUARTER:
            return (index + 0.5) * self.point_width
        return self.half_width + self.bar_width + (index - POINTS_PER_QUARTER + 0.5) * self.point_width

    def base_y(self, row: Row) -> float:
        """y of the edge on which the points of ``row`` stand."""
        return 0.0 if row == "top" else self.height

    def direction(self, row: Row) -> float:
        """+1 if the points of ``row`` run downwards (towards larger y) from their base, else -1."""
        return 1.0 if row == "top" else -1.0

    def triangle(self, row: Row, index: int) -> NDArray[np.float64]:
        """The three corners of a point: (3, 2) float64 board (x, y): base-left, base-right, tip."""
        x = self.point_x(index)
        half = 0.5 * self.point_width
        y0 = self.base_y(row)
        tip = y0 + self.direction(row) * self.point_len
        return np.array([[x - half, y0], [x + half, y0], [x, tip]], dtype=np.float64)

    def slot(self, row: Row, index: int, k: float) -> tuple[float, float]:
        """Board (x, y) of the ``k``-th checker (0 = at the base) of a straight line on a point.

        ``k`` may be fractional (half-offset second layers) and may exceed the line capacity (a line
        that runs past the point's tip towards the middle of the board).
        """
        y = self.base_y(row) + self.direction(row) * (k + 0.5) * 2.0 * self.checker_radius
        return self.point_x(index), y

    # -- bar, trays, outline --------------------------------------------------------------------------
    @property
    def bar_x(self) -> float:
        """x of the bar's centre line."""
        return self.half_width + 0.5 * self.bar_width

    def tray_rect(self) -> tuple[float, float, float, float]:
        """The bear-off tray as (x0, y0, x1, y1) in board units (both colours share it: top half, bottom
        half)."""
        if self.tray_side == "right":
            x0 = 1.0 + self.tray_gap
        else:
            x0 = -self.tray_gap - self.tray_width
        return x0, 0.0, x0 + self.tray_width, self.height

    def outer_rect(self) -> tuple[float, float, float, float]:
        """The whole board including frame and tray, as (x0, y0, x1, y1) in board units."""
        f = self.frame_width
        x0, x1 = -f, 1.0 + f
        if self.tray_width > 0:
            t0, _, t1, _ = self.tray_rect()
            x0, x1 = min(x0, t0 - f), max(x1, t1 + f)
        return x0, -f, x1, self.height + f

    def corners(self) -> NDArray[np.float64]:
        """The playing area's corners (4, 2) float64 in board units: top-left, top-right, bottom-right,
        bottom-left -- the order ``corners`` take everywhere in nardy."""
        return np.array([[0.0, 0.0], [1.0, 0.0], [1.0, self.height], [0.0, self.height]], dtype=np.float64)


def checked_corners(corners: NDArray[np.floating] | object, min_area: float = 0.0) -> NDArray[np.float64]:
    """``corners`` as a (4, 2) float64 array of the playing area's top-left, top-right, bottom-right
    and bottom-left corners in the image -- or ValueError, saying what is wrong, when they are not
    four finite points making a convex quadrilateral of more than ``min_area`` square pixels in that
    order round (either way round: a mirrored camera's picture turns it)."""
    try:
        c = np.asarray(corners, dtype=np.float64).reshape(4, 2)
    except (TypeError, ValueError):
        raise ValueError(
            "the corners must be four x,y points (top-left, top-right, bottom-right, bottom-left)"
        ) from None
    if not np.all(np.isfinite(c)):
        raise ValueError("the corners must be finite numbers")
    edges = np.roll(c, -1, axis=0) - c
    turns = edges[:, 0] * np.roll(edges, -1, axis=0)[:, 1] - edges[:, 1] * np.roll(edges, -1, axis=0)[:, 0]
    area = 0.5 * abs(float(np.sum(c[:, 0] * np.roll(c[:, 1], -1) - np.roll(c[:, 0], -1) * c[:, 1])))
    if area <= min_area or not (np.all(turns > 0) or np.all(turns < 0)):
        pts = " ".join(f"{x:g},{y:g}" for x, y in c)
        raise ValueError(
            f"the corners {pts} do not go round the playing area: give its top-left, top-right, "
            "bottom-right and bottom-left corners in that order, making a four-sided shape"
        )
    return c


def homography_to_image(geometry: BoardGeometry, corners: NDArray[np.floating]) -> NDArray[np.float64]:
    """The 3x3 homography taking board (x, y) to image pixels, given the playing area's image corners.

    ``corners``: (4, 2) image (x, y) of top-left, top-right, bottom-right, bottom-left.
    """
    src = geometry.corners()
    dst = np.asarray(corners, dtype=np.float64).reshape(4, 2)
    a = []
    for (x, y), (u, v) in zip(src, dst, strict=True):
        a.append([x, y, 1, 0, 0, 0, -u * x, -u * y, -u])
        a.append([0, 0, 0, x, y, 1, -v * x, -v * y, -v])
    _, _, vt = np.linalg.svd(np.asarray(a, dtype=np.float64))
    h = vt[-1].reshape(3, 3)
    return np.asarray(h / h[2, 2], dtype=np.float64)


def apply_homography(h: NDArray[np.float64], points: NDArray[np.floating]) -> NDArray[np.float64]:
    """Map (N, 2) points through the 3x3 homography ``h``; returns (N, 2) float64."""
    p = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    q = p @ h[:, :2].T + h[:, 2]
    return np.asarray(q[:, :2] / q[:, 2:3], dtype=np.float64)
