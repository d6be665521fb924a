"""The camera loop on real OpenCV captures of real video files and a real MJPEG stream over HTTP: a
camera that cannot be opened is retried and said lost, a frame the session fails on does not stop
it, a video ends it; a live camera whose stream freezes (every frame the very same picture) is said
lost and its repeats withheld until it moves again; a network camera that stalls or never answers
is said lost within seconds."""

from __future__ import annotations

import functools
import itertools
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from nardy.referee.events import CAMERA_LOST, EventBus
from nardy.referee.live import CameraConfig, CameraError, CameraLoop, VideoClock, attach_camera_status
from nardy.referee.match import MatchInfo
from nardy.referee.session import Referee

SIZE = (160, 120)
STEP = 0.25
"""Seconds between a live camera's frames in these tests (the loop's clock is stepped, not slept)."""


def write_video(path: Path, frames: list[np.ndarray]) -> Path:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 4.0, SIZE)
    assert writer.isOpened()
    for frame in frames:
        writer.write(frame)
    writer.release()
    return path


def still(n: int) -> list[np.ndarray]:
    frame = np.full((SIZE[1], SIZE[0], 3), 90, np.uint8)
    cv2.circle(frame, (80, 60), 30, (240, 240, 240), -1)
    return [frame.copy() for _ in range(n)]


def noisy(n: int, seed: int) -> list[np.ndarray]:
    """A still scene as a real sensor gives it: the same board, new noise in every frame."""
    rng = np.random.default_rng(seed)
    base = still(1)[0].astype(np.int16)
    return [np.clip(base + rng.integers(-6, 7, base.shape), 0, 255).astype(np.uint8) for _ in range(n)]


class Run:
    """A camera loop on ``source`` (through ``opener``) that stops itself after ``frames`` frames,
    with a clock that steps ``STEP`` seconds a call; what it reported is kept. Every frame is handed
    on (``latest_only`` off: a file read as a camera comes faster than any camera, and which frames
    a busy session passes over would be the threads' race)."""

    def __init__(self, source: str, frames: int, opener: Any | None, **config: Any) -> None:
        self.frames: list[float] = []
        self.statuses: list[tuple[bool, str]] = []
        self.ended = False
        ticks = itertools.count()
        config.setdefault("latest_only", False)
        self.loop = CameraLoop(
            source,
            self.on_frame,
            config=CameraConfig(reconnect_first=0.01, **config),
            on_status=lambda ok, message: self.statuses.append((ok, message)),
            on_end=self.on_end,
            opener=opener,
            clock=lambda: next(ticks) * STEP,
        )
        self.limit = frames

    def on_frame(self, frame: np.ndarray, t: float) -> None:
        self.frames.append(t)
        if len(self.frames) >= self.limit:
            self.loop.stop()

    def on_end(self) -> None:
        self.ended = True

    def run(self) -> Run:
        self.loop.start()
        self.loop.join(30.0)
        assert not self.loop.running
        return self


def live(video: Path) -> Any:
    """An opener that plays ``video`` as if it were camera 0."""

    def opener(source: str | int) -> Any:
        assert source == "0"
        cap = cv2.VideoCapture(str(video))
        assert cap.isOpened()
        return cap

    return opener


def test_a_live_camera_that_repeats_one_picture_is_said_frozen_and_ok_again_once_it_moves(
    tmp_path: Path,
) -> None:
    video = write_video(tmp_path / "stall.avi", noisy(8, 1) + still(30) + noisy(8, 2))
    run = Run("0", 36, live(video)).run()
    oks = [ok for ok, _ in run.statuses]
    assert oks == [True, False, True]
    message = run.statuses[1][1]
    assert "frozen" in message and "'0'" in message and "for 5 s" in message
    # the still picture came at 2.25 s (frame 8); from 7.25 s (frame 28) on it is a lost camera's
    # and not handed on, until the picture moves at 9.75 s (frame 38)
    assert run.loop.stats.frozen == 10
    assert run.frames[27:29] == [7.0, 9.75]


def test_a_live_camera_with_sensor_noise_is_never_said_frozen(tmp_path: Path) -> None:
    video = write_video(tmp_path / "noise.avi", noisy(40, 3))  # 10 s of a board at rest
    run = Run("0", 40, live(video)).run()
    assert run.statuses == [(True, "camera ok")]


