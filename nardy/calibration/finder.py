"""Finding the board in one frame, with no markers: ``find_board(config, image)``.

The stages, each a pure function of its own module:

1. ``edges``: the frame's straight segments (not the points' sides) joined into long lines;
2. ``quads``: quadrilaterals of four such lines with segments along their sides -- the board's
   outline, the frame's inner edge, the playing area, the tray: any of them gives the perspective;
3. ``structure``: in the straight-on view of each, the rectangle whose columns and rows show the
   points' layout (12 alternating points a side, opposite colours facing each other, the bar and the
   frame continuing neither), found by exhaustive one-dimensional fits;
4. ``refine``: the board's drawing (sides, bar, the points' sides) fitted to the colour edges, on the
   working image and then on the full frame; ``structure.compare_aliases`` compares the result with
   the placements the pattern makes nearly as plausible (the board a point or two along, a long side
   on the frame's outer edge or on the top of a row of checkers) and moves it if one of them is better;
   the edges of the bar and the short sides (``refine.end_support``) and the points' tips (``tips``)
   tell the aliases apart where checkers make the colours ambiguous;
5. ``register``: every placement of the two ends within a fraction of a point is scored by the points'
   sides alone, which says how clearly the points pin the ends and whether where the corners put them;
   a row's corners that its points pin clearly elsewhere are moved there;
6. ``bases``: on the full frame, a long side that the points' bases put further in (the far side on
   the frame's outer edge, a few pixels wide at a steep angle) is moved there and fitted again.

``BoardFinding.confidence`` combines how clearly the result shows the points' layout, how far ahead it
is of its neighbours and of the best *different* candidate, how much of its outline lies on edges
where it can be seen, whether its points end where its corners put their tips, and whether the
points' sides pin its ends there. A wrong result is rarely ahead of its neighbours, so it comes out
unsure; ``ok`` is what the caller should look at before trusting the corners. A short side that
shows no edge (a wooden frame the field's colour) counts against it only when the points do not pin
the ends.

The board is symmetric under a half turn (only the checkers and the tray tell the ends apart), so
the corners are named to make the board read upright in the image -- or, given ``previous`` corners
(a camera nudged during a game), to stay as close to them as possible.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace

import cv2
import numpy as np
from numpy.typing import NDArray

from nardy.calibration.aspect import completed, implied_aspect, implied_ratio
from nardy.calibration.bases import base_moves, moved_sides
from nardy.calibration.config import FinderConfig
from nardy.calibration.edges import Gradient, colour_gradient, line_segments, merge_segments, shrink, to_lab
from nardy.calibration.pattern import PatternScore, pattern_score
from nardy.calibration.quads import candidate_quads, perspective_groups, quad_area
from nardy.calibration.refine import Fit, Lens, end_support, refine_corners
from nardy.calibration.register import Registration, register_ends
from nardy.calibration.structure import (
    Aliases,
    Proposal,
    View,
    alternation_strength,
    compare_aliases,
    polish,
    propose,
    quad_view,
)
from nardy.calibration.tips import row_tips, tip_misfit
from nardy.vision.geometry import ROWS, BoardGeometry, apply_homography, checked_corners, homography_to_image
from nardy.vision.proportions import measure_bar

F32 = NDArray[np.float32]
F64 = NDArray[np.float64]


@dataclass(frozen=True)
class BoardFinding:
    """Where the finder thinks the playing area is, and how sure it is."""

    corners: F64 | None
    """(4, 2) float64 image (x, y) of the playing area's TL, TR, BR, BL corners; None if nothing
    board-like was seen."""
    confidence: float
    """0..1: how sure the finder is (see the module docstring)."""
    ok: bool
    """``confidence`` reached the configured minimum."""
    pattern: PatternScore | None = None
    """The board-likeness of the result."""
    side_support: float = 0.0
    """Fraction of the outline lying on edges (measured on the working image)."""
    point_support: float = 0.0
    """Fraction of the points' sides lying on edges (likewise)."""
    margin: float = 0.0
    """Lead of the result's score over the best different candidate."""
    candidates: int = 0
    """How many quadrilaterals were considered."""
    timings_ms: dict[str, float] = field(default_factory=dict)
    alternatives: tuple[F64, ...] = ()
    """Other candidate corners, best first (for debug drawings)."""
    aliases: Aliases | None = None
    """How the result compares with the placements the points' pattern makes nearly as plausible."""
    weakest_side: float = 0.0
    """Support of the side least on edges (``_weakest_side``)."""
    shape_error: float = 0.0
    """How far the proportions the corners imply are off the board's (``aspect.implied_aspect``)."""
    sides: tuple[float, ...] = ()
    """``side_support`` of each side (top, right, bottom, left) ..."""
    seen_sides: tuple[float, ...] = ()
    """... and the same counted where the side can be seen (``refine.seen_support``)."""
    column_lead: float = 0.0
    """Lead over the board shifted by whole points, by colours and by edges (``_Result.column_lead``) ..."""
    row_lead: float = 0.0
    """... and over the aliases of the long sides (``_Result.row_lead``)."""
    tip_misfit: float = 0.0
    """How far the two rows' points end from where the corners put their tips (``tips.tip_misfit``)."""
    ends_lead: float = 0.0
    """How clearly the points' sides pin the ends (``register.Registration.lead``, the lesser of the two
    rows') ..."""
    ends_offset: float = 0.0
    """... and how far from where the corners put them (``register.Registration.offset``, the larger)."""
    geometry: BoardGeometry | None = None
    """The proportions the board was found with: the caller's, the default's, or another bar's
    (``FinderConfig.bar_widths``, then the bar read off the frame between the corners)."""

    def summary(self) -> str:
        """One line for people: where and how sure."""
        if self.corners is None:
            return "no board found"
        pts = " ".join(f"({x:.0f},{y:.0f})" for x, y in self.corners)
        p = self.pattern.score if self.pattern is not None else 0.0
        al = self.aliases
        lead = min(self.column_lead, self.row_lead)
        ahead = f", ahead of its aliases by {lead:.2f}" if al is not None else ""
        return (
            f"{'found' if self.ok else 'unsure'}: corners TL TR BR BL {pts}; confidence "
            f"{self.confidence:.2f} (pattern {p:.2f}, outline on edges {self.side_support:.0%}, points' "
            f"sides on edges {self.point_support:.0%}{ahead}, lead over others {self.margin:.2f}, ends "
            f"pinned by the points by {self.ends_lead:.2f})"
        )


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, x))))


