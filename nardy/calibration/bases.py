"""The long sides from the points' bases, on the full frame: where the working image is too coarse.

At a steep angle the frame along the far long side is a few pixels wide, and on a wooden board its
colour is close to one of the points' or the field's. The edge fit on the working image then sees
the frame's outer edge and the playing area's as one (both within a pixel or two), and the view's
row fit cannot tell them apart either; the full-resolution pass reaches only a few pixels. The full
frame still shows the difference plainly: just inside the playing area's side the points' bases
alternate between the two points' colours, just outside it the frame shows one colour, and on the
frame's outer edge it is the other way round (the frame inside, the table outside).

``base_profile`` moves each long side across its length within a reach and scores each place by how
much more the strip just inside it alternates like the points' bases than the strip just outside it.
Each sample votes +1 if nearer its point's colour than the other points', -1 if nearer the other's,
and 0 if far from both (a checker, a die, the table), so one colour all along (the frame, the
table) scores 0 and the points' bases 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from nardy.calibration.config import BaseConfig
from nardy.calibration.refine import Lens, _project, board_homography
from nardy.vision.geometry import POINTS_PER_ROW, ROWS, BoardGeometry, Row

F32 = NDArray[np.float32]
F64 = NDArray[np.float64]


@dataclass(frozen=True)
class BaseProfile:
    """Scores of one long side's places (``base_profile``)."""

    moves: F64
    """The moves tried (point widths, positive: into the playing area) ..."""
    scores: F64
    """... and each one's alternation just inside less that just outside (-2..2)."""

    @property
    def best(self) -> float:
        """The move that scores best."""
        return float(self.moves[int(np.argmax(self.scores))])

    @property
    def gain(self) -> float:
        """How much better the best move scores than staying."""
        return float(np.max(self.scores) - self.scores[int(np.argmin(np.abs(self.moves)))])


def _votes(samples: F64, own: F64, other: F64, far: float) -> F64:
    """+1 where a sample (..., 3) is nearer ``own`` (..., 3) than ``other``, -1 where nearer ``other``,
    0 where further than ``far`` from both."""
    d_own = np.linalg.norm(samples - own, axis=-1)
    d_other = np.linalg.norm(samples - other, axis=-1)
    vote = np.where(d_own < d_other, 1.0, -1.0)
    return np.asarray(np.where(np.minimum(d_own, d_other) <= far, vote, 0.0), dtype=np.float64)


def base_profile(
    config: BaseConfig,
    lab: F32,
    corners: F64,
    geometry: BoardGeometry,
    colours: F64,
    row: Row,
    lens: Lens | None = None,
) -> BaseProfile:
    """How well each place of ``row``'s long side (moved within ``config.reach`` point widths across
    it) has the points' bases just inside and none just outside (``BaseProfile``).

    ``lab``: (H, W, 3) float32 Lab image; ``corners`` (4, 2): the playing area's corners in it, seen
    through ``lens`` (default: none); ``colours`` (3, 3): the even points', the odd points' and the
    field's colours (``pattern.PatternScore.colours``)."""
    hh, ww = lab.shape[:2]
    lens = lens or Lens((ww / 2.0, hh / 2.0), 1.0)
    h = board_homography(geometry, lens.undistort(np.asarray(corners, dtype=np.float64).reshape(4, 2)))
    pw = geometry.point_width
    inward = geometry.direction(row)
    y0 = geometry.base_y(row)
    moves = np.arange(-config.reach, config.reach + 1e-9, config.step)
    across = np.linspace(-config.across, config.across, config.across_samples) * pw
    depth = np.linspace(config.depth[0], config.depth[1], config.depth_samples) * pw
    xs = np.array([geometry.point_x(i) for i in range(POINTS_PER_ROW)])
    own_class = np.arange(POINTS_PER_ROW) % 2 if row == "top" else (np.arange(POINTS_PER_ROW) + 1) % 2
    own = colours[own_class]  # (12, 3)
    other = colours[1 - own_class]
    # board samples, (moves, inside/outside, points, across, depth)
    shape = (len(moves), 2, POINTS_PER_ROW, len(across), len(depth))
    x = np.broadcast_to(xs[None, None, :, None, None] + across[None, None, None, :, None], shape)
    sense = np.array([1.0, -1.0])[None, :, None, None, None]
    y = y0 + inward * (moves[:, None, None, None, None] * pw + sense * depth[None, None, None, None, :])
    y = np.broadcast_to(y, shape)
    pts = _project(h, np.column_stack([x.ravel(), y.ravel()]), lens).astype(np.float32)
    col = (
        cv2.remap(
            lab, pts[:, 0:1], pts[:, 1:2], cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0.0
        )
        .reshape(*x.shape, 3)
        .astype(np.float64)
    )
    votes = _votes(col, own[None, None, :, None, None, :], other[None, None, :, None, None, :], config.far)
    strip = votes.mean(axis=(2, 3, 4))  # (moves, 2)
    return BaseProfile(moves, strip[:, 0] - strip[:, 1])


def moved_sides(
    corners: F64, geometry: BoardGeometry, top: float, bottom: float, lens: Lens | None = None
) -> F64:
    """``corners`` (seen through ``lens``) with the top and the bottom long side moved ``top``,
    ``bottom`` point widths into the playing area."""
    lens = lens or Lens((0.0, 0.0), 1.0)
    h = board_homography(geometry, lens.undistort(np.asarray(corners, dtype=np.float64).reshape(4, 2)))
    board = geometry.corners()
    pw = geometry.point_width
    board[:, 1] += np.where(board[:, 1] < geometry.height / 2, top, -bottom) * pw
    return _project(h, board, lens)


def base_moves(
    config: BaseConfig,
    lab: F32,
    corners: F64,
    geometry: BoardGeometry,
    colours: F64,
    lens: Lens | None = None,
) -> tuple[float, float]:
    """The moves of the top and the bottom long side (point widths into the playing area) that the
    points' bases call for: each side's best place if it lies inside the playing area, at least
    ``config.min_move`` in, and scores ``config.min_gain`` better than where the side is; else 0.

    Only moves inward are made: the places a side is wrongly fitted to, the frame's outer edge and
    the top of a row of checkers standing on the points' bases, both lie outside the playing area's."""
    out = []
    for row in ROWS:
        p = base_profile(config, lab, corners, geometry, colours, row, lens)
        out.append(p.best if p.gain >= config.min_gain and p.best >= config.min_move else 0.0)
    return out[0], out[1]
