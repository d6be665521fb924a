"""The bear-off tray: how many checkers of each colour have been borne off.

Borne-off checkers stand on their edges in the tray, one against the next, in a row from each end
of the tray (one colour from the top end, the other from the bottom end; which colour goes where
depends on who sits where, so each row's colour is read, not assumed). The tray lies outside the
playing area the corners name, so it is viewed on its own: a strip along the tray's centre line, on
the tray's floor, sampled from the frame (``tray_view`` once per camera position, ``read_tray`` per
frame).

A row of *n* standing checkers is a box from the tray's end; from an oblique camera it hides more of
the floor than its footprint, on the side away from the camera. For each *n* the hidden span of the
strip is predicted from the camera pose, and the count is scored by how unlike the empty tray the
strip looks inside that span and how sharply it changes where the row would end. The empty tray's
look is learnt from the tray's middle, where no row of fifteen reaches.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from nardy.vision.camera import Camera
from nardy.vision.config import TrayConfig
from nardy.vision.geometry import BoardGeometry
from nardy.vision.stats import median

F64 = NDArray[np.float64]


@dataclass(frozen=True)
class TrayView:
    """Where the tray's strip is in the frame and what each count would cover of it."""

    map_x: NDArray[np.float32]
    """(rows, cols) frame x of each strip pixel; rows run along the tray from its top end."""
    map_y: NDArray[np.float32]
    """(rows, cols) frame y of each strip pixel."""
    cover: F64
    """(2, max_count + 1, rows) how much of each strip row (0..1) a row of n checkers covers, from the
    top end (index 0) and from the bottom end (index 1)."""
    tops: F64
    """(2, max_count + 1, rows) the same for the checkers' top edges only (where they show on the strip)."""
    floor: NDArray[np.bool_]
    """(rows,) strip rows no row of checkers reaches: the empty tray."""
    ends: NDArray[np.intp]
    """(2, max_count + 1) the strip row just beyond a row of n checkers (-1 for n = 0)."""
    in_view: bool
    """False when the tray (or a part of it) is outside the frame, or there is no tray."""


def board_to_frame(camera: Camera, board_h: F64, points: F64, intrinsics: tuple[F64, F64] | None) -> F64:
    """Board (N, 3) points -> frame (N, 2) pixels, the way the rectifier maps the playing area: the
    corners' homography for the board plane, the pose for the height above it (or the calibrated
    camera, lens included)."""
    if intrinsics is not None:
        rvec, _ = cv2.Rodrigues(camera.r)
        img, _ = cv2.projectPoints(points.reshape(-1, 1, 3), rvec, camera.t, intrinsics[0], intrinsics[1])
        return np.asarray(img, dtype=np.float64).reshape(-1, 2)
    lift = camera.project(points, distort=False) - camera.project(points * [1, 1, 0], distort=False)
    q = points[:, :2] @ board_h[:, :2].T + board_h[:, 2]
    return np.asarray(q[:, :2] / q[:, 2:3] + lift, dtype=np.float64)


def _span_weights(lo: float, hi: float, rows: int) -> F64:
    """(rows,) overlap (0..1) of each unit row [v, v + 1) with [lo, hi)."""
    v = np.arange(rows, dtype=np.float64)
    return np.asarray(np.clip(np.minimum(v + 1, hi) - np.maximum(v, lo), 0.0, 1.0), dtype=np.float64)


