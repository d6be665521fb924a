"""The board finder's stages on their own, on inputs whose answer is known by construction."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from nardy.calibration.aspect import completed, implied_aspect
from nardy.calibration.bases import base_moves, base_profile, moved_sides
from nardy.calibration.config import FinderConfig, LineConfig, StructureConfig
from nardy.calibration.edges import colour_gradient, merge_segments, point_sides, to_lab
from nardy.calibration.pattern import pattern_score
from nardy.calibration.quads import misalignment, perspective_groups
from nardy.calibration.refine import Fit, end_support, refine_corners
from nardy.calibration.register import moved_ends, register_ends
from nardy.calibration.structure import compare_aliases, propose, quad_view
from nardy.calibration.tips import row_tips, tip_misfit
from nardy.vision.camera import look_at
from nardy.vision.geometry import BoardGeometry, apply_homography, homography_to_image
from nardy.vision.layout import BoardLayout
from nardy.vision.scene import Scene
from tests.calibration.scenes import same_colour_frame

G = BoardGeometry()


@pytest.mark.parametrize(
    ("tilt", "azimuth", "firm"),
    [(30.0, 20.0, True), (50.0, -35.0, True), (0.0, 0.0, True), (45.0, 90.0, False), (45.0, 0.0, False)],
)
def test_the_proportions_of_a_rectangle_are_recovered_from_its_image(
    tilt: float, azimuth: float, firm: bool
) -> None:
    size = (1280, 720)
    cam = look_at(np.array([0.5, 0.4, 0.0]), tilt, azimuth, 2.2, 3.0, 900.0, size, (0.0, 0.0))
    rect = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 0.8, 0.0], [0.0, 0.8, 0.0]])
    a = implied_aspect(cam.project(rect), size, (0.4, 1.9))
    # a side seen edge-on to the tilt (sides parallel in the image) leaves the focal length, and so the
    # ratio, loose: the estimate must say so
    assert abs(math.log(a.ratio / 0.8)) <= 0.005 + 2 * a.spread
    assert (a.spread < 0.02) == firm
    if firm:
        # a long side moved outwards by a frame's width gives a ratio off by more than the play
        taller = cam.project(rect + np.array([[0, -0.035, 0], [0, -0.035, 0], [0, 0, 0], [0, 0, 0]]))
        b = implied_aspect(taller, size, (0.4, 1.9))
        assert abs(math.log(b.ratio / 0.8)) > 0.03 + 1.0 * b.spread


@pytest.mark.parametrize(("tilt", "azimuth"), [(0.0, 0.0), (35.0, 20.0), (35.0, 125.0), (50.0, -60.0)])
def test_a_part_of_the_board_is_grown_back_to_the_whole(tilt: float, azimuth: float) -> None:
    # the finder can settle on a part of the board -- a few points of each row cut off at one end,
    # or a row -- whose edges are all good ones; its proportions are the clue, and the rectangle
    # that continues it to the board's proportions is the board
    size = (1280, 720)
    cam = look_at(np.array([0.5, 0.4, 0.0]), tilt, azimuth, 2.2, 3.0, 900.0, size, (0.0, 0.0))
    pw = G.point_width

    def seen(x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
        return cam.project(np.array([[x0, y0, 0.0], [x1, y0, 0.0], [x1, y1, 0.0], [x0, y1, 0.0]]))

    truth = seen(0.0, 0.0, 1.0, G.height)
    parts = [
        seen(3 * pw, 0.0, 1.0, G.height),  # three points cut off at the left end
        seen(0.0, 0.0, 1.0 - 2 * pw, G.height),  # two at the right
        seen(0.0, 0.3 * G.height, 1.0, G.height),  # the top row's bases
    ]
    for part in parts:
        grown = completed(part, size, (0.4, 1.9), G.height)
        assert len(grown) == 2
        for g in grown:  # each way, the proportions are the board's ...
            assert abs(math.log(implied_aspect(g, size, (0.4, 1.9)).ratio / G.height)) < 1e-4
        # ... and one of them is the board
        assert min(float(np.max(np.linalg.norm(g - truth, axis=1))) for g in grown) < 0.5
    # a sliver (a fifth of the board: it implies a ratio of 4) grows by its own length at most
    for g in completed(seen(0.0, 0.0, 0.2, G.height), size, (0.4, 1.9), G.height):
        assert abs(implied_aspect(g, size, (0.4, 1.9)).ratio - 2.0) < 1e-4


def test_a_part_is_not_grown_past_the_horizon() -> None:
    # a view in which the plane's horizon lies just past the part's far end (w = 0 at x = 1.11):
    # grown there by its own length, the board would lie partly behind the camera
    size = (1280, 720)
    h = np.array([[300.0, 40.0, 400.0], [20.0, 300.0, 200.0], [-0.9, 0.0, 1.0]])

    def seen(x0: float, x1: float) -> np.ndarray:
        p = np.array([[x0, 0.0, 1.0], [x1, 0.0, 1.0], [x1, 1.0, 1.0], [x0, 1.0, 1.0]]) @ h.T
        return p[:, :2] / p[:, 2:]

    part = seen(0.0, 1.0)
    implied = implied_aspect(part, size, (0.4, 1.9)).ratio
    grown = completed(part, size, (0.4, 1.9), implied / 2.0)  # half its length short: grown by it
    assert len(grown) == 1  # past the near end only
    assert float(np.max(np.abs(grown[0] - seen(-1.0, 1.0)))) < 1e-3


def test_the_sides_of_points_are_told_from_lines() -> None:
    # three tips (two long sides meeting at 12 degrees), one long line, one right angle
    segs = []
    for x in (100.0, 200.0, 300.0):
        tip = np.array([x, 300.0])
        for s in (-1, 1):
            base = tip + 150.0 * np.array([math.sin(math.radians(6 * s)), -math.cos(math.radians(6 * s))])
            segs.append([*base, *tip])
    segs.append([50.0, 400.0, 550.0, 402.0])  # a side of the board
    segs.append([50.0, 420.0, 50.0, 600.0])  # meets the next at a right angle
    segs.append([50.0, 420.0, 250.0, 420.0])
    flags = point_sides(LineConfig(), np.array(segs))
    assert flags.tolist() == [True] * 6 + [False] * 3


def test_collinear_segments_make_one_line() -> None:
    # a side broken by three checkers, and a short unrelated segment
    pieces = [[20.0, 100.0, 120.0, 101.0], [160.0, 101.4, 300.0, 103.0], [340.0, 103.4, 500.0, 105.0]]
    lines = merge_segments(LineConfig(), np.array([*pieces, [200.0, 300.0, 230.0, 330.0]]), (640, 360))
    top = lines[0]
    assert top.covered == pytest.approx(400.0, abs=6.0)
    assert top.longest == pytest.approx(480.0, abs=6.0)  # the gaps bridged
    assert abs(math.degrees(top.line.theta) % 180 - 90.2) < 0.5


def test_quadrilaterals_of_one_board_share_a_perspective() -> None:
    corners = np.array([[300.0, 150.0], [900.0, 170.0], [1000.0, 600.0], [200.0, 560.0]])
    h = homography_to_image(G, corners)
    x0, y0, x1, y1 = G.outer_rect()
    outline = apply_homography(h, np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]))
    tray = apply_homography(h, np.array([[1.035, 0.0], [1.11, 0.0], [1.11, 0.8], [1.035, 0.8]]))
    other = np.array([[100.0, 100.0], [400.0, 90.0], [420.0, 300.0], [80.0, 320.0]])
    assert misalignment(outline, corners) < 1e-6
    assert misalignment(corners, np.roll(tray, 1, axis=0)) < 1e-6  # named from another corner
    assert misalignment(outline, other) > 0.05
    assert perspective_groups([outline, other, corners, tray], 0.01) == [[0, 2, 3], [1]]


def _straight_on_start(seed: int) -> tuple[Scene, np.ndarray, np.ndarray]:
    scene = Scene.random(
        np.random.default_rng(seed), size=(960, 540), family="felt", tilt=(25.0, 25.0), harsh=0.3
    )
    sample = scene.render(BoardLayout.short_start(), rng=np.random.default_rng(seed))
    lab = cv2.GaussianBlur(to_lab(sample.image), (0, 0), 1.0)
    return scene, np.asarray(lab, dtype=np.float32), sample.corners


@pytest.mark.parametrize("seed", [3, 4])
def test_the_playing_area_is_proposed_inside_the_board_outline(seed: int) -> None:
    scene, lab, truth = _straight_on_start(seed)
    h = homography_to_image(G, truth)
    x0, y0, x1, y1 = G.outer_rect()
    outline = apply_homography(h, np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]))
    config = StructureConfig()
    view = quad_view(config, lab, outline)
    found = propose(config, G, view) + propose(config, G, view.transposed())
    best = max(found, key=lambda p: p.score)
    pw = G.point_width * float(np.linalg.norm(truth[1] - truth[0]))
    err = min(
        float(np.max(np.linalg.norm(best.corners[[1, 0, 3, 2]] - np.roll(truth, s, axis=0), axis=1)))
        for s in (0, 1, 2, 3)
    )
    err = min(
        err,
        min(
            float(np.max(np.linalg.norm(best.corners - np.roll(truth, s, axis=0), axis=1)))
            for s in (0, 1, 2, 3)
        ),
    )
    assert err < 0.35 * pw


@pytest.mark.parametrize("seed", [3, 4])
def test_a_board_shifted_by_a_point_is_worse_than_the_board(seed: int) -> None:
    # the points repeat, so one point along matches 10 of 12 columns: the bar and the ends tell
    scene, lab, truth = _straight_on_start(seed)
    config = StructureConfig()
    h = homography_to_image(G, truth)
    n = config.fine_view_px
    s = n / (1 + 2 * config.extend)
    rect = (config.extend * s, config.extend * s, (1 + config.extend) * s, (1 + config.extend) * s)
    right = compare_aliases(config, G, quad_view(config, lab, truth, n), rect)
    assert right.column_shift == 0 and right.column_lead > 0
    shifted = apply_homography(h, G.corners() + [G.point_width, 0.0])
    wrong = compare_aliases(config, G, quad_view(config, lab, shifted, n), rect)
    assert wrong.column_shift == -1 and wrong.column_lead < 0


def _wooden_frame(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """An empty walnut board at 30 degrees, 960x540: (BGR image, true corners)."""
    scene = Scene.random(
        np.random.default_rng(seed), size=(960, 540), family="walnut", tilt=(30.0, 30.0), harsh=0.3
    )
    sample = scene.render(BoardLayout.empty(), rng=np.random.default_rng(seed))
    return sample.image, sample.corners


@pytest.mark.parametrize("seed", [5, 6])
def test_a_side_hidden_by_checkers_is_judged_where_it_can_be_seen(seed: int) -> None:
    image, truth = _wooden_frame(seed)
    # blue discs (no colour of the board) standing along a third of the left side, as checkers do
    hidden = image.copy()
    for t in np.linspace(0.1, 0.4, 5):
        centre = truth[0] + (truth[3] - truth[0]) * t
        cv2.circle(hidden, tuple(int(v) for v in np.round(centre)), 14, (200, 60, 20), -1, cv2.LINE_AA)
    # and the whole right side
    for t in np.linspace(0.0, 1.0, 14):
        centre = truth[1] + (truth[2] - truth[1]) * t
        cv2.circle(hidden, tuple(int(v) for v in np.round(centre)), 14, (200, 60, 20), -1, cv2.LINE_AA)
    config = FinderConfig()
    lab = to_lab(hidden)
    colours = np.asarray(pattern_score(config.pattern, to_lab(image), truth, G).colours, dtype=np.float64)
    fit = refine_corners(
        config.refine, colour_gradient(config.edges, lab), truth, G, (2.0,), lab=lab, colours=colours
    )
    top, right, bottom, left = fit.seen_sides
    assert fit.sides[3] < 0.6 and left > 0.75  # a side partly hidden counts where it is seen ...
    assert right < 0.2  # ... but one hidden all along cannot count as seen
    assert min(top, bottom) > 0.75


@pytest.mark.parametrize("seed", [6, 8])
def test_a_board_cut_short_at_an_end_is_grown_back_onto_its_edges(seed: int) -> None:
    # (views whose proportions are firm: seen square to a side, as seed 5 is, they are loose)
    image, truth = _wooden_frame(seed)
    config = FinderConfig()
    lab = to_lab(image)
    grad = colour_gradient(config.edges, lab)
    colours = np.asarray(pattern_score(config.pattern, lab, truth, G).colours, dtype=np.float64)

    def fitted(corners: np.ndarray) -> Fit:
        searches = config.refine.searches
        return refine_corners(config.refine, grad, corners, G, searches, lab=lab, colours=colours)

    board = fitted(truth).corners
    h = homography_to_image(G, truth)
    size = (image.shape[1], image.shape[0])
    for x0, x1 in ((3 * G.point_width, 1.0), (0.0, 1.0 - 2 * G.point_width)):
        part = apply_homography(h, np.array([[x0, 0.0], [x1, 0.0], [x1, G.height], [x0, G.height]]))
        fits = [fitted(g) for g in completed(part, size, config.focal_range, G.height)]
        best = max(fits, key=lambda f: f.side_support + f.point_support)
        assert float(np.max(np.linalg.norm(best.corners - board, axis=1))) < 1.0


@pytest.mark.parametrize("seed", [5, 6])
def test_the_bar_and_the_ends_tell_the_board_from_itself_a_point_along(seed: int) -> None:
    image, truth = _wooden_frame(seed)
    config = FinderConfig()
    grad = colour_gradient(config.edges, to_lab(image))
    h = homography_to_image(G, truth)
    right = end_support(config.refine, grad, truth, G)
    for k in (-2, -1, 1, 2):
        shifted = apply_homography(h, G.corners() + [k * G.point_width, 0.0])
        assert end_support(config.refine, grad, shifted, G) < right - 0.3


@pytest.mark.parametrize("seed", [5, 6])
def test_the_points_tips_tell_a_long_side_moved_by_a_checker(seed: int) -> None:
    image, truth = _wooden_frame(seed)
    config = FinderConfig()
    lab = to_lab(image)
    colours = np.asarray(pattern_score(config.pattern, lab, truth, G).colours, dtype=np.float64)
    tips = row_tips(lab, truth, G, colours)
    assert abs(tips[0] - tips[1]) < 0.05 and 0.8 < tips[0] < 1.1
    assert tip_misfit(tips) < 0.05
    h = homography_to_image(G, truth)
    for top, bottom in ((0.9, 0.0), (0.0, -0.9), (-0.5, 0.0)):
        moved = G.corners() + np.array([[0, top], [0, top], [0, bottom], [0, bottom]]) * G.point_width
        assert tip_misfit(row_tips(lab, apply_homography(h, moved), G, colours)) > 0.08


def _steep_wooden(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A wooden board seen at 50 degrees, its frame the field's colour (the short sides show no edge
    of their own), empty; (image, true corners) at 960x540."""
    scene = Scene.random(np.random.default_rng(seed), size=(960, 540), family="oak", tilt=(50.0, 50.0))
    same = same_colour_frame(scene)
    sample = same.render(BoardLayout.empty(), rng=np.random.default_rng(seed))
    return sample.image, sample.corners


