"""Typed, frozen configuration of the recognition pipeline, one dataclass per stage.

Every threshold of the pipeline is here, with its unit. Lengths are in point widths or checker
diameters, colours in OpenCV 8-bit Lab units, so nothing depends on the image size. The detector
itself is a fitted model file (``nardy.vision.fit``; see docs/vision.md).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from nardy.vision.geometry import BoardGeometry


@dataclass(frozen=True)
class RectifyConfig:
    point_px: int = 20
    """Rectified pixels per point width."""
    lift: float = 1.0
    """Height of the rectified plane above the board, in checker thicknesses (1: the tops of single
    checkers)."""
    default_focal: float = 1.0
    """Focal length, as a multiple of the frame width, when the view is too straight-on to estimate it."""
    prefilter: bool = True
    """Halve the frame (means of 2x2 pixels) while one rectified pixel spans more than ``max_span`` frame
    pixels."""
    max_span: float = 2.2
    """See ``prefilter``."""
    side_margin: float = 0.0
    """Width of the strip beyond the playing area's left and right edges that the view also shows
    (point widths): a pile on a corner point leans out past the edge from an oblique camera."""


@dataclass(frozen=True)
class EvidenceConfig:
    lightness_weight: float = 0.6
    """Weight of Lab lightness against the two chroma axes (shadows and uneven light change lightness)."""
    edge_margin: float = 0.06
    """Half-width of the band along each point's outline where either empty look is accepted (point
    widths)."""
    edge_discount: float = 0.7
    """Factor on the difference inside that band."""
    dark_offset: float = 20.0
    """Added to lightness before taking brightness ratios (keeps near-black regions from dominating)."""
    gain_cells: tuple[int, int] = (12, 8)
    """Cells (across, down) in which the brightness gain over the board is measured before fitting."""
    outside_difference: float = 1.5
    """Difference given to pixels beyond the board's edge (the frame: neither empty nor covered)."""
    noise_floor: float = 3.0
    """Smallest spread of a region's look (weighted Lab units)."""
    log_offset: float = 16.0
    """Edges are measured on log(lightness + this) ..."""
    log_scale: float = 60.0
    """... times this (so a mid-grey step keeps about its size); 0 measures edges on plain lightness."""
    gradient_floor: float = 4.0
    """Added to the median squared gradient before normalising (keeps flat felt from amplifying noise)."""
    strong_edge_ratio: float = 800.0
    """The normalising scale is at least the board's strong edges (``strong_edge_quantile`` of the
    squared gradient) divided by this (0: no such bound). On a smooth painted field the median is
    tiny next to the point and checker edges; unbounded, every edge on it looks huge."""
    strong_edge_quantile: float = 0.95
    """Which share of the board's squared gradients lies below its "strong edges" (0.5 to 1)."""


@dataclass(frozen=True)
class DetectConfig:
    core: float = 0.55
    """Side of the square core of a disc used for its inside features (checker diameters)."""
    arc: float = 0.45
    """Length of the edge windows at a disc's ends and sides (checker diameters)."""
    difference_cap: float = 12.0
    """Per-pixel differences are capped here before averaging."""
    contrast_cap: float = 3.0
    """Cap on the absolute contrast feature."""
    lightness_weight: float = 0.6
    """As in ``EvidenceConfig``, for the contrast feature."""
    vote_radii: tuple[float, ...] = (0.92, 1.0, 1.08)
    """Radii (fractions of the checker radius) at which edges vote for circle centres."""
    vote_floor: float = 1.0
    """Edges weaker than this (in median-gradient units) do not vote."""
    vote_blur: float = 0.15
    """Blur of the vote map (checker diameters)."""
    model: str = ""
    """Path of a detector model written by ``nardy.vision.fit`` ("" = the one shipped with nardy)."""
    loose_stride: int = 4
    """Away from the points' centre lines the detector is run on every this many pixels (to find
    checkers in motion)."""


