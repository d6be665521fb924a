"""Stage 3 of the board finder -- does a quadrilateral look like a board's playing area?

The cue is what every nardy / backgammon board has, whatever its material: 12 points along each long
side whose colours alternate, the field between them, and the bar in the middle. Given candidate
corners, the frame is warped to a top-down view of the playing area and compared with that pattern:

- ``alternation``: how well the two point colours (even and odd index) separate from each other,
- ``field``: how well the better of the two separates from the field between the points,

each the fraction of pixels closer to their own region's colour than to the other's, over the regions
shrunk away from their outlines. Checkers, dice and glare cover parts of the regions; medians keep
them from moving the colours and they only lower the fractions a little. A quadrilateral shifted by
half a point mixes the two point colours and scores near one half: the score is sharp.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from nardy.calibration.config import PatternConfig
from nardy.vision.geometry import POINTS_PER_ROW, ROWS, BoardGeometry

F32 = NDArray[np.float32]
F64 = NDArray[np.float64]

# region labels of the model view
_EVEN, _ODD, _FIELD, _OUT_EVEN, _OUT_ODD = 1, 2, 3, 4, 5


@dataclass(frozen=True)
class PatternScore:
    """How board-like a quadrilateral is."""

    score: float
    """Combined agreement, about 0.5 for no board and near 1 for a clear board."""
    alternation: float
    """Agreement of the even and odd points with their own colours (0..1)."""
    field: float
    """Agreement of the points and the field (0..1)."""
    outside: float
    """Agreement of the band just outside the long sides with the points' alternation (about 0.5
    when the band is the frame, as it should be; high when the quadrilateral cuts the points)."""
    contrast: float
    """Lab distance between the even and the odd points' colours."""
    colours: tuple[F64, F64, F64]
    """Median Lab colours of the even points, the odd points and the field."""


def _to_px(config: PatternConfig, geometry: BoardGeometry) -> tuple[float, float]:
    """(scale, offset): model pixel = board unit * scale + offset (the view has a margin all round)."""
    s = float(config.px_per_unit)
    return s, config.frame_band * s


def model_size(geometry: BoardGeometry, config: PatternConfig) -> tuple[int, int]:
    """(width, height) of the model view: the playing area and a ``frame_band`` margin all round."""
    s, off = _to_px(config, geometry)
    return int(round(s + 2 * off)), int(round(s * geometry.height + 2 * off))


def model_corners(geometry: BoardGeometry, config: PatternConfig) -> F64:
    """The playing area's corners (TL, TR, BR, BL) in model-view pixels."""
    s, off = _to_px(config, geometry)
    return np.asarray(geometry.corners() * s + off, dtype=np.float64)


@functools.lru_cache(maxsize=8)
def model_labels(geometry: BoardGeometry, config: PatternConfig) -> NDArray[np.uint8]:
    """The top-down model of a playing area: (h, w) uint8 region labels (0: not used), at
    ``config.px_per_unit`` pixels per board unit with a ``frame_band`` margin all round.

    The point regions are shrunk from their slanted sides only (not from the base, where the
    playing area's edge is), the field between them from all sides; the outside band along each long
    side is split like the points it borders.
    """
    s, off = _to_px(config, geometry)
    w, h = model_size(geometry, config)
    even = np.zeros((h, w), np.uint8)
    odd = np.zeros((h, w), np.uint8)
    band = np.zeros((h, w), np.uint8)
    out_even = np.zeros((h, w), np.uint8)
    out_odd = np.zeros((h, w), np.uint8)
    scale = 16.0 * s

    def px(points: F64) -> NDArray[np.int32]:
        return np.asarray(np.round((points * s + off) * 16.0), dtype=np.int32)

    gap = config.inset * geometry.point_width
    for row in ROWS:
        base = geometry.base_y(row)
        outward = -geometry.direction(row)
        for i in range(POINTS_PER_ROW):
            tri = geometry.triangle(row, i)
            parity = i % 2 if row == "top" else (i + 1) % 2
            cv2.fillPoly(even if parity == 0 else odd, [px(tri)], 1, cv2.LINE_8, 4)
            x0, x1 = tri[0, 0] + gap, tri[1, 0] - gap
            y0, y1 = base + outward * gap, base + outward * config.frame_band
            rect = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
            cv2.fillPoly(out_even if parity == 0 else out_odd, [px(rect)], 1, cv2.LINE_8, 4)
        y0, y1 = sorted((base, base + geometry.direction(row) * geometry.point_len))
        for x0, x1 in ((0.0, geometry.half_width), (geometry.half_width + geometry.bar_width, 1.0)):
            rect = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
            cv2.fillPoly(band, [px(rect)], 1, cv2.LINE_8, 4)
    del scale
    inset = max(1, int(round(gap * s)))
    round_kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * inset + 1, 2 * inset + 1))
    side_kernel = np.ones((1, 2 * inset + 1), np.uint8)
    field = band & (1 - even) & (1 - odd)
    labels = np.zeros((h, w), np.uint8)
    labels[cv2.erode(even, side_kernel) > 0] = _EVEN
    labels[cv2.erode(odd, side_kernel) > 0] = _ODD
    labels[cv2.erode(field, round_kernel) > 0] = _FIELD
    labels[out_even > 0] = _OUT_EVEN
    labels[out_odd > 0] = _OUT_ODD
    return labels


