"""Glare is not a hand: a lamp's reflection on a still board leaves it settled, a sleeve does not."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np

from nardy.vision.config import RecognizerConfig
from nardy.vision.detect import Detector
from nardy.vision.geometry import apply_homography, homography_to_image
from nardy.vision.layout import BoardLayout
from nardy.vision.recognizer import Recognizer
from nardy.vision.scene import Scene

SIZE = (960, 540)
FAMILIES = ("painted", "felt", "walnut", "oak")


def _spot_and_sleeve(seed: int) -> tuple[Scene, np.ndarray, np.ndarray, np.ndarray]:
    """A scene with no glare of its own, the start position on it, and three frames: as rendered,
    with a round reflection added on the field between the rows (a Gaussian, +100 at its centre),
    and with a pale grey sleeve of the same size and place drawn over it (sharp edged)."""
    scene = Scene.random(np.random.default_rng(seed), size=SIZE, family=FAMILIES[seed % 4], tilt=(10.0, 30.0))
    scene.lighting = dataclasses.replace(scene.lighting, glare=())
    sample = scene.render(BoardLayout.short_start())
    c = sample.corners
    spot = (c[0] + c[3]) * 0.5 * 0.65 + (c[1] + c[2]) * 0.5 * 0.35
    yy, xx = np.mgrid[0 : SIZE[1], 0 : SIZE[0]].astype(np.float32)
    sigma = 0.045 * SIZE[0]
    light = 100.0 * np.exp(-((xx - spot[0]) ** 2 + (yy - spot[1]) ** 2) / (2 * sigma * sigma))
    glare = np.clip(sample.image.astype(np.float32) + light[:, :, None], 0, 255).astype(np.uint8)
    sleeve = sample.image.copy()
    centre = (int(spot[0]), int(spot[1]))
    cv2.ellipse(sleeve, centre, (int(1.6 * sigma), int(sigma)), 20, 0, 360, (200, 200, 205), -1)
    return scene, sample.image, glare, sleeve


def test_a_reflection_on_the_field_is_not_a_hand_but_a_sleeve_is(detector: Detector) -> None:
    settled_glare = named_glare = 0
    seeds = range(60, 72)
    for seed in seeds:
        scene, plain, glare, sleeve = _spot_and_sleeve(seed)
        rec = Recognizer(RecognizerConfig(), scene.corners(), detector=detector)
        assert rec.read(plain).settled
        assert not rec.read(sleeve).settled  # sharp edged and not the board's look: a hand
        seen = rec.read(glare)
        settled_glare += seen.settled
        named_glare += seen.settled and bool(seen.glare)  # settled, and where the reflection lies
        assert not rec.read(plain).glare
    # measured: 9 of 12 (3 of 12 before glare was told from a hand; the misses are felt boards,
    # whose grain hides the reflection's fading edge, and one painted board)
    assert settled_glare >= 8
    # of those, the ones where the reflection left a hand-sized patch say where it lies (6 of 9;
    # on the others it was too faint to leave one)
    assert named_glare >= 5


def test_glare_that_saturates_a_light_field_is_not_a_hand(detector: Detector) -> None:
    # a cream field under a wide, strong reflection reads white: the light's smooth fit, rising
    # past white there, once made the whole glare-lit half of the board look like a hand
    scene = Scene.random(np.random.default_rng(7), size=(1280, 720))
    assert scene.style.family == "painted" and scene.lighting.glare[0][3] > 70
    sample = scene.render(BoardLayout.short_start())
    obs = Recognizer(RecognizerConfig(), scene.corners(), detector=detector).read(sample.image)
    assert obs.settled, obs.unsettled


def test_a_reflection_on_a_stack_leaves_it_a_stack_but_a_sleeve_there_is_a_hand(detector: Detector) -> None:
    # a lamp's hot spot centred on a stack lifts its checkers (a dark one towards light, a light one
    # past the other light checkers) far from both checker colours; the bare board round it shows
    # the same light, which a sleeve over the stack does not
    stacks = (("top", 4, 1.0), ("bottom", 4, 1.0), ("top", 0, 2.0))
    settled = named = sleeves_settled = 0
    for seed in range(60, 72):
        scene = Scene.random(
            np.random.default_rng(seed), size=SIZE, family=FAMILIES[seed % 4], tilt=(10.0, 30.0)
        )
        scene.lighting = dataclasses.replace(scene.lighting, glare=())
        sample = scene.render(BoardLayout.short_start())
        to_image = homography_to_image(scene.geometry, sample.corners)
        rec = Recognizer(RecognizerConfig(), scene.corners(), detector=detector)
        yy, xx = np.mgrid[0 : SIZE[1], 0 : SIZE[0]].astype(np.float32)
        sigma = 0.045 * SIZE[0]
        for row, index, k in stacks:
            x, y = apply_homography(to_image, np.array(scene.geometry.slot(row, index, k)))[0]
            light = 100.0 * np.exp(-((xx - x) ** 2 + (yy - y) ** 2) / (2 * sigma * sigma))
            lit = np.clip(sample.image.astype(np.float32) + light[:, :, None], 0, 255).astype(np.uint8)
            seen = rec.read(lit)
            settled += seen.settled
            named += f"{row}[{index}]" in seen.glare
            sleeve = sample.image.copy()
            cv2.ellipse(
                sleeve, (int(x), int(y)), (int(1.6 * sigma), int(sigma)), 20, 0, 360, (200, 200, 205), -1
            )
            sleeves_settled += rec.read(sleeve).settled
    # measured: 32 of 36 settled, 8 of them with the stack named as lit (24 and 0 before a stack
    # in a reflection was told from a hand); the sleeve settles 4 of 36 times, before and after, and
    # 5 since edges are bounded by the board's strong ones: on seed 68's white painted field the pale
    # sleeve over a three-stack is then taken for the stack, read two points along
    assert settled >= 30
    assert named >= 6
    assert sleeves_settled <= 5


def test_a_reflection_fading_out_over_white_points_is_not_a_hand(detector: Detector) -> None:
    # white points round a strong reflection are seen at white where the fitted light already
    # takes them to white: they cannot show the lift a reflection's fading edge is told by, and
    # once made this one (felt, the lamp over the near row) a hand on the five points it lay on --
    # the end-to-end long game of seed 97, whose alarms there went silent for it
    scene = Scene.random(np.random.default_rng(97), size=(1280, 720))
    assert scene.style.family == "felt" and scene.lighting.glare
    sample = scene.render(BoardLayout.long_start())
    obs = Recognizer(RecognizerConfig(), scene.corners(), detector=detector).read(sample.image)
    assert obs.settled, obs.unsettled
    assert obs.glare  # settled, and where the reflection lies is named
