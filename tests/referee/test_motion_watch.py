"""The live reader takes what moved since the frame before as not settled, unless told not to (a
lamp flickering against the camera's frame rate makes every frame differ)."""

from __future__ import annotations

import numpy as np
import pytest

from nardy.calibration.orientation import Orientation
from nardy.cli import main
from nardy.referee.live import FrameReader
from nardy.rules import Position
from nardy.vision.config import RecognizerConfig
from nardy.vision.detect import Detector
from nardy.vision.recognizer import Recognizer
from nardy.vision.render import Hand
from nardy.vision.scene import Scene


@pytest.fixture(scope="module")
def detector() -> Detector:
    return Detector.load()


def test_a_moving_hand_is_unsettled_in_a_stream_unless_the_watch_is_off(detector: Detector) -> None:
    scene = Scene.random(np.random.default_rng(21), size=(960, 540), tilt=(10.0, 30.0))
    g = scene.geometry
    layout = Orientation().from_position(Position.initial("short"))
    a = scene.render(layout, hands=[Hand(g.point_x(2), 0.15, from_deg=-20.0)]).image
    b = scene.render(layout, hands=[Hand(g.point_x(4), 0.2, from_deg=-25.0)]).image

    def reader(watch: bool = True) -> FrameReader:
        rec = Recognizer(RecognizerConfig(geometry=g), scene.corners(), detector=detector)
        return FrameReader(rec, Orientation(), "short", watch_motion=watch)

    alone = set(reader().read(b).unsettled)  # the first frame a reader sees has nothing before it
    streamed = reader()
    streamed.read(a)
    seen = set(streamed.read(b).unsettled)
    assert alone < seen, (alone, seen)  # the places the hand moved over, besides what it shows
    quiet = reader(watch=False)
    quiet.read(a)
    assert set(quiet.read(b).unsettled) == alone


@pytest.mark.parametrize("command", ["serve", "replay"])
def test_the_live_commands_can_turn_the_watch_off(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main([command, "--help"])
    assert done.value.code == 0
    assert "--no-motion-watch" in capsys.readouterr().out
