"""Glare is not a hand: a lamp's reflection on a still board leaves it settled."""

from __future__ import annotations

import numpy as np

from nardy.vision.config import RecognizerConfig
from nardy.vision.detect import Detector
from nardy.vision.layout import BoardLayout
from nardy.vision.recognizer import Recognizer
from nardy.vision.scene import Scene


def test_glare_that_saturates_a_light_field_is_not_a_hand(detector: Detector) -> None:
    # a cream field under a wide, strong reflection reads white: the light's smooth fit, rising
    # past white there, once made the whole glare-lit half of the board look like a hand
    scene = Scene.random(np.random.default_rng(7), size=(1280, 720))
    assert scene.style.family == "painted" and scene.lighting.glare[0][3] > 70
    sample = scene.render(BoardLayout.short_start())
    obs = Recognizer(RecognizerConfig(), scene.corners(), detector=detector).read(sample.image)
    assert obs.settled, obs.unsettled
