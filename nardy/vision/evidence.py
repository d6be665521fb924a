"""Stage 3a -- evidence: how unlike the empty board each pixel is, and where the edges are.

There is no stored picture of the empty board: its look is learnt from the frame itself. The field,
the bar and the points of each colour each get one look (the median of the parts of it that
checkers seldom cover), and the light falling on the board a smooth gain on lightness fitted to
those parts (so uneven light is followed; for the settle stage, never rising past white). A pixel's
*difference* is its distance from the look its region should have, in units of that region's own
spread (so a grainy walnut field needs a bigger difference than smooth felt). Near a point's edges
either look is accepted (corners are never exact).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from nardy.vision.config import EvidenceConfig
from nardy.vision.masks import EDGE, FIELD, OUTSIDE, POINT0, POINT1, BoardMasks
from nardy.vision.stats import clamp, median, median_and_quantile

F32 = NDArray[np.float32]

WHITE = np.float32(255.0)
"""Lightness of white in OpenCV's 8-bit Lab."""


@dataclass(frozen=True)
class Evidence:
    """Per-pixel maps over the rectified board, all (h, w) float32."""

    lab: F32
    """(h, w, 3) float32 Lab (OpenCV's 8-bit scaling: L 0..255, a and b centred on 128)."""
    difference: F32
    """Distance from the empty board's expected look, in units of the region's spread."""
    gy2: F32
    """Squared vertical lightness gradient (along the points), divided by its board-wide median."""
    gx2: F32
    """Squared horizontal lightness gradient, same scale."""
    gx: F32
    """Horizontal lightness gradient divided by the square root of the median squared gradient."""
    gy: F32
    """Vertical lightness gradient, same scale."""
    gd1: F32
    """Squared lightness gradient along the (1, 1) diagonal, same scale."""
    gd2: F32
    """Squared lightness gradient along the (1, -1) diagonal, same scale."""
    contrast: F32
    """Distance from the empty look in weighted Lab units (not divided by the spread)."""
    gain: F32
    """(h, w) the brightness of the light on the board relative to its average (1: average)."""
    root_magnitude: F32
    """Square root of the gradient magnitude (what each edge pixel votes with)."""
    looks: F32
    """(6, 3) float32 Lab look of each region (``masks.FIELD`` ...) under average light; a pixel's
    expected look has its lightness scaled by ``gain`` (see ``expected_lightness``)."""
    dark_offset: float
    """The ``EvidenceConfig.dark_offset`` the gain was measured with."""
    settle_difference: F32
    """``difference`` with the expected lightness stopped at white, for the settle stage (the same
    array where the light's fit stays below white, as it nearly always does)."""

    def expected_lightness(self, region: NDArray[np.int8], gain: F32) -> F32:
        """Lab lightness the empty board should have at pixels of ``region`` under ``gain`` (both of
        one shape, and so is the result), never past white."""
        offset = np.float32(self.dark_offset)
        light = (self.looks[region, 0] + offset) * gain - offset
        return np.asarray(np.minimum(light, WHITE), dtype=np.float32)


