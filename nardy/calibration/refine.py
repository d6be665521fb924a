"""Stage 5 of the board finder -- corners to the pixel, from the edges of the board's drawing.

The model is the board's line drawing: the playing area's four sides, the bar's two edges and the
sides of the 24 points. Sample points along it are projected with the current corners; from each, the
strongest colour edge along the line's normal is looked for within a search distance; the corners are
then moved so the drawing lies on those edges (Gauss-Newton on the eight corner coordinates, with
Tukey's weights so checkers, dice and a missing bar edge do not pull). Passes with shrinking search
distances go from "roughly right" to sub-pixel; the last may run on the full-resolution frame.

The sides of the points are used only in the later passes and only their middle part: near the
bases and the tips the neighbouring points' sides come close and could be mistaken for each other.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from nardy.calibration.config import RefineConfig
from nardy.calibration.edges import Gradient
from nardy.vision.geometry import POINTS_PER_QUARTER, POINTS_PER_ROW, ROWS, BoardGeometry

F32 = NDArray[np.float32]
F64 = NDArray[np.float64]

SIDE, BAR, POINT = 0, 1, 2
"""Kinds of model segment."""


@dataclass(frozen=True)
class Segment:
    """A straight piece of the board's drawing, board units; only ``t0..t1`` of it is sampled."""

    a: tuple[float, float]
    b: tuple[float, float]
    kind: int
    t0: float = 0.0
    t1: float = 1.0


def model_segments(geometry: BoardGeometry, point_part: tuple[float, float] = (0.2, 0.8)) -> list[Segment]:
    """The board's drawing: 4 sides (in corner order: top, right, bottom, left), the bar's edges and
    the sides of the points (their ``point_part`` fraction from base to tip)."""
    g = geometry
    c = g.corners()
    out = [Segment((c[i, 0], c[i, 1]), (c[(i + 1) % 4, 0], c[(i + 1) % 4, 1]), SIDE) for i in range(4)]
    if g.bar_width > 0:
        for x in (g.half_width, g.half_width + g.bar_width):
            out.append(Segment((x, 0.0), (x, g.height), BAR, 0.05, 0.95))
    for row in ROWS:
        for i in range(POINTS_PER_ROW):
            tri = g.triangle(row, i)
            for k in (0, 1):
                out.append(Segment((tri[k, 0], tri[k, 1]), (tri[2, 0], tri[2, 1]), POINT, *point_part))
    return out


def board_homography(geometry: BoardGeometry, corners: F64) -> F64:
    src = geometry.corners().astype(np.float32)
    return np.asarray(
        cv2.getPerspectiveTransform(src, np.asarray(corners, dtype=np.float32)), dtype=np.float64
    )


def _project(h: F64, pts: F64, lens: Lens | None = None) -> F64:
    q = pts @ h[:, :2].T + h[:, 2]
    p = np.asarray(q[:, :2] / q[:, 2:3], dtype=np.float64)
    return p if lens is None else lens.distort(p)


@dataclass(frozen=True)
class Lens:
    """First-order radial distortion about ``centre``: ``p_d = c + (p_u - c) (1 + kappa |p_u - c|^2 /
    norm^2)`` (pixels; ``norm`` is half the image diagonal, so ``kappa`` does not depend on the
    resolution)."""

    centre: tuple[float, float]
    norm: float
    kappa: float = 0.0

    def distort(self, p: F64) -> F64:
        c = np.asarray(self.centre)
        d = p - c
        r2 = np.sum(d * d, axis=1, keepdims=True) / self.norm**2
        return np.asarray(c + d * (1.0 + self.kappa * r2), dtype=np.float64)

    def undistort(self, p: F64) -> F64:
        c = np.asarray(self.centre)
        d = p - c
        u = d.copy()
        for _ in range(20):
            r2 = np.sum(u * u, axis=1, keepdims=True) / self.norm**2
            u = d / (1.0 + self.kappa * r2)
        return np.asarray(c + u, dtype=np.float64)

    def with_kappa(self, kappa: float) -> Lens:
        return Lens(self.centre, self.norm, kappa)


@dataclass(frozen=True)
class Samples:
    """Points of the drawing in board units, the kind of segment each is on, and each segment's
    direction in board units."""

    board: F64
    kind: NDArray[np.int64]
    side: NDArray[np.int64]
    """Which side (0..3) a sample lies on, -1 for bar and points."""
    direction: F64


