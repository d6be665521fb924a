from __future__ import annotations

from dataclasses import replace

import numpy as np

from nardy.calibration.drift import DriftConfig, DriftMonitor, agreement
from nardy.vision.layout import BoardLayout
from nardy.vision.render import Hand
from nardy.vision.scene import Scene
from tests.calibration.scenes import corner_error


def test_a_nudged_camera_is_noticed_once_and_the_board_refound() -> None:
    scene = Scene.random(
        np.random.default_rng(4), size=(960, 540), family="painted", tilt=(20.0, 20.0), harsh=0.3
    )
    layout = BoardLayout.short_start()
    first = scene.render(layout)
    monitor = DriftMonitor(DriftConfig(patience=3), first.corners, scene.geometry)
    states = [monitor.check(scene.render(layout).image).state for _ in range(4)]
    assert states[-1] == "steady" and "moved" not in states
    # a hand over the board for a few frames is not a camera move
    hand = [monitor.check(scene.render(layout, hands=[Hand(0.3, 0.4)]).image) for _ in range(2)]
    assert all(s.event is None for s in hand)
    # the stand is knocked: the view turns and shifts
    spec = scene.camera_spec
    moved = scene.with_camera(
        replace(spec, azimuth=spec.azimuth + 4.0, offset=(spec.offset[0] + 0.3, spec.offset[1]))
    )
    truth = moved.render(layout).corners
    events = []
    for _ in range(6):
        status = monitor.check(moved.render(layout).image)
        if status.event is not None:
            events.append(status.event)
    assert events, "the move was not noticed"
    event = events[0]
    assert all(e is event for e in events)  # one alert, repeated until accepted
    assert event.shift > 5.0
    # the proposal is far nearer the new view than the old corners (it can be a few pixels off after a
    # large nudge: see docs/calibration.md, "Known limits")
    assert corner_error(event.new, truth) < 0.3 * corner_error(event.old, truth)
    assert np.allclose(status.corners, first.corners)  # old corners kept until accepted
    monitor.accept()
    assert np.allclose(monitor.corners, event.new)
    after = [monitor.check(moved.render(layout).image).state for _ in range(4)]
    assert after[-1] == "steady"


def test_corners_far_outside_the_frame_fit_nowhere_rather_than_fail() -> None:
    # a profile from another setup (or a typo in its corners): a board tens of thousands of pixels
    # across has more samples along its drawing than OpenCV's remap takes at once
    scene = Scene.random(np.random.default_rng(4), size=(960, 540), family="painted", tilt=(20.0, 20.0))
    sample = scene.render(BoardLayout.short_start())
    far = np.array([[0.0, 0.0], [30000.0, 0.0], [30000.0, 24000.0], [0.0, 24000.0]])
    assert agreement(DriftConfig(), sample.image, far, scene.geometry) < 0.1
    assert agreement(DriftConfig(), sample.image, sample.corners, scene.geometry) > 0.5
    monitor = DriftMonitor(DriftConfig(), far, scene.geometry)
    assert [monitor.check(sample.image).agreement < 0.1 for _ in range(2)] == [True, True]


def _stale_start() -> tuple[Scene, Scene, BoardLayout]:
    scene = Scene.random(
        np.random.default_rng(4), size=(960, 540), family="painted", tilt=(20.0, 20.0), harsh=0.3
    )
    spec = scene.camera_spec
    moved = scene.with_camera(
        replace(spec, azimuth=spec.azimuth + 4.0, offset=(spec.offset[0] + 0.3, spec.offset[1]))
    )
    return scene, moved, BoardLayout.short_start()