def test_the_freeze_is_said_after_frozen_seconds_and_not_before(tmp_path: Path) -> None:
    video = write_video(tmp_path / "stall.avi", noisy(1, 4) + still(40))
    run = Run("0", 41, live(video))
    handed: list[int] = []

    def on_status(ok: bool, message: str) -> None:
        run.statuses.append((ok, message))
        if not ok:
            handed.append(len(run.frames))
            run.loop.stop()

    run.loop.on_status = on_status
    run.run()
    # the clock: one tick to open, one per frame (0.25 s); the still picture first came at frame 1
    # (0.5 s), so frame 21 (5.5 s) is the first five seconds after it
    assert handed == [21]
    none = Run("0", 41, live(video), frozen_seconds=0.0).run()
    assert none.statuses == [(True, "camera ok")] and len(none.frames) == 41


def test_a_video_file_of_a_still_scene_is_not_a_frozen_camera(tmp_path: Path) -> None:
    video = write_video(tmp_path / "still.avi", still(40))
    run = Run(str(video), 1000, lambda source: cv2.VideoCapture(str(source)), realtime_video=False).run()
    assert len(run.frames) == 40 and run.ended
    assert run.statuses == [(True, "camera ok")]


def test_a_camera_that_will_not_open_is_retried_and_said_lost_until_it_gives_frames(tmp_path: Path) -> None:
    video = write_video(tmp_path / "cam.avi", noisy(5, 5))
    tries: list[str | int] = []

    def opener(source: str | int) -> Any:
        tries.append(source)
        if len(tries) < 3:
            raise CameraError(f"cannot open camera or video {source!r}")
        return cv2.VideoCapture(str(video))

    run = Run("0", 5, opener).run()
    assert len(tries) == 3 and run.loop.stats.reconnects == 2
    assert [ok for ok, _ in run.statuses] == [False, False, True]
    assert run.statuses[0][1] == "cannot open camera or video '0'"
    assert len(run.frames) == 5


def test_a_frame_the_session_fails_on_is_counted_and_the_loop_goes_on(tmp_path: Path) -> None:
    video = write_video(tmp_path / "cam.avi", noisy(6, 6))
    run = Run("0", 6, live(video))
    seen = run.on_frame

    def flaky(frame: np.ndarray, t: float) -> None:
        seen(frame, t)
        if len(run.frames) == 2:
            raise ValueError("a corrupt frame")

    run.loop.on_frame = flaky
    run.run()
    assert len(run.frames) == 6
    assert run.loop.stats.errors == 1 and "corrupt frame" in run.loop.stats.last_error


def test_a_frozen_camera_is_an_alert_on_the_referee_until_it_moves(tmp_path: Path) -> None:
    video = write_video(tmp_path / "stall.avi", noisy(2, 7) + still(30) + noisy(2, 8))
    clock = VideoClock()
    referee = Referee(MatchInfo(variant="short"), bus=EventBus(clock), clock=clock)
    on_status = attach_camera_status(referee)
    alerts: list[bool] = []

    def watched(ok: bool, message: str) -> None:
        on_status(ok, message)
        alerts.append(CAMERA_LOST in referee.alerts)

    run = Run("0", 24, live(video))  # 34 frames, 10 of them withheld as frozen
    run.loop.on_status = watched
    run.run()
    assert alerts == [False, True, False]
    raised = [e for e in referee.bus.history if e.kind == "alert" and e.data["code"] == CAMERA_LOST]
    assert len(raised) == 1 and "frozen" in str(raised[0].data)


@pytest.mark.parametrize("stride", [1, 4])
def test_one_changed_pixel_in_the_compared_ones_is_a_new_picture(stride: int) -> None:
    loop = CameraLoop("0", lambda frame, t: None, config=CameraConfig(frozen_stride=stride))
    frame = still(1)[0]
    assert loop._frozen_for(frame, 0.0) == 0.0
    assert loop._frozen_for(frame.copy(), 3.0) == 3.0
    changed = frame.copy()
    changed[stride * 7, stride * 9, 1] ^= 1
    assert loop._frozen_for(changed, 4.0) == 0.0
    assert loop._frozen_for(changed.copy(), 10.0) == 6.0


@pytest.fixture()
def stalling_stream() -> Iterator[str]:
    """A network camera (an MJPEG stream over real HTTP) that sends 6 frames a connection and then
    stalls, its connection left open."""
    release = threading.Event()
    frames = iter(noisy(100, 9))

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "multipart/x-mixed-replace; boundary=frame")
            self.end_headers()
            for _ in range(6):
                ok, jpeg = cv2.imencode(".jpg", next(frames))
                head = b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n" % len(jpeg)
                self.wfile.write(head + jpeg.tobytes() + b"\r\n")
                self.wfile.flush()
            release.wait(60.0)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/stream.mjpg"
    finally:
        release.set()
        server.shutdown()
        server.server_close()
        thread.join(10.0)


