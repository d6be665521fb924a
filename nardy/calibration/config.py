"""Typed, frozen configuration of the calibration stages, one dataclass per stage.

Lengths are in pixels of the *working image* (the frame scaled so its longer side is
``FinderConfig.work_px``) unless a field says otherwise, so the finder behaves the same at any
camera resolution; colours are in OpenCV 8-bit Lab units.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from nardy.vision.config import BarConfig


@dataclass(frozen=True)
class EdgeConfig:
    blur_sigma: float = 1.2
    """Gaussian smoothing before the gradient (working pixels)."""
    lightness_weight: float = 1.0
    """Weight of the L channel against a and b in the colour gradient."""


@dataclass(frozen=True)
class LineConfig:
    lsd_scale: float = 0.5
    """Scale at which OpenCV's line segment detector looks at the working image."""
    chroma_gain: float = 2.5
    """The Lab colour channels are stretched by this about their neutral value before the detector."""
    min_segment: float = 6.0
    """Shorter segments are dropped (pixels)."""
    min_seed: float = 15.0
    """Only segments at least this long start a line (shorter ones may join one)."""
    tip_deg: tuple[float, float] = (4.0, 40.0)
    """Two long segments meeting within ``tip_px`` at an angle in this range are the sides of a point
    (its tip) and are not used for lines."""
    tip_px: float = 4.0
    merge_deg: float = 2.0
    """Segments within this angle ..."""
    merge_px: float = 2.0
    """... whose ends lie within this distance of a line join it."""
    candidates: int = 64
    """Lines gathered from the segments (the most covered first) ...."""
    gap: float = 0.08
    """... gaps shorter than this (fraction of the image diagonal) bridged when measuring them ..."""
    keep: int = 32
    """... and those with the longest bridged stretch kept for making quadrilaterals."""


@dataclass(frozen=True)
class QuadConfig:
    max_opposite_deg: float = 60.0
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
    scan_factor: int = 4
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
class StructureConfig:
    """The one-dimensional fits of the points' layout in a quadrilateral's straight-on view."""

    view_px: int = 160
    """Side of the view a quadrilateral is searched in (pixels) ..."""
    fine_view_px: int = 160
    """... and of the view a result is polished and checked in."""
    extend: float = 0.15
    """How far beyond the quadrilateral the view reaches (fraction of its size, each side)."""
    width_range: tuple[float, float] = (0.5, 1.12)
    """Playing-area widths tried, as fractions of the quadrilateral's (it may be the board's outline)."""
    height_range: tuple[float, float] = (0.55, 1.12)
    """The same for the height."""
    first_bands: tuple[float, float] = (0.06, 0.24)
    """Rows of the quadrilateral (fractions from its top, and mirrored from its bottom) whose colours the
    first column fit reads: inside the points whether the quadrilateral is the playing area or the
    board's outline."""
    band: tuple[float, float] = (0.08, 0.45)
    """Rows read once the long sides are placed: fractions of the point length from the base."""
    centre: float = 0.5
    """Fraction of a point's width, about its centre, that a column's colour is read from."""
    fine_band: tuple[float, float] = (0.45, 0.7)
    """Rows read by ``structure.polish`` (fractions of the point length from the base): where the
    points have narrowed, so their columns are placed sharply ..."""
    fine_centre: float = 0.25
    """... from this fraction of a point's width."""
    outside: tuple[float, float] = (0.1, 0.45)
    """The frame strip beyond each end that must not continue the points (point widths outward)."""
    bar: tuple[float, float] = (0.2, 0.8)
    """The part of the bar's width that must not continue the points."""
    frame: tuple[float, float] = (0.08, 0.4)
    """The frame strip beyond each long side whose rows must not alternate (point widths outward)."""
    zone_weight: float = 0.5
    """Weight of those strips' continuation of the pattern against the points' agreement."""
    base: tuple[float, float] = (0.05, 0.4)
    """The strip just inside each long side (point widths inward), of varied colours (the points' bases,
    checkers), where the frame strip outside it (``frame``) is of one colour ..."""
    base_weight: float = 0.3
    """... and the weights of the colours' variety (``structure.row_texture``) inside ..."""
    plain_weight: float = 0.1
    """... and outside in the row fit (less: standing checkers hide the far side's frame)."""
    texture_lag: float = 0.5
    """Columns this far apart (point widths) are compared by ``structure.row_texture``."""
    edge_weight: float = 0.3
    """Weight of a straight edge along each long side (``structure.row_edges``) in the row fit."""
    min_contrast: float = 10.0
    """Least Lab distance between the two point colours for a column fit to count."""
    contrast_scale: float = 25.0
    """Contrast from which a column fit counts fully."""
    step: float = 2.0
    """Step of the exhaustive fits (view pixels)."""
    shortlist: int = 150
    """Column placements kept by a quick linear score for the full one."""
    refit: bool = False
    """Fit the columns and rows again, finer, once the rows are placed ..."""
    polish: float = 0.3
    """... within this reach (point widths)."""
    distinct: float = 0.5
    """Proposals closer than this (point widths) at both ends are one."""
    proposals: int = 2
    """Column placements followed up per view."""
    polish_reach: float = 0.7
    """How far (point widths) ``structure.polish`` moves a placement ..."""
    polish_step: float = 0.1
    """... in steps of this (point widths)."""
    column_aliases: tuple[int, ...] = (1, 2)
    """Shifts of the whole board by this many points are compared with a result ..."""
    row_aliases: tuple[float, ...] = (0.46, 0.94)
    """... and so are moves of one long side by these (point widths: the frame's width, a checker)."""


