"""Typed, frozen configuration of the calibration stages, one dataclass per stage.

Lengths are in pixels of the *working image* (the frame scaled so its longer side is
``FinderConfig.work_px``) unless a field says otherwise, so the finder behaves the same at any
camera resolution; colours are in OpenCV 8-bit Lab units.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class EdgeConfig:
    blur_sigma: float = 1.2
    """Gaussian smoothing before the gradient (working pixels)."""
    high_quantile: float = 0.90
    """Canny's upper threshold: this quantile of the gradient magnitude..."""
    high_floor: float = 12.0
    """...but at least this (Lab units per pixel, times Sobel's gain of 8)."""
    low_ratio: float = 0.4
    """Canny's lower threshold as a fraction of the upper."""
    lightness_weight: float = 1.0
    """Weight of the L channel against a and b in the colour gradient."""


@dataclass(frozen=True)
class LineConfig:
    votes: float = 0.10
    """Least Hough votes for a line, as a fraction of the working image's shorter side."""
    theta_step_deg: float = 0.5
    """Hough angle resolution."""
    max_lines: int = 80
    """Most Hough lines looked at (strongest first, after suppressing near-duplicates)."""
    keep: int = 24
    """Lines kept for making quadrilaterals: those with the longest stretches covered by edges."""
    gap: float = 0.02
    """Gaps in a line's edges shorter than this (fraction of the image diagonal) are bridged."""
    nms_rho: float = 6.0
    """Two lines closer than this (pixels) ..."""
    nms_theta_deg: float = 2.5
    """... and this (degrees) are one line."""
    support_radius: float = 1.5
    """An edge pixel this close to a line supports it."""


@dataclass(frozen=True)
class QuadConfig:
    max_opposite_deg: float = 40.0
    """Largest angle between the two lines of a pair of opposite sides (perspective makes them meet)."""
    min_corner_deg: float = 35.0
    """Smallest angle at a corner of a candidate."""
    min_area: float = 0.04
    """Smallest candidate, as a fraction of the image area."""
    outside: float = 0.02
    """How far a corner may lie outside the image (fraction of the longer side)."""
    min_support: float = 0.35
    """Least mean fraction of a candidate's sides covered by edges."""
    max_candidates: int = 40
    """Candidates passed on to the pattern check (best supported first)."""
    scan_factor: int = 20
    """At most ``scan_factor * max_candidates`` of the best supported are looked at for duplicates."""
    distinct: float = 0.03
    """Candidates whose corners all lie within this (fraction of the image diagonal) of a better one are
    dropped."""
    max_aspect: float = 3.0
    """Largest ratio of a candidate's long to short side after undoing the perspective."""


@dataclass(frozen=True)
class PatternConfig:
    px_per_unit: int = 120
    """Resolution of the rectified view the pattern is checked in (pixels per playing-area width)."""
    inset: float = 0.18
    """Fraction of a point's width kept free along each class region's outline (blur, misalignment)."""
    min_contrast: float = 12.0
    """Lab distance under which the two point colours count as the same (no alternation seen)."""
    contrast_scale: float = 25.0
    """Contrast at which the alternation cue counts as fully convincing."""
    frame_band: float = 0.03
    """Width of the band just outside the long sides that must not continue the points (board units)."""
    outside_weight: float = 1.0
    """Penalty per unit of that band's agreement with the points' alternation above one half."""


@dataclass(frozen=True)
class SearchConfig:
    pattern: PatternConfig = field(default_factory=lambda: PatternConfig(px_per_unit=60))
    """The pattern check used while climbing (a coarser view than the final check)."""
    view_px: int = 288
    """Side of the straight-on view of a candidate quadrilateral (pixels)."""
    extend: float = 0.12
    """How far beyond the quadrilateral that view reaches (fraction of its size, each side)."""
    schedule: tuple[tuple[float, int], ...] = ((0.02, 6), (0.008, 2), (0.004, 2), (0.002, 1))
    """Steps of the climb: (step as a fraction of the quadrilateral, steps tried each way)."""
    min_size: float = 0.3
    """Smallest playing area looked for, as a fraction of the quadrilateral's sides."""
    climbs: int = 3
    """How many of the best starting rectangles are climbed."""


@dataclass(frozen=True)
class RefineConfig:
    step: float = 4.0
    """Spacing of edge samples along the model's lines (pixels of the image being refined)."""
    searches: tuple[float, ...] = (10.0, 6.0, 3.0)
    """Search distances of the successive passes (pixels of the working image)."""
    iterations: int = 3
    """Gauss-Newton steps per pass."""
    tukey: float = 2.5
    """Tukey's constant for the residuals (pixels), at least..."""
    tukey_reach: float = 0.8
    """...this fraction of the pass's search distance (an early pass must be able to move far)."""
    full_resolution: bool = True
    """Finish with one pass on the full-resolution frame."""
    final_search: float = 3.0
    """Search distance of that last pass (pixels of the full frame)."""
    min_response: float = 6.0
    """Weakest edge (colour-gradient magnitude) that counts as a match."""
    fit_lens: bool = True
    """Fit the lens's radial distortion along with the corners (straight edges bend in a cheap lens)."""
    kappa_prior: float = 0.05
    """Pull of the distortion towards none (per unit of weight), so a board with few edges keeps it small."""
    max_kappa: float = 0.3
    """Largest distortion accepted (kappa of ``nardy.calibration.refine.Lens``)."""
    max_colour: float = 30.0
    """A side's edge must have, just inside, a colour within this of the playing area's (Lab units)."""


@dataclass(frozen=True)
class ConfidenceConfig:
    pattern_mid: float = 0.62
    """Pattern agreement at which confidence is one half (with everything else fine)."""
    pattern_slope: float = 18.0
    """Steepness of that step."""
    edge_mid: float = 0.35
    """Fraction of the outline matched by edges at which confidence is one half."""
    edge_slope: float = 14.0
    margin_mid: float = 0.03
    """Lead of the best candidate over the best different one at which confidence is one half."""
    margin_slope: float = 60.0


@dataclass(frozen=True)
class FinderConfig:
    work_px: int = 800
    """Longer side of the working image the search runs on."""
    edges: EdgeConfig = field(default_factory=EdgeConfig)
    lines: LineConfig = field(default_factory=LineConfig)
    quads: QuadConfig = field(default_factory=QuadConfig)
    pattern: PatternConfig = field(default_factory=PatternConfig)
    search: SearchConfig = field(default_factory=SearchConfig)
    refine: RefineConfig = field(default_factory=RefineConfig)
    confidence: ConfidenceConfig = field(default_factory=ConfidenceConfig)
    search_quads: int = 16
    """How many of the best-supported quadrilaterals are searched for a playing area."""
    refine_top: int = 3
    """How many of the best distinct playing areas found are refined before the final choice."""
    distinct: float = 0.03
    """Two results whose corners all lie within this (fraction of the image diagonal) are the same."""
    refine_tolerance: float = 0.05
    """A fit whose pattern score falls more than this below its start's is rejected (it ran off)."""
    support_weight: float = 0.3
    """Weight of the outline's edge support against the pattern score when choosing the result."""
    min_confidence: float = 0.5
    """Below this a finding is reported as unsure (``BoardFinding.ok`` is False)."""
