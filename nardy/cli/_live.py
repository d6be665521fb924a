"""Wiring a live session: camera, vision, dice, referee, recorder and dashboard.

``nardy serve``, ``nardy replay`` and ``nardy demo`` build a :class:`LiveSession` from their
options. It is the only place that knows every part; each part knows only its neighbours.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from nardy.calibration.drift import DriftConfig, DriftMonitor
from nardy.calibration.orientation import Orientation
from nardy.calibration.profile import Profile
from nardy.referee.events import DICE_DISCONNECTED
from nardy.referee.live import (
    CameraConfig,
    CameraLoop,
    FrameReader,
    attach_camera_status,
    read_live_frame,
    report_view,
)
from nardy.referee.match import MatchInfo
from nardy.referee.reading import BoardReading
from nardy.referee.recorder import Recorder
from nardy.referee.session import Referee
from nardy.referee.store import MatchStore
from nardy.vision.observation import Observation

log = logging.getLogger(__name__)

Frame = NDArray[np.uint8]


# ---------------------------------------------------------------------------- the latest picture
class LatestFrame:
    """The camera's newest frame, encoded only when someone asks (the dashboard, the recorder)."""

    def __init__(
        self,
        orientation: Orientation,
        corners: NDArray[np.float64],
        max_width: int = 960,
        size: tuple[int, int] | None = None,
    ) -> None:
        self.orientation = orientation
        self.corners = corners
        self.size = size
        """(width, height) of the frames ``corners`` are for (None: the frames' own): a camera at
        another resolution still has the outline drawn where the board is."""
        self.max_width = max_width
        self._lock = threading.Lock()
        self._frame: Frame | None = None
        self._reading: BoardReading | None = None
        self._seq = 0
        self._cache: tuple[int, Any] | None = None

    def update(self, frame: Frame, reading: BoardReading | None) -> None:
        with self._lock:
            self._frame = frame
            self._reading = reading
            self._seq += 1

    def latest_frame(self) -> Any:
        from nardy.web.services import CameraFrame

        with self._lock:
            frame, reading, seq = self._frame, self._reading, self._seq
            if self._cache is not None and self._cache[0] == seq:
                return self._cache[1]
        if frame is None:
            return None
        small = _shrink(frame, self.max_width)
        w, h = self.size or (frame.shape[1], frame.shape[0])
        scale = np.array([small.shape[1] / w, small.shape[0] / h])
        overlay = draw_reading(small, self.corners * scale, self.orientation, reading)
        result = CameraFrame(_jpeg(small), _jpeg(overlay), seq, small.shape[1], small.shape[0])
        with self._lock:
            self._cache = (seq, result)
        return result

    def raw(self) -> Frame | None:
        """The newest frame itself (for calibration)."""
        with self._lock:
            return self._frame

    def snapshot_jpeg(self, width: int = 320) -> bytes | None:
        """A small picture of the board now, for the match record."""
        with self._lock:
            frame = self._frame
        return None if frame is None else _jpeg(_shrink(frame, width), quality=70)


def _shrink(frame: Frame, width: int) -> Frame:
    import cv2

    if frame.shape[1] <= width:
        return frame
    height = round(frame.shape[0] * width / frame.shape[1])
    return np.asarray(cv2.resize(frame, (width, height), interpolation=cv2.INTER_AREA), dtype=np.uint8)


def _jpeg(image: Frame, quality: int = 80) -> bytes:
    import cv2

    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError("could not encode a JPEG")
    return bytes(data.tobytes())


