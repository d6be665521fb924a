"""Stage 3 of the board finder -- the playing area inside a straight-on view, from the points' layout.

A candidate quadrilateral fixes the perspective (it is the board's outline, the frame's inner edge,
the playing area, the tray...: any rectangle of the board will do), so in the view that makes it a
square the playing area is an axis-aligned rectangle ``(x0, y0, x1, y1)``. It is found from what no
clutter imitates, in two one-dimensional fits that use prefix sums, so every rectangle is tried:

- **columns** (``fit_columns``): in a band of rows across the top points and one across the bottom
  points, the 12 columns of each row alternate between two colours and each column's top and bottom
  are of opposite colours; the bar between the halves and the frame beyond the ends continue neither
  pattern. The colours are not known beforehand: they are each candidate's own medians, so
  checkers (which cover whole columns in the start position) only lower the score.
- **rows** (``fit_rows``): given the columns, each row's agreement with the top row's colours
  (``row_signal``) is +1 across the top points' bases, falls to 0 at their tips, stays 0 across the
  field and the frame and is -1 across the bottom points; the rows where it starts and ends are the
  long sides.

Both fits run on a coarse view of each quadrilateral and give a few proposals each; the finder
decides between them. ``column_profile`` and ``row_signal`` are also used to check a final result.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from nardy.calibration.config import StructureConfig
from nardy.vision.geometry import POINTS_PER_ROW, BoardGeometry

F32 = NDArray[np.float32]
F64 = NDArray[np.float64]

TOP_CLASS = np.arange(POINTS_PER_ROW) % 2
"""Colour class (0 or 1) of the top row's points, by index; the bottom row's are the other class."""
COLUMN_CLASS = np.concatenate([TOP_CLASS, 1 - TOP_CLASS])
"""Classes of the 24 points: the 12 of the top row, then the 12 of the bottom row."""


@dataclass(frozen=True)
class View:
    """A straight-on view of a quadrilateral: ``image`` (n, n, 3) float32 Lab, and ``to_image`` the 3x3
    homography from view coordinates (pixel ``u`` spans ``u..u+1``) to the frame's pixels."""

    image: F32
    to_image: F64

    @functools.cached_property
    def row_prefix(self) -> F64:
        """Prefix sums of ``image`` along x: (n + 1, n, 3), for ``row_signal``."""
        n_rows = self.image.shape[0]
        cum = np.cumsum(self.image.astype(np.float64), axis=1)
        return np.asarray(np.concatenate([np.zeros((n_rows, 1, 3)), cum], axis=1).transpose(1, 0, 2))

    @functools.cached_property
    def step_prefix(self) -> F64:
        """Column prefix sums of the colour change between successive rows: (n - 1, n + 1)."""
        step = np.linalg.norm(np.diff(self.image.astype(np.float64), axis=0), axis=2)
        return _column_prefix(step)

    def lag_prefix(self, lag: int) -> F64:
        """Column prefix sums of the colour change between columns ``lag`` apart: (n, n - lag + 1)."""
        cache: dict[int, F64] = self.__dict__.setdefault("_lag_prefix", {})
        if lag not in cache:
            image = self.image.astype(np.float64)
            cache[lag] = _column_prefix(np.linalg.norm(image[:, lag:] - image[:, :-lag], axis=2))
        return cache[lag]

    def transposed(self) -> View:
        """The same view with its axes swapped (the quadrilateral read the other way round)."""
        swap = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
        return View(np.ascontiguousarray(self.image.transpose(1, 0, 2)), self.to_image @ swap)

    def corners(self, rect: tuple[float, float, float, float]) -> F64:
        """Frame corners (4, 2) (TL, TR, BR, BL) of the view rectangle ``rect`` (x0, y0, x1, y1)."""
        x0, y0, x1, y1 = rect
        pts = np.array([[x0, y0, 1.0], [x1, y0, 1.0], [x1, y1, 1.0], [x0, y1, 1.0]]) @ self.to_image.T
        return np.asarray(pts[:, :2] / pts[:, 2:3], dtype=np.float64)


