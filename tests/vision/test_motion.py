"""What moved since the frame before: a hand at work moves, sensor noise and the camera's exposure
do not."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.typing import NDArray

from nardy.vision.config import RecognizerConfig, SettleConfig
from nardy.vision.cover import covered_places
from nardy.vision.detect import Detector
from nardy.vision.layout import BoardLayout
from nardy.vision.recognizer import Recognizer
from nardy.vision.render import Die, Hand
from nardy.vision.scene import Scene
from nardy.vision.settle import motion_frame, moved_places

SIZE = (960, 540)
SEEDS = (11, 12, 13, 14)


def _view(rec: Recognizer, frame: NDArray[np.uint8]) -> NDArray[np.uint8]:
    return np.asarray(rec.read(frame).debug["rectified"], np.uint8)


def _moved(rec: Recognizer, before: NDArray[np.uint8], now: NDArray[np.uint8]) -> tuple[str, ...]:
    a, b = motion_frame(_view(rec, before)), motion_frame(_view(rec, now))
    assert rec.masks is not None
    return moved_places(rec.config.settle, rec.masks, b, a, rec.point_px)


@pytest.mark.parametrize("seed", SEEDS)
def test_noise_and_the_light_changing_as_a_whole_are_no_motion(detector: Detector, seed: int) -> None:
    scene = Scene.random(np.random.default_rng(seed), size=SIZE, tilt=(0.0, 40.0))
    layout = BoardLayout.long_start() if seed % 2 else BoardLayout.short_start()
    first, second = scene.render(layout), scene.render(layout)  # each with its own sensor noise
    assert not np.array_equal(first.image, second.image)
    rec = Recognizer(RecognizerConfig(), first.corners, detector=detector)
    assert _moved(rec, first.image, second.image) == ()
    # the camera's exposure stepping up: every pixel lighter, none moved
    brighter = np.clip(second.image.astype(np.float32) * 1.08 + 4.0, 0, 255).astype(np.uint8)
    assert _moved(rec, first.image, brighter) == ()
    # a throw: two dice gone from where they lay and two more landed elsewhere
    g = scene.geometry
    lying = [Die(g.point_x(2), 0.5 * g.height, 6, 30.0), Die(g.point_x(3), 0.45 * g.height, 1, 80.0)]
    thrown = [Die(g.point_x(8), 0.55 * g.height, 5, 10.0), Die(g.point_x(10), 0.3 * g.height, 4, 60.0)]
    assert _moved(rec, scene.render(layout, dice=lying).image, scene.render(layout, dice=thrown).image) == ()
    # a hand resting where it was is no motion either (other cues must find it)
    hand = Hand(g.point_x(3), 0.2, from_deg=-20.0)
    held = scene.render(layout, hands=[hand]).image
    assert _moved(rec, held, scene.render(layout, hands=[hand]).image) == ()


@pytest.mark.parametrize("seed", SEEDS)
def test_a_hand_that_moves_names_where_it_was_and_where_it_is(detector: Detector, seed: int) -> None:
    scene = Scene.random(np.random.default_rng(seed), size=SIZE, tilt=(0.0, 40.0))
    g = scene.geometry
    layout = BoardLayout.short_start()
    before = Hand(g.point_x(2), 0.15, from_deg=-20.0)
    after = Hand(g.point_x(4), 0.2, from_deg=-25.0)
    a = scene.render(layout, hands=[before])
    b = scene.render(layout, hands=[after])
    rec = Recognizer(RecognizerConfig(), a.corners, detector=detector)
    moved = _moved(rec, a.image, b.image)
    # the places the hand and its arm lie on in either frame (any part of them)
    under = set(covered_places(scene, [before], a.checkers, share=0.05))
    under |= set(covered_places(scene, [after], b.checkers, share=0.05))
    assert moved, "a hand moving by two points' widths was not seen moving"
    # most of them are named, and little else (a shadow's edge at most)
    assert len(set(moved) & under) >= 0.75 * len(under), (moved, under)
    assert len(set(moved) - under) <= 1, (moved, under)


def test_the_reader_adds_what_moved_only_for_frames_in_a_row(detector: Detector) -> None:
    scene = Scene.random(np.random.default_rng(21), size=SIZE, tilt=(10.0, 30.0))
    g = scene.geometry
    layout = BoardLayout.short_start()
    a = scene.render(layout, hands=[Hand(g.point_x(2), 0.15, from_deg=-20.0)]).image
    b = scene.render(layout, hands=[Hand(g.point_x(4), 0.2, from_deg=-25.0)]).image
    config = RecognizerConfig()
    rec = Recognizer(config, scene.corners(), detector=detector)
    moved = _moved(rec, a, b)
    assert moved
    rec = Recognizer(config, scene.corners(), detector=detector)
    rec.read(a)
    assert set(moved) <= set(rec.read(b, consecutive=True).unsettled)
    # photos read one after another are not frames in a row: each is read as it is alone
    alone = Recognizer(config, scene.corners(), detector=detector).read(b).unsettled
    rec.read(a)
    assert rec.read(b).unsettled == alone
    # and the watch can be turned off
    quiet = RecognizerConfig(settle=SettleConfig(motion_watch=False))
    rec = Recognizer(quiet, scene.corners(), detector=detector)
    rec.read(a)
    assert rec.read(b, consecutive=True).unsettled == Recognizer(
        quiet, scene.corners(), detector=detector
    ).read(b).unsettled