@dataclass(frozen=True)
class CountConfig:
    max_line: int = 12
    """Longest line of touching checkers looked for on one point."""
    overlap: float = 0.15
    """How much closer than a diameter two neighbours in a line may appear (fraction of a diameter)."""
    max_gap: float = 0.3
    """Largest gap between neighbours in a line (fraction of a diameter)."""
    base_gap: float = 0.35
    """Largest gap between a point's base and its first checker (fraction of a diameter)."""
    slip: float = 0.15
    """How far a checker may sit off its point's centre line (point widths)."""
    slip_penalty: float = 0.3
    """Log-odds charged for sitting at the full slip."""
    disc_cost: float = 3.5
    """Log-odds charged per checker counted: the detector is fitted on balanced classes, while a
    checker centre is rarer than that at any one place."""
    start_cost: float = 1.0
    """Log-odds charged once for a point being taken at all, on top of ``disc_cost`` per checker: an
    empty point's base (its triangle's sides, the frame's edge) looks more like a checker than the
    middle of a point does."""
    temperature: float = 0.8
    """Softmax temperature turning line scores into count probabilities."""
    bar_cost: float = 6.5
    """Log-odds charged per checker on the bar: more than on a point, since the bar has no line or base
    to order its checkers and its own texture answers the detector more often (fitted on rendered bars)."""
    bar_floor: float = -3.0
    """Bar candidates below this log-odds are not considered."""
    bar_limit: int = 8
    """Most checkers looked for on the bar."""
    bar_miss: float = 0.005
    """Chance that the bar holds one more checker than its candidates say, and so on for each more
    (two checkers touching on the bar can answer the detector as one): a checker the candidates
    missed never becomes impossible for the referee. On seed 2 (400 boards) 1 of the 196 checkers
    on the bar was not among the candidates."""
    count_floor: float = 0.003
    """Probability spread evenly over every count of a point whatever the evidence: a tall pile seen
    as one disc, a line the search missed, so the truth never becomes impossible for the referee."""
    layer_weight: float = 1.0
    """Factor on the second-layer head's log-likelihood ratio for each gap of a full line (below 1 if
    neighbouring gaps' evidence overlaps; fitted on rendered piles)."""
    layer_bias: float = 0.0
    """Added to that log-likelihood ratio (the head weighs the classes alike; ``pile_prior`` is the
    prior)."""
    pile_prior: float = 0.45
    """Prior probability that a full line carries anything on top."""
    pile_decay: float = 0.85
    """Prior of each further checker piled on a full line relative to one fewer."""
    pile_doubt: float = 0.05
    """Probability kept, on a full line, for a pile the camera cannot see (spread evenly over every
    larger count): the referee's 15-a-side total then decides."""
    upper_weight: float = 0.5
    """Factor on the upper head's log-likelihood ratio for each place of a layer above the second: a
    checker's top over a place looks much the same whichever layer it is on, so what the head sees
    there overlaps what the layers under it show (chosen by likelihood on rendered boards)."""
    upper_floor: float = 1e-3
    """The layers above the second are looked at only when a full second layer keeps at least this
    share of the pile's probability."""
    full_floor: float = 0.02
    """A line read shorter than full that is full with at least this probability has its pile read
    on the best full line as well (a pile over a line can hide the line's far end)."""
    cover_gain: float = 2.0
    """Log-odds a line earns per checker diameter of its column it spans that looks covered (less
    ``cover_level``): a pile, and a line seen from a steep angle, shows little a disc detector
    answers, but it hides the board; a line running on over bare board pays the same."""
    cover_level: float = 0.4
    """How covered (a share of ``cover_cap``) a stretch of a column must look to earn anything."""
    cover_cap: float = 4.0
    """Difference from the empty board (in the region's spreads) that counts as fully covered."""
    cover_width: float = 0.25
    """Half the width of the middle of a column whose difference is averaged (point widths)."""