def sample_model(segments: list[Segment], h: F64, step: float, kinds: tuple[int, ...]) -> Samples:
    """Points every ``step`` image pixels along the segments of ``kinds``, projected with ``h``."""
    sides = np.cumsum([seg.kind == SIDE for seg in segments]) - 1
    used = [(seg, int(k) if seg.kind == SIDE else -1) for seg, k in zip(segments, sides, strict=True)]
    used = [(seg, k) for seg, k in used if seg.kind in kinds]
    if not used:
        return Samples(np.zeros((0, 2)), np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros((0, 2)))
    a = np.array([seg.a for seg, _ in used], dtype=np.float64)
    b = np.array([seg.b for seg, _ in used], dtype=np.float64)
    t0 = np.array([seg.t0 for seg, _ in used])
    t1 = np.array([seg.t1 for seg, _ in used])
    ends = _project(h, np.vstack([a + (b - a) * t0[:, None], a + (b - a) * t1[:, None]]))
    m = len(used)
    counts = np.maximum(2, (np.linalg.norm(ends[m:] - ends[:m], axis=1) / step).astype(np.int64))
    seg_of = np.repeat(np.arange(m), counts)
    first = np.concatenate([[0], np.cumsum(counts)[:-1]])
    rank = np.arange(len(seg_of)) - first[seg_of]
    t = t0[seg_of] + (t1 - t0)[seg_of] * (rank + 0.5) / counts[seg_of]
    board = a[seg_of] + (b - a)[seg_of] * t[:, None]
    d = (b - a) / np.linalg.norm(b - a, axis=1, keepdims=True)
    kind = np.array([seg.kind for seg, _ in used], dtype=np.int64)[seg_of]
    side = np.array([k for _, k in used], dtype=np.int64)[seg_of]
    return Samples(board, kind, side, d[seg_of])


def model_normals(h: F64, board: F64, direction: F64, lens: Lens | None = None) -> tuple[F64, F64]:
    """Image points and unit image normals of the model lines at ``board`` samples."""
    p = _project(h, board, lens)
    q = _project(h, board + direction * 1e-3, lens)
    d = q - p
    d /= np.maximum(np.linalg.norm(d, axis=1, keepdims=True), 1e-12)
    return p, np.column_stack([-d[:, 1], d[:, 0]])


_REMAP_ROWS = 32000
"""OpenCV's ``remap`` takes maps of fewer than 32,767 rows (``SHRT_MAX``)."""


def sample_rows(src: F32, xs: NDArray[np.float32], ys: NDArray[np.float32], border: int) -> F32:
    """``cv2.remap`` of ``src`` at (N, K) float32 maps ``xs``, ``ys`` (bilinear; ``border`` is
    ``cv2.BORDER_CONSTANT`` with 0 or ``cv2.BORDER_REPLICATE``), in blocks of rows OpenCV accepts: a
    board far larger than the frame (a profile's corners far outside it) has that many samples."""
    n = _REMAP_ROWS
    blocks = [
        cv2.remap(src, xs[i : i + n], ys[i : i + n], cv2.INTER_LINEAR, borderMode=border)
        for i in range(0, max(len(xs), 1), n)  # (no rows: one empty call, as before)
    ]
    return np.asarray(blocks[0] if len(blocks) == 1 else np.concatenate(blocks), dtype=np.float32)


