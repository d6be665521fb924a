"""A camera nudged during a game: noticed, the board found again, read from its new corners, and
said on the referee's alerts -- through the same reader the live session and the replay use."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from nardy.calibration.drift import DriftConfig, DriftMonitor
from nardy.calibration.orientation import Orientation
from nardy.referee.events import CAMERA_MOVED, EventBus
from nardy.referee.live import FrameReader, VideoClock, report_view
from nardy.referee.match import MatchInfo
from nardy.referee.session import Referee
from nardy.rules import Position
from nardy.vision.config import RecognizerConfig
from nardy.vision.layout import BoardLayout
from nardy.vision.recognizer import Recognizer
from nardy.vision.scene import Scene


def _painted_start() -> tuple[Scene, Orientation, Position, BoardLayout]:
    """A painted board under a harsh light, 20 degrees, at the short-nardy start."""
    scene = Scene.random(
        np.random.default_rng(4), size=(960, 540), family="painted", tilt=(20.0, 20.0), harsh=0.3
    )
    orientation = Orientation()
    start = Position.initial("short")
    return scene, orientation, start, orientation.from_position(start)


def test_a_nudged_camera_is_alerted_and_the_board_read_from_where_it_is_now() -> None:
    scene, orientation, start, layout = _painted_start()
    corners = scene.render(layout).corners
    reader = FrameReader(
        Recognizer(RecognizerConfig(), corners),
        orientation,
        "short",
        drift=DriftMonitor(DriftConfig(patience=3), corners, scene.geometry),
        drift_every=2,
    )
    clock = VideoClock()
    referee = Referee(MatchInfo(variant="short"), bus=EventBus(clock), clock=clock)

    def frames(view: Scene, n: int) -> list[float]:
        """Show ``n`` frames; the gap (log) between the free reading and the start position."""
        gaps = []
        for _ in range(n):
            clock.t += 0.2
            reading = reader.read(view.render(layout).image)
            report_view(referee, reader)
            referee.on_reading(reading, clock.t)
            gaps.append(reading.best_log_likelihood() - reading.log_likelihood(start))
        return gaps

    frames(scene, 8)
    assert reader.view == "steady" and CAMERA_MOVED not in referee.alerts

    spec = scene.camera_spec
    nudged = scene.with_camera(
        replace(spec, azimuth=spec.azimuth + 4.0, offset=(spec.offset[0] + 0.3, spec.offset[1]))
    )
    truth = nudged.render(layout).corners
    gaps = frames(nudged, 14)
    alert = referee.alerts[CAMERA_MOVED]
    assert "found the board again" in alert.text and alert.severity == "warning"
    moves = [e for e in referee.bus.history if e.kind == "alert" and e.data["code"] == CAMERA_MOVED]
    assert len(moves) == 1  # one alert, not one per frame
    # the reader now reads from the board's new place: near the truth, far from the old corners
    now = reader.recognizer.corners
    assert np.max(np.linalg.norm(now - truth, axis=1)) < 0.3 * np.max(np.linalg.norm(corners - truth, axis=1))
    # from the old corners the board was nonsense; from the new ones the start position reads
    # as well as it did before the nudge
    assert gaps[0] > 20.0 and gaps[-1] < 3.0, gaps


def test_the_checker_colours_remembered_survive_new_corners() -> None:
    """A board found again is the same board: the recognizer reading from the new corners starts
    with the checker colours the old one remembered."""
    scene = Scene.random(np.random.default_rng(5), size=(960, 540), checker_set="black_white")
    orientation = Orientation()
    layout = orientation.from_position(Position.initial("short"))
    sample = scene.render(layout)
    reader = FrameReader(Recognizer(RecognizerConfig(), sample.corners), orientation, "short")
    reader.read(sample.image)
    remembered = reader.recognizer.memory
    assert remembered is not None  # a still start frame shows both sides' colours
    old = reader.recognizer
    reader.set_corners(sample.corners + 1.0)
    assert reader.recognizer is not old and reader.recognizer.memory is remembered


def test_a_session_started_on_a_profile_from_before_the_camera_moved() -> None:
    """The stand was knocked between calibrating and playing: the drift watch learns no level from
    corners that fit only some of the board's edges, finds the board, and says so before the game."""
    scene, orientation, start, layout = _painted_start()
    stale = scene.render(layout).corners
    spec = scene.camera_spec
    now = scene.with_camera(
        replace(spec, azimuth=spec.azimuth + 4.0, offset=(spec.offset[0] + 0.3, spec.offset[1]))
    )
    truth = now.render(layout).corners
    reader = FrameReader(
        Recognizer(RecognizerConfig(), stale),
        orientation,
        "short",
        drift=DriftMonitor(DriftConfig(), stale, scene.geometry),
        drift_every=2,
    )
    clock = VideoClock()
    referee = Referee(MatchInfo(variant="short"), bus=EventBus(clock), clock=clock)
    gaps = []
    for _ in range(12):
        clock.t += 0.2
        reading = reader.read(now.render(layout).image)
        report_view(referee, reader)
        referee.on_reading(reading, clock.t)
        gaps.append(reading.best_log_likelihood() - reading.log_likelihood(start))
    alert = referee.alerts[CAMERA_MOVED]
    assert "found the board again" in alert.text
    found = reader.recognizer.corners
    assert np.max(np.linalg.norm(found - truth, axis=1)) < 0.3 * np.max(np.linalg.norm(stale - truth, axis=1))
    assert gaps[0] > 20.0 and gaps[-1] < 3.0, gaps