@dataclass(frozen=True)
class ColourConfig:
    lightness_weight: float = 1.0
    """Weight of lightness when telling the two checker colours apart."""
    light_correction: float = 0.5
    """Share (as an exponent) of the board's fitted brightness gain undone on the checkers' lightness:
    the gain is fitted on the board's matte surface, while checker tops clip and take glare
    additively, so undoing all of it over-corrects."""
    min_separation: float = 18.0
    """Two colour groups closer than this (Lab units) are one colour ..."""
    separation_scale: float = 4.0
    """... but the split they make keeps a share of each stack's colour probability, falling by
    a factor e for every this many Lab units closer (0: none). Two pale sets under a strong light
    (an ivory and a light grey, 14-17 apart) must not all be called light."""
    min_share: float = 0.1
    """Least share of the checkers (by count) either colour group must hold when the groups are found."""
    side_checkers: float = 15.0
    """Checkers a side has: of the ways to split the stacks in two colours, one that gives either
    colour more than this (plus ``side_slack``) cannot be the two sides' and is taken only when
    none can (a lit side and a shaded side of two pale colours can part further in hue than in
    lightness: 22 checkers against 8 is no reading of a board). 0: not used."""
    side_slack: float = 2.0
    """Checkers a split may give a colour beyond ``side_checkers`` (a count read one or two high)."""
    refine_rounds: int = 5
    """Most rounds of moving stacks to the group they are nearer in the groups' own spreads, for a
    split along one colour axis (see ``colour._split``)."""
    spread_floor: float = 6.0
    """Smallest within-group spread used for the colour probabilities (Lab units)."""
    spread_scale: float = 1.5
    """Factor on the measured within-group spread (a few stacks under-estimate it)."""
    doubt: float = 0.01
    """Probability always kept for the other colour."""
    label_scale: float = 8.0
    """Which of the two colours found in the frame is *light* is only as sure as their paleness
    differs: P(the paler group is the light one) = 1 / (1 + exp(-difference / label_scale))
    (Lab units). Two saturated colours of about the same lightness (red and blue) can come out
    either way under a colour cast, and a whole board read in the swapped colours with confidence
    is the worst answer the referee can get."""
    certainty_power: float = 16.0
    """When the two colours are found, a line counts with its number of discs times P(it holds any
    checker) to this power: a line that may well be an empty point's base (whose colour is the
    point's, often unlike either checker colour) must not make a colour of its own."""
    stack_spread: float = 30.0
    """Colour distance (Lab units) a disc of a line may have from the discs below it before it is
    doubted as one more checker of the same stack."""
    stack_penalty: float = 0.25
    """Log-odds against a disc being part of the stack per Lab unit beyond ``stack_spread``."""
    stack_penalty_cap: float = 6.0
    """Most log-odds one disc's colour can take off (glare can make a real checker look unlike)."""
    stranger_spreads: float = 3.0
    """A stack further than this many within-group spreads from both checker colours ..."""
    stranger_penalty: float = 1.0
    """... loses this many log-odds of holding any checker per spread beyond ..."""
    stranger_cap: float = 3.0
    """... at most this many (an empty point's base taken for a disc looks like the point, not like
    either checker colour)."""
    outlier: float = 30.0
    """A stack whose colour is further than this (Lab units) from both checker colours, and ..."""
    outlier_spreads: float = 4.0
    """... further than this many typical spreads, is not a stack of checkers (a hand, a sleeve)."""
    remember_checkers: float = 4.0
    """A still frame whose two colours each hold at least this many checkers is remembered by the
    recognizer; a later frame whose checkers make no two colours of their own (one side has borne
    all its checkers off) is read against the remembered two. 0: nothing is remembered, every
    frame stands alone."""
    remember_confidence: float = 0.5
    """Least ``label_confidence`` of a frame's two colours for them to be remembered. 0.5: any,
    for a memory keeps its own doubt (two colours of one lightness, remembered, are still read only
    as surely as their paleness differs); it keeps one board's two colours apart from frame to
    frame, which matters most where each frame alone is least sure which is which."""
    remember_first: float = 18.0
    """Checkers (by the colour stage's weights) a still frame must show before its two colours are
    the first remembered: more than one side's fifteen, so both sides' are there (a side's
    checkers alone split in lit and shaded)."""
    own_colours: float = 24.0
    """Checkers (expected, on the points) above which a still frame whose own two colours each hold
    ``remember_checkers`` is read by them even where they are not the two remembered, and they
    are remembered instead: with this many on the board each side has nine or more there, which a
    split of one side's checkers in lit and shaded cannot leave out (a memory taken from a frame
    with a hand in it is put right). 99: a memory is only ever blended."""
    agree_share: float = 0.5
    """A frame's two colours are the remembered two when each lies within this share of the
    remembered two's distance apart from its own (else the frame is read against the memory)."""
    remember_rate: float = 0.25
    """Share of a newly remembered frame's colours in the memory (the rest is the memory's own):
    one frame's noise does not replace what many agreed on."""


