"""Stage 6b -- crossing: does something reach over the board's frame?

A hand over the board comes from outside it, so its arm crosses the frame round the playing area.
The frame is one plain colour that changes only slowly along it (wood grain, a lamp's gradient);
an arm or a sleeve over it is a stretch at least a point wide that looks like something else. The
settle stage looks for a hand inside the playing area, where it may hardly differ from the points
or the checkers it covers; the frame is a second, plainer place to see it.

``frame_band`` samples a band along each of the four sides, in the middle of the frame's width
(clear of the checkers' sides, which hang over the frame's inner edge from oblique views, and of
the board's outer edge); ``crossings`` compares each stretch of it with the frame's look along that
side (a running median, so light that changes along the side is not a hand) and names the points
nearest each stretch that is unlike it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from nardy.vision.config import SettleConfig
from nardy.vision.geometry import POINTS_PER_ROW, BoardGeometry

F32 = NDArray[np.float32]
F64 = NDArray[np.float64]
SIDES = ("top", "bottom", "left", "right")


@dataclass(frozen=True)
class FrameBand:
    """Where the frame is sampled in one camera view."""

    map_x: F32
    """(across, n) frame x of each sample: ``across`` rows over the frame's width, ``n`` samples
    along the four sides one after the other."""
    map_y: F32
    """(across, n) frame y of each sample."""
    side: NDArray[np.intp]
    """(n,) the side (index into ``SIDES``) of each sample."""
    names: tuple[str, ...]
    """(n,) the place nearest each sample: ``top[i]`` / ``bottom[i]`` along the long sides, the
    row's end point along the short ones."""
    seen: NDArray[np.bool_]
    """(n,) samples inside the frame (the others are left out)."""
    column: NDArray[np.intp]
    """(n,) along the long sides, the column (0..11) of the nearest point; -1 on the short sides."""
    along: F64
    """(n,) the sample's position along its side (board units: x on the long sides, y on the short)."""
    end: NDArray[np.intp]
    """(n,) along the short sides, the place index (0..23: top row then bottom row) of the row's end
    point on that side whose stack may reach the sample; -1 on the long sides."""
    reach: F64
    """(n,) along the short sides, how far the sample is from that row's end of the board (board
    units, along the side); 0 on the long sides."""
    step: float
    """Spacing of the samples along a side, in point widths."""


def frame_band(
    config: SettleConfig,
    geometry: BoardGeometry,
    to_frame: Callable[[F64], F64],
    frame_size: tuple[int, int],
) -> FrameBand:
    """The samples of the frame band for one view; ``to_frame`` maps board (N, 3) points to frame
    (N, 2) pixels."""
    g = geometry
    f = g.frame_width
    lo, hi = config.frame_from, config.frame_to
    offsets = f * np.linspace(lo, hi, config.frame_across)  # outward from the playing area's edge
    step = config.frame_step * g.point_width
    xs = np.arange(step / 2, 1.0, step)
    ys = np.arange(step / 2, g.height, step)
    columns = np.array([g.point_x(i) for i in range(POINTS_PER_ROW)])
    points, side, names, column, ends, reach, along = [], [], [], [], [], [], []
    for k, name in enumerate(SIDES):
        run = xs if name in ("top", "bottom") else ys
        along += list(run)
        if name in ("top", "bottom"):
            nearest = [int(np.argmin(np.abs(columns - x))) for x in run]
            names += [f"{name}[{i}]" for i in nearest]
            column += nearest
            ends += [-1] * len(run)
            reach += [0.0] * len(run)
        else:
            i = 0 if name == "left" else POINTS_PER_ROW - 1
            names += [f"{'top' if y < g.height / 2 else 'bottom'}[{i}]" for y in run]
            column += [-1] * len(run)
            ends += [i if y < g.height / 2 else POINTS_PER_ROW + i for y in run]
            reach += [y if y < g.height / 2 else g.height - y for y in run]
        for o in offsets:
            if name == "top":
                p = np.column_stack([run, np.full(len(run), -o)])
            elif name == "bottom":
                p = np.column_stack([run, np.full(len(run), g.height + o)])
            elif name == "left":
                p = np.column_stack([np.full(len(run), -o), run])
            else:
                p = np.column_stack([np.full(len(run), 1.0 + o), run])
            points.append(p)
        side.append(np.full(len(run), k, np.intp))
    across = len(offsets)
    lengths = [len(s) for s in side]
    n = sum(lengths)
    # points were stacked side by side, each side's rows one after the other: regroup as (across, n)
    grid = np.zeros((across, n, 2))
    start = 0
    for k in range(len(SIDES)):
        m = lengths[k]
        for j in range(across):
            grid[j, start : start + m] = points[k * across + j]
        start += m
    flat = np.column_stack([grid.reshape(-1, 2), np.zeros(across * n)])
    pix = to_frame(flat).reshape(across, n, 2)
    w, h = frame_size
    inside = np.all(np.isfinite(pix), axis=2) & (pix[:, :, 0] >= 0) & (pix[:, :, 0] <= w - 1)
    inside &= (pix[:, :, 1] >= 0) & (pix[:, :, 1] <= h - 1)
    pix = np.nan_to_num(pix, nan=-1.0, posinf=-1.0, neginf=-1.0)
    # where the band is only a few pixels wide (the far side, steeply tilted) it mixes in the board's
    # edges: left out
    wide = np.linalg.norm(pix[-1] - pix[0], axis=1) >= config.frame_min_px
    return FrameBand(
        pix[:, :, 0].astype(np.float32),
        pix[:, :, 1].astype(np.float32),
        np.concatenate(side),
        tuple(names),
        inside.all(axis=0) & wide,
        np.array(column, np.intp),
        np.array(along, np.float64),
        np.array(ends, np.intp),
        np.array(reach, np.float64),
        config.frame_step,
    )