def quad_view(config: StructureConfig, lab: F32, quad: F64, size: int | None = None) -> View:
    """The view of ``quad`` (4, 2) frame pixels of ``lab`` (H, W, 3) float32, its first side along the
    view's x: ``size`` (default ``config.view_px``) pixels square, the quadrilateral filling it but for
    ``config.extend`` of its size all round."""
    n, e = size or config.view_px, config.extend
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=np.float32)
    h = np.asarray(cv2.getPerspectiveTransform(unit, np.asarray(quad, dtype=np.float32)), dtype=np.float64)
    s = n / (1.0 + 2.0 * e)
    to_unit = np.array([[1.0 / s, 0.0, -e], [0.0, 1.0 / s, -e], [0.0, 0.0, 1.0]])
    centres = np.array([[1.0, 0.0, 0.5], [0.0, 1.0, 0.5], [0.0, 0.0, 1.0]])  # sample at pixel centres
    image = cv2.warpPerspective(
        lab,
        h @ to_unit @ centres,
        (n, n),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    )
    return View(np.asarray(image, dtype=np.float32), h @ to_unit)


def _prefix(values: F64) -> F64:
    """Prefix sums along axis 0 with a leading zero: (n, ...) -> (n + 1, ...)."""
    return np.concatenate([np.zeros((1, *values.shape[1:])), np.cumsum(values, axis=0)], axis=0)


def interval_mean(prefix: F64, a: F64, b: F64) -> F64:
    """Means of a signal over the intervals ``a..b`` (same-shaped arrays of continuous positions; pixel
    ``k`` spans ``k..k+1``), from its ``_prefix`` sums (n + 1, C): shape ``a.shape + (C,)``. Positions
    are clipped to the signal."""
    n = prefix.shape[0] - 1
    a = np.clip(a, 0.0, n - 1e-9)
    b = np.clip(b, 0.0, n - 1e-9)
    ka, kb = a.astype(np.int64), b.astype(np.int64)
    fa, fb = (a - ka)[..., None], (b - kb)[..., None]
    step = np.diff(prefix, axis=0)  # the signal itself
    total = prefix[kb] + fb * step[kb] - prefix[ka] - fa * step[ka]
    return np.asarray(total / np.maximum(b - a, 1e-6)[..., None], dtype=np.float64)


def soft_agreement(colours: F64, own: F64, other: F64) -> F64:
    """How much nearer ``own`` than ``other`` each colour is, in units of half their distance, clipped
    to -1..1 (+1: at ``own`` or beyond, 0: half-way, -1: at ``other``). Arrays broadcast over (..., 3)."""

    def norm(v: F64) -> F64:
        return np.asarray(np.sqrt(np.einsum("...c,...c->...", v, v)), dtype=np.float64)

    span = norm(np.broadcast_to(own - other, np.broadcast_shapes(own.shape, other.shape)))
    gain = norm(colours - other) - norm(colours - own)
    return np.asarray(np.clip(gain / np.maximum(span, 1e-6), -1.0, 1.0), dtype=np.float64)


def column_centres(geometry: BoardGeometry) -> F64:
    """x (board units) of the 12 point columns' centres."""
    return np.array([geometry.point_x(i) for i in range(POINTS_PER_ROW)], dtype=np.float64)


@dataclass(frozen=True)
class ColumnFit:
    """Where the 12 columns are along x in a view, and how well."""

    x0: float
    x1: float
    """The playing area's ends (view pixels)."""
    score: float
    """``agreement - zone_weight * continuation``, scaled down for weak colour contrast."""
    agreement: float
    """Mean soft agreement of the 24 points with their class colours (-1..1)."""
    continuation: float
    """How much the frame beyond the ends and the bar continue the points' pattern (0..1)."""
    colours: tuple[F64, F64]
    """The two classes' median Lab colours (class 0: the top row's even points)."""


def band_colours(image: F32, rows: tuple[float, float]) -> F64:
    """Per column, the median colour of rows ``rows[0]..rows[1]`` (view pixels): (n, 3) float64."""
    n = image.shape[0]
    r0 = int(np.clip(round(rows[0]), 0, n - 1))
    r1 = int(np.clip(round(rows[1]), r0 + 1, n))
    return np.asarray(np.median(image[r0:r1], axis=0), dtype=np.float64)