def _steep_wooden_edges(seed: int) -> tuple[np.ndarray, np.ndarray, FinderConfig]:
    """``_steep_wooden``'s colour gradient, true corners and the finder's default configuration."""
    image, truth = _steep_wooden(seed)
    config = FinderConfig()
    return colour_gradient(config.edges, to_lab(image)), truth, config


@pytest.mark.parametrize("seed", [7, 8])
def test_the_points_sides_put_an_end_back_where_it_is(seed: int) -> None:
    grad, truth, config = _steep_wooden_edges(seed)
    at_truth = register_ends(config.register, grad, truth, G)
    assert at_truth.offset <= 0.1 and at_truth.lead > 0.15
    # one end a third of a point out (as on the frame's outer edge), the other a fifth of a point in
    for left, right in ((-0.35, 0.0), (0.0, 0.35), (0.2, -0.2)):
        wrong = moved_ends(truth, G, left, right)
        back = register_ends(config.register, grad, wrong, G)
        assert back.offset > 0.15  # the corners are not where the points put the ends ...
        assert abs(back.moves[0] + left) <= 0.1 and abs(back.moves[1] + right) <= 0.1  # ... which is here
        assert float(np.max(np.linalg.norm(back.corners - truth, axis=1))) < 4.0


@pytest.mark.parametrize("seed", [7, 8])
def test_the_points_sides_do_not_tell_the_board_a_whole_point_along(seed: int) -> None:
    # the pattern repeats: with the board a point along, the points' sides lie on the neighbouring
    # points' sides, and the best placement within a fraction of a point leads as clearly as it
    # does at the board itself; the bar's edges and the short sides are what tell the two apart
    # (so the finder lets the points vouch for the short sides only where those lead)
    grad, truth, config = _steep_wooden_edges(seed)
    at_truth = end_support(config.refine, grad, truth, G)
    h = homography_to_image(G, truth)
    for k in (-1, 1):
        along = apply_homography(h, G.corners() + [k * G.point_width, 0.0])
        pinned = register_ends(config.register, grad, along, G)
        assert pinned.lead >= config.confidence.ends_mid and pinned.offset <= config.register.vouch_offset
        assert end_support(config.refine, grad, along, G) < at_truth - 0.1


