"""Honest colours: which group is light is only as sure as the frame says, and a line that may be an
empty point's base does not make a colour of its own."""

from __future__ import annotations

import numpy as np

from nardy.vision.colour import colour_groups, label_confidence, light_probabilities
from nardy.vision.config import ColourConfig, RecognizerConfig
from nardy.vision.detect import Detector
from nardy.vision.recognizer import Recognizer
from nardy.vision.scene import Cube, Sample, Scene, random_dice, random_layout
from nardy.vision.style import BOARD_FAMILIES, CHECKER_SETS


def test_red_and_blue_of_one_lightness_are_not_told_apart_with_confidence() -> None:
    rng = np.random.default_rng(11)
    red = np.array([80.0, 162.0, 146.0]) + rng.normal(0, 3, (6, 3))
    blue = np.array([79.0, 127.0, 97.0]) + rng.normal(0, 3, (6, 3))
    colours = np.vstack([red, blue])
    groups = colour_groups(ColourConfig(), colours, np.ones(12))
    assert groups is not None
    assert 0.5 <= label_confidence(ColourConfig(), groups) < 0.8
    p = light_probabilities(ColourConfig(), colours, np.ones(12))
    # the two colours are still told apart from each other, only not which of them is light
    assert (np.abs(p - 0.5) < 0.3).all()
    assert len({bool(v > 0.5) for v in p[:6]}) == 1 and len({bool(v > 0.5) for v in p[6:]}) == 1
    assert bool(p[0] > 0.5) != bool(p[6] > 0.5)


def test_black_and_white_keep_their_confidence() -> None:
    rng = np.random.default_rng(12)
    white = np.array([225.0, 128.0, 130.0]) + rng.normal(0, 5, (6, 3))
    black = np.array([40.0, 128.0, 128.0]) + rng.normal(0, 5, (6, 3))
    p = light_probabilities(ColourConfig(), np.vstack([white, black]), np.ones(12))
    assert (p[:6] > 0.98).all() and (p[6:] < 0.02).all()


def test_known_colours_are_not_doubted() -> None:
    red, blue = np.array([80.0, 162.0, 146.0]), np.array([79.0, 127.0, 97.0])
    p = light_probabilities(ColourConfig(), np.vstack([red, blue]), np.ones(2), prototypes=(red, blue))
    assert p[0] > 0.98 and p[1] < 0.02


def _synthetic(seed: int, index: int) -> Sample:
    """Sample ``index`` of ``synthetic_set(n, seed)`` without rendering the ones before it."""
    rng = np.random.default_rng([seed, index])
    families, sets = list(BOARD_FAMILIES), list(CHECKER_SETS)
    scene = Scene.random(
        rng,
        size=(1280, 720),
        family=families[index % len(families)],
        checker_set=sets[(index // len(families)) % len(sets)],
        tilt=(0.0, 50.0),
    )
    layout = random_layout(rng)
    dice = random_dice(scene, layout, rng, int(rng.integers(0, 3)))
    cube = None
    if rng.random() < 0.3:
        x, y = scene.free_spot(layout, rng, 0.04)
        cube = Cube(x, y, int(2 ** rng.integers(1, 7)), float(rng.uniform(0, 90)))
    return scene.render(layout, dice=dice, cube=cube, rng=rng)


def test_empty_point_bases_do_not_make_a_colour(detector: Detector) -> None:
    """Pearl and grey on oak, where three empty points' bases (darker than both checker colours) are
    taken for single discs: they used to make the dark colour, and every grey stack was read light."""
    sample = _synthetic(5, 58)
    assert sample.meta["checker_set"] == "pearl_grey"
    obs = Recognizer(RecognizerConfig(), sample.corners, detector=detector).read(sample.image)
    stacks = wrong = 0
    for row in ("top", "bottom"):
        for truth, reading in zip(sample.layout.row(row), obs.row(row), strict=True):
            if truth.count:
                stacks += 1
                wrong += reading.probability(truth.colour, truth.count) < 0.5
    assert stacks >= 8
    assert wrong == 0