def _weakest_side(fit: Fit, ends_pinned: bool = False) -> float:
    """The support of ``fit``'s side least on edges. Where checkers hide a side, finding no edge says
    nothing against it (``Fit.seen_sides``); but checkers standing on a long side's bases also make
    edges near it that it might have been put on, so there the hidden part counts half. A short
    side has the bar's edges to back it (``refine.end_support``), and when the points' sides pin
    the ends where the corners put them (``ends_pinned``, ``register``) it need show no edge."""
    if not fit.sides:
        return fit.side_support
    seen = fit.seen_sides or fit.sides
    long_sides = [(fit.sides[k] + seen[k]) / 2 for k in (0, 2)]
    return min(long_sides + ([] if ends_pinned else [seen[1], seen[3]]))


def _differs(a: F64, b: F64, tol: float) -> bool:
    """True unless ``a`` and ``b`` are the same quadrilateral within ``tol`` (either naming of the
    half-turn)."""
    return min(float(np.max(np.linalg.norm(a - np.roll(b, s, axis=0), axis=1))) for s in (0, 2)) > tol


def name_corners(corners: F64, previous: F64 | None = None) -> F64:
    """Choose which end of the board is "top": nearest ``previous`` if given, else the naming whose top
    edge is higher in the image (ties: whose top edge runs more to the right)."""
    options = [np.roll(corners, -s, axis=0) for s in (0, 2)]
    if previous is not None:
        prev = np.asarray(previous, dtype=np.float64).reshape(4, 2)
        return min(options, key=lambda c: float(np.sum(np.linalg.norm(c - prev, axis=1))))

    def uprightness(c: F64) -> tuple[float, float]:
        up = (c[0] + c[1]) / 2 - (c[3] + c[2]) / 2
        right = c[1] - c[0]
        return float(-up[1] / (np.linalg.norm(up) + 1e-9)), float(right[0] / (np.linalg.norm(right) + 1e-9))

    return max(options, key=uprightness)


def _roi_gradient(
    config: FinderConfig, image: NDArray[np.uint8], corners: F64, pad: float
) -> tuple[Gradient, F32, F64]:
    """The colour gradient and Lab of the full-resolution frame around ``corners``, and the ROI's
    top-left offset."""
    h, w = image.shape[:2]
    x0, y0 = np.floor(corners.min(axis=0) - pad).astype(int)
    x1, y1 = np.ceil(corners.max(axis=0) + pad).astype(int)
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    lab = to_lab(np.ascontiguousarray(image[y0:y1, x0:x1]))
    return colour_gradient(config.edges, lab), lab, np.array([x0, y0], dtype=np.float64)