@dataclass(frozen=True)
class SettleConfig:
    unexplained: float = 3.0
    """Difference above which a pixel that no counted checker explains is 'something else'."""
    edge_margin: float = 0.3
    """Width of the strip along the playing area's edge left out of that search (point widths)."""
    blob_area: float = 1.6
    """Something else larger than this (in point widths squared) means a hand or an arm: not settled."""
    loose_score: float = 8.0
    """Log-odds of a checker-like disc away from every line that means a checker in motion."""
    grow_area: float = 3.0
    """Something else larger than this (point widths squared) is surely a hand or an arm: ..."""
    reach: float = 2.0
    """... from it the search reaches on through pixels whose smoothed difference is above
    this (an arm over parts of the board it hardly differs from) ..."""
    reach_blur: float = 0.25
    """... smoothed over a square this wide (point widths) ..."""
    bridge: float = 1.3
    """... and across gaps this wide (point widths; a column of counted checkers cuts an arm)."""
    place_area: float = 0.25
    """A place is named when this much of what was found lies on it (point widths squared)."""
    tray_reach: float = 0.5
    """The tray is named when a sure hand found runs along the playing area's edge on the tray's side
    for this long (point widths)."""
    frame_watch: bool = True
    """Watch the board's frame for an arm crossing it (``settle.frame_crossings``): a hand over a
    board of nearly its own colour is found by the arm it came in on."""
    frame_depths: tuple[float, ...] = (0.3, 0.5, 0.7)
    """Rows of samples along each side's frame, this far out from the playing area (frame widths)."""
    frame_step: float = 0.25
    """Spacing of the samples along a side (point widths)."""
    frame_spreads: float = 6.0
    """A sample is unlike its frame when its colour is this many of the row's spreads off the row's
    smooth course along the side (the spread: 1.4826 median distances off it, at least
    ``frame_floor``) ..."""
    frame_floor: float = 2.0
    """... (Lab units) ..."""
    frame_keep: float = 3.0
    """(the course is fitted again without the samples more than this many spreads off it) ..."""
    frame_trim: float = 0.5
    """(that first course is fitted to all the samples, then again to all but this share farthest
    off that fit: a wide arm drags a fit to all towards itself; 0: not fitted again) ..."""
    frame_rows: int = 2
    """... in this many of the rows, ..."""
    frame_run: int = 2
    """... and this many neighbouring samples in a row are, where an arm crosses."""
    frame_wide_spreads: float = 2.2
    """A wider arm is found by less: samples this many of the row's spreads off its course ...
    (a wood frame's grain leaves one sample or two far off, seldom a point's width of them)"""
    frame_wide_run: int = 5
    """... this many neighbouring in a row (``frame_step`` apart: 1.25 point widths), in
    ``frame_rows`` of the rows. 0: not looked for."""
    frame_stand_margin: float = 0.25
    """A checker on a point may stand over the frame as the camera sees it (the far side's base
    checkers from a low camera, a head piled on a corner point): samples that a stack read on the
    board could stand over, its discs taken this much wider than their radius (a checker set down
    off its place, corners a few pixels off), are not watched while the stack is there."""
    checker_spreads: float = 6.0
    """A counted line (or bar checker) explains what is round it only when its colour is within this
    many within-group spreads of either checker colour (a hand's fingers counted as checkers do not)."""
    glare_share: float = 0.85
    """A patch is glare, not a hand, when this share of it is the empty board's look made lighter
    and paler (lighter by ``glare_lift``, and its hue kept within ``glare_hue`` and not more
    saturated, or near white) ..."""
    glare_lift: float = 2.0
    """(Lab lightness units.)"""
    glare_hue: float = 6.0
    """(Lab a/b units off the line from the look's colour to grey.)"""
    glare_chroma: float = 1.15
    """(The most the look's chroma may grow by, a factor: noise on a pale look.)"""
    glare_white: float = 235.0
    """(Lab lightness from which a colour is near white, its hue no longer telling.)"""
    glare_clip: float = 250.0
    """(An 8-bit colour channel from which the camera clips: a lit colour's hue no longer telling,
    but the channels that do not clip are still the look's own, each made lighter by one factor ...)"""
    glare_ratio: float = 0.3
    """(... within this share: noise on a dark channel.)"""
    glare_tail: float = 0.9
    """... and a lamp's reflection fades out rather than ending at an edge: this share of the
    board just outside the patch (``glare_ring`` wide) is still lighter than its look ..."""
    glare_soft: float = 0.75
    """... and differs from it there by at least this part of ``unexplained`` (in the median): a
    hand or a sleeve ends sharply, with the bare board or its shadow beside it."""
    glare_ring: float = 0.15
    """Width of the rim just outside a patch looked at (point widths)."""
    motion_watch: bool = True
    """Compare each frame with the one before it (``settle.moved_places``), when the caller says the
    two are consecutive: a hand over a board of nearly its own colour still moves."""
    motion_spreads: float = 6.0
    """A rectified pixel has moved when its colour changed since the frame before by this many of
    the frame-to-frame noise's spreads (1.4826 median changes over the view, the light's change
    as a whole taken out) ..."""
    motion_floor: float = 8.0
    """... and by at least this much (8-bit BGR units, the length of the change) ..."""
    motion_clip: tuple[float, float] = (4.0, 250.0)
    """(Channel values a camera clips at: past them, a change of exposure is not linear.)"""
    motion_area: float = 2.0
    """... in a patch at least this large (point widths squared): sensor noise and JPEG blocks are
    specks, and a die thrown is under 1 with its shadow (0.8 in the rectified view of a rendered
    board at 1280x720: top, sides and shadow), two dice lying side by side under 2. A hand moving
    changes its outline along the whole arm."""
    doubt: float = 0.6
    """Share of the count distribution of a place under something surely a hand (``grow_area``)
    spread over every count, and of its colour over both (the most likely stays the most likely):
    what is read under a hand is not to be trusted."""

    def __post_init__(self) -> None:
        if not 0.0 <= self.frame_trim <= 0.5:
            # the second fit needs the nearer half of a side's samples at least (a quadratic)
            raise ValueError(
                "settle.frame_trim is the share of a side's samples left out, in [0, 0.5]: "
                f"got {self.frame_trim}"
            )


