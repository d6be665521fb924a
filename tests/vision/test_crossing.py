"""An arm reaching over the board's frame: found where it crosses, and nothing on a frame at rest."""

from __future__ import annotations

import numpy as np
import pytest

from nardy.vision.config import RecognizerConfig
from nardy.vision.crossing import crossings, frame_band
from nardy.vision.detect import Detector
from nardy.vision.geometry import BoardGeometry, apply_homography, homography_to_image
from nardy.vision.layout import BoardLayout
from nardy.vision.recognizer import Recognizer
from nardy.vision.render import Hand
from nardy.vision.scene import Scene

SIZE = (1280, 720)
CONFIG = RecognizerConfig()
G = BoardGeometry()
SCALE = 600.0
"""Pixels per board unit: the playing area is 600 pixels wide."""
CORNERS = np.array(
    [[340.0, 100.0], [940.0, 100.0], [940.0, 100.0 + SCALE * G.height], [340.0, 100.0 + SCALE * G.height]]
)
NO_LINES = np.zeros(24, np.intp)


def _band():
    h = homography_to_image(G, CORNERS)
    return frame_band(CONFIG.settle, G, lambda p: apply_homography(h, p[:, :2]), SIZE)


def _frame_with_gradient() -> np.ndarray:
    """A walnut-brown frame (and everything else) whose light falls off from left to right."""
    x = np.linspace(1.0, 0.6, SIZE[0])[None, :, None]
    return np.clip(np.array([40.0, 70.0, 110.0]) * x * np.ones((SIZE[1], 1, 1)), 0, 255).astype(np.uint8)


def _x_of(column: int) -> float:
    h = homography_to_image(G, CORNERS)
    return float(apply_homography(h, np.array([[G.point_x(column), 0.0]]))[0, 0])


def test_a_plain_frame_with_a_gradient_crosses_nothing() -> None:
    assert crossings(CONFIG.settle, G, _band(), _frame_with_gradient(), NO_LINES) == ()


def test_a_sleeve_across_the_near_side_names_the_points_beside_it() -> None:
    frame = _frame_with_gradient()
    x = _x_of(4)
    half = 0.6 * SCALE * G.point_width  # a sleeve 1.2 points wide, from below the board up over it
    frame[int(CORNERS[2, 1]) - 60 :, int(x - half) : int(x + half)] = (150, 60, 40)
    named = crossings(CONFIG.settle, G, _band(), frame, NO_LINES)
    assert "bottom[4]" in named
    assert set(named) <= {"bottom[3]", "bottom[4]", "bottom[5]"}


def test_a_lamps_reflection_on_the_frame_is_not_an_arm() -> None:
    frame = _frame_with_gradient()
    x = _x_of(7)
    yy, xx = np.mgrid[0 : SIZE[1], 0 : SIZE[0]]
    spot = np.exp(-((xx - x) ** 2 + (yy - CORNERS[2, 1]) ** 2) / (2 * 30.0**2))[:, :, None]
    lit = frame + spot * (np.array([235.0, 240.0, 245.0]) - frame)  # lighter and paler towards white
    assert crossings(CONFIG.settle, G, _band(), lit.astype(np.uint8), NO_LINES) == ()


def test_the_frame_beside_a_points_checkers_is_left_out() -> None:
    frame = _frame_with_gradient()
    x = _x_of(4)
    half = 0.6 * SCALE * G.point_width
    frame[int(CORNERS[2, 1]) - 60 :, int(x - half) : int(x + half)] = (150, 60, 40)
    lines = NO_LINES.copy()
    lines[12 + 3 : 12 + 6] = 2  # bottom[3..5] hold checkers, whose sides may hang over the frame
    assert crossings(CONFIG.settle, G, _band(), frame, lines) == ()


@pytest.mark.parametrize("seed", [3, 4])
def test_an_arm_reaching_in_over_the_far_side_is_found(detector: Detector, seed: int) -> None:
    scene = Scene.random(np.random.default_rng(seed), size=SIZE, tilt=(20.0, 20.0))
    hand = Hand(scene.geometry.point_x(3), 0.12, from_deg=180.0)
    sample = scene.render(BoardLayout.empty(), hands=[hand])
    obs = Recognizer(CONFIG, sample.corners, detector=detector).read(sample.image)
    assert not obs.settled
    assert {"top[2]", "top[3]", "top[4]"} & set(obs.debug["crossed"])


def test_boards_at_rest_cross_nothing(detector: Detector) -> None:
    crossed = []
    for seed in range(20, 30):
        scene = Scene.random(np.random.default_rng(seed), size=SIZE, tilt=(0.0, 45.0))
        sample = scene.render(BoardLayout.random(np.random.default_rng(seed)))
        obs = Recognizer(CONFIG, sample.corners, detector=detector).read(sample.image)
        crossed.append(obs.debug["crossed"])
    assert crossed == [()] * 10