def _clockwise(corners: F64) -> F64:
    """``corners`` (TL, TR, BR, BL of a view) as a clockwise naming in the image: a view read with its
    axes swapped is a mirror image, so its corners go round the other way."""
    c = np.asarray(corners, dtype=np.float64)
    x, y = c[:, 0], c[:, 1]
    if float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) < 0:
        return np.asarray(c[[1, 0, 3, 2]], dtype=np.float64)
    return c


@dataclass(frozen=True)
class _Result:
    """One candidate after refinement: its corners, fit, pattern, aliases and implied proportions."""

    corners: F64
    fit: Fit
    pattern: PatternScore
    aliases: Aliases
    shape_error: float
    """How far the proportions its corners imply are from the board's, beyond what they can tell
    (``aspect.implied_aspect``; 0 when within)."""
    ends: float = 0.0
    """``refine.end_support``: how much of the bar's edges and the short sides lie on edges ..."""
    end_lead: float = 0.0
    """... its lead over the same with the board shifted by whole points (``StructureConfig.column_aliases``)
    ..."""
    end_shift: int = 0
    """... and the shift that comes closest."""

    def score(self, config: FinderConfig) -> float:
        """How good a result this is: board-like, its drawing on edges (the points' sides lie on edges
        only when the ends and the perspective are right; the sides only on the right lines) and of the
        board's proportions."""
        return (
            self.pattern.score
            + config.side_weight * self.fit.side_support
            + config.point_weight * self.fit.point_support
            + config.end_weight * self.ends
            - config.shape_weight * self.shape_error
            - config.tip_weight * self.tips
        )

    row_lead: float = 0.0
    """Lead of its row fit over the aliases of the long sides that stay apart from it when refitted
    (``_row_lead``)."""
    tips: float = 0.0
    """How far the two rows' points' tips disagree with where its corners put them (``tips.tip_misfit``)."""

    def column_lead(self, config: FinderConfig) -> float:
        """Lead over the board shifted by whole points: the view's column fit's (colours) plus that of
        the bar's and the short sides' edges (``end_lead``), which checkers covering the end columns do
        not mislead."""
        return self.aliases.column_lead + config.end_lead_weight * self.end_lead


def _shape_error(config: FinderConfig, corners: F64, size: tuple[int, int], geometry: BoardGeometry) -> float:
    """``_Result.shape_error`` of ``corners`` in an image of ``size``: how many times its tolerance the
    implied proportions miss the board's by, beyond the first (0 while within it)."""
    a = implied_aspect(corners, size, config.focal_range)
    misfit = abs(math.log(max(a.ratio, 1e-9) / geometry.height))
    return max(0.0, misfit / (config.shape_tolerance + config.shape_spread * a.spread) - 1.0)


def _unit_rect(config: FinderConfig) -> tuple[float, float, float, float]:
    """Where a quadrilateral lies in its own fine straight-on view (``structure.quad_view``)."""
    sc = config.structure
    s = sc.fine_view_px / (1.0 + 2.0 * sc.extend)
    return (sc.extend * s, sc.extend * s, (1.0 + sc.extend) * s, (1.0 + sc.extend) * s)


def _moved(corners: F64, geometry: BoardGeometry, dx: float, dy0: float, dy1: float) -> F64:
    """``corners`` with the board moved ``dx`` point widths along its length and its top and bottom
    sides moved ``dy0``, ``dy1`` point widths down."""
    h = homography_to_image(geometry, corners)
    pw = geometry.point_width
    board = geometry.corners() + np.array([[dx, dy0], [dx, dy0], [dx, dy1], [dx, dy1]]) * pw
    return apply_homography(h, board)


def _usable(config: FinderConfig, corners: F64, size: tuple[int, int]) -> bool:
    """Whether ``corners`` make a board worth fitting in an image of ``size``: a convex quadrilateral
    no smaller than a candidate may be (``QuadConfig.min_area``) and no further outside the image than
    its own width and height (the frame may cut a corner off; a board grown out of all proportion it
    does not)."""
    w, h = size
    x, y = corners[:, 0], corners[:, 1]
    if not np.all((x >= -w) & (x <= 2 * w) & (y >= -h) & (y <= 2 * h)):
        return False
    try:
        checked_corners(corners, config.quads.min_area * w * h)
    except ValueError:
        return False
    return True


