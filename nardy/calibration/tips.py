"""Where the points end: a check of the long sides from the points' tips.

A long side placed on the top of a row of checkers (or on the frame's outer edge) still has the
points' alternating colours inside it and a straight edge along it, and the points' sides barely
move with it (the points are slender). But it changes the height the corners imply, and with it
where the model puts the points' tips: along each point's axis the point's colour gives way to the
field's at a fraction of the playing area's height that is the same for both rows. With one long
side wrong by a checker's width, one row's tips come out beyond the model's and the other row's
short of them.

``row_tips`` measures, for each row, where its points end, in units of the model's point length
(1 where ``BoardGeometry`` puts the tips); ``tip_misfit`` is how far the two rows disagree (a board
whose points are all shorter or longer than the model's moves both rows alike, so it does not count).
"""

from __future__ import annotations

import math

import cv2
import numpy as np
from numpy.typing import NDArray

from nardy.calibration.refine import Lens, _project, board_homography
from nardy.vision.geometry import POINTS_PER_ROW, ROWS, BoardGeometry

F32 = NDArray[np.float32]
F64 = NDArray[np.float64]

SPAN = (0.55, 1.45)
"""Stretch of each point's axis that is read (fractions of the model's point length from the base)."""
STEPS = 73
MIN_CONTRAST = 15.0
"""A point whose colour is within this of the field's (Lab units) cannot show where it ends."""
MAX_COLOUR = 45.0
"""A sample further than this from both the point's and the field's colour is covered (a checker,
a die, a hand) and not read."""
MIN_READ = 0.5
"""Least fraction of a point's samples that must be read for the point to count."""


def row_tips(
    lab: F32, corners: F64, geometry: BoardGeometry, colours: F64, lens: Lens | None = None
) -> tuple[float, float]:
    """Where the top and the bottom row's points end along their axes (the median over the points of
    each row that show it), in units of the model's point length; NaN for a row none of whose
    points shows it.

    ``lab``: the image in Lab; ``corners`` (4, 2): the playing area's corners in it, as seen through
    ``lens`` (default: none); ``colours`` (3, 3): the even points', the odd points' and the field's
    colours (``pattern.PatternScore.colours``).
    """
    hh, ww = lab.shape[:2]
    lens = lens or Lens((ww / 2.0, hh / 2.0), 0.5 * math.hypot(ww, hh))
    h = board_homography(geometry, lens.undistort(np.asarray(corners, dtype=np.float64).reshape(4, 2)))
    s = np.linspace(*SPAN, STEPS)
    field = np.asarray(colours[2], dtype=np.float64)
    out = []
    for row in ROWS:
        axes = []
        owns = []
        for i in range(POINTS_PER_ROW):
            tri = geometry.triangle(row, i)
            base = (tri[0] + tri[1]) / 2
            axes.append(base[None, :] + s[:, None] * (tri[2] - base)[None, :])
            owns.append(colours[i % 2 if row == "top" else (i + 1) % 2])
        pts = _project(h, np.concatenate(axes), lens).astype(np.float32)
        samples = cv2.remap(
            lab, pts[:, 0:1], pts[:, 1:2], cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0.0
        ).reshape(POINTS_PER_ROW, STEPS, 3)
        ends = []
        for own, col in zip(owns, samples.astype(np.float64), strict=True):
            own = np.asarray(own, dtype=np.float64)
            if np.linalg.norm(own - field) < MIN_CONTRAST:
                continue
            d_own = np.linalg.norm(col - own, axis=1)
            d_field = np.linalg.norm(col - field, axis=1)
            read = np.minimum(d_own, d_field) <= MAX_COLOUR
            if np.mean(read) < MIN_READ:
                continue
            vote = np.where(read, np.where(d_own < d_field, 1.0, -1.0), 0.0)
            # the end is where "the point's colour before, the field's after" holds best
            before = np.concatenate([[0.0], np.cumsum(vote)])
            after = np.concatenate([np.cumsum(vote[::-1])[::-1], [0.0]])
            k = int(np.argmax(before - after))
            if 0 < k < STEPS:
                ends.append(0.5 * (s[k - 1] + s[k]))
        out.append(float(np.median(ends)) if ends else float("nan"))
    return out[0], out[1]


def tip_misfit(tips: tuple[float, float]) -> float:
    """How far the two rows' tips (``row_tips``) disagree: ``|log(top / bottom)|``, 0 when a row shows
    none."""
    top, bottom = tips
    if not (math.isfinite(top) and math.isfinite(bottom)) or top <= 0 or bottom <= 0:
        return 0.0
    return abs(math.log(top / bottom))