def tray_view(
    config: TrayConfig,
    geometry: BoardGeometry,
    camera: Camera,
    board_h: F64,
    frame_size: tuple[int, int],
    max_count: int,
    intrinsics: tuple[F64, F64] | None = None,
) -> TrayView:
    """The tray's strip for one camera position. ``board_h``: 3x3 homography board (x, y) -> frame
    pixels (undistorted if ``intrinsics`` (k, dist) are given); ``frame_size`` (width, height)."""
    g = geometry
    d = 2.0 * g.checker_radius
    pitch = config.pitch * g.checker_height
    start = config.start * g.point_width
    stand = config.stand_height * d
    s = config.px_per_pitch / pitch  # strip pixels per board unit along the tray
    rows = max(1, int(round(g.height * s)))
    x0, _, x1, _ = g.tray_rect()
    xc = 0.5 * (x0 + x1)
    half = 0.5 * config.core * min(g.tray_width, d)
    xs = np.linspace(xc - half, xc + half, config.columns)
    ys = (np.arange(rows, dtype=np.float64) + 0.5) / s
    gx, gy = np.meshgrid(xs, ys)
    board = np.column_stack([gx.ravel(), gy.ravel(), np.zeros(gx.size)])
    empty = np.zeros((2, max_count + 1, rows))
    if g.tray_width <= 0:
        return TrayView(
            np.zeros((rows, config.columns), np.float32),
            np.zeros((rows, config.columns), np.float32),
            empty,
            empty.copy(),
            np.zeros(rows, bool),
            np.full((2, max_count + 1), -1, np.intp),
            False,
        )
    pix = board_to_frame(camera, board_h, board, intrinsics).reshape(rows, config.columns, 2)
    # the whole tray, floor and the tops of the checkers standing in it, must be in the frame
    outline = np.array(
        [[x, y, z] for x in (x0, x1) for y in (0.0, g.height) for z in (0.0, -stand)], dtype=np.float64
    )
    seen = board_to_frame(camera, board_h, outline, intrinsics)
    m = config.frame_margin
    in_view = bool(
        np.all(np.isfinite(seen))
        and np.all(seen >= m)
        and np.all(seen[:, 0] <= frame_size[0] - 1 - m)
        and np.all(seen[:, 1] <= frame_size[1] - 1 - m)
    )
    # what a row of n checkers covers of the strip: its box seen from the camera, met on the strip's
    # plane (each corner along its line of sight)
    c = camera.position
    cover = np.zeros((2, max_count + 1, rows))
    tops = np.zeros((2, max_count + 1, rows))
    for end, (y_end, sign) in enumerate(((0.0, 1.0), (g.height, -1.0))):
        for n in range(1, max_count + 1):
            ya, yb = y_end + sign * start, y_end + sign * (start + n * pitch)
            box = np.array(
                [[x, y, z] for x in (xc - d / 2, xc + d / 2) for y in (ya, yb) for z in (0.0, -stand)],
                dtype=np.float64,
            )
            t = -c[2] / (box[:, 2] - c[2])
            met = c[1] + t * (box[:, 1] - c[1])
            cover[end, n] = _span_weights(float(met.min()) * s, float(met.max()) * s, rows)
            top = met[box[:, 2] < 0]
            tops[end, n] = _span_weights(float(top.min()) * s, float(top.max()) * s, rows)
    reach = cover[:, max_count].sum(axis=0) > 0
    pad = int(np.ceil(config.floor_pad * config.px_per_pitch))
    near = np.convolve(reach.astype(np.float64), np.ones(2 * pad + 1), mode="same") > 0
    ends = np.full((2, max_count + 1), -1, np.intp)
    for end in range(2):
        for n in range(1, max_count + 1):
            hidden = np.flatnonzero(cover[end, n] > 0)
            if len(hidden):
                ends[end, n] = int(hidden[-1]) + 1 if end == 0 else int(hidden[0]) - 1
    return TrayView(
        pix[:, :, 0].astype(np.float32), pix[:, :, 1].astype(np.float32), cover, tops, ~near, ends, in_view
    )


@dataclass(frozen=True)
class TrayReading:
    """One frame's tray: per end a count distribution and the colour of its checkers."""

    counts: F64
    """(2, max_count + 1) P(n checkers) in the row from the top end and from the bottom end."""
    colours: F64
    """(2, 3) Lab (OpenCV 8-bit scaling) of each row's checkers (their top edges), at its likeliest
    count (the tray's own colour where that is 0)."""
    readable: bool
    """False when the empty tray could not be seen (too little of it, or the tray is out of view)."""


def _median(x: F64, axis: int = 0) -> F64:
    """``np.median(x, axis)`` without its overhead (no NaNs here)."""
    return np.asarray(median(x, axis), dtype=np.float64)


