"""The dashboard's calibration page, served by the calibration package on the live camera."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from nardy.calibration.profile import Profile
from nardy.vision.geometry import BoardGeometry

Frame = NDArray[np.uint8]
Corners = tuple[tuple[float, float], tuple[float, float], tuple[float, float], tuple[float, float]]
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.-]{0,63}$")


class LiveCalibration:
    """``nardy.web.services.CalibrationService`` over the camera's latest frame.

    ``grab`` returns the newest camera frame (None before the first); ``switch`` makes the live
    session read with another profile. Profiles are JSON files in ``folder``.
    """

    def __init__(
        self,
        grab: Callable[[], Frame | None],
        switch: Callable[[Profile], None],
        folder: Path,
        variant: str,
        current: Profile | None = None,
        current_name: str | None = None,
    ) -> None:
        self.grab = grab
        self.switch = switch
        self.folder = folder
        self.variant = variant
        self.profile = current
        self.name = current_name
        self._lock = threading.Lock()
        self._still: Frame | None = None
        self._learned: Any = None

    # ------------------------------------------------------------------ pictures
    def _frame(self) -> Frame:
        with self._lock:
            frame = self._still
        if frame is None:
            raise RuntimeError("take a snapshot first")
        return frame

    def snapshot(self) -> Any:
        from nardy.web.services import Picture

        frame = self.grab()
        if frame is None:
            raise RuntimeError("there is no camera picture yet")
        with self._lock:
            self._still = frame.copy()
            self._learned = None
        return Picture(_jpeg(frame), frame.shape[1], frame.shape[0])

    def auto_corners(self) -> Any:
        from nardy.calibration.config import FinderConfig
        from nardy.calibration.finder import find_board
        from nardy.web.services import CornerGuess

        finding = find_board(FinderConfig(), self._frame())
        if finding.corners is None:
            return None
        corners = tuple((float(x), float(y)) for x, y in finding.corners)
        return CornerGuess(corners, float(finding.confidence), "auto")  # type: ignore[arg-type]

    def rectify(self, corners: Corners) -> Any:
        import cv2

        from nardy.vision.config import RecognizerConfig
        from nardy.vision.recognizer import Recognizer
        from nardy.web.services import Picture, Rectified

        frame = self._frame()
        pts = _check_corners(corners, frame)
        g = BoardGeometry()
        width = 800
        height = round(width * g.height)
        board = np.array([[0, 0], [width, 0], [width, height], [0, height]], dtype=np.float32)
        h = cv2.getPerspectiveTransform(pts.astype(np.float32), board)
        top = np.asarray(cv2.warpPerspective(frame, h, (width, height)), dtype=np.uint8)
        # what is seen on the board, each place read on its own (layout() would make up the count of
        # fifteen a side from the trays, which is not what a person setting up wants to know)
        layout = Recognizer(RecognizerConfig(), pts).read(frame).point_layout()
        light = layout.total("light") - layout.off.light
        dark = layout.total("dark") - layout.off.dark
        note = f"read {light} light and {dark} dark checkers"
        if light + dark < 30:
            note += f": {30 - light - dark} may be hidden or off the board"
        return Rectified(Picture(_jpeg(top), width, height), (), note)

    def learn_colours(self, corners: Corners) -> Mapping[str, Any]:
        from nardy.calibration.colours import ColourConfig, learn_from_start

        frame = self._frame()
        pts = _check_corners(corners, frame)
        learned = learn_from_start(ColourConfig(), frame, pts, self.variant)
        with self._lock:
            self._learned = learned
        light, dark = learned.colours.prototypes()
        return {
            "light": _hex(light),
            "dark": _hex(dark),
            "orientation": learned.orientation.to_json(),
            "separation": round(float(learned.separation), 1),
            "checker_diameter": round(float(learned.checker_diameter), 3),
        }

    # ------------------------------------------------------------------ profiles
    def save_profile(self, name: str, corners: Corners) -> str:
        if not _NAME.match(name):
            raise ValueError("a profile name is letters, digits, spaces, '-', '_' or '.'")
        frame = self._frame()
        pts = _check_corners(corners, frame)
        with self._lock:
            learned = self._learned
        base = self.profile
        profile = Profile(
            corners=tuple((float(x), float(y)) for x, y in pts),
            image_size=(frame.shape[1], frame.shape[0]),
            geometry=base.geometry if base is not None else _measured(frame, pts),
            variant=self.variant,
            orientation=learned.orientation if learned is not None else (base.orientation if base else None),
            orientation_source="start"
            if learned is not None
            else (base.orientation_source if base else None),
            corners_source="manual",
            colours=learned.colours if learned is not None else (base.colours if base else None),
            intrinsics=base.intrinsics if base is not None else None,
        )
        self.folder.mkdir(parents=True, exist_ok=True)
        path = profile.save(self.folder / f"{name}.json")
        return str(path)

    def profiles(self) -> Sequence[str]:
        if not self.folder.is_dir():
            return []
        return sorted(p.stem for p in self.folder.glob("*.json"))

    def current_profile(self) -> str | None:
        return self.name

    def use_profile(self, name: str) -> None:
        if name not in self.profiles():
            raise KeyError(name)
        profile = Profile.load(self.folder / f"{name}.json")
        self.switch(profile)
        self.profile = profile
        self.name = name


def _measured(frame: Frame, corners: NDArray[np.float64]) -> BoardGeometry:
    """The default proportions with the bar's width and the height read off ``frame`` where they can
    be (a folding board's hinge, a squarer board), as ``nardy calibrate board`` stores them."""
    from nardy.vision.config import RecognizerConfig
    from nardy.vision.proportions import with_measured_proportions

    return with_measured_proportions(RecognizerConfig(), np.asarray(frame, dtype=np.uint8), corners)


def _check_corners(corners: Corners, frame: Frame) -> NDArray[np.float64]:
    pts = np.asarray(corners, dtype=np.float64).reshape(4, 2)
    h, w = frame.shape[:2]
    if not np.all(np.isfinite(pts)) or pts.min() < -w or pts[:, 0].max() > 2 * w or pts[:, 1].max() > 2 * h:
        raise ValueError("the corners must lie on (or near) the picture")
    return pts


def _hex(lab: NDArray[np.floating]) -> str:
    import cv2

    pixel = np.asarray(lab, dtype=np.float32).reshape(1, 1, 3).clip(0, 255).astype(np.uint8)
    b, g, r = (int(v) for v in cv2.cvtColor(pixel, cv2.COLOR_LAB2BGR)[0, 0])
    return f"#{r:02x}{g:02x}{b:02x}"


def _jpeg(image: Frame) -> bytes:
    import cv2

    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85])
    if not ok:
        raise ValueError("could not encode a JPEG")
    return bytes(data.tobytes())