@dataclass(frozen=True)
class TrayConfig:
    """Reading the bear-off tray (``nardy.vision.tray``). How checkers stand there is in point widths
    and checker sizes; the evidence is in spreads of the empty tray's own look."""

    pitch: float = 1.05
    """Distance from one standing checker to the next along the tray, in checker thicknesses."""
    start: float = 0.13
    """Gap between the tray's end and the first standing checker, in point widths."""
    stand_height: float = 0.9
    """Height of a standing checker's top edge above the tray, in checker diameters."""
    px_per_pitch: float = 8.0
    """Strip pixels along the tray per standing checker."""
    columns: int = 9
    """Strip pixels across the tray."""
    core: float = 0.6
    """Share of the checker's width (or the tray's, if narrower) the strip spans across."""
    frame_margin: float = 2.0
    """Frame pixels the tray must keep from the frame's edge to count as in view."""
    floor_pad: float = 1.0
    """Standing checkers (along the tray) kept clear of the longest rows when learning the empty
    tray's look."""
    min_floor_rows: int = 8
    """Fewest strip rows of empty tray needed to read it at all."""
    lightness_floor: float = 3.0
    """Smallest spread of the empty tray's lightness along it (Lab units) ..."""
    chroma_floor: float = 2.0
    """... of its colour (Lab a, b units) ..."""
    stripe_floor: float = 1.0
    """... and of its stripes (the lightness's swing at one standing checker's period)."""
    feature_cap: float = 10.0
    """Most spreads a strip row's difference from the empty tray counts for."""
    weights: tuple[float, ...] = (0.619, 0.831, 0.776, -2.187, 0.364, -1.193, -4.796)
    """Logistic weights over a strip row's differences from the empty tray (lightness, colour,
    stripes; then their square roots; then a constant) -> log-odds that a standing checker covers the
    row. Fitted on rendered trays of seed 3 (``synthetic_set``), checked on seed 4."""
    prior: float = 0.05
    """Share of strip rows covered in the rows the weights were fitted on (taken out of the log-odds,
    so a row's evidence is a likelihood ratio)."""
    cap: float = 4.0
    """Most log-odds one strip row can give either way (a glint, a scratch)."""
    darkest: float = 0.5
    """A standing checker's edge may look as dark as this share of its top's colour (BGR) ..."""
    colour_spread: float = 12.0
    """... and this far (Lab units) from any such shade while still being that colour."""
    colour_outlier: float = 0.01
    """Chance that a row's colour sample does not show its checkers' colour at all (their faces in
    shadow from a steep camera, the floor between them): a sample far from both checker colours
    then tells little either way instead of picking the nearer one surely. Fitted by likelihood on
    the rows of rendered trays of seed 3 (81 rows with checkers: mean log P(right colour) -0.306
    with none, -0.273 at 0.01, -0.301 at 0.05)."""
    same_colour: float = 0.1
    """Prior chance that both rows of the tray hold the same colour."""
    colour_doubt: float = 0.01
    """Probability always kept for the other colour."""
    row_cost: float = 1.0
    """Log-odds each strip row a row of checkers would cover pays (an uneven light on an empty tray
    otherwise adds up to a long row of weak evidence)."""
    edge_gain: float = 2.0
    """Log-odds per spread of change where a row of checkers would end (its last checker's face) ..."""
    edge_unlike: float = 3.0
    """... beyond this many spreads of the empty tray's row-to-row change ..."""
    edge_floor: float = 1.0
    """... (at least this, Lab units) ..."""
    edge_reach: int = 2
    """... looked for this many strip rows either side of where the row would end."""
    temperature: float = 5.0
    """Softmax temperature over the counts' scores (neighbouring rows are far from independent)."""
    doubt: float = 0.01
    """Share of each row's count probability spread over the counts ..."""
    doubt_decay: float = 0.7
    """... each count getting this factor less for every checker it lies further from what was read
    (a tray read empty that holds twelve is far less likely than one that holds one: a long-nardy
    head of fifteen read as three must not put the other twelve in a tray seen empty)."""


