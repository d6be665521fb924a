"""Honest colours: which group is light is only as sure as the frame says, and a line that may be an
empty point's base does not make a colour of its own."""

from __future__ import annotations

import numpy as np
import pytest

from nardy.vision.colour import colour_groups, label_confidence, light_probabilities
from nardy.vision.config import ColourConfig, RecognizerConfig
from nardy.vision.detect import Detector
from nardy.vision.layout import BoardLayout
from nardy.vision.recognizer import Recognizer
from nardy.vision.scene import synthetic_sample


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


def test_empty_point_bases_do_not_make_a_colour(detector: Detector) -> None:
    """Pearl and grey on oak, where three empty points' bases (darker than both checker colours) are
    taken for single discs: they used to make the dark colour, and every grey stack was read light."""
    sample = synthetic_sample(5, 58)
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


@pytest.mark.parametrize(
    ("index", "lost", "alone"),
    [
        (121, "bottom[6]", True),
        pytest.param(
            170,
            "top[0]",
            False,
            marks=pytest.mark.xfail(
                strict=True,
                reason="on the edge: with the pose's focal length solved by least squares (moved 0.4%, "
                "to 0.1% from the truth) the five are left at p = 0.00045 where 0.001 was wanted, "
                "and the decoding moves them onto a pile elsewhere (bottom[6] read 10)",
            ),
        ),
    ],
)
def test_facing_stacks_of_two_colours_are_two_stacks(
    detector: Detector, index: int, lost: str, alone: bool
) -> None:
    """The short start seen at 36-48 degrees: a stack of five and the other colour's five facing it
    across the column were read as one line running from one point into the other (one line is
    cheaper than two); the colour break cut that line at five and the other point was read empty --
    and then the fifteen-a-side decoding moved those five onto a pile elsewhere. Now the other point
    is counted again beside the cut line: read right on its own where its checkers answer the
    detector clearly (``alone``), else left likely enough for the decoding to put them back."""
    sample = synthetic_sample(1, index)
    assert sample.layout == BoardLayout.short_start()
    obs = Recognizer(RecognizerConfig(), sample.corners, detector=detector).read(sample.image)
    assert obs.layout() == sample.layout
    row, i = lost[:-1].split("[")
    truth = sample.layout.row(row)[int(i)]  # type: ignore[arg-type]
    p = obs.row(row)[int(i)].probability(truth.colour, truth.count)  # type: ignore[arg-type]
    assert p > 0.5 if alone else p > 0.001


@pytest.mark.parametrize("remember_confidence", [None, 0.95])
def test_red_and_blue_of_one_lightness_are_remembered_with_their_doubt(
    remember_confidence: float | None,
) -> None:
    """Which of two colours of one lightness is light is not told surely, but they are still the
    two colours of this board: remembered from the start position, the last checkers of one side
    alone are read in their own colour, as doubtfully as the two were told apart. (With the
    memory only for colours told surely, 0.95, one set alone is read in the other's colour.)"""
    import dataclasses

    from nardy.vision.scene import Scene

    config = RecognizerConfig()
    if remember_confidence is not None:
        config = dataclasses.replace(
            config, colour=dataclasses.replace(config.colour, remember_confidence=remember_confidence)
        )
    scene = Scene.random(np.random.default_rng(43), size=(960, 540))
    assert scene.style.checker_set == "blue_red"
    start = scene.render(BoardLayout.short_start()).image
    points = {("top", 2): 3, ("top", 7): 2, ("bottom", 0): 4, ("bottom", 5): 1, ("bottom", 9): 2}
    right = []
    for colour in ("light", "dark"):
        off = (3, 15) if colour == "light" else (15, 3)
        alone = BoardLayout.from_points({k: (colour, n) for k, n in points.items()}, off=off)  # type: ignore[arg-type]
        recognizer = Recognizer(config, scene.corners())
        recognizer.read(start)
        observation = recognizer.read(scene.render(alone).image)
        p = [observation.row(row)[i].p_light for row, i in points]
        right += [v if colour == "light" else 1.0 - v for v in p]
        if remember_confidence is None:
            assert recognizer.memory is not None
            assert label_confidence(config.colour, recognizer.memory) < 0.95
    if remember_confidence is None:
        assert 0.5 < min(right) and max(right) < 0.95
    else:
        assert min(right) < 0.5
