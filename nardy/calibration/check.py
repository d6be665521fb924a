"""How well a profile fits a frame (``nardy calibrate check``, the dashboard's calibration page)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from nardy.calibration.config import FinderConfig
from nardy.calibration.drift import DriftConfig, agreement
from nardy.calibration.edges import shrink, to_lab
from nardy.calibration.finder import find_board
from nardy.calibration.pattern import pattern_score
from nardy.calibration.profile import Profile


@dataclass(frozen=True)
class CheckConfig:
    min_agreement: float = 0.35
    """Least fraction of the board's drawing on edges for the profile to fit."""
    min_pattern: float = 0.7
    """Least pattern score at the profile's corners."""
    max_shift: float = 4.0
    """The finder seeing the board further than this (pixels) from the profile's corners means it moved."""
    drift: DriftConfig = field(default_factory=DriftConfig)
    finder: FinderConfig = field(default_factory=FinderConfig)


@dataclass(frozen=True)
class FitReport:
    fits: bool
    agreement: float
    """Fraction of the board's drawing on edges at the profile's corners."""
    pattern: float
    """Board-likeness at the profile's corners (about 0.5: no board there, near 1: a clear board)."""
    shift: float | None
    """How far the finder sees the corners from the profile's (pixels), None if it found nothing sure."""
    found: NDArray[np.float64] | None
    reasons: tuple[str, ...] = ()

    def text(self) -> str:
        verdict = "profile fits" if self.fits else "profile does not fit"
        shift = "finder unsure" if self.shift is None else f"finder within {self.shift:.1f} px"
        extra = f" ({'; '.join(self.reasons)})" if self.reasons else ""
        return f"{verdict}: outline on edges {self.agreement:.0%}, pattern {self.pattern:.2f}, {shift}{extra}"

    def to_json(self) -> dict[str, Any]:
        return {
            "fits": self.fits,
            "agreement": round(self.agreement, 4),
            "pattern": round(self.pattern, 4),
            "shift": None if self.shift is None else round(self.shift, 2),
            "found": None if self.found is None else np.round(self.found, 2).tolist(),
            "reasons": list(self.reasons),
        }


def check_profile(profile: Profile, frame: NDArray[np.uint8], config: CheckConfig | None = None) -> FitReport:
    """Measure ``profile`` against ``frame`` (H, W, 3) uint8 BGR (of any resolution of the same camera;
    a frame of another shape does not fit, whatever else agrees)."""
    cfg = config or CheckConfig()
    size = (frame.shape[1], frame.shape[0])
    corners = profile.corners_for(size)
    g = profile.geometry
    a = agreement(cfg.drift, frame, corners, g)
    work, scale = shrink(frame, cfg.finder.work_px)
    ps = pattern_score(cfg.finder.pattern, to_lab(work), corners * scale, g).score
    finding = find_board(cfg.finder, frame, g, previous=corners)
    shift = None
    if finding.corners is not None and finding.ok:
        shift = float(np.max(np.linalg.norm(finding.corners - corners, axis=1)))
    reasons = []
    if not profile.fits(size):
        w, h = profile.image_size
        reasons.append(f"the frame is {size[0]}x{size[1]}, another shape than the profile's {w}x{h}")
    if a < cfg.min_agreement:
        reasons.append("the outline is not on the board's edges")
    if ps < cfg.min_pattern:
        reasons.append("no board pattern at the corners")
    if shift is not None and shift > cfg.max_shift:
        reasons.append(f"the board is {shift:.0f} px away: the camera moved")
    return FitReport(not reasons, a, float(ps), shift, finding.corners, tuple(reasons))
