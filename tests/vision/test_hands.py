"""A hand over the board: every place it covers is named unsettled, and read with less confidence."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from nardy.vision.config import RecognizerConfig
from nardy.vision.cover import covered_places, hand_set
from nardy.vision.detect import Detector
from nardy.vision.layout import BoardLayout
from nardy.vision.recognizer import Recognizer
from nardy.vision.render import Hand
from nardy.vision.scene import Loose, Scene
from nardy.vision.settle import _disc, closed_by_disc

SIZE = (960, 540)


@pytest.mark.xfail(
    strict=True,
    reason="5 of the 8 frames have every covered place named and 90% of the covered places are, but "
    "in scene 81 the arm lies across the empty bottom[8], named by the frame watch alone, which is read "
    "empty -- rightly -- with confidence 0.995: only places a sure hand patch covers are doubted (on the "
    "300 frames of benchmarks/vision_hands.py every covered place is named in 55.8% of the frames)",
)
def test_an_arm_across_several_points_names_all_of_them(detector: Detector) -> None:
    # fingertips on a top-row point, the arm across the middle and the bottom row to the near edge
    named = covered = frames = 0
    for seed in range(81, 89):
        scene = Scene.random(np.random.default_rng(seed), size=SIZE, tilt=(20.0, 20.0))
        hand = Hand(scene.geometry.point_x(4), 0.1, from_deg=-25.0)
        sample = scene.render(BoardLayout.short_start(), hands=[hand])
        truth = covered_places(scene, [hand], sample.checkers, share=0.5)
        assert len(truth) >= 4  # the arm crosses several points
        obs = Recognizer(RecognizerConfig(), sample.corners, detector=detector).read(sample.image)
        assert not obs.settled
        covered += len(truth)
        named += sum(place in obs.unsettled for place in truth)
        if all(place in obs.unsettled for place in truth):
            frames += 1
            # where the whole arm is found, nothing under it is read with confidence
            for place in truth:
                if "[" in place:
                    row, i = place.rstrip("]").split("[")
                    assert obs.row(row)[int(i)].confidence < 0.5  # type: ignore[arg-type]
    assert named / covered >= 0.85
    assert frames >= 5


def test_covered_places_follow_the_hand() -> None:
    scene = Scene.random(np.random.default_rng(5), size=SIZE, tilt=(0.0, 0.0))
    g = scene.geometry
    # straight down from above, the arm from the left edge lying along the bottom row's base
    hand = Hand(g.point_x(3), g.height - 0.05, from_deg=90.0)
    places = covered_places(scene, [hand], ())
    assert {"bottom[0]", "bottom[1]", "bottom[2]", "bottom[3]"} <= set(places)
    assert not any(p.startswith("top") for p in places)
    assert "bar" not in places
    assert covered_places(scene, [], ()) == ()


def test_hand_set_is_seeded_and_has_a_hand_on_the_board() -> None:
    a = [(s.layout, hands) for _, s, hands in hand_set(3, 9, size=(320, 180))]
    b = [(s.layout, hands) for _, s, hands in hand_set(3, 9, size=(320, 180))]
    assert a == b
    for _, hands in a:
        (hand,) = hands
        assert 0.0 <= hand.x <= 1.0 and 0.0 <= hand.y <= 0.8


@pytest.mark.parametrize("size", [1.0, 5.0, 13.0, 26.0, 27.0, 41.0])
def test_a_hand_s_pieces_are_joined_as_a_closing_by_the_disc_would_join_them(size: float) -> None:
    # the quicker closing gives the very pixels of OpenCV's closing by the disc, at the view's edges too
    rng = np.random.default_rng(int(size))
    kernel = _disc(size)
    for trial in range(40):
        mask = (rng.random((210, 262)) < rng.uniform(0.002, 0.3)).astype(np.uint8)
        if trial % 2:  # pieces of an arm: a few blobs, some cut by the view's edge
            mask[:] = 0
            for _ in range(int(rng.integers(1, 5))):
                centre = (int(rng.integers(-20, 282)), int(rng.integers(-20, 230)))
                cv2.circle(mask, centre, int(rng.integers(3, 50)), 1, -1)
        expected = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, kernel)
        assert np.array_equal(closed_by_disc(mask, size), expected)


def test_a_pale_hand_reaching_in_over_a_wood_frame_is_found_by_its_arm(detector: Detector) -> None:
    """Long seed 109 at 43.4 s (oak): a hand bringing a translucent white checker in over the near
    edge, its skin near the pale frame's colour, was read as a gold checker on bottom[7] and the
    frame called still -- and the colour memory was taken from it. The wrist and the sleeve cross
    the frame a point and a half wide, each sample 2.4-3.6 of the frame's spreads off its course
    (the wood's grain: under 2 but for single samples), short of the 6 a narrow arm must stand out
    by; a run that wide is an arm. The board alone, the hand gone, stays still."""
    scene = Scene.random(np.random.default_rng(109), size=(1280, 720))
    layout = BoardLayout.from_points(
        {
            ("top", 3): ("dark", 1),
            ("top", 4): ("light", 1),
            ("top", 7): ("light", 1),
            ("top", 10): ("dark", 1),
            ("top", 11): ("light", 12),
            ("bottom", 0): ("dark", 13),
        }
    )
    hand = Hand(0.656875, 0.72833, from_deg=0.0, height=0.08, skin=(120, 150, 200), sleeve=(80, 60, 50))
    held = Loose("light", 0.656875, 0.72833, lift=0.02)
    reaching = scene.render(layout, hands=(hand,), loose=(held,))
    obs = Recognizer(RecognizerConfig(), reaching.corners, detector=detector).read(reaching.image)
    assert not obs.settled
    assert {"bottom[6]", "bottom[7]", "bottom[8]"} & set(obs.unsettled)
    alone = scene.render(layout)
    assert Recognizer(RecognizerConfig(), alone.corners, detector=detector).read(alone.image).settled
