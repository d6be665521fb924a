"""Frames in, referee decisions out: the camera loop and the replay driver.

:class:`FrameReader` turns one frame into the referee's reading (vision, then the board's
orientation). :class:`CameraLoop` is the thin, stoppable thread that reads a live camera (or a
video at its own pace), survives an unplugged camera, and hands each frame on.
:func:`replay` runs a recording -- a video and its dice log -- through the same path in video
time, as fast as it can or at a chosen speed, deterministically.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from nardy.calibration.drift import CameraMoved, DriftMonitor
from nardy.calibration.orientation import Orientation
from nardy.calibration.profile import same_shape
from nardy.calibration.source import open_video
from nardy.referee.adapt import reading_from_observation
from nardy.referee.events import CAMERA_LOST, CAMERA_MOVED
from nardy.referee.reading import BoardReading
from nardy.referee.session import Referee
from nardy.vision.observation import Observation
from nardy.vision.recognizer import Recognizer

log = logging.getLogger(__name__)

Frame = NDArray[np.uint8]


class CameraError(OSError):
    """A camera or video that cannot be opened or read."""


class FrameSizeError(ValueError):
    """Frames of another shape than those the board was set up on: its corners cannot be carried
    over (a resolution of the same shape can, and is)."""


class FrameReader:
    """Reads frames of one calibrated board: vision, then white's numbering.

    With a ``drift`` monitor it also watches the camera: every ``drift_every`` frames while the
    view is steady or the board lost (and every frame while it is in doubt) it checks that the
    board is still where its corners say. A camera that was nudged is noticed, the board found
    again and read from its new corners (:attr:`moved` holds the move until :meth:`take_move`); a
    board that cannot be found again leaves :attr:`view` at ``"lost"``. :func:`report_view` turns
    both into alerts.

    ``size`` is the (width, height) of the frames the corners are for (the profile's
    ``image_size``): a camera that gives another resolution of the same shape (a webcam opened at
    its default 640x360 after a calibration at 1280x720) has its frames scaled to it, since the
    corners would otherwise fall on the wrong pixels; frames of another shape raise
    ``FrameSizeError``.
    """

    def __init__(
        self,
        recognizer: Recognizer,
        orientation: Orientation,
        variant: str,
        *,
        drift: DriftMonitor | None = None,
        drift_every: int = 10,
        size: tuple[int, int] | None = None,
        watch_motion: bool = True,
    ) -> None:
        self.recognizer = recognizer
        self.watch_motion = watch_motion
        """Take what changed since the frame read before as not settled (``settle.moved_places``);
        off where a lamp flickers against the camera's frame rate and every frame differs."""
        self.size = size
        self.orientation = orientation
        self.variant = variant
        self.drift = drift
        self.drift_every = max(1, drift_every)
        self.view: str = "steady"
        """The drift monitor's last word: learning, steady, suspect, moved or lost."""
        self.moved: CameraMoved | None = None
        self.last_observation: Observation | None = None
        self.frames = 0
        self.failures = 0
        self.refused = False
        """The last frame was of another shape than ``size`` (``read_live_frame`` says so)."""
        self.lost_said = False
        """A lost board was said (``report_view``), to be taken back once the board is seen."""

    def read(self, frame: Frame) -> BoardReading:
        """frame (H, W, 3) uint8 BGR -> the referee's reading."""
        frame = self.fit(frame)
        if self.drift is not None:
            self._watch(frame)
        # a stream: what moved since the frame read before is not settled
        observation = self.recognizer.read(frame, consecutive=self.watch_motion)
        self.last_observation = observation
        self.frames += 1
        return reading_from_observation(observation, self.orientation, self.variant)

    def fit(self, frame: Frame) -> Frame:
        """``frame`` at ``size`` (scaled when it is another resolution of the same shape); raises
        ``FrameSizeError`` for another shape."""
        if self.size is None:
            return frame
        h, w = frame.shape[:2]
        if (w, h) == self.size:
            return frame
        if not same_shape((w, h), self.size):
            raise FrameSizeError(
                f"the camera gives {w}x{h} frames and the board was set up on {self.size[0]}x"
                f"{self.size[1]} ones (another shape): set the board up again at this resolution"
            )
        shrink = cv2.INTER_AREA if w > self.size[0] else cv2.INTER_LINEAR
        return np.asarray(cv2.resize(frame, self.size, interpolation=shrink), dtype=np.uint8)

    def set_corners(self, corners: NDArray[np.floating]) -> None:
        """Read from these corners from the next frame on (a re-found board; a new profile is
        ``use``)."""
        old = self.recognizer
        self.use(
            Recognizer(
                old.config, corners, intrinsics=old.intrinsics, colours=old.colours, detector=old.detector
            ),
            self.size,
        )

    def use(self, recognizer: Recognizer, size: tuple[int, int] | None) -> None:
        """Read with ``recognizer`` (a new profile's: its corners, lens and colours), for frames of
        ``size``, from the next frame on."""
        recognizer.memory = self.recognizer.memory  # the same checkers
        self.recognizer, self.size = recognizer, size
        if self.drift is not None:
            self.drift.accept(np.asarray(recognizer.corners, dtype=np.float64))
            self.view = "learning"

    def take_move(self) -> CameraMoved | None:
        """The camera move adopted since the last call, if any."""
        moved, self.moved = self.moved, None
        return moved

    def _watch(self, frame: Frame) -> None:
        assert self.drift is not None
        if self.view in ("steady", "learning", "lost") and self.frames % self.drift_every:
            return
        status = self.drift.check(frame)
        self.view = status.state
        if status.event is not None:
            self.set_corners(status.event.new)
            self.moved = status.event