def search_edges(
    grad: Gradient,
    points: F64,
    normals: F64,
    reach: float,
    min_response: float,
    gate: NDArray[np.bool_] | None = None,
    lab: F32 | None = None,
    colours: F64 | None = None,
    max_colour: float = 0.0,
    inside: float = 2.0,
    rivals: F64 | None = None,
    max_relative: float = 0.0,
) -> tuple[F64, F64]:
    """For each image point, the signed distance along its normal (within ``reach`` pixels) to the
    strongest edge across it, and that edge's strength; NaN where none is strong enough.

    Where ``gate`` is True the edge must also have, ``inside`` pixels further along the normal, a colour
    of ``lab`` within ``max_colour`` of one of ``colours`` (K, 3), or of the gated point's own ``colours``
    (G, K, 3) for the G gated points: a side of the playing area is where the playing area's colours
    begin, not the frame's outer edge. With ``rivals`` (G, R, 3), a colour further off (up to
    ``max_relative``) also passes if it is nearer its allowed colours than all its rivals: a point's
    base in shadow or glare is still more like the point than like the field or the other points.
    """
    ts = np.arange(-reach, reach + 0.25, 0.5, dtype=np.float64)
    xs = (points[:, 0:1] + normals[:, 0:1] * ts[None, :]).astype(np.float32)
    ys = (points[:, 1:2] + normals[:, 1:2] * ts[None, :]).astype(np.float32)
    gx = sample_rows(grad.dx, xs, ys, cv2.BORDER_CONSTANT)
    gy = sample_rows(grad.dy, xs, ys, cv2.BORDER_CONSTANT)
    resp = np.abs(gx * normals[:, 0:1] + gy * normals[:, 1:2]).astype(np.float64)
    peak = np.zeros_like(resp, dtype=bool)
    peak[:, 1:-1] = (
        (resp[:, 1:-1] >= resp[:, :-2]) & (resp[:, 1:-1] >= resp[:, 2:]) & (resp[:, 1:-1] >= min_response)
    )
    if gate is not None and lab is not None and colours is not None and gate.any():
        gi = np.flatnonzero(gate)
        xi = xs[gi] + normals[gi, 0:1].astype(np.float32) * inside
        yi = ys[gi] + normals[gi, 1:2].astype(np.float32) * inside
        col = sample_rows(lab, xi, yi, cv2.BORDER_REPLICATE).astype(np.float64)
        allowed = colours[None, None, :, :] if colours.ndim == 2 else colours[:, None, :, :]
        dist = np.min(np.linalg.norm(col[:, :, None, :] - allowed, axis=3), axis=2)
        passed = dist <= max_colour
        if rivals is not None:
            rival = np.min(np.linalg.norm(col[:, :, None, :] - rivals[:, None, :, :], axis=3), axis=2)
            passed |= (dist < rival) & (dist <= max_relative)
        peak[gi] &= passed
    score = np.where(peak, resp, -1.0)
    k = np.argmax(score, axis=1)
    rows = np.arange(len(points))
    best = resp[rows, k]
    ok = peak[rows, k]
    kk = np.clip(k, 1, len(ts) - 2)
    left, right = resp[rows, kk - 1], resp[rows, kk + 1]
    denom = left - 2 * best + right
    frac = np.where(ok & (denom < 0), 0.5 * (left - right) / np.where(denom < 0, denom, -1.0), 0.0)
    offset = ts[k] + np.clip(frac, -1.0, 1.0) * 0.5
    return np.where(ok, offset, np.nan), np.where(ok, best, np.nan)


def side_colours(geometry: BoardGeometry, s: Samples, colours: F64) -> F64:
    """For each sample on a side, the colours allowed just inside it: (G, 3, 3) from ``colours`` (even
    points', odd points', field's). Along a long side the points' bases fill the playing area's edge, so
    only the colour of the point there is allowed (the frame's outer edge has the frame's colour inside,
    however much it looks like the field); along a short side, any of the three."""
    on_side = s.kind == SIDE
    x = s.board[on_side, 0]
    side = s.side[on_side]
    g = geometry
    right = x >= g.half_width + g.bar_width
    index = np.where(
        right,
        POINTS_PER_QUARTER + np.floor((x - g.half_width - g.bar_width) / g.point_width),
        np.floor(x / g.point_width),
    ).astype(np.int64)
    parity = np.where(side == 0, index % 2, (index + 1) % 2)
    own = colours[np.clip(parity, 0, 1)]  # (G, 3)
    out = np.repeat(colours[None, :, :], len(x), axis=0)
    long_side = (side == 0) | (side == 2)
    out[long_side] = own[long_side, None, :]
    return np.asarray(out, dtype=np.float64)


def side_rivals(geometry: BoardGeometry, s: Samples, colours: F64) -> F64:
    """For each sample on a side, the colours (G, 2, 3) that the colour just inside a long side must be
    further from than from the point's own (``side_colours``): the other points' and the field's.
    Along a short side, where all three are allowed, none."""
    own = side_colours(geometry, s, colours)[:, 0]
    other = np.where(
        np.linalg.norm(own - colours[0], axis=1, keepdims=True) < 1e-9,
        colours[1][None, :],
        colours[0][None, :],
    )
    out = np.stack([other, np.repeat(colours[2][None, :], len(own), axis=0)], axis=1)
    on_side = s.kind == SIDE
    short = (s.side[on_side] == 1) | (s.side[on_side] == 3)
    out[short] = own[short, None, :]  # equal distances: never nearer
    return np.asarray(out, dtype=np.float64)


@dataclass(frozen=True)
class Fit:
    """The result of ``refine_corners``."""

    corners: F64
    """(4, 2) refined corners (in the image as it is, lens included)."""
    side_support: float
    """Fraction of the samples on the four sides that found an edge where the fit put the side."""
    point_support: float
    """The same for the sides of the points."""
    residual: float
    """Median distance (pixels) of the matched edges from the fitted drawing."""
    moved: float
    """How far the corners moved (pixels, the largest)."""
    kappa: float = 0.0
    """The lens's radial distortion found (see ``Lens``)."""
    sides: tuple[float, ...] = ()
    """``side_support`` of each side (top, right, bottom, left)."""
    seen_sides: tuple[float, ...] = ()
    """The same, counted only where the side can be seen (``side_visibility``); empty without colours."""