def row_bands(
    image: F32, geometry: BoardGeometry, y0: float, y1: float, band: tuple[float, float]
) -> tuple[F64, F64]:
    """``band_colours`` of the top and the bottom row of points, with the long sides at view rows ``y0``
    and ``y1``: across ``band`` (fractions of the point length from the base)."""
    length = geometry.point_length * (y1 - y0)
    p0, p1 = band
    return (
        band_colours(image, (y0 + p0 * length, y0 + p1 * length)),
        band_colours(image, (y1 - p1 * length, y1 - p0 * length)),
    )


def _column_scores(
    config: StructureConfig,
    geometry: BoardGeometry,
    top: F64,
    bottom: F64,
    x0: F64,
    x1: F64,
    centre: float | None = None,
) -> tuple[F64, F64, F64, F64, F64]:
    """Scores of the candidate ends ``x0``, ``x1`` (K,): (score, agreement, continuation, class 0 and
    class 1 colours (K, 3)). Each column's colour is read from ``centre`` (default ``config.centre``) of
    a point's width about its middle."""
    pt, pb = _prefix(top), _prefix(bottom)
    width = (x1 - x0)[:, None]
    pw = geometry.point_width
    centres = column_centres(geometry)
    half = 0.5 * (config.centre if centre is None else centre) * pw
    lo = x0[:, None] + (centres - half)[None, :] * width
    hi = x0[:, None] + (centres + half)[None, :] * width
    points = np.concatenate([interval_mean(pt, lo, hi), interval_mean(pb, lo, hi)], axis=1)  # (K, 24, 3)
    m0 = np.median(points[:, COLUMN_CLASS == 0], axis=1)
    m1 = np.median(points[:, COLUMN_CLASS == 1], axis=1)
    own = np.where(COLUMN_CLASS[None, :, None] == 0, m0[:, None], m1[:, None])
    other = np.where(COLUMN_CLASS[None, :, None] == 0, m1[:, None], m0[:, None])
    agreement = np.mean(soft_agreement(points, own, other), axis=1)
    # zones that must not continue the pattern: beyond the left end, the bar, beyond the right end; a
    # point there would have, at the top, class 1 (before point 0), 0 (after point 5), 0 (after point 11)
    o0, o1 = config.outside
    b0, b1 = config.bar
    hw, bar = geometry.half_width, geometry.bar_width
    za = np.array([-o1 * pw, hw + b0 * bar, 1.0 + o0 * pw])
    zb = np.array([-o0 * pw, hw + b1 * bar, 1.0 + o1 * pw])
    a, b = x0[:, None] + za[None, :] * width, x0[:, None] + zb[None, :] * width
    zone_top, zone_bottom = interval_mean(pt, a, b), interval_mean(pb, a, b)
    zone_class = np.array([1, 0, 0])[None, :, None]
    c_top = np.where(zone_class == 0, m0[:, None], m1[:, None])
    c_bottom = np.where(zone_class == 0, m1[:, None], m0[:, None])
    # a uniform zone agrees with one continuation at the top exactly as it disagrees at the bottom
    cont = np.abs(soft_agreement(zone_top, c_top, c_bottom) + soft_agreement(zone_bottom, c_bottom, c_top))
    continuation = np.mean(0.5 * cont, axis=1)
    contrast = np.linalg.norm(m1 - m0, axis=1)
    weight = np.clip(contrast / config.contrast_scale, 0.0, 1.0) * (contrast >= config.min_contrast)
    score = (agreement - config.zone_weight * continuation) * weight
    return score, agreement, continuation, m0, m1


def _distinct(order: NDArray[np.int64], a: F64, b: F64, sep: F64, keep: int) -> list[int]:
    """The first ``keep`` of ``order`` whose (a, b) differ from every earlier pick by more than its
    ``sep``."""
    out: list[int] = []
    for k in order:
        if all(max(abs(a[k] - a[j]), abs(b[k] - b[j])) > sep[j] for j in out):
            out.append(int(k))
            if len(out) >= keep:
                break
    return out