def _gain_field(
    ratio_pts: tuple[NDArray[np.intp], NDArray[np.intp], F32],
    shape: tuple[int, int],
    cells: tuple[int, int],
    area_x: tuple[int, int],
) -> F32:
    """A smooth brightness gain over the board fitted to seed pixels' lightness ratios; the cells
    divide the playing area (view x ``area_x``), and the fit runs on past it."""
    ys, xs, ratio = ratio_pts
    h, full_w = shape
    x0, x1 = area_x
    w = x1 - x0
    cx, cy = cells
    if len(ratio) < 20:
        return np.ones(shape, np.float32)
    cell = (ys * cy // h) * cx + ((xs - x0) * cx // w)
    clipped = clamp(ratio, 0.3, 3.0)
    count = np.bincount(cell, minlength=cx * cy)
    mean = np.bincount(cell, weights=clipped, minlength=cx * cy) / np.maximum(count, 1)
    # one round of trimming: drop ratios far from their cell's mean (checkers over the seeds)
    keep = np.abs(clipped - mean[cell]) < 0.25 * mean[cell]
    count = np.bincount(cell[keep], minlength=cx * cy)
    mean = np.bincount(cell[keep], weights=clipped[keep], minlength=cx * cy) / np.maximum(count, 1)
    ids = np.flatnonzero(count >= 6)
    if len(ids) < 6:
        return np.ones(shape, np.float32)
    med = mean[ids]
    u = ((ids % cx) + 0.5) / cx - 0.5
    v = ((ids // cx) + 0.5) / cy - 0.5
    # seeds lie between the rows' tips and the middle, so only gentle terms in v are trusted
    a = np.column_stack([np.ones_like(u), u, v, u * v, u * u])
    coef = np.zeros(5)
    good = np.ones(len(med), bool)
    fitted: NDArray[np.bool_] | None = None
    for _ in range(3):
        if fitted is not None and np.array_equal(good, fitted):
            break  # the same cells again: the same fit
        fitted = good
        coef = np.asarray(np.linalg.lstsq(a[good], med[good], rcond=None)[0], dtype=np.float64)
        res = np.abs(a @ coef - med)
        good = res <= max(3 * float(median(res)), 0.02)
    c0, c1, c2, c3, c4 = (float(c) for c in coef)
    gu = ((np.arange(-x0, full_w - x0, dtype=np.float32) + 0.5) / w - 0.5)[None, :]
    gv = ((np.arange(h, dtype=np.float32) + 0.5) / h - 0.5)[:, None]
    gain = (c2 + c3 * gu) * gv  # the terms in v ...
    gain += c0 + c1 * gu + c4 * gu * gu  # ... and in u alone
    np.maximum(gain, 0.5, out=gain)
    return np.asarray(np.minimum(gain, 2.0, out=gain), dtype=np.float32)


def evidence(config: EvidenceConfig, masks: BoardMasks, rectified: NDArray[np.uint8]) -> Evidence:
    """rectified (h, w, 3) uint8 BGR -> ``Evidence``."""
    lab = cv2.cvtColor(rectified, cv2.COLOR_BGR2Lab).astype(np.float32)
    weights = np.array([config.lightness_weight, 1.0, 1.0], np.float32)
    region = masks.region
    h, w = region.shape
    seeds = masks.seed_index
    # each region's own look (robust, from the parts of it that checkers seldom cover) ...
    looks = np.zeros((6, 3), np.float32)
    ratio_y, ratio_x, ratios = [], [], []
    flat_lab = lab.reshape(-1, 3)
    for t, (ys, xs) in seeds.items():
        px = np.take(flat_lab, masks.seed_flat[t], axis=0)
        looks[t] = median(px, axis=0)
        ratio_y.append(ys)
        ratio_x.append(xs)
        ratios.append((px[:, 0] + config.dark_offset) / (looks[t, 0] + config.dark_offset))
    looks[EDGE] = looks[FIELD]
    looks[OUTSIDE] = looks[FIELD]
    # ... and the light falling on it: a smooth gain fitted to the seeds' lightness
    gain = _gain_field(
        (np.concatenate(ratio_y), np.concatenate(ratio_x), np.concatenate(ratios)),
        (h, w),
        config.gain_cells,
        masks.area_x,
    )
    # the expected look of every pixel, by a lookup on its region (and the point's own look at its edges)
    table = np.zeros((1, 256, 3), np.float32)
    table[0, : len(looks)] = looks
    sq_weights = (weights * weights)[None, :]
    offset = np.float32(config.dark_offset)

    def distance(pixels: F32, expected: F32, gains: F32, white: bool = False) -> F32:
        """Weighted distance of Lab ``pixels`` (..., 3) from the ``expected`` looks (..., 3) under the
        light ``gains`` (...); the same arithmetic for the whole view and for a list of pixels.
        ``white``: the expected lightness goes no higher than white."""
        expected[..., 0] = (expected[..., 0] + offset) * gains - offset
        if white:
            np.minimum(expected[..., 0], WHITE, out=expected[..., 0])
        delta = np.subtract(pixels, expected, out=expected)  # (in place: fewer big arrays to fill)
        np.multiply(delta, delta, out=delta)
        squared = np.asarray(cv2.transform(delta, sq_weights), dtype=np.float32)
        return np.sqrt(squared, out=squared)  # (numpy's root: see root_magnitude below)

    dist = distance(lab, np.asarray(cv2.LUT(masks.region3, table), dtype=np.float32), gain)
    if masks.edge_index[0].size:
        # at the points' edges the look of the point they border is accepted too
        flat, flat_dist = masks.edge_flat, dist.reshape(-1)
        at_edge = distance(
            np.take(lab.reshape(-1, 3), flat, axis=0)[:, None, :],
            np.asarray(cv2.LUT(masks.edge_alternate3, table), dtype=np.float32),
            np.take(gain.reshape(-1), flat)[:, None],
        )
        flat_dist[flat] = np.minimum(np.take(flat_dist, flat), at_edge.reshape(-1))
    spread = np.full(6, config.noise_floor, np.float32)
    for t in seeds:
        spread[t] = max(config.noise_floor, 1.4826 * float(median(np.take(dist, masks.seed_flat[t]))))
    spread[EDGE] = max(spread[FIELD], spread[POINT0], spread[POINT1]) / config.edge_discount
    spread[OUTSIDE] = spread[FIELD]
    spreads = np.zeros((1, 256), np.float32)
    spreads[0, : len(spread)] = spread
    diff = np.asarray(cv2.LUT(masks.region3[:, :, 0], spreads), dtype=np.float32)
    # the light's fit can rise past white where glare saturates the sensor, and nothing is
    # lighter: for the settle stage the expectation stops at white there (the detector keeps
    # the evidence it was fitted on)
    settle_diff: F32 | None = None
    if (float(looks[:, 0].max()) + offset) * float(gain.max()) - offset > WHITE:
        light = np.take(looks[:, 0], masks.region_index) + offset
        light *= gain
        over = np.flatnonzero(light.reshape(-1) - offset > WHITE)
        if over.size:
            capped = distance(
                np.take(lab.reshape(-1, 3), over, axis=0)[:, None, :],
                np.take(looks, np.take(masks.region_index.reshape(-1), over), axis=0)[:, None, :].copy(),
                np.take(gain.reshape(-1), over)[:, None],
                white=True,
            ).reshape(-1)
            settle_diff = dist.copy()
            settle_diff.reshape(-1)[over] = np.minimum(np.take(dist.reshape(-1), over), capped)
            settle_diff /= diff
            settle_diff[masks.outside] = config.outside_difference
    np.divide(dist, diff, out=diff)
    diff[masks.outside] = config.outside_difference
    # edges in relative terms (log lightness; log_scale 0 for plain lightness): a dark checker on a
    # dark point in shadow has weak edges in absolute terms but not in relative ones
    lum = lab[:, :, 0]
    if config.log_scale > 0:
        lum = lum + np.float32(config.log_offset)
        np.log(lum, out=lum)
        lum *= np.float32(config.log_scale)
    gx = np.asarray(cv2.Sobel(lum, cv2.CV_32F, 1, 0, ksize=3), dtype=np.float32)
    gy = np.asarray(cv2.Sobel(lum, cv2.CV_32F, 0, 1, ksize=3), dtype=np.float32)
    # the frame seen past the board's edge, and that edge itself, say nothing about checkers
    gx *= masks.inside_weight
    gy *= masks.inside_weight
    gx2, gy2 = gx * gx, gy * gy
    scale = edge_scale(gx2[::2, ::2] + gy2[::2, ::2], config)
    half = np.float32(0.5 / scale)
    d1, d2 = gx + gy, gx - gy
    d1 *= d1
    d1 *= half
    d2 *= d2
    d2 *= half
    root = np.float32(1.0 / np.sqrt(scale))
    gx *= root  # (gx and gy are not needed unscaled any more)
    gy *= root
    gxn, gyn = gx, gy
    inv = np.float32(1.0 / scale)
    gy2 *= inv
    gx2 *= inv
    # (numpy's square roots, not OpenCV's magnitude and roots: those are now and then a bit off,
    # depending on where in memory the arrays lie, and a frame must read the same in any process)
    root_magnitude = gx2 + gy2
    np.sqrt(root_magnitude, out=root_magnitude)
    np.sqrt(root_magnitude, out=root_magnitude)
    return Evidence(
        lab,
        diff,
        gy2,
        gx2,
        gxn,
        gyn,
        d1,
        d2,
        dist,
        gain,
        root_magnitude,
        looks,
        config.dark_offset,
        diff if settle_diff is None else settle_diff,
    )


def edge_scale(g2: F32, config: EvidenceConfig) -> float:
    """The squared gradient that counts as 1: the median of ``g2`` (any shape) plus the floor, and
    at least the strong edges' level over ``strong_edge_ratio``."""
    if config.strong_edge_ratio <= 0:
        return float(median(g2)) + config.gradient_floor
    middle, strong = median_and_quantile(g2, config.strong_edge_quantile)
    return max(middle + config.gradient_floor, strong / config.strong_edge_ratio)
