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
from nardy.vision.config import HeightConfig
from nardy.vision.geometry import BoardGeometry
from nardy.vision.proportions import BarMeasure, HeightMeasure, measure_bar, measure_height, with_height


@dataclass(frozen=True)
class CheckConfig:
    min_agreement: float = 0.35
    """Least fraction of the board's drawing on edges for the profile to fit."""
    min_pattern: float = 0.7
    """Least pattern score at the profile's corners."""
    max_shift: float = 4.0
    """The finder seeing the board further than this (pixels) from the profile's corners means it moved."""
    bar_tolerance: float = 0.015
    """A bar measured in the frame further than this (a share of the playing area's width) from the
    profile's means the profile holds another board's proportions (a bar measured at all comes within
    0.01 of the truth on the development frames; docs/vision.md, Proportions)."""
    height_tolerance: float = 0.08
    """The same for the height measured from the checkers' lines, as a share of the profile's (every
    board measured came within 8% on the development seed), where the reader would take it
    (``proportions.with_height``: a higher board only past what smaller checkers explain)."""
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
    bar: float | None = None
    """The bar's width measured in the frame (None: not measurable there)."""
    height: float | None = None
    """The playing area's height measured from its lines of checkers (None: too few lines, as at a
    long-nardy start)."""

    def text(self) -> str:
        verdict = "profile fits" if self.fits else "profile does not fit"
        shift = "finder unsure" if self.shift is None else f"finder within {self.shift:.1f} px"
        extra = f" ({'; '.join(self.reasons)})" if self.reasons else ""
        seen = "".join(
            f", {what} measured {value:.3f}"
            for what, value in (("bar", self.bar), ("height", self.height))
            if value is not None
        )
        fit = f"outline on edges {self.agreement:.0%}, pattern {self.pattern:.2f}"
        return f"{verdict}: {fit}, {shift}{seen}{extra}"

    def to_json(self) -> dict[str, Any]:
        return {
            "fits": self.fits,
            "agreement": round(self.agreement, 4),
            "pattern": round(self.pattern, 4),
            "shift": None if self.shift is None else round(self.shift, 2),
            "found": None if self.found is None else np.round(self.found, 2).tolist(),
            "reasons": list(self.reasons),
            "measured": {
                "bar": None if self.bar is None else round(self.bar, 4),
                "height": None if self.height is None else round(self.height, 4),
            },
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
    bar, height = None, None
    if profile.fits(size):
        recognizer = profile.recognizer(frame_size=size)
        bar_seen = measure_bar(recognizer.config.bar, frame, corners, g.height)
        height_seen = measure_height(recognizer.config.height, recognizer, frame)
        reasons.extend(_other_proportions(cfg, recognizer.config.height, g, bar_seen, height_seen))
        bar = None if bar_seen is None else bar_seen.width
        height = None if height_seen is None else height_seen.height
    return FitReport(not reasons, a, float(ps), shift, finding.corners, tuple(reasons), bar, height)


def _other_proportions(
    config: CheckConfig,
    heights: HeightConfig,
    geometry: BoardGeometry,
    bar_seen: BarMeasure | None,
    height_seen: HeightMeasure | None,
) -> list[str]:
    """Why the bar and height measured in the frame say the profile holds another board's
    proportions (``geometry``); ``heights``: how the reader takes a measured height."""
    reasons = []
    again = (
        "calibrate the board again (nardy calibrate board, with --remeasure to keep the rest of the profile)"
    )
    if bar_seen is not None and abs(bar_seen.width - geometry.bar_width) > config.bar_tolerance:
        reasons.append(
            f"the bar measures {bar_seen.width:.3f} of the width, the profile has "
            f"{geometry.bar_width:.3f}: {again}"
        )
    if (
        height_seen is not None
        and abs(height_seen.height / geometry.height - 1.0) > config.height_tolerance
        and with_height(heights, height_seen, geometry) is not geometry
    ):
        reasons.append(
            f"the board measures {height_seen.height:.3f} as high as wide, the profile has "
            f"{geometry.height:.3f}: "
            f"{again} from a frame with lines of two to five checkers, not a long-nardy start"
        )
    return reasons