def report_view(referee: Referee, reader: FrameReader) -> None:
    """Alert on what the reader's drift monitor saw: a camera that moved, a board it lost (taken back
    when the board is seen at its corners again)."""
    moved = reader.take_move()
    if moved is not None:
        sure = "" if moved.confidence >= 0.8 else " — please check the corners"
        referee.report_alert(
            CAMERA_MOVED,
            "warning",
            f"the camera moved (the board by {moved.shift:.0f} px): found the board again{sure}",
        )
        reader.lost_said = False
    elif reader.view == "lost":
        referee.report_alert(
            CAMERA_MOVED,
            "error",
            "the board is not where its corners say and cannot be found in view: set the corners",
        )
        reader.lost_said = True
    elif reader.lost_said and reader.view in ("learning", "steady"):
        # found where the corners are after all (the board was covered, or not yet on the table)
        referee.clear_alert(CAMERA_MOVED)
        reader.lost_said = False


def read_live_frame(referee: Referee, reader: FrameReader, frame: Frame) -> BoardReading | None:
    """``reader.read(frame)`` for a live session: a frame of another shape than the board was set up
    on is said on ``referee`` (a ``camera-moved`` error, rather than a failure a frame in a log)
    and gives None; the alert goes once the frames fit again."""
    try:
        reading = reader.read(frame)
    except FrameSizeError as exc:
        referee.report_alert(CAMERA_MOVED, "error", str(exc))
        reader.refused = True
        return None
    if reader.refused:  # frames of the profile's shape again (another camera, a new profile)
        referee.clear_alert(CAMERA_MOVED)
        reader.refused = False
    return reading


def open_capture(
    source: str | int,
    *,
    open_timeout: float = 5.0,
    read_timeout: float = 3.0,
    size: tuple[int, int] | None = None,
) -> Any:
    """``cv2.VideoCapture`` on a camera index, a file or a URL; CameraError when it will not open.
    A URL gets ``open_timeout`` and ``read_timeout`` seconds, a camera is asked for ``size``
    (``open_video``)."""
    cap = open_video(source, open_timeout=open_timeout, read_timeout=read_timeout, size=size)
    if not cap.isOpened():
        cap.release()
        raise CameraError(f"cannot open camera or video {source!r}")
    return cap


