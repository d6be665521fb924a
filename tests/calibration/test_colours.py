from __future__ import annotations

import cv2
import numpy as np
import pytest

from nardy.calibration.colours import ColourConfig, ColourError, learn_from_start
from nardy.calibration.orientation import Orientation
from nardy.rules import Position
from nardy.vision.layout import BoardLayout
from nardy.vision.scene import Scene


def _lab(bgr: tuple[float, float, float]) -> np.ndarray:
    pixel = np.array([[bgr]], dtype=np.uint8)
    return np.asarray(cv2.cvtColor(pixel, cv2.COLOR_BGR2LAB)[0, 0], dtype=np.float64)


@pytest.mark.parametrize(
    ("variant", "home", "seed"),
    [("short", "top-left", 1), ("long", "bottom-left", 3), ("short", "bottom-right", 5)],
)
def test_the_start_position_teaches_colours_size_and_orientation(variant: str, home: str, seed: int) -> None:
    scene = Scene.random(np.random.default_rng(seed), size=(960, 540), tilt=(0.0, 35.0), harsh=0.5)
    truth = Orientation(home)  # type: ignore[arg-type]
    sample = scene.render(truth.from_position(Position.initial(variant)), rng=np.random.default_rng(seed))
    reading = learn_from_start(ColourConfig(), sample.image, sample.corners, variant, scene.geometry)
    assert reading.orientation == truth
    assert reading.margin > 0.15
    light, dark = reading.colours.prototypes()
    assert light[0] > dark[0]
    # the learned colours are nearer the checkers' own colours than the other side's
    true_light, true_dark = _lab(scene.style.light.top), _lab(scene.style.dark.top)
    assert np.linalg.norm(light - true_light) < np.linalg.norm(light - true_dark)
    assert np.linalg.norm(dark - true_dark) < np.linalg.norm(dark - true_light)
    assert abs(reading.checker_diameter - scene.geometry.checker_diameter) < 0.08
    assert "field" in reading.colours.board


def test_a_board_without_checkers_is_refused() -> None:
    scene = Scene.random(np.random.default_rng(2), size=(640, 360), tilt=(0.0, 0.0), harsh=0.0)
    sample = scene.render(BoardLayout.empty(), rng=np.random.default_rng(0))
    with pytest.raises(ColourError):
        learn_from_start(ColourConfig(), sample.image, sample.corners, "short", scene.geometry)
