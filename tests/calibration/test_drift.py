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

