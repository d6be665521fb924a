"""Stage 1 of the board finder -- edges and straight lines of a frame.

``colour_gradient`` gives a gradient that sees colour edges as well as lightness ones (green felt on
a brown frame of the same lightness); the refinement fits the board's drawing to it.
``line_segments`` finds the frame's straight segments (in each Lab channel, for the same reason) and
``merge_segments`` joins collinear ones into the long lines -- the board's outline, the frame's inner
edge, the tray, the bar, the table's edge, clutter -- as ``LineTrace``s: a ``Line`` in Hesse normal
form and how much of it the segments cover. Round things (checkers) give no long segments.
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
    if config.lightness_weight != 1.0:
        gx[:, :, 0] *= config.lightness_weight
        gy[:, :, 0] *= config.lightness_weight
    mag2 = gx * gx + gy * gy
    dx, dy, best = gx[:, :, 0], gy[:, :, 0], mag2[:, :, 0]
    for ch in (1, 2):
        take = mag2[:, :, ch] > best
        dx = np.where(take, gx[:, :, ch], dx)
        dy = np.where(take, gy[:, :, ch], dy)
        best = np.maximum(best, mag2[:, :, ch])
    mag = np.sqrt(best)
    return Gradient(np.ascontiguousarray(dx), np.ascontiguousarray(dy), np.ascontiguousarray(mag))


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


def intersect(a: Line, b: Line) -> F64 | None:
    """Where two lines cross, or None if they are (nearly) parallel."""
    m = np.array([[math.cos(a.theta), math.sin(a.theta)], [math.cos(b.theta), math.sin(b.theta)]])
    det = float(np.linalg.det(m))
    if abs(det) < 1e-6:
        return None
    return np.asarray(np.linalg.solve(m, np.array([a.rho, b.rho])), dtype=np.float64)


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
    covered: float = 0.0
    """Length (pixels) covered in all."""

    def coverage(self, ta: NDArray[np.float64], tb: NDArray[np.float64]) -> NDArray[np.float64]:
        """Fraction covered between positions ``ta`` and ``tb`` (arrays); outside the image counts as
        uncovered."""
        lo, hi = np.minimum(ta, tb), np.maximum(ta, tb)
        n = len(self.cum) - 1
        a = np.clip(np.round(lo - self.t0), 0, n).astype(np.int64)
        b = np.clip(np.round(hi - self.t0), 0, n).astype(np.int64)
        return np.asarray((self.cum[b] - self.cum[a]) / np.maximum(hi - lo, 1.0), dtype=np.float64)


def line_segments(config: LineConfig, image: NDArray[np.uint8]) -> F64:
    """Straight segments (N, 4) float64 (x0, y0, x1, y1) of ``image`` (H, W, 3) uint8 BGR, found by
    OpenCV's line segment detector in each Lab channel (the colour channels stretched, so a green
    field on a brown frame of the same lightness still has its edge)."""
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB)
    detector = cv2.createLineSegmentDetector(cv2.LSD_REFINE_STD, config.lsd_scale)
    found: list[F64] = []
    for ch in range(3):
        channel = lab[:, :, ch].astype(np.float32)
        if ch > 0:
            channel = 128.0 + config.chroma_gain * (channel - 128.0)
        plane = np.ascontiguousarray(np.clip(channel, 0, 255).astype(np.uint8))
        segs: Any = detector.detect(plane)[0]
        if segs is not None:
            found.append(np.asarray(segs, dtype=np.float64).reshape(-1, 4))
    if not found:
        return np.zeros((0, 4))
    segs_all = np.vstack(found)
    length = np.hypot(segs_all[:, 2] - segs_all[:, 0], segs_all[:, 3] - segs_all[:, 1])
    segs_all = segs_all[length >= config.min_segment]
    return np.asarray(segs_all[~point_sides(config, segs_all)], dtype=np.float64)


def point_sides(config: LineConfig, segments: F64) -> NDArray[np.bool_]:
    """Which of ``segments`` (N, 4) are the sides of a point: long ones meeting another at a sharp
    angle at one end (the tip). There are 48 of them, all about as long as the short sides are between
    checkers; without them the board's outline stands out among the lines."""
    out = np.zeros(len(segments), dtype=bool)
    length = np.hypot(segments[:, 2] - segments[:, 0], segments[:, 3] - segments[:, 1])
    idx = np.flatnonzero(length >= config.min_seed)
    if len(idx) < 2:
        return out
    s = segments[idx]
    ends = np.concatenate([s[:, :2], s[:, 2:]])  # (2M, 2): starts then ends
    owner = np.concatenate([np.arange(len(s)), np.arange(len(s))])
    d = (s[:, 2:] - s[:, :2]) / length[idx, None]
    # pairs of ends within tip_px: sort by x, pair each end with those just after it
    order = np.argsort(ends[:, 0], kind="stable")
    ex = ends[order, 0]
    stop = np.searchsorted(ex, ex + config.tip_px, side="right")
    count = stop - np.arange(len(ex)) - 1
    i = np.repeat(np.arange(len(ex)), count)
    j = i + 1 + (np.arange(len(i)) - np.repeat(np.cumsum(count) - count, count))
    a, b = order[i], order[j]
    close = np.linalg.norm(ends[a] - ends[b], axis=1) <= config.tip_px
    oa, ob = owner[a], owner[b]
    cos = np.abs(np.sum(d[oa] * d[ob], axis=1))
    lo, hi = math.cos(math.radians(config.tip_deg[1])), math.cos(math.radians(config.tip_deg[0]))
    tip = close & (cos >= lo) & (cos <= hi) & (oa != ob)
    out[idx[np.unique(np.concatenate([oa[tip], ob[tip]]))]] = True
    return out