def _refined(
    config: FinderConfig, lab: F32, smooth: F32, grad: Gradient, corners: F64, geometry: BoardGeometry
) -> _Result:
    """``corners`` (working image) fitted to the edges, scored and compared with their aliases."""
    ps = pattern_score(config.pattern, lab, corners, geometry)
    colours = np.asarray(ps.colours, dtype=np.float64)
    fit = refine_corners(
        config.refine, grad, corners, geometry, config.refine.searches, lab=lab, colours=colours
    )
    ps_fit = pattern_score(config.pattern, lab, fit.corners, geometry)
    if ps_fit.score < ps.score - config.refine_tolerance:  # the fit ran off: keep the corners
        fit = replace(fit, corners=corners, moved=0.0)
        ps_fit = ps
    view = quad_view(config.structure, smooth, fit.corners, config.structure.fine_view_px)
    aliases = compare_aliases(config.structure, geometry, view, _unit_rect(config))
    size = (lab.shape[1], lab.shape[0])
    ends = end_support(config.refine, grad, fit.corners, geometry, fit.kappa)
    shifts = [s * k for k in config.structure.column_aliases for s in (-1, 1)]
    shifted = [
        end_support(config.refine, grad, _moved(fit.corners, geometry, k, 0.0, 0.0), geometry, fit.kappa)
        for k in shifts
    ]
    best = int(np.argmax(shifted))
    return _Result(
        fit.corners,
        fit,
        ps_fit,
        aliases,
        _shape_error(config, fit.corners, size, geometry),
        ends,
        ends - shifted[best],
        shifts[best],
        tips=_tips(lab, fit.corners, geometry, ps_fit, fit.kappa),
    )


def _tips(
    lab: F32,
    corners: F64,
    geometry: BoardGeometry,
    pattern: PatternScore,
    kappa: float,
    lens: Lens | None = None,
) -> float:
    """``tips.tip_misfit`` of ``corners`` in ``lab`` (seen through ``lens``, by default one of distortion
    ``kappa`` about the image's centre)."""
    hh, ww = lab.shape[:2]
    lens = lens or Lens((ww / 2.0, hh / 2.0), 0.5 * math.hypot(ww, hh), kappa)
    colours = np.asarray(pattern.colours, dtype=np.float64)
    return tip_misfit(row_tips(lab, corners, geometry, colours, lens))


def _polished(config: FinderConfig, smooth: F32, corners: F64, geometry: BoardGeometry) -> F64:
    """``corners`` (working image) moved to where the points' layout is best, close by."""
    sc = config.structure
    for _ in range(config.polish_rounds):
        view = quad_view(sc, smooth, corners, sc.fine_view_px)
        corners = view.corners(polish(sc, geometry, view, _unit_rect(config)))
    return corners


def _row_lead(
    config: FinderConfig, lab: F32, grad: Gradient, result: _Result, geometry: BoardGeometry
) -> float:
    """``result``'s lead over the aliases of its long sides (``Aliases.row_scores``), leaving out those
    close behind or ahead (within ``row_check``) that, refitted to the edges, come back onto
    ``result`` or put the points' tips clearly further from where the points end (``tips``): a row of
    checkers or a glare can make the view's row fit prefer a place where no side is."""
    a = result.aliases
    if not a.row_scores:
        return a.row_lead
    scores = np.asarray(a.row_scores)
    keep = np.ones(len(scores), dtype=bool)
    pw = geometry.point_width * float(np.linalg.norm(result.corners[1] - result.corners[0]))
    colours = np.asarray(result.pattern.colours, dtype=np.float64)
    hh, ww = grad.dx.shape
    lens = Lens((ww / 2.0, hh / 2.0), 0.5 * float(np.hypot(ww, hh)), result.fit.kappa)
    for i in np.flatnonzero(scores > a.rows - config.row_check):
        moved = _moved(result.corners, geometry, 0.0, *a.row_moves[i])
        fit = refine_corners(
            config.refine, grad, moved, geometry, config.refine.searches, lens=lens, lab=lab, colours=colours
        )
        back = float(np.max(np.linalg.norm(fit.corners - result.corners, axis=1)))
        tips = _tips(lab, fit.corners, geometry, result.pattern, fit.kappa)
        keep[i] = back > config.row_collapse * pw and tips < result.tips + config.confidence.tip_mid
    return a.rows - float(np.max(scores[keep])) if keep.any() else config.row_check