def crossings(
    config: SettleConfig,
    geometry: BoardGeometry,
    band: FrameBand,
    frame: NDArray[np.uint8],
    lines: NDArray[np.intp],
) -> tuple[str, ...]:
    """The places nearest each stretch of the frame that something lies over: ``top[i]`` and
    ``bottom[i]`` for the long sides, the row's end point for the short ones. ``frame`` (H, W, 3)
    uint8 BGR; ``lines`` (24,) the checkers counted in each point's line (top row, then bottom):
    the frame next to a point's base is left out where they stand (their sides hang over it from
    oblique views), and along the short sides as far as the end points' lines reach."""
    samples = cv2.remap(frame, band.map_x, band.map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    lab = cv2.cvtColor(samples, cv2.COLOR_BGR2LAB).astype(np.float32)  # (across, n, 3)
    # each stretch's colour over the frame's width: the median of the samples across it
    colour = lab.sum(axis=0) - lab.max(axis=0) - lab.min(axis=0) if len(lab) == 3 else np.median(lab, axis=0)
    # the frame beside an occupied point's base: within ``frame_clear_x`` point widths of its middle
    long_side = band.column >= 0
    row = np.where(band.side == SIDES.index("bottom"), 1, 0)
    occupied = lines.reshape(2, POINTS_PER_ROW) > 0
    centres = np.array([geometry.point_x(i) for i in range(POINTS_PER_ROW)])
    near = np.abs(band.along[:, None] - centres[None, :]) < config.frame_clear_x * geometry.point_width
    taken = long_side & (near & occupied[row]).any(axis=1)
    extent = (lines[np.maximum(band.end, 0)] + config.frame_clear) * 2.0 * geometry.checker_radius
    taken |= (band.end >= 0) & (lines[np.maximum(band.end, 0)] > 0) & (band.reach < extent)
    window = max(3, int(round(config.frame_window / band.step)) | 1)
    least = max(1, int(np.ceil(config.frame_least / band.step)))
    pad = window // 2
    # the frame's look along each side: a running median, so that a gradient is not a hand (the four
    # sides padded each on its own and taken together)
    sides = [np.flatnonzero((band.side == k) & band.seen & ~taken) for k in range(len(SIDES))]
    sides = [idx for idx in sides if len(idx) >= window]
    if not sides:
        return ()
    padded = np.concatenate([np.pad(colour[idx], ((pad, pad), (0, 0)), mode="edge") for idx in sides])
    starts = np.cumsum([0] + [len(idx) + 2 * pad for idx in sides[:-1]])
    at = np.concatenate([start + np.arange(len(idx)) for start, idx in zip(starts, sides, strict=True)])
    windows = np.lib.stride_tricks.sliding_window_view(padded, window, axis=0)[at]  # (n, 3, window)
    look = np.partition(windows, pad, axis=2)[:, :, pad]
    distance_all = np.linalg.norm(colour[np.concatenate(sides)] - look, axis=1)
    places: list[str] = []
    offset = 0
    for idx in sides:
        distance = distance_all[offset : offset + len(idx)]
        offset += len(idx)
        for a, b in _runs(distance > config.frame_unlike):
            if b - a < least:
                continue
            # an arm or a sleeve ends sharply; a lamp's reflection fades out
            peak = float(distance[a:b].max())
            rise = distance[a] - (distance[a - 1] if a > 0 else distance[a])
            fall = distance[b - 1] - (distance[b] if b < len(distance) else distance[b - 1])
            if max(rise, fall) < config.frame_sharp * peak:
                continue
            places.extend(band.names[i] for i in idx[a:b])
    return tuple(dict.fromkeys(places))


def _runs(mask: NDArray[np.bool_]) -> list[tuple[int, int]]:
    """[start, end) of each run of True in ``mask``."""
    d = np.diff(np.concatenate([[0], mask.astype(np.int8), [0]]))
    return list(zip(np.flatnonzero(d == 1).tolist(), np.flatnonzero(d == -1).tolist(), strict=True))