def _fit_step(
    geometry: BoardGeometry,
    params: F64,
    s: Samples,
    targets: F64,
    normals: F64,
    config: RefineConfig,
    mask: NDArray[np.bool_],
    reach: float,
    lens: Lens,
    fit_lens: bool,
) -> F64:
    """One weighted Gauss-Newton step moving ``params`` (8 undistorted corner coordinates, then kappa)
    so the samples reach ``targets``."""

    def project(p: F64) -> F64:
        return _project(
            board_homography(geometry, p[:8].reshape(4, 2)), s.board[mask], lens.with_kappa(float(p[8]))
        )

    pts = project(params)
    n = normals[mask]
    r = np.sum((targets[mask] - pts) * n, axis=1)
    c = max(config.tukey, config.tukey_reach * reach)
    w = np.where(np.abs(r) < c, (1 - (r / c) ** 2) ** 2, 0.0)
    if np.count_nonzero(w) < 12:
        return params
    k_used = 9 if fit_lens else 8
    jac = np.zeros((len(r), k_used))
    for k in range(k_used):
        eps = 0.25 if k < 8 else 1e-3
        moved = params.copy()
        moved[k] += eps
        jac[:, k] = np.sum((project(moved) - pts) * n, axis=1) / eps
    damping = np.full(k_used, 1e-3)
    if fit_lens:
        damping[8] = config.kappa_prior * float(np.sum(w))
    a = jac.T @ (jac * w[:, None]) + np.diag(damping)
    delta = np.linalg.solve(
        a,
        jac.T @ (w * r) - np.concatenate([np.zeros(8), [damping[8] * params[8]]])[:k_used]
        if fit_lens
        else jac.T @ (w * r),
    )
    out = params.copy()
    out[:k_used] += delta
    out[8] = float(np.clip(out[8], -config.max_kappa, config.max_kappa))
    return out


def refine_corners(
    config: RefineConfig,
    grad: Gradient,
    corners: F64,
    geometry: BoardGeometry,
    searches: tuple[float, ...],
    *,
    lens: Lens | None = None,
    lab: F32 | None = None,
    colours: F64 | None = None,
) -> Fit:
    """Fit the board's drawing to the edges of ``grad`` starting from ``corners`` (4, 2) (TL, TR, BR, BL,
    pixels of ``grad``), one pass per search distance in ``searches``.

    ``lens``: the radial distortion to start from and, when ``config.fit_lens``, to fit (its centre is
    the image centre in ``grad``'s pixels). ``lab`` and ``colours`` (K, 3): the image in Lab and the
    playing area's colours, to tell the playing area's sides from the frame's outer edges.
    """
    segments = model_segments(geometry)
    hh, ww = grad.dx.shape
    lens = lens or Lens((ww / 2.0, hh / 2.0), 0.5 * float(np.hypot(ww, hh)))
    start = np.asarray(corners, dtype=np.float64).reshape(4, 2)
    params = np.concatenate([lens.undistort(start).reshape(-1), [lens.kappa]])

    def current() -> tuple[F64, Lens]:
        return board_homography(geometry, params[:8].reshape(4, 2)), lens.with_kappa(float(params[8]))

    for pass_no, reach in enumerate(searches):
        first = pass_no == 0 and len(searches) > 1
        kinds = (SIDE, BAR) if first and not config.points_first else (SIDE, BAR, POINT)
        h, ln = current()
        s = sample_model(segments, h, config.step, kinds)
        pts, normals = model_normals(h, s.board, s.direction, ln)
        allowed = side_colours(geometry, s, colours) if colours is not None and len(colours) == 3 else colours
        rivals = side_rivals(geometry, s, colours) if colours is not None and len(colours) == 3 else None
        offset, _ = search_edges(
            grad,
            pts,
            normals,
            reach,
            config.min_response,
            s.kind == SIDE,
            lab,
            allowed,
            config.max_colour,
            rivals=rivals,
            max_relative=config.max_relative,
        )
        found = np.isfinite(offset)
        targets = pts + normals * np.nan_to_num(offset)[:, None]
        for _ in range(config.iterations):
            params = _fit_step(
                geometry,
                params,
                s,
                targets,
                normals,
                config,
                found,
                reach,
                lens,
                config.fit_lens and not first,
            )
    h, ln = current()
    final = _project(h, geometry.corners(), ln)
    # how well the final drawing lies on edges
    s = sample_model(segments, h, config.step, (SIDE, POINT))
    pts, normals = model_normals(h, s.board, s.direction, ln)
    tight = max(1.0, config.tukey * 0.6)
    offset, _ = search_edges(grad, pts, normals, tight + 1.0, config.min_response)
    hit = np.isfinite(offset) & (np.abs(np.nan_to_num(offset, nan=99.0)) <= tight)
    side = s.kind == SIDE
    side_support = float(np.mean(hit[side])) if side.any() else 0.0
    point_support = float(np.mean(hit[~side])) if (~side).any() else 0.0
    sides = tuple(float(np.mean(hit[s.side == k])) if np.any(s.side == k) else 0.0 for k in range(4))
    seen: tuple[float, ...] = ()
    if lab is not None and colours is not None and len(colours) == 3 and side.any():
        visible = side_visibility(geometry, s, pts[side], normals[side], lab, colours, config.max_colour)
        seen = seen_support(hit[side], visible, s.side[side], config.seen_floor)
    residual = float(np.median(np.abs(offset[hit]))) if hit.any() else float("inf")
    moved = float(np.max(np.linalg.norm(final - start, axis=1)))
    return Fit(final, side_support, point_support, residual, moved, float(params[8]), sides, seen)