def _fit_line(points: F64, weights: F64) -> tuple[F64, F64]:
    """Weighted total least squares line through ``points`` (M, 2): (a point on it, unit direction)."""
    w = weights / max(float(np.sum(weights)), 1e-12)
    centre = (points * w[:, None]).sum(axis=0)
    d = points - centre
    cov = (d * w[:, None]).T @ d
    _, vecs = np.linalg.eigh(cov)
    return centre, vecs[:, -1]


def merge_segments(config: LineConfig, segments: F64, size: tuple[int, int]) -> list[LineTrace]:
    """The long straight lines made of collinear ``segments`` (N, 4), longest first (the longest stretch
    they cover with gaps bridged: a side with checkers on it is long, a point's side is not), at most
    ``config.keep`` of them; ``size`` is the image's (width, height).

    Each segment votes with its length for its line's (angle, offset) cell; the fullest cell gives a
    line, the segments along it are fitted and taken out, and so on."""
    if len(segments) == 0:
        return []
    a, b = segments[:, :2], segments[:, 2:]
    length = np.linalg.norm(b - a, axis=1)
    direction = (b - a) / length[:, None]
    theta = np.arctan2(direction[:, 0], -direction[:, 1])  # normal angle
    normal = np.column_stack([np.cos(theta), np.sin(theta)])
    rho = np.sum((a + b) / 2 * normal, axis=1)
    flip = rho < 0
    theta = np.where(flip, theta + math.pi, theta) % (2 * math.pi)
    rho = np.abs(rho)
    tol = math.radians(config.merge_deg)
    n_theta = int(math.ceil(2 * math.pi / tol))
    reach = math.hypot(*size)
    n_rho = int(math.ceil(reach / config.merge_px)) + 2
    ti = np.floor(theta / tol).astype(np.int64) % n_theta
    ri = np.clip(np.floor(rho / config.merge_px).astype(np.int64), 0, n_rho - 1)
    # each segment's vote spread over its cell and the 8 round it (angles wrap round)
    offsets = [(dt, dr) for dt in (-1, 0, 1) for dr in (-1, 0, 1)]

    def spread(sel: NDArray[np.bool_], sign: float) -> None:
        for dt, dr in offsets:
            np.add.at(
                pooled, ((ti[sel] + dt) % n_theta, np.clip(ri[sel] + dr, 0, n_rho - 1)), sign * length[sel]
            )

    pooled = np.zeros((n_theta, n_rho))
    free = np.ones(len(segments), dtype=bool)
    spread(free, 1.0)
    out: list[LineTrace] = []
    while len(out) < config.candidates:
        k = int(np.argmax(pooled))
        if pooled.flat[k] < config.min_seed:
            break
        t_peak, r_peak = divmod(k, n_rho)
        near = (
            free
            & (np.abs((ti - t_peak + n_theta // 2) % n_theta - n_theta // 2) <= 1)
            & (np.abs(ri - r_peak) <= 1)
        )
        if not near.any():
            pooled[t_peak, r_peak] = 0.0
            continue
        centre, d = _fit_line(np.vstack([a[near], b[near]]), np.concatenate([length[near], length[near]]))
        n_vec = np.array([-d[1], d[0]])
        dist = np.maximum(np.abs((a - centre) @ n_vec), np.abs((b - centre) @ n_vec))
        turn = np.abs(direction @ d)
        members = free & (((turn >= math.cos(tol)) & (dist <= config.merge_px)) | near)
        free &= ~members
        spread(members, -1.0)
        pooled[t_peak, r_peak] = min(pooled[t_peak, r_peak], 0.0)
        trace = _trace(centre, d, a[members], b[members], size, config.gap * reach)
        if trace.covered >= config.min_seed:
            out.append(trace)
    out.sort(key=lambda tr: -tr.longest)
    return out[: config.keep]


def _trace(centre: F64, d: F64, a: F64, b: F64, size: tuple[int, int], gap: float) -> LineTrace:
    """The line through ``centre`` along ``d`` and the parts of it the segments ``a``-``b`` cover; gaps up
    to ``gap`` pixels are bridged when measuring its longest stretch."""
    normal = np.array([-d[1], d[0]])
    rho = float(centre @ normal)
    if rho < 0:
        normal, rho = -normal, -rho
    line = Line(rho, math.atan2(normal[1], normal[0]), 0.0)
    foot = line.normal * line.rho
    direction = line.direction
    reach = math.hypot(*size)
    t0 = -reach
    n = int(2 * reach) + 1
    occ = np.zeros(n + 1)
    ta, tb = (a - foot) @ direction, (b - foot) @ direction
    lo = np.clip(np.round(np.minimum(ta, tb) - t0), 0, n).astype(np.int64)
    hi = np.clip(np.round(np.maximum(ta, tb) - t0), 0, n).astype(np.int64)
    np.add.at(occ, lo, 1.0)
    np.add.at(occ, hi, -1.0)
    covered = (np.cumsum(occ)[:n] > 0).astype(np.float64)
    cum = np.concatenate([[0.0], np.cumsum(covered)])
    total = float(cum[-1])
    # the longest stretch, gaps (a checker on the line) bridged
    idx = np.flatnonzero(covered)
    longest = 0.0
    if len(idx):
        breaks = np.flatnonzero(np.diff(idx) > gap)
        starts = np.concatenate([[idx[0]], idx[breaks + 1]])
        ends = np.concatenate([idx[breaks], [idx[-1]]])
        longest = float(np.max(ends - starts + 1))
    return LineTrace(Line(line.rho, line.theta, total), t0, cum, longest, total)


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
