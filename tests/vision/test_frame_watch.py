"""An arm over the board's frame: the settle stage watches the frame beside the playing area."""

from __future__ import annotations

import cv2
import numpy as np

from nardy.vision.config import SettleConfig
from nardy.vision.geometry import BoardGeometry, apply_homography, homography_to_image
from nardy.vision.settle import FrameSide, frame_crossings, frame_sides

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


def _sides(corners: np.ndarray) -> tuple[FrameSide, ...]:
    to_image = homography_to_image(GEOMETRY, corners)
    return frame_sides(SettleConfig(), GEOMETRY, (1280, 720), lambda p: apply_homography(to_image, p))


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


def _near_the_sleeve() -> set[int]:
    """The points whose centres lie within a point's width of the sleeve (board x 0.575-0.65)."""
    pw = GEOMETRY.point_width
    return {i for i in range(12) if 0.575 - pw <= GEOMETRY.point_x(i) <= 0.65 + pw}


def test_a_stack_standing_at_the_base_is_not_an_arm() -> None:
    # from a low camera a tall stack at a point's base stands over the frame: beside a point whose
    # checkers stand at the base the long sides are not read
    sides = _sides(CORNERS)
    arm = _board(0)
    cv2.rectangle(arm, (700, 640), (760, 719), (120, 60, 40), -1)
    assert frame_crossings(SettleConfig(), arm, sides)
    occupied = frozenset(f"bottom[{i}]" for i in _near_the_sleeve())
    assert frame_crossings(SettleConfig(), arm, sides, occupied) == ()


def test_a_frame_the_camera_sees_only_in_part_is_not_watched() -> None:
    # the playing area near the image's bottom edge: the near side's frame is cut off
    sides = _sides(CORNERS + np.array([0.0, 30.0]))
    assert {s.side for s in sides} == {"top", "left"}  # the tray is on the right
    arm = np.roll(_board(1), 30, axis=0)
    cv2.rectangle(arm, (700, 670), (760, 719), (120, 60, 40), -1)
    assert frame_crossings(SettleConfig(), arm, sides) == ()