def _assess(
    config: FinderConfig, lab: F32, smooth: F32, grad: Gradient, corners: F64, geometry: BoardGeometry
) -> _Result:
    """Fit polished ``corners`` (working image) to the edges, and move them to an alias that shows the
    layout better, or (if the result has the wrong proportions) to the long sides' alias that best
    mends them or (if it is too short for the board) to the board it may be a part of
    (``aspect.completed``), if the move pays."""
    result = _refined(config, lab, smooth, grad, corners, geometry)
    size = (lab.shape[1], lab.shape[0])
    for _ in range(config.alias_rounds):
        a = result.aliases
        moves: list[tuple[float, float, float]] = []
        if a.column_shift != 0 or a.row_shift != (0.0, 0.0):
            moves.append((float(a.column_shift), *a.row_shift))
        if result.end_lead < 0 and result.end_shift != a.column_shift:
            moves.append((float(result.end_shift), 0.0, 0.0))
        if result.shape_error > 0:
            sides = [(0.0, s * d, 0.0) for d in config.structure.row_aliases for s in (-1, 1)]
            sides += [(0.0, 0.0, s * d) for d in config.structure.row_aliases for s in (-1, 1)]
            moves.append(
                min(
                    sides,
                    key=lambda m: _shape_error(config, _moved(result.corners, geometry, *m), size, geometry),
                )
            )
        if result.tips > config.tip_check:
            pattern = result.pattern
            rows = [(0.0, s * d, 0.0) for d in config.structure.row_aliases for s in (-1, 1)]
            rows += [(0.0, 0.0, s * d) for d in config.structure.row_aliases for s in (-1, 1)]
            moves.append(
                min(
                    rows,
                    key=lambda m: _tips(
                        lab, _moved(result.corners, geometry, *m), geometry, pattern, result.fit.kappa
                    ),
                )
            )
        starts = [_moved(result.corners, geometry, *m) for m in moves]
        if (
            result.shape_error > 0
            and implied_ratio(result.corners, size, config.focal_range) / geometry.height - 1.0
            >= config.grow_least * geometry.point_width
        ):
            # or it is a part of the board, points of each row cut off at one end: grown to the
            # board's proportions past either end
            starts += completed(result.corners, size, config.focal_range, geometry.height, config.grow_most)
        starts = [c for c in starts if _usable(config, c, size)]
        if not starts:
            break
        others = [_refined(config, lab, smooth, grad, c, geometry) for c in starts]
        other = max(others, key=lambda r: r.score(config))
        if other.score(config) + config.alias_tolerance < result.score(config):
            break
        result = other
    else:
        # moved every round: a start three points off comes at most two nearer in a round; while the
        # columns still lead the other way, the board is moved along on its own a little further
        for _ in range(config.column_rounds):
            if result.column_lead(config) >= 0:
                break
            a = result.aliases
            shift = a.column_shift if a.column_lead < 0 else result.end_shift
            if shift == 0:
                break
            along = _moved(result.corners, geometry, shift, 0.0, 0.0)
            if not _usable(config, along, size):
                break
            other = _refined(config, lab, smooth, grad, along, geometry)
            if other.score(config) + config.alias_tolerance < result.score(config):
                break
            result = other
    return replace(result, row_lead=_row_lead(config, lab, grad, result, geometry))


def _both_ways(
    config: FinderConfig, geometry: BoardGeometry, smooth: F32, quad: F64, size: int | None = None
) -> tuple[tuple[View, View], tuple[float, float]]:
    """The straight-on view of ``quad`` (``size`` pixels square, by default ``StructureConfig.view_px``)
    read both ways round, and how strongly the points' columns alternate along its x each way
    (``structure.alternation_strength``)."""
    view = quad_view(config.structure, smooth, quad, size)
    both = (view, view.transposed())
    a, b = (alternation_strength(config.structure, geometry, v) for v in both)
    return both, (a, b)


def _stronger_views(
    config: FinderConfig,
    geometry: BoardGeometry,
    smooth: F32,
    quads: list[F64],
    grouped: list[list[int]],
    searched: list[list[int]],
    views: list[F64],
) -> list[tuple[tuple[View, View], tuple[float, float]]]:
    """The perspectives of ``quads`` (all the candidates, best supported first; ``grouped`` by
    ``quads.perspective_groups``) beyond the ``searched`` groups (their ``views``) in whose view the
    points' columns alternate more strongly than in any searched one, strongest first, at most
    ``config.extra_views``, read both ways (``_both_ways``): a small board among clutter has fewer and
    shorter lines than the clutter, but no clutter shows the points. They are compared in small views
    (``config.screen_px``), which is cheap."""
    if config.extra_views <= 0:
        return []
    taken = {i for g in searched for i in g}
    small = config.screen_px
    strongest = max(max(_both_ways(config, geometry, smooth, v, small)[1]) for v in views)
    found: list[tuple[float, F64]] = []
    for g in grouped:
        if taken.intersection(g):
            continue
        quad = max((quads[i] for i in g), key=quad_area)
        strength = max(_both_ways(config, geometry, smooth, quad, small)[1])
        if strength > strongest:
            found.append((strength, quad))
    found.sort(key=lambda r: -r[0])
    return [_both_ways(config, geometry, smooth, quad) for _, quad in found[: config.extra_views]]