def _alternation(
    config: StructureConfig,
    geometry: BoardGeometry,
    top: F64,
    bottom: F64,
    x0: F64,
    x1: F64,
    capped: bool = False,
) -> F64:
    """A quick linear score of candidate ends ``x0``, ``x1`` (K,): the length of the alternating sum of
    the 12 columns' top-minus-bottom colours (Lab units). ``capped``: no column counts for more than
    the median column of its placement, so a few columns of high-contrast checkers (white on one row,
    black on the other) do not outweigh the points."""
    pd = _prefix(top - bottom)
    width = (x1 - x0)[:, None]
    half = 0.5 * config.centre * geometry.point_width
    centres = column_centres(geometry)
    diff = interval_mean(pd, x0[:, None] + (centres - half) * width, x0[:, None] + (centres + half) * width)
    if capped:
        size = np.sqrt(np.einsum("kic,kic->ki", diff, diff))[..., None]
        cap = np.median(size, axis=1, keepdims=True)
        diff = diff * np.minimum(1.0, cap / np.maximum(size, 1e-9))
    signs = np.where(TOP_CLASS == 0, 1.0, -1.0)
    return np.asarray(np.linalg.norm(np.einsum("kic,i->kc", diff, signs), axis=1) / POINTS_PER_ROW)


def _all_ends(n: int, width_range: tuple[float, float], step: float, before: float) -> tuple[F64, F64]:
    """Every pair of ends (x0, x1) along ``n`` view pixels with a width in ``width_range``, in
    ``step``s, starting from ``before`` times the least width ahead of the view; neither end more
    than 0.15 of the width outside it."""
    widths = np.arange(width_range[0], width_range[1] + 1e-9, step)
    starts = np.arange(-before * width_range[0], n, step)
    a, w = np.meshgrid(starts, widths, indexing="ij")
    x0, x1 = a.ravel(), (a + w).ravel()
    inside = (x0 > -0.15 * w.ravel()) & (x1 < n + 0.15 * w.ravel())
    return x0[inside], x1[inside]


def _ends_around(around: tuple[float, float, float], step: float) -> tuple[F64, F64]:
    """Every pair of ends within ``reach`` of ``(c0, c1, reach)``, in ``step``s."""
    c0, c1, reach = around
    offsets = np.arange(-reach, reach + 1e-9, step)
    a, b = np.meshgrid(c0 + offsets, c1 + offsets, indexing="ij")
    return a.ravel(), b.ravel()


def _first_bands(config: StructureConfig, image: F32) -> tuple[F64, F64]:
    """The band colours the first column fit of a quadrilateral's view reads."""
    n = image.shape[0]
    s = n / (1.0 + 2.0 * config.extend)
    e = config.extend * s
    b0, b1 = config.first_bands
    return (
        band_colours(image, (e + b0 * s, e + b1 * s)),
        band_colours(image, (e + (1.0 - b1) * s, e + (1.0 - b0) * s)),
    )


def alternation_strength(config: StructureConfig, geometry: BoardGeometry, view: View) -> float:
    """How strongly the best placement of 12 columns along the view's x alternates (``_alternation``):
    a quick test of which way round a quadrilateral holds the board."""
    n = view.image.shape[0]
    s = n / (1.0 + 2.0 * config.extend)
    top, bottom = _first_bands(config, view.image)
    x0, x1 = _all_ends(n, (config.width_range[0] * s, config.width_range[1] * s), 2 * config.step, 0.5)
    return float(np.max(_alternation(config, geometry, top, bottom, x0, x1))) if len(x0) else 0.0


def fit_columns(
    config: StructureConfig,
    geometry: BoardGeometry,
    top: F64,
    bottom: F64,
    width_range: tuple[float, float],
    *,
    step: float = 1.0,
    around: tuple[float, float, float] | None = None,
    keep: int = 3,
    centre: float | None = None,
) -> list[ColumnFit]:
    """The best distinct column placements, best first, from the band colours ``top`` and ``bottom``
    (n, 3) of a view: every ``x0`` and every width in ``width_range`` (view pixels), in ``step``s;
    or, with ``around`` (x0, x1, reach), only ends within ``reach`` of those."""
    n = top.shape[0]
    x0, x1 = _all_ends(n, width_range, step, 0.5) if around is None else _ends_around(around, step)
    if len(x0) == 0:
        return []
    if around is None and len(x0) > config.shortlist:
        # a linear pre-score keeps the placements worth the full one
        strength = _alternation(config, geometry, top, bottom, x0, x1, capped=True)
        best = np.argpartition(-strength, config.shortlist)[: config.shortlist]
        x0, x1 = x0[best], x1[best]
    score, agreement, continuation, m0, m1 = _column_scores(config, geometry, top, bottom, x0, x1, centre)
    order = np.argsort(-score, kind="stable")
    sep = config.distinct * geometry.point_width * (x1 - x0)
    picks = _distinct(order, x0, x1, sep, keep)
    return [
        ColumnFit(
            float(x0[k]),
            float(x1[k]),
            float(score[k]),
            float(agreement[k]),
            float(continuation[k]),
            (m0[k], m1[k]),
        )
        for k in picks
    ]


