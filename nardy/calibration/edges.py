"""Stage 1 of the board finder -- edges and straight lines of a frame.

``colour_gradient`` gives a gradient that sees colour edges as well as lightness ones (green felt on
a brown frame of the same lightness); ``edge_map`` runs Canny on it; ``hough_lines`` finds the long
straight lines (the board's outline, the frame, the bar, the table's edge...) as ``Line``s in
Hesse normal form; ``line_coverage`` measures how much of a stretch of a line edges cover.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from nardy.calibration.config import EdgeConfig, LineConfig

F32 = NDArray[np.float32]
F64 = NDArray[np.float64]


@dataclass(frozen=True)
class Gradient:
    """The colour gradient of an image: ``dx``, ``dy`` (H, W) float32 of the dominant channel and its
    ``magnitude``."""

    dx: F32
    dy: F32
    magnitude: F32


def to_lab(image: NDArray[np.uint8]) -> F32:
    """(H, W, 3) uint8 BGR -> (H, W, 3) float32 Lab (OpenCV 8-bit scaling)."""
    return np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2LAB), dtype=np.float32)


def shrink(image: NDArray[np.uint8], longest: int) -> tuple[NDArray[np.uint8], float]:
    """``image`` scaled down (never up) so its longer side is at most ``longest``; and the scale."""
    h, w = image.shape[:2]
    scale = min(1.0, longest / max(h, w))
    if scale == 1.0:
        return image, 1.0
    size = (int(round(w * scale)), int(round(h * scale)))
    return np.asarray(cv2.resize(image, size, interpolation=cv2.INTER_AREA), dtype=np.uint8), scale


def colour_gradient(config: EdgeConfig, lab: F32) -> Gradient:
    """Per pixel, the Sobel gradient of whichever Lab channel changes most there.

    ``lab``: (H, W, 3) float32 Lab. Returns float32 (H, W) maps.
    """
    blurred = cv2.GaussianBlur(lab, (0, 0), config.blur_sigma) if config.blur_sigma > 0 else lab
    gx = np.asarray(cv2.Sobel(blurred, cv2.CV_32F, 1, 0, ksize=3), dtype=np.float32)
    gy = np.asarray(cv2.Sobel(blurred, cv2.CV_32F, 0, 1, ksize=3), dtype=np.float32)
    w = np.array([config.lightness_weight, 1.0, 1.0], dtype=np.float32)
    gx *= w
    gy *= w
    mag2 = gx * gx + gy * gy
    best = np.argmax(mag2, axis=2)[:, :, None]
    dx = np.take_along_axis(gx, best, axis=2)[:, :, 0]
    dy = np.take_along_axis(gy, best, axis=2)[:, :, 0]
    mag = np.sqrt(np.take_along_axis(mag2, best, axis=2)[:, :, 0])
    return Gradient(np.ascontiguousarray(dx), np.ascontiguousarray(dy), np.ascontiguousarray(mag))


def edge_map(config: EdgeConfig, grad: Gradient) -> NDArray[np.uint8]:
    """Canny edges (H, W) uint8 {0, 255} of the colour gradient, thresholds from its own statistics."""
    high = max(config.high_floor, float(np.quantile(grad.magnitude, config.high_quantile)))
    dx = np.clip(grad.dx, -32000, 32000).astype(np.int16)
    dy = np.clip(grad.dy, -32000, 32000).astype(np.int16)
    return np.asarray(cv2.Canny(dx, dy, config.low_ratio * high, high, L2gradient=True), dtype=np.uint8)


@dataclass(frozen=True)
class Line:
    """A straight line ``x cos(theta) + y sin(theta) = rho`` (pixels), with its Hough ``votes``."""

    rho: float
    theta: float
    votes: float

    @property
    def normal(self) -> F64:
        return np.array([math.cos(self.theta), math.sin(self.theta)])

    @property
    def direction(self) -> F64:
        return np.array([-math.sin(self.theta), math.cos(self.theta)])


def hough_lines(config: LineConfig, edges: NDArray[np.uint8]) -> list[Line]:
    """The strongest straight lines of an edge map, near-duplicates merged, strongest first."""
    h, w = edges.shape
    threshold = max(10, int(config.votes * min(h, w)))
    found: Any = cv2.HoughLinesWithAccumulator(edges, 1.0, math.radians(config.theta_step_deg), threshold)
    if found is None:
        return []
    raw = np.asarray(found, dtype=np.float64).reshape(-1, 3)
    raw = raw[np.argsort(-raw[:, 2], kind="stable")]
    kept: list[Line] = []
    tol = math.radians(config.nms_theta_deg)
    for rho, theta, votes in raw:
        duplicate = False
        for k in kept:
            dt = abs(theta - k.theta)
            if dt < tol and abs(rho - k.rho) < config.nms_rho:
                duplicate = True
            elif abs(dt - math.pi) < tol and abs(rho + k.rho) < config.nms_rho:
                duplicate = True
            if duplicate:
                break
        if not duplicate:
            kept.append(Line(float(rho), float(theta), float(votes)))
            if len(kept) >= config.max_lines:
                break
    return kept


def intersect(a: Line, b: Line) -> F64 | None:
    """Where two lines cross, or None if they are (nearly) parallel."""
    m = np.array([[math.cos(a.theta), math.sin(a.theta)], [math.cos(b.theta), math.sin(b.theta)]])
    det = float(np.linalg.det(m))
    if abs(det) < 1e-6:
        return None
    return np.asarray(np.linalg.solve(m, np.array([a.rho, b.rho])), dtype=np.float64)


def near_edges(config: LineConfig, edges: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """(H, W) uint8 {0, 1}: pixels within ``support_radius`` of an edge."""
    dist = cv2.distanceTransform(np.asarray(edges == 0, dtype=np.uint8), cv2.DIST_L2, 3)
    return np.asarray(dist <= config.support_radius, dtype=np.uint8)


@dataclass(frozen=True)
class LineTrace:
    """Edge coverage along one line across the image: position ``t`` (pixels along
    ``line.direction`` from the foot of the normal) runs from ``t0`` in steps of one pixel; ``cum[k]``
    counts the covered pixels before step ``k``."""

    line: Line
    t0: float
    cum: NDArray[np.float64]
    longest: float
    """Length (pixels) of the longest stretch covered by edges, gaps up to the tolerance bridged."""

    def coverage(self, ta: NDArray[np.float64], tb: NDArray[np.float64]) -> NDArray[np.float64]:
        """Fraction covered between positions ``ta`` and ``tb`` (arrays); outside the image counts as
        uncovered."""
        lo, hi = np.minimum(ta, tb), np.maximum(ta, tb)
        n = len(self.cum) - 1
        a = np.clip(np.round(lo - self.t0), 0, n).astype(np.int64)
        b = np.clip(np.round(hi - self.t0), 0, n).astype(np.int64)
        return np.asarray((self.cum[b] - self.cum[a]) / np.maximum(hi - lo, 1.0), dtype=np.float64)


def trace_line(line: Line, near: NDArray[np.uint8], gap: float) -> LineTrace:
    """Follow ``line`` across ``near`` ((H, W) {0, 1}); gaps shorter than ``gap`` pixels are bridged
    when measuring the longest covered stretch."""
    h, w = near.shape
    foot = line.normal * line.rho
    d = line.direction
    reach = math.hypot(w, h)
    t = np.arange(-reach, reach, 1.0)
    x = np.round(foot[0] + t * d[0]).astype(np.int64)
    y = np.round(foot[1] + t * d[1]).astype(np.int64)
    inside = (x >= 0) & (x < w) & (y >= 0) & (y < h)
    if not inside.any():
        return LineTrace(line, 0.0, np.zeros(2), 0.0)
    first, last = int(np.argmax(inside)), len(inside) - int(np.argmax(inside[::-1]))
    occ = near[y[first:last], x[first:last]].astype(np.float64)
    cum = np.concatenate([[0.0], np.cumsum(occ)])
    # longest stretch with short gaps bridged
    idx = np.flatnonzero(occ)
    longest = 0.0
    if len(idx):
        breaks = np.flatnonzero(np.diff(idx) > gap)
        starts = np.concatenate([[idx[0]], idx[breaks + 1]])
        ends = np.concatenate([idx[breaks], [idx[-1]]])
        longest = float(np.max(ends - starts + 1))
    return LineTrace(line, float(t[first]), cum, longest)


def segment_coverage(near: NDArray[np.uint8], starts: F64, ends: F64, samples: int = 48) -> F64:
    """Fraction of each segment ``starts[i] -> ends[i]`` ((N, 2) pixels) lying on ``near`` edges:
    (N,) float64 (points outside the image count as uncovered)."""
    h, w = near.shape
    t = np.linspace(0.0, 1.0, samples)
    pts = starts[:, None, :] + (ends - starts)[:, None, :] * t[None, :, None]
    x = np.round(pts[..., 0]).astype(np.int64)
    y = np.round(pts[..., 1]).astype(np.int64)
    inside = (x >= 0) & (x < w) & (y >= 0) & (y < h)
    vals = np.zeros(x.shape, dtype=np.float64)
    vals[inside] = near[y[inside], x[inside]]
    return np.asarray(vals.mean(axis=1), dtype=np.float64)