def _proposals(
    config: FinderConfig,
    geometry: BoardGeometry,
    read: list[tuple[tuple[View, View], tuple[float, float]]],
) -> list[Proposal]:
    """The playing areas proposed in views read both ways round (``_both_ways``), best first: each
    way, unless it plainly shows no row of points (its columns alternate much less than the other
    way's)."""
    out: list[Proposal] = []
    for both, strength in read:
        for v, st in zip(both, strength, strict=True):
            if st >= config.roll_ratio * max(strength):
                out += propose(config.structure, geometry, v)
    out.sort(key=lambda p: -p.score)
    return out


def _distinct_proposals(
    config: FinderConfig,
    geometry: BoardGeometry,
    proposals: list[Proposal],
    most: int,
    taken: list[F64] | None = None,
) -> list[F64]:
    """The corners of the first ``most`` of ``proposals`` that differ from each other and from
    ``taken`` by more than a fraction of a point (the pattern repeats, so those are different
    placements)."""
    chosen: list[F64] = []
    for prop in proposals:
        if len(chosen) >= most:
            break
        corners = _clockwise(prop.corners)
        pw = geometry.point_width * float(np.linalg.norm(corners[1] - corners[0]))
        if all(_differs(corners, c, config.distinct_points * pw) for c in chosen + (taken or [])):
            chosen.append(corners)
    return chosen


def _pinned(
    config: FinderConfig,
    lab: F32,
    grad: Gradient,
    result: _Result,
    ends: list[Registration],
    geometry: BoardGeometry,
) -> _Result:
    """``result`` with each row's two corners moved where that row's points clearly pin them
    (``ends``, one ``register.Registration`` per row in ``ROWS``: a lead of at least
    ``RegisterConfig.move_lead`` and an end ``RegisterConfig.move_offset`` or more from the corners),
    then fitted to the edges with the last, shortest search only (a longer one would take the ends
    back to the edges they came from); ``result`` itself if no row does."""
    rc = config.register
    corners = result.corners.copy()
    for e, idx in zip(ends, ((0, 1), (2, 3)), strict=True):
        if e.lead >= rc.move_lead and e.offset >= rc.move_offset:
            corners[list(idx)] = e.corners[list(idx)]
    if np.array_equal(corners, result.corners):
        return result
    hh, ww = grad.dx.shape
    lens = Lens((ww / 2.0, hh / 2.0), 0.5 * float(np.hypot(ww, hh)), result.fit.kappa)
    colours = np.asarray(result.pattern.colours, dtype=np.float64)
    reach = config.refine.searches[-1:]
    fit = refine_corners(config.refine, grad, corners, geometry, reach, lens=lens, lab=lab, colours=colours)
    return replace(result, corners=fit.corners, fit=fit)


def _on_bases(
    config: FinderConfig,
    grad: Gradient,
    lab: F32,
    fit: Fit,
    geometry: BoardGeometry,
    pattern: PatternScore,
    lens: Lens,
) -> F64:
    """``fit``'s corners (full frame, seen through ``lens``) with a long side that the points' bases
    put further inside (``bases.base_moves``: the far side on the frame's outer edge at a steep
    angle, where the frame is a few pixels wide) moved there and fitted to the edges again."""
    colours = np.asarray(pattern.colours, dtype=np.float64)
    top, bottom = base_moves(config.bases, lab, fit.corners, geometry, colours, lens)
    if top == 0.0 and bottom == 0.0:
        return fit.corners
    moved = moved_sides(fit.corners, geometry, top, bottom, lens)
    reach = config.refine.final_searches
    fit = refine_corners(config.refine, grad, moved, geometry, reach, lens=lens, lab=lab, colours=colours)
    return fit.corners