def row_signal(
    config: StructureConfig,
    geometry: BoardGeometry,
    view: View,
    x0: float,
    x1: float,
    colours: tuple[F64, F64],
) -> F64:
    """Per view row, the mean soft agreement of the 12 columns' centres (placed by ``x0``, ``x1``) with
    the top row's classes: (n,) float64, +1 on the top points, -1 on the bottom ones, 0 on uniform rows."""
    prefix = view.row_prefix
    half = 0.5 * config.centre * geometry.point_width
    centres = column_centres(geometry)
    lo = x0 + (centres - half) * (x1 - x0)
    hi = x0 + (centres + half) * (x1 - x0)
    n = prefix.shape[0] - 1

    def at(p: F64) -> F64:
        p = np.clip(p, 0.0, n - 1e-9)
        k = np.floor(p).astype(np.int64)
        f = (p - k)[:, None, None]
        return np.asarray(prefix[k] + f * (prefix[k + 1] - prefix[k]), dtype=np.float64)

    cols = (at(hi) - at(lo)) / np.maximum(hi - lo, 1e-6)[:, None, None]  # (12, n_rows, 3)
    m0, m1 = colours
    own = np.where(TOP_CLASS[:, None] == 0, m0[None, :], m1[None, :])[:, None, :]
    other = np.where(TOP_CLASS[:, None] == 0, m1[None, :], m0[None, :])[:, None, :]
    return np.asarray(np.mean(soft_agreement(cols, own, other), axis=0), dtype=np.float64)


def _column_prefix(values: F64) -> F64:
    """Prefix sums along the columns of (rows, cols) ``values``: (rows, cols + 1)."""
    return np.concatenate([np.zeros((values.shape[0], 1)), np.cumsum(values, axis=1)], axis=1)


def _span(n_cols: int, x0: float, x1: float) -> tuple[int, int]:
    c0 = int(np.clip(np.floor(x0), 0, n_cols - 1))
    return c0, int(np.clip(np.ceil(x1), c0 + 1, n_cols))


def _normalised(values: F64, quantile: float) -> F64:
    scale = float(np.quantile(values, quantile))
    return np.asarray(np.clip(values / max(scale, 1e-6), 0.0, 1.0), dtype=np.float64)


def row_edges(view: View, x0: float, x1: float) -> F64:
    """Per boundary between view rows (n + 1 of them, the first and last 0), the mean colour change
    across it over the columns ``x0..x1``, divided by a high quantile of it: about 1 on the long sides
    (the frame meets the points all along them), lower on the wavy top of a row of checkers."""
    prefix = view.step_prefix
    c0, c1 = _span(prefix.shape[1] - 1, x0, x1)
    mean = (prefix[:, c1] - prefix[:, c0]) / (c1 - c0)
    return _normalised(np.concatenate([[0.0], mean, [0.0]]), 0.95)


def row_texture(view: View, x0: float, x1: float, lag: float) -> F64:
    """Per view row, how much the colour changes between columns ``lag`` pixels apart over ``x0..x1``,
    divided by a high quantile of it: high across the points (and the checkers on them), low across
    the frame (one colour all along the side)."""
    k = max(1, int(round(lag)))
    prefix = view.lag_prefix(k)
    c0, c1 = _span(prefix.shape[1] + k - 1, x0, x1)
    c1 = min(c1 - k, prefix.shape[1] - 1)
    if c1 <= c0:
        return np.zeros(prefix.shape[0])
    return _normalised((prefix[:, c1] - prefix[:, c0]) / (c1 - c0), 0.9)


def _at(values: F64, positions: F64) -> F64:
    """``values`` (m,) sampled at the nearest index of each continuous position, the largest of it and
    its neighbours (an edge found one pixel off still counts)."""
    m = len(values)
    k = np.clip(np.round(positions).astype(np.int64), 0, m - 1)
    out = values[k]
    out = np.maximum(out, values[np.clip(k - 1, 0, m - 1)])
    return np.asarray(np.maximum(out, values[np.clip(k + 1, 0, m - 1)]), dtype=np.float64)