def draw_reading(
    image: Frame, corners: NDArray[np.float64], orientation: Orientation, reading: BoardReading | None
) -> Frame:
    """``image`` with the board outline and what was read at each point (W3, B2) drawn on it."""
    import cv2

    from nardy.vision.geometry import BoardGeometry

    out = image.copy()
    pts = corners.reshape(4, 2).astype(np.float32)
    cv2.polylines(out, [pts.astype(np.int32)], True, (0, 220, 255), 2, cv2.LINE_AA)
    if reading is None:
        return out
    geometry = BoardGeometry()
    board = np.asarray(geometry.corners(), dtype=np.float32).reshape(4, 2)
    h = cv2.getPerspectiveTransform(board, pts)
    values, _, _ = reading.most_likely()
    colour = (0, 200, 0) if reading.settled else (0, 0, 255)
    for point in range(1, 25):
        n = values[point - 1]
        if n == 0:
            continue
        row, index = orientation.place(point)
        x, y = geometry.slot(row, index, 0.0)
        p = cv2.perspectiveTransform(np.array([[[x, y]]], dtype=np.float32), h)[0, 0]
        text = f"{'W' if n > 0 else 'B'}{abs(n)}"
        cv2.putText(out, text, (int(p[0]) - 12, int(p[1]) + 5), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 3)
        cv2.putText(out, text, (int(p[0]) - 12, int(p[1]) + 5), cv2.FONT_HERSHEY_SIMPLEX, 0.5, colour, 1)
    if not reading.settled:
        cv2.putText(out, "not settled", (10, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (0, 0, 255), 2)
    return out


# ---------------------------------------------------------------------------- video time
class Timeline:
    """Video time shared by a camera loop reading a file and a dice replay.

    The camera moves time on before each frame and waits until every dice event due by then has
    been delivered; the replay waits for time to reach each event. So a recording replays the
    same way at any speed, with both parts in their own threads as they are live.
    """

    def __init__(self, due: Sequence[float], patience: float = 10.0) -> None:
        self._cond = threading.Condition()
        self.t = 0.0
        self._due = deque(sorted(due))
        self._stopped = False
        self.patience = patience

    def now(self) -> float:
        return self.t

    def wait(self, seconds: float) -> bool:
        """The replay's wait: until video time has moved ``seconds`` on; True when stopping."""
        with self._cond:
            target = self.t + seconds
            while self.t < target - 1e-9 and not self._stopped:
                self._cond.wait(1.0)
            return self._stopped

    def delivered(self) -> None:
        with self._cond:
            if self._due:
                self._due.popleft()
            self._cond.notify_all()

    def advance(self, t: float) -> None:
        """Move to ``t``; return once the events due by then are delivered."""
        with self._cond:
            self.t = max(self.t, t)
            self._cond.notify_all()
            deadline = time.monotonic() + self.patience
            while self._due and self._due[0] <= self.t and not self._stopped:
                left = deadline - time.monotonic()
                if left <= 0:
                    log.warning("dice replay fell behind the video at %.2fs", self.t)
                    return
                self._cond.wait(left)

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify_all()


# ---------------------------------------------------------------------------- the session
@dataclass
class SessionOptions:
    camera: str
    """Camera index, video file or URL."""
    dice: str
    """``manual``, a serial URL (``/dev/ttyUSB0``, ``loop://``, ``socket://...``) or a dice log file."""
    profile: Profile
    variant: str
    db: Path
    match: MatchInfo
    host: str = "127.0.0.1"
    port: int = 8000
    mode: str = "referee"
    speed: float = 1.0
    """Video files and dice logs: times real time."""
    resume: bool = False
    web: bool = True
    lenient: bool = False
    watch_motion: bool = True
    """Take what changed since the last frame as a hand at work (off under a flickering lamp)."""
    options: dict[str, Any] = field(default_factory=dict)
    profile_path: Path | None = None
    """Where ``profile`` came from: the dashboard's calibration page saves and lists profiles there."""


class LiveSession:
    """All the running parts of one session; ``start()``, ``wait()``, ``stop()``."""

    def __init__(self, opts: SessionOptions) -> None:
        self.opts = opts
        self.store: MatchStore | None = None
        self.referee: Referee | None = None
        self.recorder: Recorder | None = None
        self.camera: CameraLoop | None = None
        self.dice: Any = None
        self.web: Any = None
        self.timeline: Timeline | None = None
        self.frames: LatestFrame | None = None
        self.reader: FrameReader | None = None
        self.ended = threading.Event()
        self.url = ""
        self.token = ""

    # ------------------------------------------------------------------ start
    def start(self) -> None:
        from nardy.referee.events import EventBus

        opts = self.opts
        profile = opts.profile
        orientation = profile.orientation or Orientation()
        replaying_dice = Path(opts.dice).is_file()
        camera_is_file = Path(opts.camera).is_file()
        clock: Callable[[], float] = time.monotonic
        if camera_is_file and replaying_dice:
            from nardy.device.dicelog import load_dice_log

            entries = load_dice_log(opts.dice)
            self.timeline = Timeline([e.t for e in entries])
            clock = self.timeline.now
        self.store = MatchStore.open(opts.db)
        bus = EventBus(clock)
        self.referee = Referee(opts.match, bus=bus, clock=clock)
        resumed = self.store.open_match() if opts.resume else None
        if resumed is not None:
            self.referee.resume(resumed)
        recognizer = profile.recognizer()
        self.reader = FrameReader(
            recognizer,
            orientation,
            self.referee.variant.name,
            drift=_drift_monitor(profile),
            size=profile.image_size,
            watch_motion=opts.watch_motion,
        )
        self.frames = LatestFrame(orientation, profile.corner_array, size=profile.image_size)
        if resumed is not None:
            self.recorder = Recorder(
                self.store,
                self.referee,
                self.frames.snapshot_jpeg,
                match_id=resumed.match_id,
                game_id=resumed.game_id,
                last_turn_id=resumed.last_turn_id,
            )
        else:
            self.recorder = Recorder(self.store, self.referee, self.frames.snapshot_jpeg)
        if opts.web:
            self._start_web()
        self._start_dice()
        self._start_camera(camera_is_file)

    def _start_web(self) -> None:
        from nardy.web.app import create_app, serve_in_thread
        from nardy.web.services import Services, Settings

        assert self.referee is not None and self.store is not None
        settings = Settings(mode=self.opts.mode, data_dir=self.opts.db.parent)  # type: ignore[arg-type]
        hints = None
        if self.opts.mode == "training":
            from nardy.hints import engine_for

            hints = engine_for
        calibration = None
        if self.opts.profile_path is not None and self.frames is not None:
            from nardy.cli._calibration import LiveCalibration

            calibration = LiveCalibration(
                self.frames.raw,
                self.use_profile,
                self.opts.profile_path.parent,
                self.referee.variant.name,
                self.opts.profile,
                self.opts.profile_path.stem,
            )
        from nardy.web.archive import StoreArchive

        services = Services(
            referee=self.referee,
            camera=self.frames,
            archive=StoreArchive(self.store),
            hints=hints,
            calibration=calibration,
            settings=settings,
        )
        self.web = serve_in_thread(create_app(services), self.opts.host, self.opts.port)
        port = self.web.port
        shown = "127.0.0.1" if self.opts.host in ("0.0.0.0", "::") else self.opts.host
        self.url = f"http://{shown}:{port}/"
        self.token = settings.token

    def _start_dice(self) -> None:
        referee = self.referee
        assert referee is not None
        opts = self.opts
        if opts.dice == "manual":
            return  # the dashboard's dice entry drives the referee directly
        if Path(opts.dice).is_file():
            from nardy.device.dicelog import load_dice_log
            from nardy.device.replay import ReplayDice

            entries = load_dice_log(opts.dice)
            if self.timeline is not None:
                timeline = self.timeline

                def sink(event: Any) -> None:
                    try:
                        referee.on_dice_event(event)
                    finally:
                        timeline.delivered()

                self.dice = ReplayDice(entries, sink, speed=1.0, clock=timeline.now, wait=timeline.wait)
            else:
                self.dice = ReplayDice(entries, referee.on_dice_event, speed=opts.speed)
            self.dice.start()
            return
        from nardy.device.serial_reader import ReaderConfig, SerialDiceReader

        self.dice = SerialDiceReader(
            opts.dice, referee.on_dice_event, config=ReaderConfig(lenient=opts.lenient)
        )
        self.dice.start()
        referee.report_alert(DICE_DISCONNECTED, "info", f"waiting for the dice on {opts.dice}")

    def _start_camera(self, is_file: bool) -> None:
        referee, reader, frames = self.referee, self.reader, self.frames
        assert referee is not None and reader is not None and frames is not None
        timeline = self.timeline

        def on_frame(frame: Frame, t: float) -> None:
            if timeline is not None:
                timeline.advance(t)
            reading = read_live_frame(referee, reader, frame)
            if reading is None:  # of another shape: the picture is still there to see
                frames.update(frame, None)
                return
            if reader.moved is not None:
                frames.corners = reader.recognizer.corners
            report_view(referee, reader)
            frames.update(frame, reading)
            referee.on_reading(reading, t if timeline is not None else None)

        config = CameraConfig(
            realtime_video=self.opts.speed > 0,
            speed=self.opts.speed or 1.0,
            camera_size=self.opts.profile.image_size,  # a webcam opens at 640x480 unless asked
        )
        self.camera = CameraLoop(
            self.opts.camera,
            on_frame,
            config=config,
            on_status=attach_camera_status(referee),
            on_end=self._camera_ended,
        )
        self.camera.start()

    def _camera_ended(self) -> None:
        if self.timeline is not None:
            # deliver what is left of the dice log after the last frame
            self.timeline.advance(float("inf"))
        self.ended.set()

    def use_profile(self, profile: Profile) -> None:
        """Read the board with another profile from the next frame on."""

        if self.reader is None or self.frames is None:
            raise RuntimeError("the session has not started")
        if profile.variant != self.reader.variant:
            raise ValueError(
                f"that profile is for {profile.variant} nardy, the match is {self.reader.variant}"
            )
        orientation = profile.orientation or Orientation()
        self.reader.drift = _drift_monitor(profile)
        # its corners, lens and colours, with the detector already loaded
        self.reader.use(profile.recognizer(detector=self.reader.recognizer.detector), profile.image_size)
        self.reader.orientation = orientation
        self.frames.orientation = orientation
        self.frames.corners = profile.corner_array
        self.frames.size = profile.image_size

    # ------------------------------------------------------------------ stop
    def wait(self) -> None:
        """Until the recording ends (a file) or Ctrl-C."""
        while not self.ended.wait(0.5):
            pass

    def stop(self) -> None:
        if self.timeline is not None:
            self.timeline.stop()
        if self.camera is not None:
            self.camera.stop()
        if self.dice is not None:
            try:
                self.dice.stop()
            except Exception:  # pragma: no cover - a dice source that fails to stop must not block the rest
                log.exception("stopping the dice source failed")
        if self.web is not None:
            self.web.stop()
        if self.recorder is not None:
            self.recorder.close()
        if self.store is not None:
            self.store.close()

    @property
    def last_observation(self) -> Observation | None:
        return None if self.reader is None else self.reader.last_observation


def _drift_monitor(profile: Profile) -> DriftMonitor:
    """Watches the camera for a nudge, from the profile's corners on."""
    return DriftMonitor(DriftConfig(), profile.corner_array, profile.geometry)