def test_a_board_not_yet_in_view_is_said_lost_and_taken_back_when_it_is() -> None:
    """The session was started before the board was uncovered: the drift watch says it cannot find
    the board, and takes that back once the board shows at the profile's corners."""
    scene = Scene.random(np.random.default_rng(4), size=(960, 540), family="painted", tilt=(20.0, 20.0))
    orientation = Orientation()
    layout = orientation.from_position(Position.initial("short"))
    board = scene.render(layout)
    cloth = np.random.default_rng(1).integers(90, 110, size=board.image.shape, dtype=np.uint8)
    reader = FrameReader(
        Recognizer(RecognizerConfig(), board.corners),
        orientation,
        "short",
        drift=DriftMonitor(DriftConfig(patience=2, retry_every=3), board.corners, scene.geometry),
        drift_every=1,
    )
    clock = VideoClock()
    referee = Referee(MatchInfo(variant="short"), bus=EventBus(clock), clock=clock)
    said: list[str | None] = []
    for image in [cloth] * 8 + [board.image] * 10:
        clock.t += 0.2
        reading = reader.read(image)
        report_view(referee, reader)
        referee.on_reading(reading, clock.t)
        alert = referee.alerts.get(CAMERA_MOVED)
        said.append(None if alert is None else alert.severity)
    assert said[:3] == [None] * 3  # learning
    assert "error" in said[3:8] and "cannot be found" in _texts(referee)[0]
    assert said[-1] is None and reader.view == "steady"
    assert reader.drift is not None and np.allclose(reader.drift.corners, board.corners)


def _texts(referee: Referee) -> list[str]:
    alerts = [e for e in referee.bus.history if e.kind == "alert"]
    return [e.data["text"] for e in alerts if e.data["code"] == CAMERA_MOVED]


def test_a_lost_board_is_looked_for_on_every_few_frames_not_every_frame() -> None:
    """While the board is lost the watch costs what it does while steady: a check every
    ``drift_every`` frames (a check is about 50 ms; a live camera gives a frame every 33)."""
    scene = Scene.random(np.random.default_rng(4), size=(960, 540), family="painted", tilt=(20.0, 20.0))
    orientation = Orientation()
    board = scene.render(orientation.from_position(Position.initial("short")))
    cloth = np.random.default_rng(1).integers(90, 110, size=board.image.shape, dtype=np.uint8)
    monitor = DriftMonitor(DriftConfig(patience=2, retry_every=2), board.corners, scene.geometry)
    reader = FrameReader(
        Recognizer(RecognizerConfig(), board.corners), orientation, "short", drift=monitor, drift_every=4
    )
    views = []
    for _ in range(40):
        reader.read(cloth)
        views.append(reader.view)
    assert views[-1] == "lost"
    checks = monitor._frame
    for _ in range(12):
        reader.read(cloth)
        assert reader.view == "lost"
    assert monitor._frame - checks == 3  # one frame in four, not twelve