@dataclass(frozen=True)
class RefineConfig:
    step: float = 4.0
    """Spacing of edge samples along the model's lines (pixels of the image being refined)."""
    searches: tuple[float, ...] = (8.0, 4.0, 2.0)
    """Search distances of the successive passes (pixels of the working image)."""
    iterations: int = 3
    """Gauss-Newton steps per pass."""
    tukey: float = 2.5
    """Tukey's constant for the residuals (pixels), at least..."""
    tukey_reach: float = 0.8
    """...this fraction of the pass's search distance (an early pass must be able to move far)."""
    points_first: bool = True
    """Use the points' sides from the first pass (they pin the ends when the frame matches the field,
    so the short sides show no edge; the search must start within a fraction of a point then)."""
    full_resolution: bool = True
    """Finish with one pass on the full-resolution frame."""
    final_searches: tuple[float, ...] = (6.0,)
    """Search distances of the passes on the full frame (pixels of the full frame)."""
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
    max_relative: float = 45.0
    """... or within this, if nearer the point's colour than the other points' and the field's (a base in
    shadow or glare)."""
    seen_floor: float = 0.5
    """A side's support counts only where it can be seen (not covered by checkers), out of at least this
    fraction of it (``refine.seen_support``)."""


@dataclass(frozen=True)
class RegisterConfig:
    """``register.register_ends``: the ends placed by the points' sides, by exhaustive search."""

    reach: float = 0.6
    """Largest move of each end tried (point widths) ..."""
    step: float = 0.05
    """... in steps of this (point widths) ..."""
    fine: float = 0.025
    """... each sample's edge response read every this many point widths along the board."""
    apart: float = 0.3
    """The lead of the best placement is over those with an end at least this far (point widths)."""
    point_part: tuple[float, float] = (0.15, 0.85)
    """The part of each point's sides sampled (fractions from base to tip)."""
    sample_px: float = 3.0
    """Spacing of the samples along the drawing (pixels)."""
    min_response: float = 6.0
    """A sample whose strongest response in the reach is below this votes less (colour-gradient units)."""
    vouch_lead: float = 0.2
    """When the points pin the ends with at least this lead (``Registration.lead``) ... (not less: the
    lead is over placements within ``reach``, and a board a whole point along has its points' sides
    on edges too; a felt board a point along at 35 degrees had a lead of 0.19, and its bar's edges and
    short sides favoured it as well, ``finder._Result.end_lead``) ..."""
    vouch_offset: float = 0.1
    """... where the corners put them, within this (point widths), the short sides need show no edge
    of their own (a wooden frame the field's colour shows none) for the finder to be sure."""
    move_lead: float = 0.1
    """When a row's points pin its two corners with at least this lead ...."""
    move_offset: float = 0.15
    """... this far or more (point widths) from where they are, the corners are moved there (the edge
    fit keeps an end on whatever edge it started near, such as the frame's outer edge)."""