def _swings(lightness: F64, period: int) -> tuple[F64, F64]:
    """(rows,) each: how much ``lightness`` (rows,) swings at ``period`` rows over the ``period`` rows
    from each row on, and over those up to it: the stripes a row of standing checkers makes."""
    k = np.arange(period)
    pad = np.concatenate([np.full(period - 1, lightness[0]), lightness, np.full(period - 1, lightness[-1])])
    c = np.correlate(pad, np.cos(2 * np.pi * k / period), "valid")
    s = np.correlate(pad, np.sin(2 * np.pi * k / period), "valid")
    m = np.asarray(np.hypot(c, s), dtype=np.float64)
    n = len(lightness)
    return m[period - 1 : period - 1 + n], m[:n]


def row_evidence(config: TrayConfig, rows: F64, floor: NDArray[np.bool_]) -> F64:
    """(rows,) log-likelihood ratio, standing checker against empty tray, of each strip row from its
    Lab colour ``rows`` (rows, 3); ``floor`` (rows,) marks the rows that show the empty tray."""
    ref = _median(rows[floor])
    dl = np.abs(rows[:, 0] - ref[0])
    dab = np.linalg.norm(rows[:, 1:] - ref[1:], axis=1)
    period = max(2, int(round(config.px_per_pitch)))
    # stripes on both sides of a row, so the row beyond a line's last checker shows none
    stripe = np.minimum(*_swings(rows[:, 0], period))
    spreads = (
        max(config.lightness_floor, 1.4826 * float(_median(dl[floor]))),
        max(config.chroma_floor, 1.4826 * float(_median(dab[floor]))),
        max(config.stripe_floor, float(_median(stripe[floor]))),
    )
    f = np.minimum(np.column_stack([dl, dab, stripe]) / np.array(spreads), config.feature_cap)
    x = np.column_stack([f, np.sqrt(f), np.ones(len(f))])
    w = np.asarray(config.weights, dtype=np.float64)
    logit = x @ w - np.log(config.prior / (1.0 - config.prior))
    return np.asarray(np.clip(logit, -config.cap, config.cap), dtype=np.float64)


def end_edges(config: TrayConfig, view: TrayView, rows: F64) -> F64:
    """(2, max_count + 1) how sharply the strip changes where a row of n checkers would end, less
    ``edge_unlike``, in spreads of the empty tray's changes (0 for n = 0): a row of checkers ends
    in an edge, an uneven light on the empty tray does not."""
    n_rows = len(rows)
    step = np.zeros(n_rows)
    step[1:-1] = 0.5 * np.linalg.norm(rows[2:] - rows[:-2], axis=1)
    spread = max(config.edge_floor, 1.4826 * float(_median(step[view.floor])))
    sharp = np.minimum(step / spread, config.feature_cap)
    reach = config.edge_reach
    padded = np.full(n_rows + 2 * reach, -np.inf)
    padded[reach : reach + n_rows] = sharp
    near = padded[:n_rows].copy()  # the max within reach
    for k in range(1, 2 * reach + 1):
        np.maximum(near, padded[k : k + n_rows], out=near)
    b = np.clip(view.ends, 0, n_rows - 1)
    out = np.where((view.ends >= 0) & (view.ends < n_rows), near[b] - config.edge_unlike, 0.0)
    out[:, 0] = 0.0
    return np.asarray(out, dtype=np.float64)


def _spread(p: F64, decay: float) -> F64:
    """(2, n) count probabilities p (2, n) blurred by ``decay`` per count of distance, rows summing
    to 1."""
    n = np.arange(p.shape[1])
    out = p @ decay ** np.abs(n[:, None] - n[None, :])
    return np.asarray(out / out.sum(axis=1, keepdims=True), dtype=np.float64)