def row_profiles(
    config: StructureConfig,
    geometry: BoardGeometry,
    view: View,
    x0: float,
    x1: float,
    colours: tuple[F64, F64],
) -> tuple[F64, F64, F64]:
    """``row_signal``, ``row_edges`` and ``row_texture`` of ``view`` for columns placed by ``x0``, ``x1``."""
    lag = config.texture_lag * geometry.point_width * (x1 - x0)
    return (
        row_signal(config, geometry, view, x0, x1, colours),
        row_edges(view, x0, x1),
        row_texture(view, x0, x1, lag),
    )


@dataclass(frozen=True)
class RowFit:
    """Where the long sides are along y in a view, and how well."""

    y0: float
    y1: float
    score: float
    """``agreement - zone_weight * continuation``."""
    agreement: float
    """Mean agreement of the row signal with the expected profile of the two rows of points (-1..1)."""
    continuation: float
    """Mean absolute row signal just beyond the long sides, on the frame (0..1)."""
    edge: float
    """Mean of the two sides' ``row_edges`` (0..1)."""


def _profile_sums(prefix: F64, vprefix: F64, base: F64, length: F64, sense: float, plateau: float) -> F64:
    """Sum of the row signal times the expected profile of one row of points: 1 from the base to
    ``plateau`` of the point length, then falling linearly to 0 at the tips. ``base`` (K,) is the row
    of the bases, ``sense`` +1 if the points run down from it, -1 if up; ``prefix`` and ``vprefix`` are
    the prefix sums of the signal and of the signal times the row's centre."""

    def total(p: F64, a: F64, b: F64) -> F64:
        return np.asarray(interval_mean(p, a, b)[:, 0] * (b - a), dtype=np.float64)

    knee = base + sense * plateau * length
    tip = base + sense * length
    lo1, hi1 = np.minimum(base, knee), np.maximum(base, knee)
    lo2, hi2 = np.minimum(knee, tip), np.maximum(knee, tip)
    flat = total(prefix, lo1, hi1)
    s = total(prefix, lo2, hi2)
    sv = total(vprefix, lo2, hi2)
    # sum of r * (tip - v) / (tip - knee) over the ramp
    ramp = (tip * s - sv) / (tip - knee)
    return np.asarray(flat + ramp, dtype=np.float64)


def _row_scores(
    config: StructureConfig,
    geometry: BoardGeometry,
    signal: F64,
    edges: F64,
    texture: F64,
    y0: F64,
    y1: F64,
) -> tuple[F64, F64, F64, F64]:
    """Scores of the candidate long sides ``y0``, ``y1`` (K,): (score, agreement, continuation, edge).

    Besides the rows' agreement with the points' profile, a long side should be a straight edge with
    varied colours just inside (the points' bases and the checkers on them) and one colour just
    outside (the frame): that tells it from the top of a row of checkers (varied colours outside) and
    from the frame's outer edge (one colour inside)."""
    n = len(signal)
    centres = np.arange(n, dtype=np.float64) + 0.5
    prefix = _prefix(signal[:, None])
    vprefix = _prefix((signal * centres)[:, None])
    aprefix = _prefix(np.abs(signal)[:, None])
    height = y1 - y0
    length = geometry.point_length * height
    plateau = 1.0 - config.centre
    weight = length * (plateau + 0.5 * (1.0 - plateau))
    top = _profile_sums(prefix, vprefix, y0, length, 1.0, plateau) / weight
    bottom = -_profile_sums(prefix, vprefix, y1, length, -1.0, plateau) / weight
    pw = geometry.point_width / geometry.height * height
    o0, o1 = config.frame
    beyond = 0.5 * (
        interval_mean(aprefix, y0 - o1 * pw, y0 - o0 * pw)[:, 0]
        + interval_mean(aprefix, y1 + o0 * pw, y1 + o1 * pw)[:, 0]
    )
    b0, b1 = config.base
    tprefix = _prefix(texture[:, None])
    inside = 0.5 * (
        interval_mean(tprefix, y0 + b0 * pw, y0 + b1 * pw)[:, 0]
        + interval_mean(tprefix, y1 - b1 * pw, y1 - b0 * pw)[:, 0]
    )
    outside = 0.5 * (
        interval_mean(tprefix, y0 - o1 * pw, y0 - o0 * pw)[:, 0]
        + interval_mean(tprefix, y1 + o0 * pw, y1 + o1 * pw)[:, 0]
    )
    agreement = 0.5 * (top + bottom)
    edge = 0.5 * (_at(edges, y0) + _at(edges, y1))
    score = (
        agreement
        - config.zone_weight * beyond
        + config.edge_weight * (edge - 1.0)
        + config.base_weight * (inside - 1.0)
        - config.plain_weight * outside
    )
    return score, agreement, beyond, edge