@dataclass(frozen=True)
class BaseConfig:
    """``bases.base_moves``: each long side placed on the full frame where the points' bases begin."""

    reach: float = 0.6
    """Largest move of a long side tried (point widths, either way) ..."""
    step: float = 0.05
    """... in steps of this (point widths)."""
    depth: tuple[float, float] = (0.05, 0.3)
    """The strips just inside and just outside the side that are read (point widths from it): inside
    the points' bases, outside the frame (about 0.46 of a point wide)."""
    depth_samples: int = 4
    """Samples across each strip's depth ..."""
    across: float = 0.2
    """... and across each point's centre line, this far either side of it (point widths) ..."""
    across_samples: int = 3
    """... in this many samples."""
    far: float = 45.0
    """A sample further than this from both points' colours (Lab units) votes for neither."""
    min_gain: float = 0.2
    """A side is moved only if its best place scores this much better than where it is ..."""
    min_move: float = 0.2
    """... and lies at least this far inside it (point widths; nearer, the edge fit is the better judge)."""


@dataclass(frozen=True)
class ConfidenceConfig:
    """``BoardFinding.confidence`` is a product of steps ``1 / (1 + exp(-slope (x - mid)))``, one per cue:
    a wrong result fails at least one of them."""

    pattern_mid: float = 0.72
    """Pattern score (``pattern.PatternScore.score``) at which confidence is one half ..."""
    pattern_slope: float = 30.0
    points_mid: float = 0.62
    """... fraction of the points' sides on edges ..."""
    points_slope: float = 30.0
    edge_mid: float = 0.55
    """... fraction of the side least on edges that is (``BoardFinding.weakest_side``) ..."""
    edge_slope: float = 25.0
    column_mid: float = 0.0
    """... lead of the column fit over the board shifted by whole points (``structure.Aliases``) ..."""
    column_slope: float = 60.0
    row_mid: float = 0.0
    """... lead of the row fit over a long side on the frame's outer edge or a row of checkers ..."""
    row_slope: float = 60.0
    margin_mid: float = 0.0
    """... and lead of the result over the best different candidate."""
    margin_slope: float = 60.0
    shape_mid: float = 0.25
    """... and how far the corners' proportions are off (``BoardFinding.shape_error``, 0 when they fit)."""
    shape_slope: float = 8.0
    tip_mid: float = 0.08
    """... and how far the two rows' points' tips disagree (``BoardFinding.tip_misfit``)."""
    tip_slope: float = 50.0
    ends_mid: float = 0.06
    """... and the lead of the ends' placement by the points' sides over the best one at least
    ``RegisterConfig.apart`` from it (``BoardFinding.ends_lead``)."""
    ends_slope: float = 80.0
    offset_mid: float = 0.175
    """... and how far the points' sides put the ends from the corners (``BoardFinding.ends_offset``,
    point widths)."""
    offset_slope: float = 60.0


