"""The board's ends from the points' sides, by exhaustive search: where the edge fit cannot go.

The edge fit (``refine``) moves the drawing to the nearest edges, so it stays wherever it starts
within a fraction of a point: a short side started on the frame's outer edge (on a wooden board whose
frame is the field's colour the playing area's end shows no edge) stays there, with the points'
sides a little off all along the board to make up for it. The points themselves say where the
ends are: the 48 sides of the points lie on edges only when both ends are right.

``register_ends`` tries every move of the two ends along the board's length within a reach (a
fraction of a point each, in small steps) and scores each by how much of the points' sides and the
bar's edges lie on edges. Each sample of the drawing votes with its edge response relative to the
strongest it has anywhere in the reach, so a high-contrast checker edge does not outvote many faint
point sides. The score of the best placement, and how far it leads the best placement at least
``apart`` away from it, say how clearly the points pin the ends.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from nardy.calibration.config import RegisterConfig
from nardy.calibration.edges import Gradient
from nardy.calibration.refine import (
    BAR,
    POINT,
    Lens,
    Samples,
    _project,
    board_homography,
    model_segments,
    sample_model,
    sample_rows,
)
from nardy.vision.geometry import BoardGeometry, Row

F64 = NDArray[np.float64]


@dataclass(frozen=True)
class Registration:
    """The best placement of the ends found by ``register_ends``."""

    corners: F64
    """(4, 2) corners with the ends moved (image pixels, lens included)."""
    moves: tuple[float, float]
    """How far the left and the right end moved (point widths, positive: to larger board x)."""
    score: float
    """Mean vote of the drawing's samples at the placement (0..1) ..."""
    start: float
    """... and at the corners it started from ..."""
    lead: float
    """... and its lead over the best placement with either end at least ``RegisterConfig.apart``
    point widths from it."""

    @property
    def offset(self) -> float:
        """How far (point widths) the end that moved most moved: how far the points' sides put the
        ends from where the corners did."""
        return max(abs(self.moves[0]), abs(self.moves[1]))


def moved_ends(
    corners: F64, geometry: BoardGeometry, left: float, right: float, lens: Lens | None = None
) -> F64:
    """``corners`` (seen through ``lens``) with the left and the right end moved ``left``, ``right``
    point widths along the board's length."""
    lens = lens or Lens((0.0, 0.0), 1.0)
    h = board_homography(geometry, lens.undistort(np.asarray(corners, dtype=np.float64).reshape(4, 2)))
    pw = geometry.point_width
    board = geometry.corners()
    board[:, 0] += np.where(board[:, 0] < 0.5, left, right) * pw
    return _project(h, board, lens)


def register_ends(
    config: RegisterConfig,
    grad: Gradient,
    corners: F64,
    geometry: BoardGeometry,
    kappa: float = 0.0,
    row: Row | None = None,
) -> Registration:
    """The best moves of the two ends of the board at ``corners`` (4, 2; pixels of ``grad``, seen
    through a lens of distortion ``kappa`` about its centre) by the points' sides and the bar's edges
    (``Registration``); of ``row``'s half of the board only, if given (its points pin its two
    corners: a corner off along its long side shows there)."""
    hh, ww = grad.dx.shape
    lens = Lens((ww / 2.0, hh / 2.0), 0.5 * math.hypot(ww, hh), kappa)
    h = board_homography(geometry, lens.undistort(np.asarray(corners, dtype=np.float64).reshape(4, 2)))
    s = sample_model(model_segments(geometry, config.point_part), h, config.sample_px, (BAR, POINT))
    if row is not None:
        half = (s.board[:, 1] < geometry.height / 2) == (row == "top")
        s = Samples(s.board[half], s.kind[half], s.side[half], s.direction[half])
    pw = geometry.point_width
    if len(s.board) < 12:
        return Registration(np.asarray(corners, dtype=np.float64), (0.0, 0.0), 0.0, 0.0, 0.0)
    # each sample's response along the board's length, for every offset in the reach
    reach = config.reach + config.step
    offsets = np.arange(-reach, reach + 1e-9, config.fine) * pw
    along = s.board[:, None, :] + np.stack([offsets, np.zeros_like(offsets)], axis=1)[None, :, :]
    pts = _project(h, along.reshape(-1, 2), lens)
    q = _project(h, (s.board + s.direction * 1e-3), lens)
    p0 = _project(h, s.board, lens)
    d = q - p0
    d /= np.maximum(np.linalg.norm(d, axis=1, keepdims=True), 1e-12)
    normal = np.column_stack([-d[:, 1], d[:, 0]])
    shape = (len(s.board), len(offsets))
    xs = pts[:, 0].reshape(shape).astype(np.float32)
    ys = pts[:, 1].reshape(shape).astype(np.float32)
    gx = sample_rows(grad.dx, xs, ys, cv2.BORDER_CONSTANT)
    gy = sample_rows(grad.dy, xs, ys, cv2.BORDER_CONSTANT)
    resp = np.abs(gx * normal[:, 0:1] + gy * normal[:, 1:2]).astype(np.float64)
    vote = resp / np.maximum(resp.max(axis=1, keepdims=True), config.min_response)
    # the moves tried: each end's offset of a sample is linear in its place along the board
    moves = np.arange(-config.reach, config.reach + 1e-9, config.step)
    a, b = np.meshgrid(moves, moves, indexing="ij")
    a, b = a.ravel(), b.ravel()
    x = np.clip(s.board[:, 0], 0.0, 1.0)
    shift = (a[:, None] * (1.0 - x)[None, :] + b[:, None] * x[None, :]) * pw  # (M, S) board units
    pos = (shift - offsets[0]) / (config.fine * pw)
    k = np.clip(np.floor(pos).astype(np.int64), 0, len(offsets) - 2)
    f = np.clip(pos - k, 0.0, 1.0)
    rows = np.arange(len(s.board))[None, :]
    scores = np.mean(vote[rows, k] * (1.0 - f) + vote[rows, k + 1] * f, axis=1)
    best = int(np.argmax(scores))
    start = int(np.argmin(a**2 + b**2))
    far = np.maximum(np.abs(a - a[best]), np.abs(b - b[best])) >= config.apart - 1e-9
    lead = float(scores[best] - np.max(scores[far])) if far.any() else 1.0
    placed = moved_ends(corners, geometry, float(a[best]), float(b[best]), lens)
    return Registration(
        placed, (float(a[best]), float(b[best])), float(scores[best]), float(scores[start]), lead
    )
