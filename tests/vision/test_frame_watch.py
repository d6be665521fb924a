"""An arm over the board's frame: the settle stage watches the frame beside the playing area."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from nardy.vision.config import RecognizerConfig, SettleConfig
from nardy.vision.geometry import BoardGeometry, apply_homography, homography_to_image
from nardy.vision.settle import FrameSide, frame_crossings, frame_sides, stacks_over

GEOMETRY = BoardGeometry()
CORNERS = np.array([[240.0, 40.0], [1040.0, 40.0], [1040.0, 680.0], [240.0, 680.0]])


def _board(seed: int) -> np.ndarray:
    """(720, 1280, 3) a plain board seen from above: a wooden frame lit unevenly (brighter to the
    right), a green playing area, sensor noise."""
    rng = np.random.default_rng(seed)
    image = np.full((720, 1280, 3), 70, np.float32)
    f = GEOMETRY.frame_width * 800.0
    x0, y0, x1, y1 = 240 - int(f), 40 - int(f), 1040 + int(f), 680 + int(f)
    ramp = np.linspace(0.0, 1.0, x1 - x0, dtype=np.float32)[None, :, None]
    image[y0:y1, x0:x1] = np.array([60, 100, 160], np.float32) * (0.7 + 0.5 * ramp)
    image[40:680, 240:1040] = (40, 120, 40)
    image += rng.normal(0.0, 3.0, image.shape).astype(np.float32)
    return np.clip(image, 0, 255).astype(np.uint8)


def _sides(corners: np.ndarray, camera_at: np.ndarray | None = None) -> tuple[FrameSide, ...]:
    to_image = homography_to_image(GEOMETRY, corners)
    return frame_sides(
        SettleConfig(), GEOMETRY, (1280, 720), lambda p: apply_homography(to_image, p), camera_at
    )


def _columns(places: tuple[str, ...]) -> set[int]:
    return {int(p.split("[")[1].rstrip("]")) for p in places if p.startswith("bottom[")}


def test_an_arm_over_the_near_side_names_the_points_beside_it() -> None:
    sides = _sides(CORNERS)
    config = SettleConfig()
    for seed in range(4):
        plain = _board(seed)
        assert frame_crossings(config, plain, sides) == ()
        arm = plain.copy()
        cv2.rectangle(arm, (700, 640), (760, 719), (120, 60, 40), -1)  # a navy sleeve off the bottom
        named = frame_crossings(config, arm, sides)
        assert named and all(p.startswith("bottom[") for p in named), named
        assert _columns(named) <= _near_the_sleeve(), named


def test_a_wide_arm_over_an_unevenly_lit_side_is_named() -> None:
    # a sleeve over a fifth of the near side, which a lamp lights brighter to the right: a course
    # fitted to the whole side bends towards the sleeve and leaves nothing standing out from it;
    # fitted again to the half of the samples nearest it, it follows the frame
    sides = _sides(CORNERS)
    config = SettleConfig()
    whole_side_only = replace(config, frame_trim=0.0)
    # board x 0.45-0.65: the bar and the points beside it
    beside = {
        i
        for i in range(12)
        if 0.45 - GEOMETRY.point_width <= GEOMETRY.point_x(i) <= 0.65 + GEOMETRY.point_width
    }
    for seed in range(4):
        arm = _board(seed)
        cv2.rectangle(arm, (600, 640), (760, 719), (120, 60, 40), -1)
        named = frame_crossings(config, arm, sides)
        assert _columns(named) and _columns(named) <= beside, named
        assert frame_crossings(whole_side_only, arm, sides) == ()


def test_a_trim_that_leaves_too_few_samples_is_refused() -> None:
    with pytest.raises(ValueError, match="frame_trim"):
        SettleConfig(frame_trim=0.9)
    with pytest.raises(ValueError, match="frame_trim"):
        RecognizerConfig.from_json({"settle": {"frame_trim": -0.1}})


def _near_the_sleeve() -> set[int]:
    """The points whose centres lie within a point's width of the sleeve (board x 0.575-0.65)."""
    pw = GEOMETRY.point_width
    return {i for i in range(12) if 0.575 - pw <= GEOMETRY.point_x(i) <= 0.65 + pw}


def test_a_stack_standing_over_the_frame_is_not_an_arm() -> None:
    # a camera low beyond the top edge sees the bottom row -- the far one from it -- lean out over
    # the frame beside its base checkers: there the frame is not read while they stand there
    low_beyond_top = np.array([0.5, -1.2, -0.6])
    sides = _sides(CORNERS, low_beyond_top)
    arm = _board(0)
    cv2.rectangle(arm, (700, 660), (760, 719), (120, 60, 40), -1)  # over the outer part only
    assert frame_crossings(SettleConfig(), arm, sides)
    occupied = {f"bottom[{i}]": 1 for i in _near_the_sleeve()}
    assert frame_crossings(SettleConfig(), arm, sides, occupied) == ()


def test_an_arm_beside_a_stack_the_camera_sees_clear_of_the_frame_is_named() -> None:
    # the same arm and checkers, the camera beyond the bottom edge: those checkers lean in, away
    # from the frame, so the arm beside them is an arm
    low_beyond_bottom = np.array([0.5, 2.0, -0.6])
    sides = _sides(CORNERS, low_beyond_bottom)
    arm = _board(0)
    cv2.rectangle(arm, (700, 660), (760, 719), (120, 60, 40), -1)
    occupied = {f"bottom[{i}]": 1 for i in _near_the_sleeve()}
    named = frame_crossings(SettleConfig(), arm, sides, occupied)
    assert named and _columns(named) <= _near_the_sleeve(), named


def test_which_stacks_can_stand_over_the_frame() -> None:
    g = GEOMETRY
    # samples on the far (top) and near (bottom) side's frame, beside point 4, a third of the way out
    out = 0.3 * g.frame_width
    samples = np.array([[g.point_x(4), -out], [g.point_x(4), g.height + out]])
    # from straight above, far away, no checker on the board hides the frame beyond its radius
    above = stacks_over(g, samples, np.array([0.5, 0.4, -50.0]), 0.0, 15)
    assert above == ()
    # from low in front (beyond the bottom edge): the far row's base checker leans over the top
    # frame; the near row's leans away, and nothing on the bottom row hides the bottom sample
    low = stacks_over(g, samples, np.array([0.5, 2.0, -0.5]), 0.0, 15)
    assert (0, "top[4]", 1) in low
    assert not [s for s in low if s[0] == 1]
    # along an end of the board a line hides the frame beside each of its checkers: beside the
    # second checker of the corner point's line, a line of two or more
    beside_second = np.array([[-out, g.slot("top", 0, 1.0)[1]]])
    end = stacks_over(g, beside_second, np.array([2.0, 0.4, -0.5]), 0.0, 15)
    assert end[0] == (0, "top[0]", 2), end
    # (from so low a camera a tall pile further along the row rises into the same line of sight)
    assert all(n > g.line_capacity for _, place, n in end[1:]), end


def test_a_frame_the_camera_sees_only_in_part_is_not_watched() -> None:
    # the playing area near the image's bottom edge: the near side's frame is cut off
    sides = _sides(CORNERS + np.array([0.0, 30.0]))
    assert {s.side for s in sides} == {"top", "left"}  # the tray is on the right
    arm = np.roll(_board(1), 30, axis=0)
    cv2.rectangle(arm, (700, 670), (760, 719), (120, 60, 40), -1)
    assert frame_crossings(SettleConfig(), arm, sides) == ()