@dataclass(frozen=True)
class BarConfig:
    """``proportions.measure_bar``: the bar's width read off a frame."""

    view_px: int = 800
    """Width of the straight-on view of the playing area it is measured in (pixels)."""
    blur: float = 1.0
    """Gaussian smoothing of that view before its gradient (pixels)."""
    rows: tuple[float, float] = (0.1, 0.9)
    """The rows whose gradients are pooled (fractions of the playing area's height from its top)."""
    widths: tuple[float, float] = (0.01, 0.16)
    """Narrowest and widest bar tried (fractions of the playing area's width: a hinge to two points)."""
    precision: float = 0.005
    """A width measured within this of the one assumed leaves it (the measure's own error is about
    this: half a pixel either side of a bar a few pixels wide on a webcam's frame)."""
    min_ratio: float = 2.5
    """The bar's two sides must each stand out by this much over the view's median column (else
    nothing is measured). On development seed 79 (120 rendered boards, bars of 0.04, 0.085 and 0.12)
    2.5 kept 71% of the boards and none more than 0.01 off; 2.0 kept 83% and three of them off."""


@dataclass(frozen=True)
class HeightConfig:
    """``proportions.measure_height``: the playing area's height over its width, read from how far
    apart the checkers in its lines are."""

    counts: tuple[int, int] = (2, 5)
    """Stacks read with this many checkers (one line, no pile) are measured."""
    peak_floor: float = 0.3
    """A disc is a peak of the detector's log-odds along the point's centre line reaching this share
    of that line's best."""
    steps: tuple[float, float] = (0.75, 1.6)
    """Steps from one disc to the next kept, in the diameters the reader assumes (shorter ones are a
    disc answering twice, longer ones a disc missed)."""
    gap: float = 0.035
    """Space between neighbours in a line, in diameters: the median step is taken as one diameter and
    this. Fitted on development seeds 77 and 78 (rendered lines leave 0-10% between checkers: the
    median step came 1.033-1.044 of the true diameter on heights 0.72, 0.80 and 0.90). A board whose
    checkers are pushed together reads about this much less high, well within ``precision``."""
    min_steps: int = 6
    """Fewest steps measured (else nothing is said)."""
    min_stacks: int = 3
    """Fewest stacks they come from."""
    precision: float = 0.05
    """A height measured within this share of the one assumed leaves it."""
    heights: tuple[float, float] = (0.55, 1.2)
    """Heights outside these are not believed (a board of other proportions than any made)."""
    smallest_checkers: float = 0.85
    """Checkers closer together along the points than assumed may be a higher board or smaller
    checkers (checkers 0.86 of a point wide read as a board 8% higher, and a reader told so read
    96.25% of their points against 97.08% on development seed 79; benchmarks/vision_proportions.py).
    So a higher board is taken only when smaller checkers would have to be narrower than this share
    of a point to explain it (checkers run from about 0.85 to 0.97 of a point on the boards made):
    with the default 0.94, a board measured more than 0.94 / 0.85 = 1.106 times as high. Closer
    together than assumed can only be a less high board (a checker is no wider than its point)."""

    def __post_init__(self) -> None:
        if not 0.0 < self.smallest_checkers <= 1.0:
            raise ValueError(
                "height.smallest_checkers is a share of a point's width, in (0, 1]: "
                f"got {self.smallest_checkers}"
            )


