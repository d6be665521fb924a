"""A rendered board whose two checkers on the bar the detector sees as one (shared by the vision and
the referee tests)."""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
from numpy.typing import NDArray

from nardy.calibration.orientation import Orientation
from nardy.rules import Position
from nardy.vision.config import RecognizerConfig
from nardy.vision.detect import Detector
from nardy.vision.observation import Observation
from nardy.vision.recognizer import Recognizer
from nardy.vision.scene import Scene

# white has just hit two black blots with 5-5: black's two checkers stand touching on the bar
BEFORE = Position.from_json(
    {
        "variant": "short",
        "points": [4, 3, 0, 1, 3, 0, 0, -1, 0, 0, -1, -2, 0, 0, 0, -2, -1, 3, -3, 0, -3, 1, -1, -1],
        "turn": "white",
    }
)
AFTER = BEFORE.apply("22/17* 18/8*/3")
ORIENTATION = Orientation(home="bottom-right", white="light")


@functools.cache
def _frame() -> tuple[NDArray[np.uint8], NDArray[np.float64]]:
    """The rendered frame and its playing area's corners (rendered once, read with each config)."""
    scene = Scene.random(np.random.default_rng(28), size=(960, 540))
    image = scene.render(ORIENTATION.from_position(AFTER)).image
    image.setflags(write=False)
    return image, scene.corners()


def two_on_the_bar(miss: float | None = None, detector: Detector | None = None) -> Observation:
    """A rendered oak board with pearl and grey checkers (a scene of the end-to-end benchmark) whose
    two grey checkers on the bar answer the detector as one, read with ``bar_miss`` = ``miss``."""
    config = RecognizerConfig()
    if miss is not None:
        config = dataclasses.replace(config, count=dataclasses.replace(config.count, bar_miss=miss))
    image, corners = _frame()
    return Recognizer(config, corners, detector=detector).read(image)