def fit_rows(
    config: StructureConfig,
    geometry: BoardGeometry,
    signal: F64,
    edges: F64,
    texture: F64,
    height_range: tuple[float, float],
    *,
    around: tuple[float, float, float] | None = None,
    step: float = 1.0,
    keep: int = 3,
) -> list[RowFit]:
    """The best distinct placements of the long sides, best first, from the ``row_signal`` (n,), the
    ``row_edges`` (n + 1,) and the ``row_texture`` (n,) of a view: every ``y0`` and every height in
    ``height_range`` (view pixels); or, with ``around`` (y0, y1, reach), only those within ``reach``."""
    n = len(signal)
    y0, y1 = _all_ends(n, height_range, step, 0.2) if around is None else _ends_around(around, step)
    if len(y0) == 0:
        return []
    score, agreement, beyond, edge = _row_scores(config, geometry, signal, edges, texture, y0, y1)
    order = np.argsort(-score, kind="stable")
    pw = geometry.point_width / geometry.height * (y1 - y0)
    picks = _distinct(order, y0, y1, config.distinct * pw, keep)
    return [
        RowFit(
            float(y0[k]), float(y1[k]), float(score[k]), float(agreement[k]), float(beyond[k]), float(edge[k])
        )
        for k in picks
    ]


@dataclass(frozen=True)
class Proposal:
    """A playing area proposed by the one-dimensional fits in a view."""

    corners: F64
    """(4, 2) frame corners (TL, TR, BR, BL)."""
    score: float
    """Mean of the column and the row fits' scores."""
    columns: ColumnFit
    rows: RowFit


def propose(config: StructureConfig, geometry: BoardGeometry, view: View) -> list[Proposal]:
    """Playing areas in ``view`` (the quadrilateral read with its first side along x), best first."""
    image = view.image
    n = image.shape[0]
    s = n / (1.0 + 2.0 * config.extend)
    w_range = (config.width_range[0] * s, config.width_range[1] * s)
    h_range = (config.height_range[0] * s, config.height_range[1] * s)
    top, bottom = _first_bands(config, image)
    out: list[Proposal] = []
    for cols in fit_columns(config, geometry, top, bottom, w_range, step=config.step, keep=config.proposals):
        profiles = row_profiles(config, geometry, view, cols.x0, cols.x1, cols.colours)
        rows_found = fit_rows(config, geometry, *profiles, h_range, step=config.step, keep=1)
        if not rows_found:
            continue
        rows = rows_found[0]
        if not config.refit:
            rect = (cols.x0, rows.y0, cols.x1, rows.y1)
            out.append(Proposal(view.corners(rect), 0.5 * (cols.score + rows.score), cols, rows))
            continue
        # the column fit again, on bands placed by the rows, close to the first
        top, bottom = row_bands(image, geometry, rows.y0, rows.y1, config.band)
        reach = config.polish * geometry.point_width * (cols.x1 - cols.x0)
        again = fit_columns(
            config, geometry, top, bottom, w_range, around=(cols.x0, cols.x1, reach), step=0.5, keep=1
        )
        if again:
            cols = again[0]
        profiles = row_profiles(config, geometry, view, cols.x0, cols.x1, cols.colours)
        reach = config.polish * geometry.point_width / geometry.height * (rows.y1 - rows.y0)
        finer = fit_rows(
            config, geometry, *profiles, h_range, around=(rows.y0, rows.y1, reach), step=0.5, keep=1
        )
        if finer:
            rows = finer[0]
        rect = (cols.x0, rows.y0, cols.x1, rows.y1)
        out.append(Proposal(view.corners(rect), 0.5 * (cols.score + rows.score), cols, rows))
    out.sort(key=lambda p: -p.score)
    return out