@dataclass(frozen=True)
class RecognizerConfig:
    geometry: BoardGeometry = field(default_factory=BoardGeometry)
    rectify: RectifyConfig = field(default_factory=RectifyConfig)
    evidence: EvidenceConfig = field(default_factory=EvidenceConfig)
    detect: DetectConfig = field(default_factory=DetectConfig)
    count: CountConfig = field(default_factory=CountConfig)
    colour: ColourConfig = field(default_factory=ColourConfig)
    settle: SettleConfig = field(default_factory=SettleConfig)
    tray: TrayConfig = field(default_factory=TrayConfig)
    bar: BarConfig = field(default_factory=BarConfig)
    height: HeightConfig = field(default_factory=HeightConfig)
    max_count: int = 15
    """Largest count per point the observation gives probabilities for."""

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RecognizerConfig:
        """Build from (a subset of) ``to_json()``'s form; missing fields keep their defaults."""
        parts: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            if f.name not in data:
                continue
            value = data[f.name]
            default = getattr(cls(), f.name)
            if (
                dataclasses.is_dataclass(default)
                and not isinstance(default, type)
                and isinstance(value, dict)
            ):
                kinds = {g.name for g in dataclasses.fields(default)}
                unknown = set(value) - kinds
                if unknown:
                    raise ValueError(f"unknown {f.name} settings: {', '.join(sorted(unknown))}")
                value = dataclasses.replace(
                    default, **{k: tuple(v) if isinstance(v, list) else v for k, v in value.items()}
                )
            parts[f.name] = value
        return cls(**parts)