@dataclass(frozen=True)
class FinderConfig:
    work_px: int = 640
    """Longer side of the working image the search runs on."""
    bar_widths: tuple[float, ...] = (0.02, 0.04, 0.06, 0.10, 0.12)
    """Bar widths (fractions of the playing area's width) tried, when the caller does not give the
    board's proportions and the default's board is not found with confidence: a folding board's
    hinge, a bar wider than a point. Of those found with confidence the most confident is kept
    (none: the default's). A bar between two of them fits either well enough to be found with
    confidence a fraction of a point off, so the bar is then read off the frame between the corners
    found (``bar``, ``nardy.vision.proportions.measure_bar``) and, where it reads another width,
    the board found again with that one (kept if found with confidence)."""
    bar: BarConfig = field(default_factory=BarConfig)
    """How the bar is read off the frame."""
    heights: tuple[float, float] = (0.6, 1.0)
    """When the caller does not give the board's proportions and the default's board is not found
    with confidence because the corners found imply another height-to-width ratio than its 0.8 (a
    squarer or a longer board: ``aspect.implied_aspect``), the board is found again with the ratio
    they imply, if it lies within these (kept if found with confidence) ..."""
    heights_tried: tuple[float, ...] = (0.7, 0.9)
    """... else boards of these heights are looked for, and the most confident found with confidence
    kept (a longer board's points fit the default's board a tenth of its height off, whose corners
    then imply about the default's ratio); then the bars."""
    full_px: int = 1920
    """Longer side the frame is scaled down to (never up) for the finishing pass on the full frame
    (``RefineConfig.final_searches``, ``BaseConfig``): its distances are pixels of that frame."""
    edges: EdgeConfig = field(default_factory=EdgeConfig)
    lines: LineConfig = field(default_factory=LineConfig)
    quads: QuadConfig = field(default_factory=QuadConfig)
    pattern: PatternConfig = field(default_factory=PatternConfig)
    structure: StructureConfig = field(default_factory=StructureConfig)
    refine: RefineConfig = field(default_factory=RefineConfig)
    register: RegisterConfig = field(default_factory=RegisterConfig)
    bases: BaseConfig = field(default_factory=BaseConfig)
    confidence: ConfidenceConfig = field(default_factory=ConfidenceConfig)
    view_blur: float = 1.0
    """Gaussian smoothing of the working image before straight-on views are sampled from it (pixels)."""
    search_quads: int = 24
    """How many of the best-supported quadrilaterals are grouped by perspective ..."""
    same_perspective: float = 0.03
    """(two share one when either is within this of an axis-aligned rectangle in the other's straight-on
    view, in units of its size: ``quads.misalignment``) ..."""
    search_views: int = 6
    """... and how many groups, best first, are searched for a playing area ..."""
    extra_views: int = 1
    """... and how many more, of all the candidates' perspectives, whose points' columns alternate more
    strongly than in any of those (``finder._stronger_views``) ..."""
    screen_px: int = 80
    """... compared in straight-on views this many pixels square (cheaper than ``StructureConfig.view_px``);
    the best proposal of those views is refined too if it is more board-like than the others ..."""
    roll_ratio: float = 0.7
    """... each read the other way round too unless its points alternate less than this fraction as
    strongly that way (``structure.alternation_strength``)."""
    polish_rounds: int = 2
    """Rounds of ``structure.polish``, each in a view of the last round's result, before the edge fit."""
    alias_rounds: int = 1
    """Times a result may be moved to a better alias (``structure.compare_aliases``) and refitted (a
    second round mends what the first leaves, such as a long side on a row of checkers once the
    proportions are mended by the other: 2 of 576 development frames, but one frame of the held-out
    seed 4 more missed, so no gain to show for it) ..."""
    alias_tolerance: float = 0.02
    """... kept unless its refitted score falls more than this below the original's."""
    grow_least: float = 1.0
    """A result too short for the board's proportions by at least this many point widths is also
    tried grown to them past either end (``aspect.completed``: a part of the board, points of each
    row cut off at one end) ..."""
    grow_most: float = 1.0
    """... by at most this fraction of its own length. (Grown by less, or across, it stood in for the
    long sides' aliases, and on a development frame took a side a few pixels off, sure.)"""
    column_rounds: int = 1
    """Times after that a result moved in every round, whose lead over the board shifted by whole
    points (``finder._Result.column_lead``) is still negative, is moved along the board alone (cheaper
    than another round of every alias: a start three points off comes at most two points nearer in a
    round, ``StructureConfig.column_aliases``)."""
    polish_top: int = 4
    """How many of the best distinct proposals are polished (``structure.polish``) ..."""
    refine_top: int = 2
    """... and how many of those, the most board-like, are then fitted to the edges."""
    distinct_points: float = 0.3
    """Proposals whose corners all lie within this many point widths of a better one are not refined."""
    distinct: float = 0.03
    """Two results whose corners all lie within this (fraction of the image diagonal) are the same."""
    refine_tolerance: float = 0.05
    """A fit whose pattern score falls more than this below its start's is rejected (it ran off)."""
    side_weight: float = 0.3
    """Weight of the outline's edge support against the pattern score when choosing the result ..."""
    point_weight: float = 0.3
    """... and of the points' sides' edge support ..."""
    end_weight: float = 0.3
    """... and of the bar's and the short sides' (``refine.end_support``) ..."""
    shape_weight: float = 0.1
    """... and of the proportions the corners imply being off the board's (``aspect``), in multiples
    of a tolerance: ``shape_tolerance`` (log of the height-to-width ratio) plus ``shape_spread`` times
    how loose the estimate is."""
    tip_weight: float = 0.5
    """... and of the two rows' points' tips disagreeing (``tips.tip_misfit``) ..."""
    tip_check: float = 0.06
    """... past which the long sides' alias that best mends them is also tried (``finder._assess``)."""
    shape_tolerance: float = 0.03
    shape_spread: float = 1.0
    focal_range: tuple[float, float] = (0.4, 1.9)
    """Plausible focal lengths (fractions of the image width: fields of view of about 30 to 100 degrees)."""
    row_check: float = 0.05
    """Aliases of the long sides whose row fit comes within this of the result's are refitted ...."""
    row_collapse: float = 0.2
    """... and left out of its lead if the fit brings them back within this (point widths) of it."""
    end_lead_weight: float = 0.5
    """Weight of the bar's and short sides' edges' lead over the board shifted by whole points against
    the view's column fit's (``finder._Result.column_lead``)."""
    min_confidence: float = 0.5
    """Below this a finding is reported as unsure (``BoardFinding.ok`` is False)."""