@dataclass(frozen=True, slots=True)
class CameraConfig:
    """How the camera loop paces itself and copes with a lost camera."""

    reconnect_first: float = 0.5
    """Seconds before the first attempt to reopen a lost camera."""
    reconnect_max: float = 8.0
    """Longest wait between attempts."""
    realtime_video: bool = True
    """Play a video file at its own frame rate (False: as fast as frames can be read)."""
    speed: float = 1.0
    """Play a video this many times faster than real time."""
    frozen_seconds: float = 5.0
    """A live camera whose every frame has been the very same picture for this long is taken as
    frozen (a stalled stream or driver that repeats its last frame): a real sensor's noise never
    gives two identical frames. 0: not watched. Video files are never watched (a still scene
    decodes to identical frames)."""
    frozen_stride: int = 4
    """Every this-many pixels across and down are compared for it."""
    stream_open_timeout: float = 5.0
    """Seconds a camera URL (``rtsp://``, ``http://``) is given to connect ..."""
    stream_read_timeout: float = 3.0
    """... and to give each frame: a stalled network camera is then said lost and reconnected
    within seconds, not the half minute the video library waits by itself (0: its own)."""
    latest_only: bool = True
    """A live camera's frames reach the session newest first: one that comes while the last is
    still being read replaces any that waits (``CameraStats.dropped``), so a session slower than
    its camera is one frame behind at most, not a growing queue behind (a network stream buffers
    seconds of frames). False: every frame, in turn. Video files always give every frame."""
    camera_size: tuple[int, int] | None = None
    """(width, height) a camera (an index) is asked for -- the profile's, so its corners fit: most
    webcams open at 640x480 otherwise. The camera gives the nearest it has (``FrameReader``
    scales another resolution of the same shape)."""


@dataclass
class CameraStats:
    frames: int = 0
    errors: int = 0
    reconnects: int = 0
    frozen: int = 0
    """Frames withheld as the repeats of a frozen stream."""
    dropped: int = 0
    """Live frames passed over for a newer one while the session was busy (``latest_only``)."""
    last_error: str = ""
    fps: float = 0.0
    started: float = field(default_factory=time.monotonic)


