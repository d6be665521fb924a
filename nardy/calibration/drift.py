"""Noticing that the camera moved during a game, and finding the board again.

``DriftMonitor`` is fed every frame. Its per-frame check is cheap: on a small copy of the frame, how
much of the board's drawing (the four sides and the points' sides) still lies on edges at the known
corners. A hand over the board hides part of it for a moment; a nudged camera moves all of it for
good. So a drop below ``suspect_ratio`` of the level learned on the first frames starts a count, and
only after ``patience`` such frames in a row does the monitor look again: first a wide local fit from
the old corners (a small nudge), else the full finder. If the board is found where it was not before,
it reports ``CameraMoved`` with the new corners; the caller should stop reading positions until it
has taken them (``accept``). If it is not found, the state is ``lost`` and it keeps trying.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from nardy.calibration.config import FinderConfig
from nardy.calibration.edges import colour_gradient, shrink, to_lab
from nardy.calibration.finder import find_board, name_corners
from nardy.calibration.pattern import pattern_score
from nardy.calibration.refine import (
    POINT,
    SIDE,
    Lens,
    board_homography,
    model_normals,
    model_segments,
    refine_corners,
    sample_model,
    search_edges,
)
from nardy.vision.geometry import BoardGeometry

log = logging.getLogger(__name__)

F64 = NDArray[np.float64]
State = Literal["learning", "steady", "suspect", "moved", "lost"]


@dataclass(frozen=True)
class DriftConfig:
    check_px: int = 480
    """Longer side of the small frame the per-frame check runs on."""
    reach: float = 2.0
    """How far (pixels of that frame) an edge may lie from the drawing and still count."""
    learn_frames: int = 3
    """Frames the normal level of agreement is learned from."""
    suspect_ratio: float = 0.6
    """Agreement below this fraction of the normal level makes a frame suspect."""
    patience: int = 5
    """Suspect frames in a row before looking for the board again."""
    local_reach: float = 24.0
    """Search distance of the local re-fit (pixels of the finder's working image)."""
    min_shift: float = 3.0
    """A re-found board whose corners moved less than this (full-frame pixels) has not moved."""
    min_pattern: float = 0.7
    """Pattern score a re-found board needs ..."""
    min_support: float = 0.5
    """... and fraction of its outline on edges, when found by the local re-fit."""
    finder: FinderConfig = field(default_factory=FinderConfig)


@dataclass(frozen=True)
class CameraMoved:
    """The board's corners moved: the event to alert on."""

    frame: int
    """Index of the frame (counted from 0) that confirmed it."""
    old: F64
    new: F64
    """(4, 2) proposed corners."""
    shift: float
    """Largest corner movement in pixels."""
    confidence: float


@dataclass(frozen=True)
class DriftStatus:
    """The monitor's answer for one frame."""

    state: State
    agreement: float
    """Fraction of the drawing on edges this frame."""
    corners: F64
    """The corners the monitor currently holds (the old ones until a move is accepted)."""
    event: CameraMoved | None = None


def agreement(config: DriftConfig, image: NDArray[np.uint8], corners: F64, geometry: BoardGeometry) -> float:
    """Fraction of the board's drawing (sides and the points' sides) lying on colour edges of ``image``
    (H, W, 3) uint8 BGR at ``corners`` (4, 2), measured on a copy ``check_px`` wide."""
    small, scale = shrink(image, config.check_px)
    grad = colour_gradient(config.finder.edges, to_lab(small))
    c = np.asarray(corners, dtype=np.float64) * scale
    hm = board_homography(geometry, c)
    s = sample_model(model_segments(geometry), hm, config.finder.refine.step, (SIDE, POINT))
    pts, normals = model_normals(hm, s.board, s.direction)
    offset, _ = search_edges(grad, pts, normals, config.reach + 1.0, config.finder.refine.min_response)
    hit = np.isfinite(offset) & (np.abs(np.nan_to_num(offset, nan=99.0)) <= config.reach)
    return float(np.mean(hit)) if len(hit) else 0.0


class DriftMonitor:
    """Watches a board whose corners are known; feed it every frame with ``check``."""

    def __init__(self, config: DriftConfig, corners: F64, geometry: BoardGeometry | None = None) -> None:
        self.config = config
        self.geometry = geometry or BoardGeometry()
        self.corners = np.asarray(corners, dtype=np.float64).reshape(4, 2)
        self.level: float | None = None
        self._learning: list[float] = []
        self._suspect = 0
        self._frame = -1
        self._pending: CameraMoved | None = None

    def check(self, frame: NDArray[np.uint8]) -> DriftStatus:
        """Look at one frame (H, W, 3) uint8 BGR."""
        cfg = self.config
        self._frame += 1
        a = agreement(cfg, frame, self.corners, self.geometry)
        if self._pending is not None:
            return DriftStatus("moved", a, self.corners, self._pending)
        if self.level is None:
            self._learning.append(a)
            if len(self._learning) >= cfg.learn_frames:
                self.level = float(np.median(self._learning))
            return DriftStatus("learning", a, self.corners)
        if a >= cfg.suspect_ratio * self.level:
            self._suspect = 0
            return DriftStatus("steady", a, self.corners)
        self._suspect += 1
        if self._suspect < cfg.patience:
            return DriftStatus("suspect", a, self.corners)
        new, confidence = self._refind(frame)
        if new is None:
            return DriftStatus("lost", a, self.corners)
        shift = float(np.max(np.linalg.norm(new - self.corners, axis=1)))
        if shift < cfg.min_shift:
            # the board is where it was: the drop was something else (a hand, a shadow) that lasted
            self._suspect = 0
            return DriftStatus("suspect", a, self.corners)
        event = CameraMoved(self._frame, self.corners.copy(), new, shift, confidence)
        self._pending = event
        log.warning("camera moved: board corners shifted by %.1f px (confidence %.2f)", shift, confidence)
        return DriftStatus("moved", a, self.corners, event)

    def accept(self, corners: F64 | None = None) -> None:
        """Take the proposed corners (or ``corners``) and learn the normal level afresh."""
        if corners is None and self._pending is not None:
            corners = self._pending.new
        if corners is not None:
            self.corners = np.asarray(corners, dtype=np.float64).reshape(4, 2)
        self._pending = None
        self._suspect = 0
        self.level = None
        self._learning = []

    def _refind(self, frame: NDArray[np.uint8]) -> tuple[F64 | None, float]:
        cfg = self.config
        fc = cfg.finder
        work, scale = shrink(frame, fc.work_px)
        lab = to_lab(work)
        grad = colour_gradient(fc.edges, lab)
        ps_old = pattern_score(fc.pattern, lab, self.corners * scale, self.geometry)
        lens = Lens((work.shape[1] / 2, work.shape[0] / 2), 0.5 * math.hypot(work.shape[1], work.shape[0]))
        fit = refine_corners(
            fc.refine,
            grad,
            self.corners * scale,
            self.geometry,
            (cfg.local_reach, cfg.local_reach / 2, *fc.refine.searches[1:]),
            lens=lens,
            lab=lab,
            colours=np.asarray(ps_old.colours, dtype=np.float64),
        )
        ps = pattern_score(fc.pattern, lab, fit.corners, self.geometry)

        def merit(pattern: float, sides: float, points: float) -> float:
            # as the finder ranks its candidates
            return pattern + fc.side_weight * sides + fc.point_weight * points

        options: list[tuple[float, F64, float]] = []
        if ps.score >= cfg.min_pattern and fit.side_support >= cfg.min_support:
            local = name_corners(fit.corners / scale, self.corners)
            options.append((merit(ps.score, fit.side_support, fit.point_support), local, float(ps.score)))
        found = find_board(fc, frame, self.geometry, previous=self.corners)
        if found.corners is not None and found.ok and found.pattern is not None:
            options.append(
                (
                    merit(found.pattern.score, found.side_support, found.point_support),
                    found.corners,
                    found.confidence,
                )
            )
        if not options:
            return None, 0.0
        _, corners, confidence = max(options, key=lambda o: o[0])
        return corners, confidence