def warp_to_model(lab: F32, corners: F64, geometry: BoardGeometry, config: PatternConfig) -> F32:
    """The frame's playing area seen from above: ``lab`` (H, W, 3) float32 and ``corners`` (4, 2) (TL, TR,
    BR, BL, pixels of ``lab``) -> (h, w, 3) float32 model view (with its margin)."""
    w, h = model_size(geometry, config)
    src = model_corners(geometry, config).astype(np.float32)
    m = cv2.getPerspectiveTransform(src, np.asarray(corners, dtype=np.float32))
    out = cv2.warpPerspective(
        lab, m, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE
    )
    return np.asarray(out, dtype=np.float32)


def _agreement(a: F64, b: F64) -> tuple[float, float, F64, F64]:
    """Fraction of the samples ``a`` (N, 3) and ``b`` (M, 3) nearer their own median than the other's
    (mean of the two fractions), the distance between the medians, and the medians."""
    ma, mb = np.median(a, axis=0), np.median(b, axis=0)
    axis = mb - ma
    dist = float(np.linalg.norm(axis))
    if dist < 1e-6:
        return 0.5, 0.0, ma, mb
    mid = (ma + mb) / 2
    pa = (a - mid) @ axis
    pb = (b - mid) @ axis
    return 0.5 * (float(np.mean(pa < 0)) + float(np.mean(pb > 0))), dist, ma, mb


def _against(a: F64, b: F64, ma: F64, mb: F64) -> float:
    """Fraction of ``a`` nearer ``ma`` than ``mb`` and of ``b`` nearer ``mb`` (mean of both)."""
    axis = mb - ma
    if float(np.linalg.norm(axis)) < 1e-6 or len(a) == 0 or len(b) == 0:
        return 0.5
    mid = (ma + mb) / 2
    return 0.5 * (float(np.mean((a - mid) @ axis < 0)) + float(np.mean((b - mid) @ axis > 0)))


def pattern_score(config: PatternConfig, lab: F32, corners: F64, geometry: BoardGeometry) -> PatternScore:
    """How well the frame ``lab`` (H, W, 3) float32 Lab shows a playing area at ``corners`` (4, 2) (TL,
    TR, BR, BL)."""
    return view_score(config, warp_to_model(lab, corners, geometry, config), geometry)


def view_score(config: PatternConfig, view_image: F32, geometry: BoardGeometry) -> PatternScore:
    """``pattern_score`` of a top-down view (h, w, 3) float32 Lab already at the model's size."""
    labels = model_labels(geometry, config)
    view = view_image.reshape(-1, 3).astype(np.float64)
    flat = labels.reshape(-1)
    even, odd, field = view[flat == _EVEN], view[flat == _ODD], view[flat == _FIELD]
    alt, contrast, m_even, m_odd = _agreement(even, odd)
    outside = _against(view[flat == _OUT_EVEN], view[flat == _OUT_ODD], m_even, m_odd)
    if contrast < config.min_contrast:
        alt = 0.5 + (alt - 0.5) * contrast / config.min_contrast
    f_even, c_even, _, m_field = _agreement(even, field)
    f_odd, c_odd, _, _ = _agreement(odd, field)
    fld = max(
        f_even if c_even >= config.min_contrast else 0.5, f_odd if c_odd >= config.min_contrast else 0.5
    )
    weight = min(1.0, contrast / config.contrast_scale)
    score = 0.5 + (0.65 * (alt - 0.5) + 0.35 * (fld - 0.5)) * (0.5 + 0.5 * weight)
    score -= config.outside_weight * max(0.0, outside - 0.5) * weight
    return PatternScore(float(score), float(alt), float(fld), outside, contrast, (m_even, m_odd, m_field))