@dataclass(frozen=True)
class Aliases:
    """How a placement of the playing area compares with its aliases -- the placements the points'
    pattern or a board's other straight edges make nearly as plausible: the whole board a point or
    two along (the pattern repeats), a long side on the frame's outer edge or on the top of a row of
    checkers."""

    columns: float
    """The column fit's score at the placement."""
    column_lead: float
    """Its lead over the best shift by whole points (negative: a shift is better)."""
    column_shift: int
    """The best shift (points; 0 if none beats the placement)."""
    rows: float
    """The row fit's score at the placement."""
    row_lead: float
    """Its lead over the best alias of the long sides (one of them moved, or both the same way)."""
    row_shift: tuple[float, float]
    """The best alias's moves of the top and the bottom side (point widths; 0, 0 if none is better)."""
    row_moves: tuple[tuple[float, float], ...] = ()
    """Every alias of the long sides tried (moves of the top and the bottom side, point widths) ..."""
    row_scores: tuple[float, ...] = ()
    """... and its row fit's score."""


def compare_aliases(
    config: StructureConfig, geometry: BoardGeometry, view: View, rect: tuple[float, float, float, float]
) -> Aliases:
    """Score the placement ``rect`` (x0, y0, x1, y1; view pixels) of the playing area in ``view`` against
    its aliases (``Aliases``)."""
    x0, y0, x1, y1 = rect
    image = view.image
    pw_x = geometry.point_width * (x1 - x0)
    pw_y = geometry.point_width / geometry.height * (y1 - y0)
    top, bottom = row_bands(image, geometry, y0, y1, config.band)
    shifts = np.array([0] + [s * k for k in config.column_aliases for s in (-1, 1)])
    col, _, _, m0, m1 = _column_scores(config, geometry, top, bottom, x0 + shifts * pw_x, x1 + shifts * pw_x)
    profiles = row_profiles(config, geometry, view, x0, x1, (m0[0], m1[0]))
    moves = [(0.0, 0.0)] + [(s * o, 0.0) for o in config.row_aliases for s in (-1, 1)]
    moves += [(0.0, s * o) for o in config.row_aliases for s in (-1, 1)]
    moves += [(s * o, s * o) for o in config.row_aliases for s in (-1, 1)]
    dy = np.array(moves)
    row = _row_scores(config, geometry, *profiles, y0 + dy[:, 0] * pw_y, y1 + dy[:, 1] * pw_y)[0]
    k, r = int(np.argmax(col)), int(np.argmax(row))
    return Aliases(
        float(col[0]),
        float(col[0] - np.max(col[1:])),
        int(shifts[k]),
        float(row[0]),
        float(row[0] - np.max(row[1:])),
        (float(dy[r, 0]), float(dy[r, 1])),
        tuple((float(a), float(b)) for a, b in dy[1:]),
        tuple(float(v) for v in row[1:]),
    )


def polish(
    config: StructureConfig, geometry: BoardGeometry, view: View, rect: tuple[float, float, float, float]
) -> tuple[float, float, float, float]:
    """The best placement within ``config.polish_reach`` point widths of ``rect`` (view pixels), in fine
    steps: the columns first (their bands placed by ``rect``), then the rows."""
    x0, y0, x1, y1 = rect
    image = view.image
    pw_x = geometry.point_width * (x1 - x0)
    pw_y = geometry.point_width / geometry.height * (y1 - y0)
    top, bottom = row_bands(image, geometry, y0, y1, config.fine_band)
    reach, step = config.polish_reach, config.polish_step
    cols = fit_columns(
        config,
        geometry,
        top,
        bottom,
        (0.0, 0.0),
        around=(x0, x1, reach * pw_x),
        step=step * pw_x,
        keep=1,
        centre=config.fine_centre,
    )
    if not cols:
        return rect
    c = cols[0]
    profiles = row_profiles(config, geometry, view, c.x0, c.x1, c.colours)
    rows = fit_rows(
        config, geometry, *profiles, (0.0, 0.0), around=(y0, y1, reach * pw_y), step=step * pw_y, keep=1
    )
    if not rows:
        return (c.x0, y0, c.x1, y1)
    return (c.x0, rows[0].y0, c.x1, rows[0].y1)
