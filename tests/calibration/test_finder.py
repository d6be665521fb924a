"""The board finder on rendered frames: statistics over a seeded mix of views and boards, and cases
made hard on purpose. Each frame is a new random scene, so no test depends on one lucky picture."""

from __future__ import annotations

import dataclasses
import math

import cv2
import numpy as np
import pytest

from nardy.calibration.config import FinderConfig
from nardy.calibration.finder import BoardFinding, find_board, name_corners
from nardy.vision.layout import BoardLayout
from nardy.vision.scene import Scene, random_dice, random_layout
from nardy.vision.style import BOARD_FAMILIES
from tests.calibration.scenes import add_clutter, corner_error, same_colour_frame

SIZE = (960, 540)
FAIL_PX = 6.0
"""A finding further than this (pixels of a 960x540 frame: 8 of the benchmark's 1280x720) is wrong."""


def _frames(seed: int, tilts: tuple[float, ...], per: int) -> list[tuple[np.ndarray, np.ndarray, str]]:
    """``per`` frames for each tilt, cycling the board families: random positions and dice, clutter on
    every other frame. Returns (image, true corners, label)."""
    out = []
    for ti, tilt in enumerate(tilts):
        for k in range(per):
            rng = np.random.default_rng([seed, ti, k])
            family = BOARD_FAMILIES[(ti + k) % len(BOARD_FAMILIES)]
            scene = Scene.random(rng, size=SIZE, family=family, tilt=(tilt, tilt))
            layout = random_layout(rng)
            sample = scene.render(
                layout, dice=random_dice(scene, layout, rng, int(rng.integers(0, 3))), rng=rng
            )
            image = add_clutter(sample.image, scene, rng) if k % 2 else sample.image
            out.append((image, sample.corners, f"{family} {tilt:g} deg"))
    return out


def _run(frames: list[tuple[np.ndarray, np.ndarray, str]]) -> list[tuple[float, BoardFinding, str]]:
    results = []
    for image, truth, label in frames:
        found = find_board(FinderConfig(), image)
        results.append((corner_error(found.corners, truth), found, label))
        print(f"{label}: error {results[-1][0]:.1f} px, confidence {found.confidence:.2f}")
    return results


def test_boards_are_found_across_views_and_styles_and_wrong_ones_say_so() -> None:
    # 16 frames, 0 to 50 degrees, all four families, half with clutter. The finder misses about one
    # frame in ten on the benchmark: 5 or more misses here would happen by chance less than 2% of
    # the time. A miss must never be reported as sure.
    results = _run(_frames(7, (0.0, 20.0, 35.0, 50.0), 4))
    errors = np.array([e for e, _, _ in results])
    assert np.sum(errors > FAIL_PX) <= 4
    assert float(np.median(errors)) < 3.0
    sure_but_wrong = [label for e, f, label in results if e > FAIL_PX and f.ok]
    assert not sure_but_wrong
    # and it is sure of most of what it gets right
    assert sum(f.ok for e, f, _ in results if e <= FAIL_PX) >= 0.6 * np.sum(errors <= FAIL_PX)


def test_a_wooden_frame_the_colour_of_the_field_does_not_pull_a_side_outwards() -> None:
    # the frame, the bar and the tray exactly the field's colour: the playing area's sides show no
    # edge but where the points meet them, the frame's outer edge a strong one
    frames = []
    for k, tilt in enumerate((0.0, 20.0, 35.0, 50.0)):
        rng = np.random.default_rng([11, k])
        scene = Scene.random(
            rng, size=SIZE, family="walnut" if k % 2 else "oak", tilt=(tilt, tilt), harsh=0.5
        )
        same = same_colour_frame(scene)
        layout = random_layout(rng)
        frames.append((same.render(layout, rng=rng).image, same.corners(), f"same-colour frame {tilt:g} deg"))
    results = _run(frames)
    assert sum(e <= FAIL_PX for e, _, _ in results) >= 3
    assert not [label for e, f, label in results if e > FAIL_PX and f.ok]


def test_no_board_gives_low_confidence() -> None:
    rng = np.random.default_rng(5)
    scene = Scene.random(np.random.default_rng(31), size=SIZE, family="oak", tilt=(10.0, 10.0), harsh=0.5)
    empty_table = scene.render(BoardLayout.empty(), rng=rng).image.copy()
    # cover the board with the table's own colour: what is left is a table and clutter
    table = np.full_like(empty_table, empty_table[5, 5])
    image = add_clutter(table, scene, rng, count=8)
    noise = rng.normal(0, 6, image.shape)
    image = np.clip(image + noise, 0, 255).astype(np.uint8)
    found = find_board(FinderConfig(), image)
    assert not found.ok and found.confidence < 0.5


