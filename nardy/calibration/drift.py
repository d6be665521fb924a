"""Noticing that the camera moved during a game, and finding the board again.

``DriftMonitor`` is fed every frame. Its per-frame check is cheap: on a small copy of the frame, how
much of the board's drawing (the four sides and the points' sides) still lies on edges at the known
corners. A hand over the board hides part of it for a moment; a nudged camera moves all of it for
good. So a drop below ``suspect_ratio`` of the level learned on the first frames starts a count, and
only after ``patience`` such frames in a row does the monitor look again: first a wide local fit from
the old corners (a small nudge), else the full finder. If the board is found where it was not before,
it reports ``CameraMoved`` with the new corners; the caller should stop reading positions until it
has taken them (``accept``). If it is not found, the state is ``lost`` and it keeps trying, on every
``retry_every``-th frame (a full search takes a few tenths of a second).

A session may start on corners that no longer fit: a profile made before the camera was moved. A
level learned below ``least_level`` fits nothing in the frame; it is not trusted, every frame is
suspect, so the monitor looks for the board at once, and takes the low level only if it finds the
board where the corners already are (a board whose drawing shows weakly). A level below
``verify_below`` is checked by a search too (again, up to ``verify_looks`` searches, while none
finds a board): a board found elsewhere whose drawing lies on far more edges there is a camera
moved.
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
Found = Literal["elsewhere", "here", "none"]


@dataclass(frozen=True)
class DriftConfig:
    check_px: int = 480
    """Longer side of the small frame the per-frame check runs on."""
    reach: float = 2.0
    """How far (pixels of that frame) an edge may lie from the drawing and still count."""
    learn_frames: int = 3
    """Frames the normal level of agreement is learned from."""
    suspect_ratio: float = 0.8
    """Agreement below this fraction of the normal level makes a frame suspect. (On rendered boards
    a hand over the board keeps 0.84-1.0 of it, 60 frames of the hand set; corners left behind by
    a turn of the camera of 3-10 degrees keep 0.43-0.72, since they still lie on some of the
    board's many parallel edges. At 0.6, half such nudges went unnoticed.)"""
    patience: int = 5
    """Suspect frames in a row before looking for the board again."""
    least_level: float = 0.35
    """A normal level learned below this is no board at the corners (``CheckConfig.min_agreement``:
    a profile that fits nowhere) until a search finds the board there."""
    verify_below: float = 0.8
    """A normal level learned below this (but above ``least_level``) is checked by looking for the
    board: corners a little off a board still lie on some of its many parallel edges. (On 48
    rendered boards, 1280x720, a turn of 3-10 degrees and a shift left 0.33-0.67 of the drawing on
    edges at the old corners, against 0.77-0.94 at the right ones; a look costs one search, about
    half a second of processor time at 1280x720: ``benchmarks.drift``.)"""
    better_ratio: float = 0.8
    """A board found elsewhere by a search is taken as moved only when the agreement at the corners
    held is below this fraction of the agreement at the found ones, on the same frame: a hand
    lowers both alike, and a search that lands a few pixels off the board where it is finds no
    more of it."""
    verify_looks: int = 3
    """Searches a weak level gets, ``retry_every`` frames apart, while none finds a board."""
    retry_every: int = 10
    """While the board is lost, look for it again on every this many frames."""
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
        self._found_here = False  # a search found the board at these corners
        self._looks_left = 0  # searches still to make to check a weak level
        self._next_look = 0
        self._lost = 0  # frames since the board was lost

    @property
    def _trusted(self) -> bool:
        """The level learned is a board's: high enough, or learned where a search found the board."""
        return self.level is not None and (self.level >= self.config.least_level or self._found_here)

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
                if self._trusted and not self._found_here and self.level < cfg.verify_below:
                    self._looks_left = cfg.verify_looks
                    return self._verify(frame, a)
            return DriftStatus("learning", a, self.corners)
        if self._trusted and a >= cfg.suspect_ratio * self.level:
            self._suspect = self._lost = 0
            if self._looks_left and self._frame >= self._next_look:
                return self._verify(frame, a)
            return DriftStatus("steady", a, self.corners)
        self._suspect += 1
        if self._suspect < cfg.patience:
            return DriftStatus("suspect", a, self.corners)
        if self._lost % max(1, cfg.retry_every):
            self._lost += 1
            return DriftStatus("lost", a, self.corners)
        found, new, shift, confidence = self._look(frame, a)
        if found == "none":
            self._lost += 1
            return DriftStatus("lost", a, self.corners)
        self._lost = 0
        if found == "here":
            # the board is where it was: the drop was something else (a hand, a shadow) that lasted,
            # or the level learned at these corners was no board's (the board was covered, or out of
            # view): it is learned again, and taken whatever it is
            self._suspect = 0
            if not self._trusted:
                self.level, self._learning = None, []
            self._found_here = True
            return DriftStatus("suspect", a, self.corners)
        assert new is not None
        return self._moved(a, new, shift, confidence)

    def _look(self, frame: NDArray[np.uint8], a: float) -> tuple[Found, F64 | None, float, float]:
        """Search the frame for the board: ``elsewhere`` (with its corners, their largest shift and
        the finder's confidence) when the board's drawing lies on far more edges there than at the
        corners held (``a``, this frame's agreement); ``here`` when it is found at the corners held,
        or surely found and no better; else ``none``. An unsure finding counts only as
        ``elsewhere``: corners that beat the held ones so plainly are the better guess, and the
        finder's doubt is passed on."""
        cfg = self.config
        new, confidence = self._refind(frame, sure=False)
        if new is None:
            return "none", None, 0.0, 0.0
        shift = float(np.max(np.linalg.norm(new - self.corners, axis=1)))
        better = agreement(cfg, frame, new, self.geometry)
        if better < cfg.least_level:
            return "none", None, 0.0, 0.0
        if shift >= cfg.min_shift and a < cfg.better_ratio * better:
            return "elsewhere", new, shift, confidence
        if shift < cfg.min_shift or confidence >= cfg.finder.min_confidence:
            return "here", new, shift, confidence
        return "none", None, 0.0, 0.0

    def _verify(self, frame: NDArray[np.uint8], a: float) -> DriftStatus:
        # a weak level: a board whose drawing shows weakly, or corners that catch only some of a
        # board's many parallel edges (a profile from before the camera moved). Look for the board.
        cfg = self.config
        self._looks_left -= 1
        self._next_look = self._frame + cfg.retry_every
        found, new, shift, confidence = self._look(frame, a)
        if found == "elsewhere":
            assert new is not None
            return self._moved(a, new, shift, confidence)
        if found == "here":
            self._looks_left = 0  # settled
        return DriftStatus("steady", a, self.corners)

    def _moved(self, a: float, new: F64, shift: float, confidence: float) -> DriftStatus:
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
        self._lost = 0
        self.level = None
        self._learning = []
        self._found_here = False
        self._looks_left = 0

    def _refind(self, frame: NDArray[np.uint8], sure: bool = True) -> tuple[F64 | None, float]:
        """The board's corners (4, 2) and the confidence in them, or None; with ``sure`` False the
        finder's answer is taken even when it is unsure of it."""
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
        if found.corners is not None and (found.ok or not sure) and found.pattern is not None:
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