def end_support(
    config: RefineConfig, grad: Gradient, corners: F64, geometry: BoardGeometry, kappa: float = 0.0
) -> float:
    """Fraction of the drawing's samples on the bar's edges and the short sides that lie on edges of
    ``grad`` with the board at ``corners`` (image pixels of ``grad``, lens ``kappa`` about its centre),
    without fitting: the part of the drawing that tells the board from itself a point or two along."""
    hh, ww = grad.dx.shape
    lens = Lens((ww / 2.0, hh / 2.0), 0.5 * float(np.hypot(ww, hh)), kappa)
    h = board_homography(geometry, lens.undistort(np.asarray(corners, dtype=np.float64).reshape(4, 2)))
    s = sample_model(model_segments(geometry), h, config.step, (SIDE, BAR))
    ends = (s.kind == BAR) | (s.side == 1) | (s.side == 3)
    if not ends.any():
        return 0.0
    pts, normals = model_normals(h, s.board[ends], s.direction[ends], lens)
    tight = max(1.0, config.tukey * 0.6)
    offset, _ = search_edges(grad, pts, normals, tight + 1.0, config.min_response)
    return float(np.mean(np.isfinite(offset) & (np.abs(np.nan_to_num(offset, nan=99.0)) <= tight)))


def side_visibility(
    geometry: BoardGeometry, s: Samples, points: F64, normals: F64, lab: F32, colours: F64, max_colour: float
) -> NDArray[np.bool_]:
    """For the samples ``s`` on the sides (image ``points`` and inward ``normals``), whether the playing
    area can be seen just inside: a colour there that the playing area has at that place
    (``side_colours``). Where a checker, a die or a hand covers the side it cannot, and finding no edge
    there says nothing against the side."""
    on_side = s.kind == SIDE
    sub = Samples(s.board[on_side], s.kind[on_side], s.side[on_side], s.direction[on_side])
    allowed = side_colours(geometry, sub, colours)
    depth = np.array([1.5, 3.0])
    xs = (points[:, 0:1] + normals[:, 0:1] * depth).astype(np.float32)
    ys = (points[:, 1:2] + normals[:, 1:2] * depth).astype(np.float32)
    col = cv2.remap(lab, xs, ys, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(np.float64)
    dist = np.min(np.linalg.norm(col[:, :, None, :] - allowed[:, None, :, :], axis=3), axis=2)
    return np.asarray(np.any(dist <= max_colour, axis=1), dtype=np.bool_)


def seen_support(
    hit: NDArray[np.bool_], visible: NDArray[np.bool_], side: NDArray[np.int64], floor: float
) -> tuple[float, ...]:
    """Per side (0..3), the fraction of its samples that found an edge where the side is, among those
    where it can be seen (``visible``, or an edge found) but out of at least ``floor`` of all its
    samples: a side mostly hidden cannot count as well supported."""
    out = []
    for k in range(4):
        on = side == k
        n = int(np.count_nonzero(on))
        if n == 0:
            out.append(0.0)
            continue
        seen = int(np.count_nonzero(visible[on] | hit[on]))
        out.append(float(np.count_nonzero(hit[on])) / max(seen, floor * n, 1.0))
    return tuple(out)
