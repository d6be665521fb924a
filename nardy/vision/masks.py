"""Where things are on the rectified board: the regions an empty board is made of, and the columns
the points stand in. Computed once per geometry and rectified size (``board_masks``)."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from nardy.vision.geometry import POINTS_PER_ROW, ROWS, BoardGeometry

FIELD, POINT0, POINT1, EDGE, BAR, OUTSIDE = 0, 1, 2, 3, 4, 5
BAR_PLACE = 2 * POINTS_PER_ROW


@dataclass(frozen=True)
class BoardMasks:
    """Regions of the rectified playing area, all (h, w) arrays at ``px_per_unit``."""

    region: NDArray[np.int8]
    """FIELD, POINT0 / POINT1 (inside a point of either colour, away from its edges), EDGE (within
    ``edge_margin`` of a point's outline: either look is expected there), BAR, or OUTSIDE (the frame,
    seen past the board's edge from an oblique camera)."""
    edge_parity: NDArray[np.int8]
    """For EDGE pixels, the colour (0 / 1) of the point they border."""
    band: NDArray[np.bool_]
    """The field between the two rows of point tips (rarely covered by checkers)."""
    tips: tuple[NDArray[np.bool_], NDArray[np.bool_]]
    """Inner tip halves of the points of colour 0 and 1 (rarely covered)."""
    seed_index: dict[int, tuple[NDArray[np.intp], ...]]
    """(ys, xs) of the pixels each region's look is learnt from (band, tips, bar), thinned out."""
    seed_flat: dict[int, NDArray[np.intp]]
    """The same pixels as indices into the flattened (h * w) view."""
    edge_index: tuple[NDArray[np.intp], ...]
    """(ys, xs) of all EDGE pixels."""
    edge_flat: NDArray[np.intp]
    """(n,) the same EDGE pixels as indices into the flattened (h * w) view."""
    edge_alternate3: NDArray[np.uint8]
    """(n, 1, 3) ``alternate3`` at those pixels (the region of the point each borders)."""
    region_index: NDArray[np.intp]
    """``region`` as an index array."""
    region3: NDArray[np.uint8]
    """``region`` as (h, w, 3) uint8 (for lookups of a colour per region)."""
    alternate3: NDArray[np.uint8]
    """As ``region3``, but EDGE pixels take the region of the point they border."""
    edge: NDArray[np.bool_]
    """``region == EDGE``."""
    outside: NDArray[np.bool_]
    """``region == OUTSIDE``."""
    inside_weight: NDArray[np.float32]
    """1 on the playing area, 0 on the frame seen past its edge and on that edge itself."""
    column_x: NDArray[np.float64]
    """(12,) x pixel of each column's centre line (index 0 = leftmost)."""
    place: NDArray[np.int8]
    """Which place each pixel's reading belongs to: 0..11 the top row's points (from the left),
    12..23 the bottom row's, ``BAR_PLACE`` the bar, -1 none; a point's place is its column (half a
    point width either side of its centre line) in its half of the board."""
    bar_x: float
    px_per_unit: float
    size: tuple[int, int]
    area_x: tuple[int, int]
    """View x of the playing area's left and right edges (the view may show a strip beyond each)."""


def board_masks(
    geometry: BoardGeometry,
    px_per_unit: float,
    size: tuple[int, int],
    edge_margin: float,
    surface: NDArray[np.float32] | None = None,
    left: int = 0,
) -> BoardMasks:
    """Masks for a rectified view of ``size`` (w, h); ``edge_margin`` in point widths.

    ``surface`` (h, w, 2): the board-surface (x, y) seen at each rectified pixel (see
    ``RectifyMaps.surface``); the regions of the board's surface are drawn through it. ``left``: the
    view's x of the playing area's left edge (``RectifyMaps.left``).
    """
    w, h = size
    s = px_per_unit
    inside = [np.zeros((h, w), np.uint8), np.zeros((h, w), np.uint8)]
    tips = [np.zeros((h, w), np.uint8), np.zeros((h, w), np.uint8)]
    outline = np.zeros((h, w), np.uint8)
    margin_px = max(1, int(round(edge_margin * geometry.point_width * s)))
    for row in ROWS:
        for i in range(POINTS_PER_ROW):
            tri = geometry.triangle(row, i) * s + [left, 0.0]
            parity = i % 2 if row == "top" else (i + 1) % 2
            pts = np.round(tri * 16).astype(np.int32)
            cv2.fillPoly(inside[parity], [pts], 1, cv2.LINE_8, 4)
            cv2.polylines(outline, [pts], True, 1, 2 * margin_px + 1, cv2.LINE_8, 4)
            base, tip = tri[:2].mean(axis=0), tri[2]
            inner = np.array(
                [
                    base + (tip - base) * 0.45 + [-0.2 * geometry.point_width * s, 0],
                    base + (tip - base) * 0.45 + [0.2 * geometry.point_width * s, 0],
                    base + (tip - base) * 0.85,
                ]
            )
            cv2.fillPoly(tips[parity], [np.round(inner * 16).astype(np.int32)], 1, cv2.LINE_8, 4)

    def through(m: NDArray[np.uint8]) -> NDArray[np.uint8]:
        if surface is None:
            return m
        sx = np.asarray(surface[:, :, 0] * s - 0.5 + left, np.float32)
        sy = np.asarray(surface[:, :, 1] * s - 0.5, np.float32)
        return np.asarray(cv2.remap(m, sx, sy, cv2.INTER_NEAREST, borderMode=cv2.BORDER_REPLICATE), np.uint8)

    inside = [through(m) for m in inside]
    tips = [through(m) for m in tips]
    outline = through(outline)
    region = np.full((h, w), FIELD, np.int8)
    region[inside[0] > 0] = POINT0
    region[inside[1] > 0] = POINT1
    edge = outline > 0
    region[edge] = EDGE
    # which colour an edge pixel borders: the nearest point interior
    near0 = cv2.distanceTransform((inside[0] == 0).astype(np.uint8), cv2.DIST_L2, 3)
    near1 = cv2.distanceTransform((inside[1] == 0).astype(np.uint8), cv2.DIST_L2, 3)
    edge_parity = (near1 < near0).astype(np.int8)
    bar = np.zeros((h, w), np.uint8)
    bar[
        :,
        left + int(round(geometry.half_width * s)) : left
        + int(round((geometry.half_width + geometry.bar_width) * s)),
    ] = 1
    region[through(bar) > 0] = BAR
    if surface is not None:
        out = (
            (surface[:, :, 0] < 0)
            | (surface[:, :, 0] > 1)
            | (surface[:, :, 1] < 0)
            | (surface[:, :, 1] > geometry.height)
        )
        region[out] = OUTSIDE
    band = np.zeros((h, w), bool)
    y0 = int(np.ceil(geometry.point_len * s)) + margin_px
    y1 = int(np.floor((geometry.height - geometry.point_len) * s)) - margin_px
    if y1 > y0:
        band[y0:y1] = region[y0:y1] == FIELD
    cols = np.array([geometry.point_x(i) * s + left for i in range(POINTS_PER_ROW)])
    thin = np.zeros((h, w), bool)
    thin[::2, ::2] = True
    seeds = {
        FIELD: band & thin,
        POINT0: (tips[0] > 0) & (region == POINT0),
        POINT1: (tips[1] > 0) & (region == POINT1),
        BAR: (region == BAR) & thin,
    }
    seed_index = {t: np.nonzero(m) for t, m in seeds.items() if m.sum() >= 8}
    is_edge = region == EDGE
    alternate = region.astype(np.uint8)
    alternate[is_edge] = np.where(edge_parity[is_edge] == 1, POINT1, POINT0)
    place = np.full((h, w), -1, np.int8)
    xs = np.arange(w) + 0.5
    half = 0.5 * geometry.point_width * s
    for i, cx in enumerate(cols):
        in_column = np.abs(xs - cx) < half
        place[: h // 2, in_column] = i
        place[h // 2 :, in_column] = POINTS_PER_ROW + i
    bar_x0 = geometry.half_width * s + left
    bar_x1 = (geometry.half_width + geometry.bar_width) * s + left
    place[:, (xs >= bar_x0) & (xs < bar_x1)] = BAR_PLACE
    edge_index = np.nonzero(is_edge)
    outside = (region == OUTSIDE).astype(np.uint8)
    near = cv2.dilate(outside, np.ones((5, 5), np.uint8)) if outside.any() else outside
    inside_weight = (1 - near).astype(np.float32)
    return BoardMasks(
        region,
        edge_parity,
        band,
        (tips[0] > 0, tips[1] > 0),
        seed_index,
        {t: np.ravel_multi_index(ix, (h, w)).astype(np.intp) for t, ix in seed_index.items()},
        edge_index,
        np.ravel_multi_index(edge_index, (h, w)).astype(np.intp),
        np.ascontiguousarray(np.repeat(alternate[edge_index], 3).reshape(-1, 1, 3)),
        region.astype(np.intp),
        np.asarray(cv2.merge([region.astype(np.uint8)] * 3), dtype=np.uint8),
        np.asarray(cv2.merge([alternate] * 3), dtype=np.uint8),
        is_edge,
        region == OUTSIDE,
        inside_weight,
        cols,
        place,
        geometry.bar_x * s + left,
        s,
        size,
        (left, w - left),
    )