def test_corner_names_follow_the_previous_ones() -> None:
    c = np.array([[10.0, 10.0], [110.0, 12.0], [108.0, 90.0], [12.0, 88.0]])
    turned = np.roll(c, 2, axis=0)
    assert np.array_equal(name_corners(turned), c)  # upright by default
    assert np.array_equal(name_corners(c, previous=turned + 1.0), turned)


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match="uint8 BGR"):
        find_board(FinderConfig(), np.zeros((10, 10), np.uint8))


def test_checkers_along_a_short_side_do_not_make_the_finder_unsure() -> None:
    # the long-nardy start: each side's 15 checkers on a corner point, standing along a short side of
    # wooden boards, where the frame is barely darker than the points next to it. Where checkers cover
    # a side, finding no edge there says nothing against it.
    frames = []
    for k, tilt in enumerate((20.0, 35.0, 50.0, 20.0, 35.0, 50.0)):
        rng = np.random.default_rng([23, k])
        scene = Scene.random(rng, size=SIZE, family="walnut" if k % 2 else "oak", tilt=(tilt, tilt))
        sample = scene.render(BoardLayout.long_start(), stacking="line", rng=rng)
        frames.append((sample.image, sample.corners, f"long start, {scene.style.family} {tilt:g} deg"))
    results = _run(frames)
    assert not [label for e, f, label in results if e > FAIL_PX and f.ok]
    assert sum(f.ok for e, f, _ in results if e <= FAIL_PX) >= 3


def test_a_row_of_checkers_along_a_long_side_is_not_taken_for_the_side() -> None:
    # one checker on every point of a row: their far edges make a straight-looking line a checker's
    # width inside the playing area, with the points' colours inside it. The points' tips tell: with
    # a long side there, one row's points would end beyond where the board's proportions put them
    # and the other's short of it.
    frames = []
    for k in range(8):
        rng = np.random.default_rng([29, k])
        tilt = (10.0, 25.0, 40.0, 50.0)[k % 4]
        scene = Scene.random(rng, size=SIZE, family=BOARD_FAMILIES[k % 4], tilt=(tilt, tilt))
        row = "top" if k % 2 else "bottom"
        layout = BoardLayout.from_points({(row, i): ("light" if i % 3 else "dark", 1) for i in range(12)})
        sample = scene.render(layout, rng=rng)
        frames.append((sample.image, sample.corners, f"checkers along the {row}, {tilt:g} deg"))
    results = _run(frames)
    assert sum(e <= FAIL_PX for e, _, _ in results) >= 4
    # a side on the checkers is a checker's width off; a sure answer may be a few pixels off where
    # the checkers stand on the side and hide it, never that far
    assert not [label for e, f, label in results if e > 10.0 and f.ok]