def find_board(
    config: FinderConfig,
    image: NDArray[np.uint8],
    geometry: BoardGeometry | None = None,
    *,
    previous: F64 | None = None,
) -> BoardFinding:
    """Find the playing area's corners in ``image`` (H, W, 3) uint8 BGR.

    ``geometry``: the board's proportions (the frame and tray need not match, the points' layout
    should); when not given, ``BoardGeometry()``'s, then, if that board is not found with
    confidence, the height its corners imply (``heights``), the ``heights_tried``, and the other
    ``bar_widths`` (``BoardFinding.geometry`` says which). ``previous``: corners
    from before (a re-find after the camera moved) -- used only to name the corners consistently.
    """
    if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise ValueError(f"expected an (H, W, 3) uint8 BGR image, got {image.shape} {image.dtype}")
    if geometry is not None:
        return _find(config, image, geometry, previous)
    # not told the board's proportions: the default's, and if that board is not found with
    # confidence, another bar's board found with confidence (the points' columns are laid out from
    # the bar: with a hinge for a bar the default's columns fit nowhere). An unsure answer stays the
    # default's: another bar's is no likelier to be right for being a little less unsure
    base = BoardGeometry()
    best = _find(config, image, base, previous)
    if best.ok:
        return best
    if best.corners is not None and best.shape_error > 0:
        # the corners imply another height than the default's: a squarer or a longer board is
        # found again with the one they imply (straight above it is exact; from a side, looser)
        ratio = implied_aspect(best.corners, (image.shape[1], image.shape[0]), config.focal_range).ratio
        if config.heights[0] <= ratio <= config.heights[1]:
            again = _find(config, image, replace(base, height=round(ratio, 3)), previous)
            if again.ok:
                return again
    # a longer board's points fit the default's board a tenth of its height off, with the default's
    # ratio: boards of other heights are looked for as such
    others = [_find(config, image, replace(base, height=h), previous) for h in config.heights_tried]
    sure_heights = [f for f in others if f.ok and f.corners is not None]
    if sure_heights:
        return max(sure_heights, key=lambda f: f.confidence)
    tried = [(w, _find(config, image, replace(base, bar_width=w), previous)) for w in config.bar_widths]
    sure = [(w, f) for w, f in tried if f.ok and f.corners is not None]
    if not sure:
        return best
    width, best = max(sure, key=lambda wf: wf[1].confidence)
    assert best.corners is not None
    # a bar between two of the widths tried fits the nearer well enough to be sure, a fraction of a
    # point off: where the frame shows the bar's width between the corners found, the board is
    # found again with it
    bar = measure_bar(config.bar, image, best.corners, base.height)
    if bar is not None and abs(bar.width - width) > config.bar.precision:
        again = _find(config, image, replace(base, bar_width=bar.width), previous)
        if again.ok:
            best = again
    return best


