"""Stage 4 of the board finder -- the playing area inside a quadrilateral.

A candidate quadrilateral is often not the playing area itself but another rectangle of the board:
its outer edge, the frame with the tray, the frame's inner line. Any of them fixes the perspective, so
in its own coordinates (the quadrilateral stretched to the unit square) the playing area is an
axis-aligned rectangle. ``inner_search`` looks for that rectangle by climbing the pattern score from a
few starts: the quadrilateral itself, and the playing area of a board whose outer edge it is (the
board geometry's frame and tray, on either side). The climb is wide enough for boards whose frame and
tray differ from the geometry's.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from nardy.calibration.config import SearchConfig
from nardy.calibration.pattern import PatternScore, model_corners, model_size, view_score
from nardy.vision.geometry import BoardGeometry

F32 = NDArray[np.float32]
F64 = NDArray[np.float64]
Rect = tuple[float, float, float, float]


@dataclass(frozen=True)
class Hypothesis:
    """Image corners (4, 2) (TL, TR, BR, BL) of a possible playing area and its pattern score."""

    corners: F64
    score: PatternScore
    quad: int
    """Index of the candidate quadrilateral it came from."""


def unit_homography(quad: F64) -> F64:
    """3x3 homography from the unit square ((0,0), (1,0), (1,1), (0,1)) to ``quad`` (4, 2)."""
    src = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=np.float32)
    return np.asarray(cv2.getPerspectiveTransform(src, np.asarray(quad, dtype=np.float32)), dtype=np.float64)


def rect_corners(h: F64, rect: Rect) -> F64:
    """Image corners of the unit-space rectangle ``rect`` (x0, y0, x1, y1) under ``h``."""
    x0, y0, x1, y1 = rect
    pts = np.array([[x0, y0, 1], [x1, y0, 1], [x1, y1, 1], [x0, y1, 1]], dtype=np.float64) @ h.T
    return np.asarray(pts[:, :2] / pts[:, 2:3], dtype=np.float64)


def starts(geometry: BoardGeometry) -> list[Rect]:
    """Where to start looking, in the quadrilateral's unit coordinates."""
    out: list[Rect] = [(0.0, 0.0, 1.0, 1.0)]
    ox0, oy0, ox1, oy1 = geometry.outer_rect()
    w, h = ox1 - ox0, oy1 - oy0
    right = ((0.0 - ox0) / w, (0.0 - oy0) / h, (1.0 - ox0) / w, (geometry.height - oy0) / h)
    out.append(right)
    out.append((1.0 - right[2], right[1], 1.0 - right[0], right[3]))
    f = geometry.frame_width
    out.append(
        (
            f / (1 + 2 * f),
            f / (geometry.height + 2 * f),
            (1 + f) / (1 + 2 * f),
            (geometry.height + f) / (geometry.height + 2 * f),
        )
    )
    return out


class QuadView:
    """One candidate quadrilateral seen straight on: scores rectangles in its unit coordinates."""

    def __init__(self, config: SearchConfig, lab: F32, quad: F64, geometry: BoardGeometry) -> None:
        self.config = config
        self.geometry = geometry
        self.h = unit_homography(quad)
        e, n = config.extend, config.view_px
        self.scale = n / (1.0 + 2.0 * e)
        # view pixel (u, v) <-> unit coordinates ((u + 0.5) / scale - e, ...)
        to_unit = np.array(
            [
                [1.0 / self.scale, 0, 0.5 / self.scale - e],
                [0, 1.0 / self.scale, 0.5 / self.scale - e],
                [0, 0, 1],
            ]
        )
        m = self.h @ to_unit
        self.view = np.asarray(
            cv2.warpPerspective(
                lab, m, (n, n), flags=cv2.INTER_AREA | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE
            ),
            dtype=np.float32,
        )
        self.size = model_size(geometry, config.pattern)

    def score(self, rect: Rect) -> PatternScore:
        x0, y0, x1, y1 = rect
        w, h = self.size
        e, s = self.config.extend, self.scale
        g = self.geometry
        mc = model_corners(g, self.config.pattern)
        ppu = mc[1, 0] - mc[0, 0]  # model pixels per board unit
        off = mc[0, 0]
        # model pixel centre (px + 0.5) -> board (bx, by) -> unit rect -> view pixel centre
        sx = (x1 - x0) / ppu * s
        sy = (y1 - y0) / (ppu * g.height) * s
        tx = (x0 + e) * s + (0.5 - off) * sx - 0.5
        ty = (y0 + e) * s + (0.5 - off) * sy - 0.5
        m = np.array([[sx, 0, tx], [0, sy, ty]], dtype=np.float64)
        crop = cv2.warpAffine(
            self.view,
            m,
            (w, h),
            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
            borderMode=cv2.BORDER_REPLICATE,
        )
        return view_score(self.config.pattern, np.asarray(crop, dtype=np.float32), self.geometry)

    def climb(self, rect: Rect) -> tuple[Rect, PatternScore]:
        """Coordinate ascent of the pattern score from ``rect``."""
        cfg = self.config
        best = rect
        best_score = self.score(best)
        for step, reach in cfg.schedule:
            for coord in range(4):
                for k in range(-reach, reach + 1):
                    if k == 0:
                        continue
                    cand = list(best)
                    cand[coord] += k * step
                    r = (cand[0], cand[1], cand[2], cand[3])
                    if r[2] - r[0] < cfg.min_size or r[3] - r[1] < cfg.min_size:
                        continue
                    sc = self.score(r)
                    if sc.score > best_score.score:
                        best, best_score = r, sc
        return best, best_score


def inner_search(
    config: SearchConfig, lab: F32, quads: list[F64], geometry: BoardGeometry
) -> list[Hypothesis]:
    """The best playing areas found inside the candidate ``quads`` (each (4, 2) clockwise), best first.

    Both ways of reading each quadrilateral (which pair of sides is the long one) are tried; the few
    best starting rectangles over all candidates are climbed.
    """
    seeds: list[tuple[float, int, int, Rect]] = []
    views: dict[tuple[int, int], QuadView] = {}
    for qi, quad in enumerate(quads):
        for roll in (0, 1):
            view = QuadView(config, lab, np.roll(quad, -roll, axis=0), geometry)
            views[qi, roll] = view
            for rect in starts(geometry):
                seeds.append((view.score(rect).score, qi, roll, rect))
    seeds.sort(key=lambda s: -s[0])
    out: list[Hypothesis] = []
    for _, qi, roll, rect in seeds[: config.climbs]:
        view = views[qi, roll]
        best, sc = view.climb(rect)
        out.append(Hypothesis(rect_corners(view.h, best), sc, qi))
    out.sort(key=lambda hyp: -hyp.score.score)
    return out