def read_tray(config: TrayConfig, view: TrayView, frame: NDArray[np.uint8]) -> TrayReading:
    """frame (H, W, 3) uint8 BGR -> ``TrayReading`` for the tray ``view`` describes."""
    n_counts = view.cover.shape[1]
    none = np.zeros((2, n_counts))
    none[:, 0] = 1.0
    if not view.in_view or view.floor.sum() < config.min_floor_rows:
        return TrayReading(none, np.zeros((2, 3)), False)
    strip = cv2.remap(frame, view.map_x, view.map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    lab = np.asarray(cv2.cvtColor(np.asarray(strip, np.uint8), cv2.COLOR_BGR2LAB), dtype=np.float64)
    rows = _median(lab, axis=1)  # (rows, 3)
    llr = row_evidence(config, rows, view.floor)
    scores = view.cover @ (llr - config.row_cost) + config.edge_gain * end_edges(config, view, rows)
    z = scores / config.temperature
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    p = (1.0 - config.doubt) * p + config.doubt * _spread(p, config.doubt_decay)
    colours = np.zeros((2, 3))
    for end in range(2):
        n = int(np.argmax(p[end]))
        w = view.tops[end, n]
        colours[end] = _median(rows[w > 0.5]) if n > 0 and (w > 0.5).any() else rows[view.floor].mean(0)
    return TrayReading(p, colours, True)


def _shades(lab: F64, darkest: float, steps: int) -> F64:
    """(steps, 3) Lab of the colour ``lab`` (3,) darkened (BGR scaled) by darkest..1: a checker's
    edge is often its top's colour in less light."""
    bgr = cv2.cvtColor(np.clip(lab, 0, 255).astype(np.uint8).reshape(1, 1, 3), cv2.COLOR_LAB2BGR)
    scale = np.linspace(darkest, 1.0, steps)
    ramp = np.clip(bgr.reshape(1, 3).astype(np.float64) * scale[:, None], 0, 255).astype(np.uint8)
    out = cv2.cvtColor(ramp.reshape(-1, 1, 3), cv2.COLOR_BGR2LAB)
    return np.asarray(out, dtype=np.float64).reshape(-1, 3)


def row_light(config: TrayConfig, reading: TrayReading, light: F64, dark: F64) -> F64:
    """(2,) P(the checkers of each row are light), from the rows' colours and the two checker colours
    ``light`` and ``dark`` (3,) Lab seen on the points. Each row is one colour; the two rows are most
    often of the two colours (each side bears off into its own end). A row's colour far from both
    may not be its checkers' at all (``colour_outlier``)."""
    present = 1.0 - reading.counts[:, 0]
    ll = np.zeros((2, 2))  # [row, light / dark]
    for end in range(2):
        if present[end] < 0.5:
            continue
        for k, ref in enumerate((light, dark)):
            d = np.min(np.linalg.norm(_shades(ref, config.darkest, 12) - reading.colours[end], axis=1))
            ll[end, k] = -0.5 * (d / config.colour_spread) ** 2
            if config.colour_outlier > 0:  # or the sample missed the checkers' colour altogether
                fit = np.log1p(-config.colour_outlier) + ll[end, k]
                ll[end, k] = float(np.logaddexp(fit, np.log(config.colour_outlier)))
    same = np.log(config.same_colour)
    other = np.log(1.0 - config.same_colour)
    joint = np.array(
        [[ll[0, a] + ll[1, b] + (same if a == b else other) for b in range(2)] for a in range(2)]
    )
    p = np.exp(joint - joint.max())
    p /= p.sum()
    out = np.array([p[0].sum(), p[:, 0].sum()])
    return np.asarray(config.colour_doubt + (1 - 2 * config.colour_doubt) * out, dtype=np.float64)


def off_counts(counts: F64, p_light: F64, max_count: int) -> tuple[F64, F64]:
    """Borne-off counts per colour from the two rows: ``counts`` (2, k) P(n) per row, ``p_light`` (2,)
    P(a row's checkers are light) -> (light, dark), each (max_count + 1,) P(n), the two rows taken as
    independent."""
    out = []
    for share in (np.asarray(p_light, np.float64), 1.0 - np.asarray(p_light, np.float64)):
        total = np.ones(1)
        for row, q in zip(counts, share, strict=True):
            mine = row * q
            mine[0] = row[0] + float(np.sum(row[1:]) * (1.0 - q))
            total = np.convolve(total, mine)
        dist = np.zeros(max_count + 1)
        dist[: min(len(total), max_count + 1)] = total[: max_count + 1]
        dist[max_count] += float(total[max_count + 1 :].sum())
        out.append(dist / dist.sum())
    return out[0], out[1]
