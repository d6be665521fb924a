"""Whole scripted games through the referee, with a perfect camera: the referee's own logic."""

from __future__ import annotations

import numpy as np
import pytest

from nardy.calibration.orientation import Orientation
from nardy.referee.events import EventBus
from nardy.referee.match import MatchInfo
from nardy.referee.reading import BoardReading
from nardy.referee.session import Referee
from nardy.referee.simulate import SimConfig, TableScript, script_games
from nardy.vision.scene import Scene


class _Clock:
    t = 0.0

    def __call__(self) -> float:
        return self.t


def run_perfect(script: TableScript, variant: str) -> Referee:
    clock = _Clock()
    ref = Referee(MatchInfo(variant=variant), bus=EventBus(clock), clock=clock)
    dice = list(script.dice)
    for frame in script.frames:
        while dice and dice[0]["t"] <= frame.t:
            entry = dice.pop(0)
            clock.t = entry["t"]
            ref.on_dice_event(entry)
        clock.t = frame.t
        reading = BoardReading.certain(frame.position, 0.99, settled=frame.settled)
        ref.on_reading(reading, frame.t)
    return ref


@pytest.mark.parametrize(("variant", "seed"), [("short", 1), ("long", 2), ("short", 3)])
def test_every_turn_decoded_and_every_illegal_play_caught(variant: str, seed: int) -> None:
    scene = Scene.random(np.random.default_rng(seed), size=(320, 180))
    script = script_games(variant, scene, Orientation(), seed=seed, config=SimConfig(illegal_rate=0.15))
    assert script.turns and script.illegal
    ref = run_perfect(script, variant)
    truth = [(t.mover, t.roll, t.after.points, t.after.off_white, t.after.off_black) for t in script.turns]
    seen = [(m.mover, m.roll, m.after.points, m.after.off_white, m.after.off_black) for m in ref.moves]
    assert seen == truth
    illegal_events = [e for e in ref.bus.history if e.kind == "illegal"]
    assert len(illegal_events) == len(script.illegal)
    for (start, end), event in zip(script.illegal, illegal_events, strict=True):
        assert start <= event.t <= end
    alarms = [e for e in ref.bus.history if e.kind == "alert" and e.data["code"] != "illegal-play"]
    assert alarms == []
    assert ref.phase in ("game-over", "match-over") or len(script.turns) >= SimConfig().max_turns


def test_a_vaguer_camera_asks_for_a_look_rather_than_accept_an_illegal_board() -> None:
    scene = Scene.random(np.random.default_rng(5), size=(320, 180))
    script = script_games("short", scene, Orientation(), seed=5, config=SimConfig(illegal_rate=0.2))
    clock = _Clock()
    ref = Referee(MatchInfo(variant="short"), bus=EventBus(clock), clock=clock)
    dice = list(script.dice)
    for frame in script.frames:
        while dice and dice[0]["t"] <= frame.t:
            clock.t = dice[0]["t"]
            ref.on_dice_event(dice.pop(0))
        clock.t = frame.t
        ref.on_reading(BoardReading.certain(frame.position, 0.95, settled=frame.settled), frame.t)
    flagged = [
        e
        for e in ref.bus.history
        if e.kind == "illegal" or (e.kind == "alert" and e.data["code"] == "please-look")
    ]
    for start, end in script.illegal:
        assert any(start <= e.t <= end for e in flagged), (start, end)
    assert [m.after.points for m in ref.moves] == [t.after.points for t in script.turns]


def test_script_time_is_the_frames_time() -> None:
    """A recording's clock is its frame count: dice events must fall on that clock."""
    scene = Scene.random(np.random.default_rng(8), size=(320, 180))
    config = SimConfig()
    script = script_games("short", scene, Orientation(), seed=8, config=config)
    for i, frame in enumerate(script.frames):
        assert abs(frame.t - i / config.fps) < 1e-6
    assert all(e["t"] <= script.duration for e in script.dice)