def _find(
    config: FinderConfig, image: NDArray[np.uint8], geometry: BoardGeometry, previous: F64 | None
) -> BoardFinding:
    """``find_board`` with the board's proportions given."""
    timings: dict[str, float] = {}
    t = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal t
        now = time.perf_counter()
        timings[name] = (now - t) * 1000.0
        t = now

    h, w = image.shape[:2]
    work, scale = shrink(image, config.work_px)
    wh, ww = work.shape[:2]
    lab = to_lab(work)
    grad = colour_gradient(config.edges, lab)
    smooth = np.asarray(cv2.GaussianBlur(lab, (0, 0), config.view_blur), dtype=np.float32)
    lines = merge_segments(config.lines, line_segments(config.lines, work), (ww, wh))
    lap("lines")
    every = [q for q, _ in candidate_quads(config.quads, lines, (ww, wh))]
    quads = every[: config.search_quads]
    # grouped greedily in order, so the groups of the best supported are as if grouped alone
    grouped = perspective_groups(every, config.same_perspective)
    groups = [[i for i in g if i < len(quads)] for g in grouped if g[0] < len(quads)][: config.search_views]
    # one view per perspective: that of its largest quadrilateral (the playing area lies inside)
    views = [max((quads[i] for i in g), key=quad_area) for g in groups]
    border = config.quads.outside * max(ww, wh)
    views.append(
        np.array(
            [[border, border], [ww - border, border], [ww - border, wh - border], [border, wh - border]],
            dtype=np.float64,
        )
    )
    lap("quads")
    read = [_both_ways(config, geometry, smooth, quad) for quad in views]
    extra = _stronger_views(config, geometry, smooth, every, grouped, groups, views)
    proposals = _proposals(config, geometry, read)
    extra_proposals = _proposals(config, geometry, extra)
    lap("search")
    if not proposals and not extra_proposals:
        return BoardFinding(None, 0.0, False, candidates=len(quads), timings_ms=timings, geometry=geometry)
    chosen = _distinct_proposals(config, geometry, proposals, config.polish_top)
    # polish them all, refine the few whose points' pattern then looks best
    polished = [_polished(config, smooth, c, geometry) for c in chosen]
    board_like = [pattern_score(config.pattern, lab, c, geometry).score for c in polished]
    order = np.argsort(-np.asarray(board_like), kind="stable")[: config.refine_top]
    polished = [polished[i] for i in order]
    # and the best of the stronger views beyond them if it is more board-like still: a clear pattern
    # in a perspective no quadrilateral there ranked high is worth a look, but it does not crowd out
    # the others
    for c in _distinct_proposals(config, geometry, extra_proposals, 1, polished):
        c = _polished(config, smooth, c, geometry)
        if pattern_score(config.pattern, lab, c, geometry).score > max(board_like, default=-np.inf):
            polished.append(c)
    tol = config.distinct * math.hypot(ww, wh)
    results = [_assess(config, lab, smooth, grad, c, geometry) for c in polished]
    results.sort(key=lambda r: -r.score(config))
    best = results[0]
    rivals = [r.score(config) for r in results if _differs(r.corners, best.corners, tol)]
    margin = best.score(config) - max(rivals) if rivals else 1.0
    # each row's points pin its own two corners
    ends = [register_ends(config.register, grad, best.corners, geometry, best.fit.kappa, r) for r in ROWS]
    pinned = _pinned(config, lab, grad, best, ends, geometry)
    if pinned is not best:
        best = pinned
        ends = [register_ends(config.register, grad, best.corners, geometry, best.fit.kappa, r) for r in ROWS]
    ends_lead = min(e.lead for e in ends)
    ends_offset = max(e.offset for e in ends)
    lap("refine")
    corners = best.corners / scale
    tips = best.tips
    final = best.fit  # its edge support, measured where the search ran, is the better calibrated
    # the finishing pass runs on the frame scaled to at most ``full_px`` (its distances are pixels
    # of that frame: on a phone's 4032-pixel photo they would reach a third as far)
    fine_scale = min(1.0, config.full_px / max(h, w))
    if config.refine.full_resolution and scale < fine_scale:
        fine, fine_scale = shrink(image, config.full_px)
        fh, fw = fine.shape[:2]
        corners = corners * fine_scale
        reach = max(config.refine.final_searches)
        pad = reach * 4 + 8
        g_full, lab_full, offset = _roi_gradient(config, fine, corners, pad)
        lens = Lens((fw / 2.0 - offset[0], fh / 2.0 - offset[1]), 0.5 * math.hypot(fw, fh), best.fit.kappa)
        fit_full = refine_corners(
            config.refine,
            g_full,
            corners - offset,
            geometry,
            config.refine.final_searches,
            lens=lens,
            lab=lab_full,
            colours=np.asarray(best.pattern.colours, dtype=np.float64),
        )
        if float(np.max(np.linalg.norm(fit_full.corners + offset - corners, axis=1))) <= 2 * reach:
            corners = fit_full.corners + offset
            # the tips are sharper at full resolution
            full_lens = lens.with_kappa(fit_full.kappa)
            on_bases = _on_bases(config, g_full, lab_full, fit_full, geometry, best.pattern, full_lens)
            corners = on_bases + offset
            tips = _tips(lab_full, on_bases, geometry, best.pattern, 0.0, full_lens)
        corners = corners / fine_scale
    lap("full")
    cc = config.confidence
    al = best.aliases
    rc = config.register
    # the points' sides lie on edges with the board a whole point along too (their lead is over
    # placements within a fraction of a point): the bar's edges and the short sides' are what can tell
    # that board apart, so the points vouch for the short sides only where those lead it
    vouched = ends_lead >= rc.vouch_lead and ends_offset <= rc.vouch_offset and best.end_lead > 0
    weakest = _weakest_side(final, vouched)
    confidence = (
        _sigmoid(cc.pattern_slope * (best.pattern.score - cc.pattern_mid))
        * _sigmoid(cc.points_slope * (final.point_support - cc.points_mid))
        * _sigmoid(cc.edge_slope * (weakest - cc.edge_mid))
        * _sigmoid(cc.column_slope * (best.column_lead(config) - cc.column_mid))
        * _sigmoid(cc.row_slope * (best.row_lead - cc.row_mid))
        * _sigmoid(cc.margin_slope * (margin - cc.margin_mid))
        * _sigmoid(cc.shape_slope * (cc.shape_mid - best.shape_error))
        * _sigmoid(cc.tip_slope * (cc.tip_mid - tips))
        * _sigmoid(cc.ends_slope * (ends_lead - cc.ends_mid))
        * _sigmoid(cc.offset_slope * (cc.offset_mid - ends_offset))
    )
    named = name_corners(corners, previous)
    alternatives = tuple(
        name_corners(r.corners / scale) for r in results if _differs(r.corners, best.corners, tol)
    )
    timings["total"] = sum(timings.values())
    return BoardFinding(
        named,
        float(confidence),
        confidence >= config.min_confidence,
        best.pattern,
        final.side_support,
        final.point_support,
        float(margin),
        len(views),
        timings,
        alternatives,
        al,
        weakest,
        best.shape_error,
        final.sides,
        final.seen_sides,
        best.column_lead(config),
        best.row_lead,
        tips,
        ends_lead,
        ends_offset,
        geometry,
    )