def test_with_the_points_painted_over_nothing_pins_the_ends() -> None:
    image, truth = _steep_wooden(7)
    # the playing area painted over with its median colour: nothing along the board says where it ends
    area = [np.round(truth).astype(np.int32)]
    inside = cv2.fillPoly(np.zeros(image.shape[:2], np.uint8), area, 1) > 0
    blank = image.copy()
    cv2.fillPoly(blank, area, tuple(float(v) for v in np.median(image[inside], axis=0)))
    config = FinderConfig()
    found = register_ends(config.register, colour_gradient(config.edges, to_lab(blank)), truth, G)
    assert found.lead < config.confidence.ends_mid


@pytest.mark.parametrize("seed", [5, 8])
def test_the_points_bases_bring_a_long_side_in_off_the_frames_outer_edge(seed: int) -> None:
    # at 50 degrees the far frame is a few pixels wide: the working image cannot tell its outer edge
    # from the playing area's side, the full frame's points' bases can
    scene = Scene.random(np.random.default_rng(seed), size=(1280, 720), family="walnut", tilt=(50.0, 50.0))
    sample = scene.render(BoardLayout.empty(), rng=np.random.default_rng(seed))
    truth = sample.corners
    config = FinderConfig()
    lab = to_lab(sample.image)
    colours = np.asarray(pattern_score(config.pattern, lab, truth, G).colours, dtype=np.float64)
    assert base_moves(config.bases, lab, truth, G, colours) == (0.0, 0.0)
    # each long side on the frame's outer edge (the frame is 0.46 of a point wide) comes back in,
    # near enough for the edge fit to do the rest ...
    top, bottom = base_moves(config.bases, lab, moved_sides(truth, G, -0.46, 0.0), G, colours)
    assert abs(top - 0.46) <= 0.15 and bottom == 0.0
    top, bottom = base_moves(config.bases, lab, moved_sides(truth, G, 0.0, -0.46), G, colours)
    assert top == 0.0 and abs(bottom - 0.46) <= 0.15
    # ... and one already inside the playing area is never moved further in
    assert base_moves(config.bases, lab, moved_sides(truth, G, 0.3, 0.0), G, colours) == (0.0, 0.0)
    for row in ("top", "bottom"):
        profile = base_profile(config.bases, lab, truth, G, colours, row)
        on_frame = profile.scores[int(np.argmin(np.abs(profile.moves + 0.45)))]
        assert abs(profile.best) <= 0.1 and np.max(profile.scores) > on_frame + 0.5