def test_a_network_camera_that_stalls_is_said_lost_and_reconnected(stalling_stream: str) -> None:
    began = time.monotonic()
    run = Run(stalling_stream, 9, None, stream_read_timeout=0.3).run()
    # noticed in well under the half minute the video library waits by itself
    assert time.monotonic() - began < 15.0
    assert len(run.frames) == 9  # six from the first connection, three from the second
    assert [ok for ok, _ in run.statuses] == [True, False, True]
    assert "stopped giving frames; reconnecting" in run.statuses[1][1]


def test_a_network_camera_that_never_answers_is_said_lost_within_the_open_timeout() -> None:
    with socket.socket() as mute:  # accepts the connection (the backlog does) and never answers
        mute.bind(("127.0.0.1", 0))
        mute.listen(4)
        url = f"http://127.0.0.1:{mute.getsockname()[1]}/stream.mjpg"
        statuses: list[tuple[bool, str]] = []

        def on_status(ok: bool, message: str) -> None:
            statuses.append((ok, message))
            if len(statuses) == 2:
                loop.stop()

        loop = CameraLoop(
            url,
            lambda frame, t: None,
            config=CameraConfig(reconnect_first=0.01, stream_open_timeout=0.3),
            on_status=on_status,
        )
        began = time.monotonic()
        loop.start()
        assert loop._thread is not None
        loop._thread.join(60.0)
        assert not loop.running
        assert time.monotonic() - began < 15.0  # the library alone waits half a minute a try
    assert statuses == [(False, f"cannot open camera or video {url!r}")] * 2


def test_a_camera_is_asked_for_the_configured_size() -> None:
    loop = CameraLoop("0", lambda frame, t: None, config=CameraConfig(camera_size=(1280, 720)))
    assert isinstance(loop.opener, functools.partial)
    assert loop.opener.keywords["size"] == (1280, 720)


class Paced:
    """A real capture of a video read as a camera gives frames: the first at once, each later one
    only against a permit the session gives (``permits``); ``asked_past_free`` is set once the
    camera is asked for more than ``free`` frames."""

    def __init__(self, video: Path, free: int) -> None:
        self.cap = cv2.VideoCapture(str(video))
        assert self.cap.isOpened()
        self.reads = 0
        self.free = free
        self.asked_past_free = threading.Event()
        self.permits = threading.Semaphore(0)

    def read(self) -> tuple[bool, Any]:
        if self.reads == self.free:
            self.asked_past_free.set()
        if self.reads > 0:
            assert self.permits.acquire(timeout=30.0)
        self.reads += 1
        return self.cap.read()

    def get(self, prop: int) -> float:
        return float(self.cap.get(prop))

    def release(self) -> None:
        self.cap.release()


def test_a_busy_session_gets_the_newest_frame_not_a_queue_of_old_ones(tmp_path: Path) -> None:
    """While the session reads frame 0, the camera gives frames 1-5: the session goes on with frame
    5, the newest, and frames 1-4 are passed over (a network stream would otherwise queue them, and
    the board on the dashboard and before the referee would fall further and further behind)."""
    paced = Paced(write_video(tmp_path / "cam.avi", noisy(10, 11)), free=6)
    delivered: list[float] = []

    def on_frame(frame: np.ndarray, t: float) -> None:
        delivered.append(t)
        if len(delivered) == 1:  # busy with frame 0 while the camera gives frames 1-5
            for _ in range(paced.free - 1):
                paced.permits.release()
            assert paced.asked_past_free.wait(30.0)
        else:  # this frame taken, the camera may give the next
            paced.permits.release()
        if t == 10 * STEP:  # frame 9, the last
            loop.stop()

    ticks = itertools.count()
    loop = CameraLoop(
        "0",
        on_frame,
        config=CameraConfig(reconnect_first=0.01),
        opener=lambda source: paced,
        clock=lambda: next(ticks) * STEP,
    )
    loop.start()
    loop.join(30.0)
    assert not loop.running
    # frame i comes at (i + 1) * STEP (one tick to open, one a frame)
    assert delivered == [STEP * (i + 1) for i in (0, 5, 6, 7, 8, 9)]
    assert loop.stats.dropped == 4 and loop.stats.frames == 6
