"""A camera that gives frames of another size than the board was set up on: another resolution of
the same shape is read as the set-up one, another shape is refused with a clear error -- by the
reader, the replay and the live session (an alert, the session going on) -- and a profile taken
on the dashboard brings its own lens and colours, not just its corners."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import cv2
import numpy as np
import pytest

from nardy.calibration.orientation import Orientation
from nardy.calibration.profile import ColourModel, ColourModels, Profile
from nardy.cli._live import LatestFrame, LiveSession, SessionOptions
from nardy.referee.events import CAMERA_MOVED, EventBus
from nardy.referee.live import FrameReader, FrameSizeError, VideoClock, read_live_frame, replay
from nardy.referee.match import MatchInfo
from nardy.referee.session import Referee
from nardy.rules import Position
from nardy.vision.layout import layout_errors
from nardy.vision.scene import Sample, Scene

SIZE = (1280, 720)


@pytest.fixture(scope="module")
def start() -> tuple[Sample, Profile]:
    """The short start position on a rendered board (read exactly at the size it was set up on)
    and its profile."""
    scene = Scene.random(np.random.default_rng(5), size=SIZE, family="painted", tilt=(20.0, 20.0))
    sample = scene.render(Orientation().from_position(Position.initial("short")))
    corners = tuple((float(x), float(y)) for x, y in sample.corners)
    return sample, Profile(corners=corners, image_size=SIZE, geometry=scene.geometry)


def resized(sample: Sample, size: tuple[int, int]) -> np.ndarray:
    return np.asarray(cv2.resize(sample.image, size, interpolation=cv2.INTER_AREA), dtype=np.uint8)


def test_another_resolution_of_the_same_shape_is_read_as_the_set_up_one(
    start: tuple[Sample, Profile],
) -> None:
    sample, profile = start
    reader = FrameReader(profile.recognizer(), Orientation(), "short", size=profile.image_size)
    for size in (SIZE, (640, 360), (1920, 1080)):
        reading = reader.read(resized(sample, size))
        assert reading.settled, size
        assert reader.last_observation is not None
        assert layout_errors(sample.layout, reader.last_observation.layout()) == [], size
    # without the size, a half-size frame is read through corners that lie elsewhere on it
    blind = FrameReader(profile.recognizer(), Orientation(), "short")
    blind.read(resized(sample, (640, 360)))
    assert blind.last_observation is not None
    assert layout_errors(sample.layout, blind.last_observation.layout()) != []


def test_frames_of_another_shape_are_refused_naming_both_sizes(start: tuple[Sample, Profile]) -> None:
    sample, profile = start
    reader = FrameReader(profile.recognizer(), Orientation(), "short", size=profile.image_size)
    with pytest.raises(FrameSizeError, match=r"gives 640x480 frames .* set up on 1280x720"):
        reader.read(resized(sample, (640, 480)))
    assert reader.frames == 0


def test_a_replay_of_another_shape_stops_with_the_error(start: tuple[Sample, Profile]) -> None:
    sample, profile = start
    clock = VideoClock()
    referee = Referee(MatchInfo(variant="short"), bus=EventBus(clock), clock=clock)
    reader = FrameReader(profile.recognizer(), Orientation(), "short", size=profile.image_size)
    frames = [(resized(sample, (720, 720)), 0.0), (resized(sample, (720, 720)), 0.2)]
    with pytest.raises(FrameSizeError):
        replay(frames, [], referee, reader, clock)


def write_video(path: Path, frame: np.ndarray, n: int) -> str:
    writer = cv2.VideoWriter(
        str(path), cv2.VideoWriter_fourcc(*"MJPG"), 5.0, (frame.shape[1], frame.shape[0])
    )
    assert writer.isOpened()
    for _ in range(n):
        writer.write(frame)
    writer.release()
    return str(path)


@contextmanager
def played(
    tmp_path: Path, sample: Sample, profile: Profile, size: tuple[int, int], n: int
) -> Iterator[LiveSession]:
    """A live session (no dashboard, manual dice) on a video of ``n`` frames of ``sample`` at
    ``size``, once the camera has played it all."""
    live = LiveSession(
        SessionOptions(
            camera=write_video(tmp_path / "cam.avi", resized(sample, size), n),
            dice="manual",
            profile=profile,
            variant="short",
            db=tmp_path / "club.db",
            match=MatchInfo(variant="short"),
            speed=0.0,
            web=False,
        )
    )
    live.start()
    try:
        assert live.ended.wait(60.0)
        yield live
    finally:
        live.stop()


def test_the_live_session_says_a_camera_of_another_shape_and_goes_on(
    tmp_path: Path, start: tuple[Sample, Profile]
) -> None:
    sample, profile = start
    with played(tmp_path, sample, profile, (640, 480), 6) as live:
        assert live.camera is not None and live.referee is not None and live.frames is not None
        assert live.camera.stats.errors == 0  # said, not failed on
        assert live.camera.config.camera_size == (1280, 720)  # a camera would be asked for it
        alert = live.referee.alerts[CAMERA_MOVED]
        assert alert.severity == "error" and "640x480" in alert.text and "1280x720" in alert.text
        assert live.frames.raw() is not None  # the picture is there to see on the dashboard


def test_a_profile_taken_during_the_session_brings_its_colours(
    tmp_path: Path, start: tuple[Sample, Profile]
) -> None:
    sample, profile = start
    with played(tmp_path, sample, profile, (640, 360), 3) as live:
        assert live.reader is not None and live.referee is not None
        assert CAMERA_MOVED not in live.referee.alerts  # the same shape: read, not refused
        detector = live.reader.recognizer.detector
        cov = ((4.0, 0.0, 0.0), (0.0, 4.0, 0.0), (0.0, 0.0, 4.0))
        colours = ColourModels(
            ColourModel((230.0, 128.0, 140.0), cov), ColourModel((40.0, 150.0, 150.0), cov)
        )
        shifted = tuple((x + 8.0, y) for x, y in profile.corners)
        live.use_profile(profile.replace(corners=shifted, colours=colours, image_size=(1920, 1080)))
        recognizer = live.reader.recognizer
        assert recognizer.detector is detector
        assert recognizer.colours is not None
        assert np.allclose(recognizer.colours[0], (230.0, 128.0, 140.0))
        assert np.allclose(recognizer.corners, shifted)
        assert live.reader.size == (1920, 1080)


def test_a_reader_given_a_recognizer_for_another_size_scales_frames_to_it(
    start: tuple[Sample, Profile],
) -> None:
    sample, profile = start
    reader = FrameReader(profile.recognizer(), Orientation(), "short", size=profile.image_size)
    reader.use(profile.recognizer(frame_size=(640, 360)), (640, 360))
    reader.read(resized(sample, SIZE))
    assert reader.last_observation is not None
    assert layout_errors(sample.layout, reader.last_observation.layout()) == []


def test_a_live_frame_of_another_shape_is_an_alert_until_the_frames_fit_again(
    start: tuple[Sample, Profile],
) -> None:
    sample, profile = start
    clock = VideoClock()
    referee = Referee(MatchInfo(variant="short"), bus=EventBus(clock), clock=clock)
    reader = FrameReader(profile.recognizer(), Orientation(), "short", size=profile.image_size)
    assert read_live_frame(referee, reader, resized(sample, (640, 480))) is None
    assert referee.alerts[CAMERA_MOVED].severity == "error"
    assert read_live_frame(referee, reader, resized(sample, (640, 480))) is None
    reading = read_live_frame(referee, reader, resized(sample, (640, 360)))
    assert reading is not None and reading.settled
    assert CAMERA_MOVED not in referee.alerts
    # a new profile made on the other camera's frames fits them
    assert read_live_frame(referee, reader, resized(sample, (640, 480))) is None
    square = profile.replace(image_size=(640, 480))
    reader.use(square.recognizer(), square.image_size)
    assert read_live_frame(referee, reader, resized(sample, (640, 480))) is not None
    assert CAMERA_MOVED not in referee.alerts


def test_the_dashboard_draws_the_outline_where_the_board_is_at_another_resolution(
    start: tuple[Sample, Profile],
) -> None:
    sample, profile = start
    blank = np.zeros((360, 640, 3), np.uint8)
    corner = np.round(profile.corner_array[0] / 2).astype(int)  # top-left, at half the resolution
    for size, drawn in ((profile.image_size, True), (None, False)):
        frames = LatestFrame(Orientation(), profile.corner_array, size=size)
        frames.update(blank, None)
        shot = frames.latest_frame()
        assert shot is not None and shot.overlay is not None
        overlay = cv2.imdecode(np.frombuffer(shot.overlay, np.uint8), cv2.IMREAD_COLOR)
        x, y = corner
        near = overlay[y - 2 : y + 3, x - 2 : x + 3].reshape(-1, 3)
        assert bool((near[:, 2] > 150).any()) is drawn, size  # the outline's yellow (B 0, G 220, R 255)