def test_a_session_started_after_the_camera_moved_finds_the_board() -> None:
    # the profile was made before the stand was knocked: its corners still lie on some of the board's
    # many parallel edges, so the level learned there is no drop from anything
    scene, moved, layout = _stale_start()
    old = scene.render(layout).corners
    truth = moved.render(layout)
    config = DriftConfig()
    level = agreement(config, truth.image, old, scene.geometry)
    assert config.least_level < level < config.verify_below
    monitor = DriftMonitor(config, old, scene.geometry)
    states = [monitor.check(moved.render(layout).image) for _ in range(config.learn_frames)]
    assert [s.state for s in states[:-1]] == ["learning"] * (config.learn_frames - 1)
    assert states[-1].state == "moved" and states[-1].event is not None
    assert corner_error(states[-1].event.new, truth.corners) < 0.3 * corner_error(old, truth.corners)
    monitor.accept()
    after = [monitor.check(moved.render(layout).image).state for _ in range(config.learn_frames + 2)]
    assert after[-1] == "steady"


def test_the_right_corners_survive_the_look() -> None:
    # the same look taken at the right corners (every level checked) proposes no move
    scene, _, layout = _stale_start()
    first = scene.render(layout)
    monitor = DriftMonitor(DriftConfig(verify_below=1.0), first.corners, scene.geometry)
    states = [monitor.check(scene.render(layout).image).state for _ in range(6)]
    assert states[2:] == ["steady"] * 4


def test_corners_on_no_board_are_looked_for_at_once_and_then_now_and_then() -> None:
    scene = Scene.random(np.random.default_rng(4), size=(960, 540), family="painted", tilt=(20.0, 20.0))
    sample = scene.render(BoardLayout.short_start())
    config = DriftConfig(patience=3, retry_every=4)
    blank = np.random.default_rng(1).integers(90, 110, size=sample.image.shape, dtype=np.uint8)
    monitor = DriftMonitor(config, sample.corners, scene.geometry)
    searches = []
    refind = monitor._refind

    def counted(frame: np.ndarray, sure: bool = True) -> tuple[np.ndarray | None, float]:
        searches.append(monitor._frame)
        return refind(frame, sure)

    monitor._refind = counted  # type: ignore[method-assign]
    states = [monitor.check(blank).state for _ in range(14)]
    # a level learned on no board is not taken for the board's: suspect from the first frame after
    assert states[:3] == ["learning"] * 3
    assert states[3:5] == ["suspect"] * 2
    assert states[5:] == ["lost"] * 9
    assert searches == [5, 9, 13]  # the first search at once, then one frame in retry_every
    # the board comes into view at these corners (a cover lifted): the next search finds it there,
    # and the level is learned again from the board
    seen = [monitor.check(sample.image) for _ in range(config.retry_every + config.learn_frames + 1)]
    assert all(s.event is None for s in seen)
    assert [s.state for s in seen[-2:]] == ["learning", "steady"]
    assert monitor.level is not None and monitor.level > config.verify_below


def test_a_small_slide_of_the_camera_is_noticed() -> None:
    # the stand slid a little: the old corners, 17 px off, still lie on 0.7 of the board's drawing's
    # normal level (its many parallel edges) -- above the 0.6 that once made a frame suspect
    scene, _, layout = _stale_start()
    first = scene.render(layout)
    spec = scene.camera_spec
    slid = scene.with_camera(replace(spec, offset=(spec.offset[0] + 0.1, spec.offset[1])))
    truth = slid.render(layout)
    config = DriftConfig()
    ratio = agreement(config, truth.image, first.corners, scene.geometry) / agreement(
        config, first.image, first.corners, scene.geometry
    )
    assert 0.6 < ratio < config.suspect_ratio
    monitor = DriftMonitor(config, first.corners, scene.geometry)
    assert [monitor.check(scene.render(layout).image).state for _ in range(4)][-1] == "steady"
    events = [monitor.check(slid.render(layout).image).event for _ in range(config.patience)]
    assert events[-1] is not None and events[:-1] == [None] * (config.patience - 1)
    assert corner_error(events[-1].new, truth.corners) < 0.2 * corner_error(first.corners, truth.corners)