class CameraLoop:
    """Reads frames in a thread and hands each to ``on_frame(frame, t)``.

    A camera that stops giving frames is reopened with a growing pause, and ``on_status(ok,
    message)`` says so -- as it does when a live camera's frames have all been one picture for
    ``frozen_seconds`` (from then on they are not handed on, as from a lost camera, until the
    picture moves again). A video file that
    ends calls ``on_end()`` and stops the loop. ``stop()`` ends it from any thread. Errors raised
    by ``on_frame`` are reported and do not stop the loop.
    """

    def __init__(
        self,
        source: str | int,
        on_frame: Callable[[Frame, float], None],
        *,
        config: CameraConfig | None = None,
        on_status: Callable[[bool, str], None] | None = None,
        on_end: Callable[[], None] | None = None,
        opener: Callable[[str | int], Any] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.source = source
        self.on_frame = on_frame
        self.config = config or CameraConfig()
        self.on_status = on_status or (lambda ok, msg: None)
        self.on_end = on_end or (lambda: None)
        self.opener = opener or functools.partial(
            open_capture,
            open_timeout=self.config.stream_open_timeout,
            read_timeout=self.config.stream_read_timeout,
            size=self.config.camera_size,
        )
        self.clock = clock
        self.stats = CameraStats()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._worker: threading.Thread | None = None
        self._waiting: tuple[Frame, float] | None = None
        self._ready = threading.Condition()
        self._read_all = False
        self.is_file = isinstance(source, str) and not source.isdigit() and "://" not in source
        self._last_sample: Frame | None = None
        self._same_since = 0.0
        """When the picture last changed (meaningful once there is a last sample)."""

    def start(self) -> None:
        if self._thread is not None:
            raise RuntimeError("the camera loop is already running")
        if self.config.latest_only and not self.is_file:
            # the camera is read in one thread and its newest frame handed on in another
            self._worker = threading.Thread(target=self._hand_on, name="camera-frames", daemon=True)
        self._thread = threading.Thread(target=self._run, name="camera", daemon=True)
        self._thread.start()
        if self._worker is not None:
            self._worker.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        with self._ready:
            self._ready.notify_all()
        self.join(timeout)

    def join(self, timeout: float | None = None) -> None:
        """Wait for the loop's threads to end (those other than the caller's)."""
        for thread in (self._thread, self._worker):
            if thread is not None and thread is not threading.current_thread():
                thread.join(timeout)

    @property
    def running(self) -> bool:
        return any(t is not None and t.is_alive() for t in (self._thread, self._worker))

    def _run(self) -> None:
        backoff = self.config.reconnect_first
        cap: Any = None
        ok_reported: bool | None = None
        try:
            while not self._stop.is_set():
                if cap is None:
                    try:
                        cap = self.opener(self.source)
                    except (CameraError, OSError) as exc:
                        self._status(False, str(exc))
                        ok_reported = False
                        self.stats.reconnects += 1
                        if self._stop.wait(backoff):
                            return
                        backoff = min(backoff * 2, self.config.reconnect_max)
                        continue
                    backoff = self.config.reconnect_first
                    self._last_sample = None
                    fps = float(cap.get(5) or 0.0)  # cv2.CAP_PROP_FPS
                    frame_gap = 1.0 / (fps * self.config.speed) if self.is_file and fps > 0 else 0.0
                    start = self.clock()
                    index = 0
                ok, frame = cap.read()
                if not ok or frame is None:
                    cap.release()
                    cap = None
                    if self.is_file:
                        self.on_end()
                        return
                    self._status(False, f"camera {self.source!r} stopped giving frames; reconnecting")
                    ok_reported = False
                    continue
                t = index / fps if self.is_file and fps > 0 else self.clock()
                frozen = self._frozen_for(frame, t)
                if frozen >= self.config.frozen_seconds > 0:
                    if ok_reported is not False:
                        self._status(
                            False,
                            f"camera {self.source!r} has sent the very same picture for {frozen:.0f} s: "
                            "its stream looks frozen (check its cable or network)",
                        )
                        ok_reported = False
                    # a lost camera's: the session hears nothing until the picture moves again,
                    # rather than a stale board it would judge the players' throws against
                    self.stats.frozen += 1
                    continue
                if ok_reported is not True:
                    self._status(True, "camera ok")
                    ok_reported = True
                index += 1
                if frame_gap and self.config.realtime_video:
                    delay = start + index * frame_gap - self.clock()
                    if delay > 0 and self._stop.wait(delay):
                        return
                if self._worker is None:
                    self._deliver(frame, t)
                    continue
                with self._ready:
                    if self._waiting is not None:
                        self.stats.dropped += 1
                    self._waiting = (frame, t)
                    self._ready.notify()
        finally:
            if cap is not None:
                cap.release()
            with self._ready:
                self._read_all = True
                self._ready.notify_all()

    def _hand_on(self) -> None:
        """The newest frame read, whenever there is one, to ``on_frame`` (``latest_only``)."""
        while True:
            with self._ready:
                while self._waiting is None and not self._stop.is_set() and not self._read_all:
                    self._ready.wait()
                if self._stop.is_set() or self._waiting is None:
                    return
                frame, t = self._waiting
                self._waiting = None
            self._deliver(frame, t)

    def _deliver(self, frame: Frame, t: float) -> None:
        self.stats.frames += 1
        try:
            self.on_frame(frame, t)
        except Exception as exc:  # a bad frame must not stop the camera
            self.stats.errors += 1
            self.stats.last_error = f"{type(exc).__name__}: {exc}"
            log.warning("frame %d failed: %s", self.stats.frames, self.stats.last_error)

    def _frozen_for(self, frame: Frame, now: float) -> float:
        """Seconds for which the live camera's frames have been one picture, ``frame`` the latest
        (0 while they change, or for a video file)."""
        if self.is_file or self.config.frozen_seconds <= 0:
            return 0.0
        step = max(1, self.config.frozen_stride)
        sample = np.ascontiguousarray(frame[::step, ::step])
        last, self._last_sample = self._last_sample, sample
        if last is None or last.shape != sample.shape or not np.array_equal(last, sample):
            self._same_since = now
            return 0.0
        return now - self._same_since

    def _status(self, ok: bool, message: str) -> None:
        try:
            self.on_status(ok, message)
        except Exception:  # pragma: no cover - a status listener must not kill the loop
            log.exception("camera status listener failed")


def attach_camera_status(referee: Referee) -> Callable[[bool, str], None]:
    """A camera status callback that shows the camera's state on the referee (and alerts)."""

    def on_status(ok: bool, message: str) -> None:
        referee.camera.update(ok=ok, message=message)
        if ok:
            referee.clear_alert(CAMERA_LOST)
        else:
            referee.report_alert(CAMERA_LOST, "warning", message)

    return on_status


# ---------------------------------------------------------------------- replay
@dataclass
class ReplayStats:
    frames: int = 0
    dice_events: int = 0
    seconds: float = 0.0
    video_seconds: float = 0.0
    frame_errors: int = 0

    @property
    def fps(self) -> float:
        return self.frames / self.seconds if self.seconds > 0 else 0.0

    @property
    def realtime_factor(self) -> float:
        return self.video_seconds / self.seconds if self.seconds > 0 else 0.0


class VideoClock:
    """The referee's clock during a replay: the recording's own time."""

    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def video_frames(path: str) -> Iterator[tuple[Frame, float]]:
    """Every frame of a video file with its time in the video (seconds)."""
    cap = open_capture(path)
    try:
        fps = float(cap.get(5) or 0.0) or 10.0
        index = 0
        while True:
            ok, frame = cap.read()
            if not ok or frame is None:
                return
            yield frame, index / fps
            index += 1
    finally:
        cap.release()


def replay(
    frames: Iterable[tuple[Frame, float]],
    dice: Iterable[tuple[float, Any]],
    referee: Referee,
    reader: FrameReader,
    clock: VideoClock,
    *,
    speed: float = 0.0,
    stop: threading.Event | None = None,
    on_frame: Callable[[Frame, BoardReading, float], None] | None = None,
) -> ReplayStats:
    """Run a recording through ``reader`` and ``referee`` in video time.

    ``dice``: (t, event) pairs in time order (a dice-log's entries); each is delivered before the
    first frame at or after its time. ``speed`` 0 runs as fast as possible; otherwise frames are
    paced to ``speed`` times real time. Deterministic for a given recording.
    """
    stats = ReplayStats()
    pending = list(dice)
    pending.reverse()
    wall0 = time.monotonic()
    stop = stop or threading.Event()
    for frame, t in frames:
        if stop.is_set():
            break
        if speed > 0:
            delay = wall0 + t / speed - time.monotonic()
            if delay > 0 and stop.wait(delay):
                break
        while pending and pending[-1][0] <= t:
            te, event = pending.pop()
            clock.t = te
            referee.on_dice_event(event)
            stats.dice_events += 1
        clock.t = t
        try:
            reading = reader.read(frame)
        except FrameSizeError:
            raise  # every frame of the recording is the same shape
        except ValueError as exc:
            stats.frame_errors += 1
            log.warning("frame at %.2fs could not be read: %s", t, exc)
            continue
        report_view(referee, reader)
        referee.on_reading(reading, t)
        if on_frame is not None:
            on_frame(frame, reading, t)
        stats.frames += 1
        stats.video_seconds = t
    while pending and not stop.is_set():
        te, event = pending.pop()
        clock.t = te
        referee.on_dice_event(event)
        stats.dice_events += 1
    stats.seconds = time.monotonic() - wall0
    return stats
