"""Reading the borne-off checkers in the tray, on rendered boards."""

from __future__ import annotations

import dataclasses

import numpy as np

from nardy.vision.config import RecognizerConfig, TrayConfig
from nardy.vision.detect import Detector
from nardy.vision.geometry import apply_homography, homography_to_image
from nardy.vision.layout import EMPTY, BoardLayout, Counts, Stack
from nardy.vision.recognizer import Recognizer
from nardy.vision.scene import Scene
from nardy.vision.tray import TrayReading, off_counts, row_light

SIZE = (960, 540)


def _end_game(light_off: int, dark_off: int) -> BoardLayout:
    """Both sides home, with ``light_off`` and ``dark_off`` of their checkers borne off."""
    top = [EMPTY] * 12
    bottom = [EMPTY] * 12
    light_left, dark_left = 15 - light_off, 15 - dark_off
    for i in range(6):
        n = light_left // 6 + (1 if i < light_left % 6 else 0)
        bottom[11 - i] = Stack("light", n) if n else EMPTY
        m = dark_left // 6 + (1 if i < dark_left % 6 else 0)
        top[11 - i] = Stack("dark", m) if m else EMPTY
    return BoardLayout(tuple(top), tuple(bottom), off=Counts(light_off, dark_off))


def _scene(seed: int, tilt: float) -> Scene:
    return Scene.random(np.random.default_rng(seed), size=SIZE, tilt=(tilt, tilt))


def test_three_light_and_five_dark_borne_off_are_read(detector: Detector) -> None:
    layout = _end_game(3, 5)
    right = 0
    for seed, tilt in ((31, 10.0), (32, 25.0), (33, 35.0)):
        sample = _scene(seed, tilt).render(layout)
        obs = Recognizer(RecognizerConfig(), sample.corners, detector=detector).read(sample.image)
        assert obs.off.measured
        if obs.off.most_likely() == Counts(3, 5):
            right += 1
            assert obs.off.confidence > 0.5
    # light checkers on a pale tray, their edges in the renderer's shade, are the hard case
    assert right >= 2


def test_an_empty_tray_is_read_as_none_off(detector: Detector) -> None:
    layout = _end_game(0, 0)
    for seed, tilt in ((41, 5.0), (42, 30.0)):
        sample = _scene(seed, tilt).render(layout)
        obs = Recognizer(RecognizerConfig(), sample.corners, detector=detector).read(sample.image)
        assert obs.off.measured
        assert obs.off.most_likely() == Counts(0, 0)


def test_a_head_read_short_is_not_made_up_from_a_tray_seen_empty(detector: Detector) -> None:
    # a long-nardy start whose dark head of fifteen the camera read as three (the pile's lower discs
    # hidden): the count of fifteen puts the twelve it lacks back on the head, not in a tray that
    # was seen empty -- an empty tray holding one checker unseen is far likelier than twelve
    top, bottom = [EMPTY] * 12, [EMPTY] * 12
    top[11], bottom[0] = Stack("light", 15), Stack("dark", 15)
    start = BoardLayout(tuple(top), tuple(bottom))
    floor = RecognizerConfig().count.count_floor / 16
    short = tuple(0.96 if n == 3 else floor for n in range(16))
    for seed in (40, 42):
        sample = _scene(seed, 20.0).render(start)
        obs = Recognizer(RecognizerConfig(), sample.corners, detector=detector).read(sample.image)
        assert obs.layout() == start
        assert obs.off.dark[12] < 0.1 * obs.off.dark[1]  # flat, they were alike
        read_short = dataclasses.replace(obs.bottom[0], counts=short)
        seen = dataclasses.replace(obs, bottom=(read_short, *obs.bottom[1:])).layout()
        assert seen == start, seen.text()


def test_a_tray_out_of_view_is_left_unmeasured(detector: Detector) -> None:
    layout = _end_game(3, 5)
    scene = _scene(31, 10.0)
    sample = scene.render(layout)
    # cut the frame just beyond the playing area's right edge, where the tray begins
    config = RecognizerConfig()
    h = homography_to_image(config.geometry, sample.corners)
    x0, _, _, _ = config.geometry.tray_rect()
    edge = apply_homography(h, np.array([[x0, 0.0], [x0, config.geometry.height]]))
    cut = int(edge[:, 0].min())
    assert config.geometry.tray_side == "right" and cut < SIZE[0] - 20
    frame = np.ascontiguousarray(sample.image[:, :cut])
    obs = Recognizer(config, sample.corners, detector=detector).read(frame)
    assert not obs.off.measured


def test_off_counts_combine_the_two_rows_by_colour() -> None:
    rows = np.zeros((2, 16))
    rows[0, 3] = 1.0
    rows[1, 5] = 1.0
    light, dark = off_counts(rows, np.array([1.0, 0.0]), 15)
    assert light.argmax() == 3 and dark.argmax() == 5
    light, dark = off_counts(rows, np.array([0.5, 0.0]), 15)
    assert np.isclose(light[3], 0.5) and np.isclose(light[0], 0.5) and np.isclose(dark[5], 0.5)
    assert np.isclose(dark[8], 0.5) and np.isclose(light.sum(), 1.0)


def _one_row(colour: list[float]) -> TrayReading:
    """A tray whose top end holds five checkers sampled as ``colour`` (Lab) and whose bottom end is
    empty."""
    counts = np.zeros((2, 16))
    counts[0, 5] = 1.0
    counts[1, 0] = 1.0
    return TrayReading(counts, np.array([colour, [128.0, 128.0, 128.0]]), True)


def test_a_row_sampled_far_from_both_colours_is_not_called_surely() -> None:
    config = TrayConfig()
    white, red = np.array([240.0, 120.0, 136.0]), np.array([112.0, 170.0, 172.0])
    # white checkers whose faces the sample caught in shadow: far from white, nearer a dark red
    shaded = [64.0, 126.0, 131.0]
    p = row_light(config, _one_row(shaded), white, red)[0]
    assert 0.1 < p < 0.5
    sure = row_light(dataclasses.replace(config, colour_outlier=0.0), _one_row(shaded), white, red)[0]
    assert sure < 0.02  # taking the nearer colour as the truth, it was called red surely
    # a sample that does show its checkers is still called surely (the other colour keeps about
    # ``colour_outlier`` more than before: 0.98 against 0.99)
    assert row_light(config, _one_row([232.0, 122.0, 134.0]), white, red)[0] > 0.975