def test_steep_wooden_boards_whose_ends_show_no_edge_are_found_and_sure() -> None:
    # oak and walnut at 35 and 50 degrees, the frame the field's colour: the short sides show no edge
    # of their own, but the points' sides pin the ends (``register``), so the finder may be sure
    frames = []
    for k in range(8):
        rng = np.random.default_rng([47, k])
        tilt = (35.0, 50.0)[k % 2]
        scene = Scene.random(rng, size=SIZE, family="walnut" if k // 2 % 2 else "oak", tilt=(tilt, tilt))
        sample = same_colour_frame(scene).render(random_layout(rng), rng=rng)
        frames.append((sample.image, sample.corners, f"{scene.style.family} {tilt:g} deg"))
    results = _run(frames)
    assert sum(e <= FAIL_PX for e, _, _ in results) >= 7
    assert sum(f.ok for e, f, _ in results if e <= FAIL_PX) >= 5
    assert not [label for e, f, label in results if e > FAIL_PX and f.ok]


def _smeared(image: np.ndarray, corners: np.ndarray, length: float) -> np.ndarray:
    """``image`` blurred over ``length`` pixels along the board's length (its first side)."""
    d = (corners[1] - corners[0]) / np.linalg.norm(corners[1] - corners[0])
    n = int(length) | 1
    kernel = np.zeros((n, n), np.float32)
    for t in np.linspace(-(n // 2), n // 2, 4 * n):
        kernel[int(round(n // 2 + t * d[1])), int(round(n // 2 + t * d[0]))] = 1.0
    return np.asarray(cv2.filter2D(image, -1, kernel / kernel.sum()), dtype=np.uint8)


def test_a_board_whose_points_do_not_pin_its_ends_is_reported_unsure() -> None:
    # the camera moved along the board's length during the exposure: the points' sides are smeared
    # over most of a point's width, so nothing says where along the board it ends
    for k in range(4):
        rng = np.random.default_rng([59, k])
        scene = Scene.random(rng, size=SIZE, family=BOARD_FAMILIES[k], tilt=(20.0, 20.0))
        sample = scene.render(random_layout(rng), rng=rng)
        width = float(np.linalg.norm(sample.corners[1] - sample.corners[0])) * scene.geometry.point_width
        found = find_board(FinderConfig(), _smeared(sample.image, sample.corners, 0.7 * width))
        assert not found.ok
        assert found.ends_lead < FinderConfig().confidence.ends_mid


def _benchmark_frame(seed: int, ti: int, fi: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Frame ``k`` of view angle ``ti`` (0, 20, 35, 50 degrees) and board family ``fi`` of the benchmark's
    ``--seed`` (``benchmarks.board_finder``: 1280x720, clutter on odd ``k``): (image, true corners)."""
    tilt = (0.0, 20.0, 35.0, 50.0)[ti]
    rng = np.random.default_rng([seed, ti, fi, k])
    scene = Scene.random(rng, size=(1280, 720), family=BOARD_FAMILIES[fi], tilt=(tilt, tilt))
    layout = random_layout(rng)
    sample = scene.render(layout, dice=random_dice(scene, layout, rng, int(rng.integers(0, 3))), rng=rng)
    image = add_clutter(sample.image, scene, rng) if k % 2 else sample.image
    return image, sample.corners


@pytest.mark.parametrize("frame", [(2, 2, 1, 3), (3, 2, 1, 5)])
def test_a_small_board_among_clutter_is_found_where_its_perspective_ranks_low(
    frame: tuple[int, int, int, int],
) -> None:
    # walnut boards at 35 degrees among books and papers: the clutter's long clean edges make the
    # best-supported quadrilaterals, and the board's perspective is not among the groups searched
    # first; it is among all the candidates, and its view shows the points' columns more strongly
    # than any searched one
    image, truth = _benchmark_frame(*frame)
    assert corner_error(find_board(FinderConfig(extra_views=0), image).corners, truth) > 8.0
    found = find_board(FinderConfig(), image)
    assert corner_error(found.corners, truth) <= 8.0
    assert found.ok


def test_high_contrast_checkers_do_not_keep_the_points_columns_off_the_shortlist() -> None:
    # an oak board at 35 degrees with white and black checkers stacked on many points: by the raw
    # alternation of the columns' colours, placements lining up those checkers rank far above the
    # true one (whose points differ little from each other), which then never got the full score
    image, truth = _benchmark_frame(2, 2, 2, 5)
    found = find_board(FinderConfig(), image)
    assert corner_error(found.corners, truth) <= 8.0


@pytest.mark.parametrize("frame", [(1, 3, 1, 0), (3, 3, 1, 5)])
def test_a_far_side_on_the_thin_frames_outer_edge_is_brought_in_by_the_points_bases(
    frame: tuple[int, int, int, int],
) -> None:
    # walnut boards at 50 degrees: the far frame is a few pixels wide and of the darker points'
    # colour, so the working image fits the far side to its outer edge; the full frame's points'
    # bases put it back (``bases``). (The board's bar is given: the bars tried when the default's
    # board is unsure would find this board another way, and this is about the bases.)
    image, truth = _benchmark_frame(*frame)
    config = FinderConfig(bar_widths=())
    off = dataclasses.replace(config, bases=dataclasses.replace(config.bases, min_gain=math.inf))
    assert corner_error(find_board(off, image).corners, truth) > 8.0
    assert corner_error(find_board(config, image).corners, truth) <= 5.0


@pytest.mark.parametrize("frame", [(2, 3, 1, 5), (3, 3, 2, 5)])
def test_a_rows_corners_go_where_its_points_clearly_pin_them(frame: tuple[int, int, int, int]) -> None:
    # wooden boards at 50 degrees whose corner at one end of a row the edge fit leaves a third or a
    # fifth of a point out; that row's points' sides pin it, clearly, where it is (the board's bar
    # given: this is about the rows' corners, not the bars tried when unsure)
    image, truth = _benchmark_frame(*frame)
    config = FinderConfig(bar_widths=())
    off = dataclasses.replace(config, register=dataclasses.replace(config.register, move_lead=math.inf))
    assert corner_error(find_board(off, image).corners, truth) > 8.0
    found = find_board(config, image)
    assert corner_error(found.corners, truth) <= 5.0
    assert found.ends_offset <= config.register.vouch_offset


def test_a_board_started_three_points_along_is_moved_all_the_way_back() -> None:
    # an oak board at 20 degrees whose lighter points are nearly the field's colour: the best proposal
    # is three points along, one alias move (the largest is two points) leaves it one point along, and
    # the columns still lead the other way there
    image, truth = _benchmark_frame(2, 1, 2, 2)
    assert corner_error(find_board(FinderConfig(column_rounds=0), image).corners, truth) > 8.0
    found = find_board(FinderConfig(), image)
    assert corner_error(found.corners, truth) <= 5.0
    assert found.column_lead > 0


def test_a_phone_photo_is_found_as_a_webcam_frame_is() -> None:
    # A 12-megapixel photo (4032x3024) is searched at the working size of any frame and finished on
    # the frame scaled to ``full_px``. As on the benchmark's 1280x720 frames: the median corner
    # under 3 pixels of a 1280 frame, and a miss reported as unsure.
    results = []
    for k in range(4):
        rng = np.random.default_rng([41, k])
        scene = Scene.random(rng, size=(4032, 3024), family=BOARD_FAMILIES[k % len(BOARD_FAMILIES)])
        layout = random_layout(rng)
        sample = scene.render(layout, dice=random_dice(scene, layout, rng, 1), rng=rng)
        found = find_board(FinderConfig(), sample.image)
        results.append((corner_error(found.corners, sample.corners) * 1280 / 4032, found))
    print("errors (1280-frame pixels):", [round(e, 2) for e, _ in results])
    assert float(np.median([e for e, _ in results])) < 3.0
    assert not [e for e, f in results if e > 8.0 and f.ok]


def test_a_folding_board_with_a_hinge_for_a_bar_is_found_and_says_so() -> None:
    # the points' columns are laid out from the bar: a hinge (0.04 of the width, against the
    # default's 0.085) puts every default column off, and on 12 such frames the default alone found
    # one; told nothing, the finder tries other bars when the default's board is unsure, and the
    # one it keeps is the bar read off the frame
    from nardy.vision.geometry import BoardGeometry

    hinge = BoardGeometry(bar_width=0.04)
    results = []
    for k in range(4):
        rng = np.random.default_rng([43, k])
        scene = Scene.random(rng, size=SIZE, family=BOARD_FAMILIES[k % len(BOARD_FAMILIES)], geometry=hinge)
        layout = random_layout(rng)
        sample = scene.render(layout, dice=random_dice(scene, layout, rng, 1), rng=rng)
        found = find_board(FinderConfig(), sample.image)
        results.append((corner_error(found.corners, sample.corners), found))
    print([(round(e, 1), f.ok, f.geometry) for e, f in results])
    right = [f for e, f in results if e <= FAIL_PX]
    assert len(right) >= 3
    assert all(f.geometry is not None and abs(f.geometry.bar_width - 0.04) <= 0.01 for f in right if f.ok)
    assert not [e for e, f in results if e > FAIL_PX and f.ok]


@pytest.mark.parametrize("height", [0.72, 0.9])
def test_a_squarer_or_longer_board_is_found_with_the_height_its_corners_imply(height: float) -> None:
    # a board of another height than the default's 0.8, seen straight above or from a side: the
    # default's board is found where it is but unsure (its corners imply another height), so the
    # finder looks again for a board of the height they imply, then of heights 0.7 and 0.9; on 32
    # frames of development seed 5 the boards 0.72 high went from 25 unsure to 5, those 0.9 high
    # from 26 to 3
    from nardy.vision.geometry import BoardGeometry

    results = []
    for k in range(4):
        rng = np.random.default_rng([44, k])
        scene = Scene.random(
            rng,
            size=SIZE,
            family=BOARD_FAMILIES[k % len(BOARD_FAMILIES)],
            tilt=(15.0 * k, 15.0 * k),
            geometry=BoardGeometry(height=height),
        )
        layout = random_layout(rng)
        sample = scene.render(layout, dice=random_dice(scene, layout, rng, 1), rng=rng)
        found = find_board(FinderConfig(), sample.image)
        results.append((corner_error(found.corners, sample.corners), found))
    print([(round(e, 1), f.ok, f.geometry and f.geometry.height) for e, f in results])
    sure = [f for e, f in results if e <= FAIL_PX and f.ok]
    assert len(sure) >= 3
    # straight above (the first frame) the corners fix the height; from a side it is looser (0.949
    # for 0.9 at 45 degrees here), and the default's board may fit within it
    straight = results[0][1].geometry
    assert straight is not None and abs(straight.height / height - 1) <= 0.02
    heights = [f.geometry.height for f in sure if f.geometry is not None]
    taken = [h for h in heights if h != BoardGeometry().height]
    assert all(abs(h / height - 1) <= 0.06 for h in taken)
    assert not [e for e, f in results if e > FAIL_PX and f.ok]


def test_a_board_grown_past_the_horizon_is_not_fitted() -> None:
    # a result too short for the board's proportions is tried grown to them (a part of the board);
    # on this steep frame (a development frame: seed 2, 50 degrees, painted, among clutter) a grown
    # board, moved a point along, reached past the horizon, and fitting its sides, tens of thousands
    # of pixels long, overflowed OpenCV's remap: the finder raised instead of answering
    image, truth = _benchmark_frame(2, 3, BOARD_FAMILIES.index("painted"), 11)
    found = find_board(FinderConfig(), image)
    assert corner_error(found.corners, truth) < 8.0
