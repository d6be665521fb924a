"""Finding the board in one frame, with no markers: ``find_board(config, image)``.

The stages, each a pure function of its own module:

1. ``edges``: colour edges and the long straight lines of the frame;
2. ``quads``: quadrilaterals of four such lines with edges along their sides (the board's outline,
   the frame's inner edge, the tray...);
3. ``search`` + ``pattern``: inside each, the axis-aligned rectangle that looks most like a playing
   area -- 12 points a side in two alternating colours, the field between them, no points continuing
   beyond the long sides;
4. ``refine``: the board's drawing (sides, bar, the points' sides) fitted to the edges, to the pixel,
   on the working image and then on the full frame.

``BoardFinding.confidence`` combines how board-like the result is, how much of its outline lies on
edges and how far it leads the best *different* candidate; it is low when the finder is unsure,
which is what the caller should look at (``ok``) before trusting the corners.

The board is symmetric under a half turn (only the checkers and the tray tell the ends apart), so
the corners are named to make the board read upright in the image -- or, given ``previous`` corners
(a camera nudged during a game), to stay as close to them as possible.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from nardy.calibration.config import FinderConfig
from nardy.calibration.edges import (
    Gradient,
    colour_gradient,
    edge_map,
    hough_lines,
    near_edges,
    shrink,
    to_lab,
    trace_line,
)
from nardy.calibration.pattern import PatternScore, pattern_score
from nardy.calibration.quads import candidate_quads
from nardy.calibration.refine import Fit, Lens, refine_corners
from nardy.calibration.search import Hypothesis, inner_search
from nardy.vision.geometry import BoardGeometry

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
    """Fraction of the outline lying on edges."""
    point_support: float = 0.0
    """Fraction of the points' sides lying on edges."""
    margin: float = 0.0
    """Lead of the result's score over the best different candidate."""
    candidates: int = 0
    """How many quadrilaterals were considered."""
    timings_ms: dict[str, float] = field(default_factory=dict)
    alternatives: tuple[F64, ...] = ()
    """Other candidate corners, best first (for debug drawings)."""

    def summary(self) -> str:
        """One line for people: where and how sure."""
        if self.corners is None:
            return "no board found"
        pts = " ".join(f"({x:.0f},{y:.0f})" for x, y in self.corners)
        p = self.pattern.score if self.pattern is not None else 0.0
        return (
            f"{'found' if self.ok else 'unsure'}: corners TL TR BR BL {pts}; confidence "
            f"{self.confidence:.2f} (pattern {p:.2f}, outline on edges {self.side_support:.0%}, "
            f"lead {self.margin:.3f})"
        )


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, x))))


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


def find_board(
    config: FinderConfig,
    image: NDArray[np.uint8],
    geometry: BoardGeometry | None = None,
    *,
    previous: F64 | None = None,
) -> BoardFinding:
    """Find the playing area's corners in ``image`` (H, W, 3) uint8 BGR.

    ``geometry``: the board's proportions (default ``BoardGeometry()``; only roughly needed: the search
    tolerates other frames and trays). ``previous``: corners from before (a re-find after the camera
    moved) -- used only to name the corners consistently.
    """
    if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise ValueError(f"expected an (H, W, 3) uint8 BGR image, got {image.shape} {image.dtype}")
    geometry = geometry or BoardGeometry()
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
    edges = edge_map(config.edges, grad)
    lines = hough_lines(config.lines, edges)
    near = near_edges(config.lines, edges)
    gap = config.lines.gap * math.hypot(ww, wh)
    traces = sorted((trace_line(ln, near, gap) for ln in lines), key=lambda tr: -tr.longest)[
        : config.lines.keep
    ]
    lap("lines")
    quads = [q for q, _ in candidate_quads(config.quads, traces, (ww, wh))][: config.search_quads]
    border = config.quads.outside * max(ww, wh)
    quads.append(
        np.array(
            [[border, border], [ww - border, border], [ww - border, wh - border], [border, wh - border]],
            dtype=np.float64,
        )
    )
    lap("quads")
    hyps: list[Hypothesis] = inner_search(config.search, lab, quads, geometry)
    lap("search")
    if not hyps:
        return BoardFinding(None, 0.0, False, candidates=len(quads), timings_ms=timings)
    # refine the few best distinct hypotheses on the working image and compare them again
    tol = config.distinct * math.hypot(ww, wh)
    chosen: list[Hypothesis] = []
    for hyp in hyps:
        if all(_differs(hyp.corners, c.corners, tol) for c in chosen):
            chosen.append(hyp)
        if len(chosen) >= config.refine_top:
            break
    refined: list[tuple[float, Fit, PatternScore]] = []
    for hyp in chosen:
        colours = np.asarray(hyp.score.colours, dtype=np.float64)
        fit = refine_corners(
            config.refine, grad, hyp.corners, geometry, config.refine.searches, lab=lab, colours=colours
        )
        ps = pattern_score(config.pattern, lab, fit.corners, geometry)
        if ps.score < hyp.score.score - config.refine_tolerance:  # the fit ran off: keep the search's corners
            fit = Fit(hyp.corners, fit.side_support, fit.point_support, fit.residual, 0.0)
            ps = pattern_score(config.pattern, lab, hyp.corners, geometry)
        refined.append((ps.score + config.support_weight * fit.side_support, fit, ps))
    refined.sort(key=lambda r: -r[0])
    _, best_fit, best_ps = refined[0]
    # the best different candidate, among everything seen
    rivals = [r[2].score for r in refined[1:] if _differs(r[1].corners, best_fit.corners, tol)]
    rivals += [hyp.score.score for hyp in hyps if _differs(hyp.corners, best_fit.corners, tol)]
    margin = best_ps.score - max(rivals) if rivals else 1.0
    lap("refine")
    corners = best_fit.corners / scale
    fit_full = best_fit
    if config.refine.full_resolution and scale < 1.0:
        pad = config.refine.final_search * 4 + 8
        g_full, lab_full, offset = _roi_gradient(config, image, corners, pad)
        lens = Lens((w / 2.0 - offset[0], h / 2.0 - offset[1]), 0.5 * math.hypot(w, h), best_fit.kappa)
        colours = np.asarray(best_ps.colours, dtype=np.float64)
        fit_full = refine_corners(
            config.refine,
            g_full,
            corners - offset,
            geometry,
            (config.refine.final_search,),
            lens=lens,
            lab=lab_full,
            colours=colours,
        )
        if (
            float(np.max(np.linalg.norm(fit_full.corners + offset - corners, axis=1)))
            <= 2 * config.refine.final_search
        ):
            corners = fit_full.corners + offset
        else:
            fit_full = best_fit
    lap("full")
    cc = config.confidence
    confidence = (
        _sigmoid(cc.pattern_slope * (best_ps.score - cc.pattern_mid))
        * _sigmoid(cc.edge_slope * (best_fit.side_support - cc.edge_mid))
        * _sigmoid(cc.margin_slope * (margin - cc.margin_mid))
    )
    named = name_corners(corners, previous)
    alternatives = tuple(name_corners(r[1].corners / scale) for r in refined[1:])
    timings["total"] = sum(timings.values())
    return BoardFinding(
        named,
        float(confidence),
        confidence >= config.min_confidence,
        best_ps,
        best_fit.side_support,
        best_fit.point_support,
        float(margin),
        len(quads),
        timings,
        alternatives,
    )
