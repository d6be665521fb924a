"""Getting one frame to calibrate from: a camera index, an image or video file, or a stream URL."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"}


class SourceError(OSError):
    """No frame could be read from the source."""


def open_video(
    source: str | int,
    *,
    open_timeout: float = 5.0,
    read_timeout: float = 3.0,
    size: tuple[int, int] | None = None,
) -> cv2.VideoCapture:
    """``cv2.VideoCapture`` on a camera index (an int, or a string of digits), a file or a URL (not
    checked for being open). A URL (``rtsp://``, ``http://``) is given ``open_timeout`` seconds to
    connect and ``read_timeout`` for each frame (0: the library's own, half a minute), so a network
    camera that stalls is noticed within seconds. A camera index is asked for frames of ``size``
    (width, height) when given: most webcams open at 640x480 otherwise, whatever they can do; the
    camera picks the nearest it has."""
    if isinstance(source, int) or source.isdigit():
        cap = cv2.VideoCapture(int(source))
        if size is not None and cap.isOpened():
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, float(size[0]))
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, float(size[1]))
        return cap
    if "://" in source:
        params: list[int] = []
        if open_timeout > 0:
            params += [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, int(open_timeout * 1000)]
        if read_timeout > 0:
            params += [cv2.CAP_PROP_READ_TIMEOUT_MSEC, int(read_timeout * 1000)]
        return cv2.VideoCapture(source, cv2.CAP_ANY, params)
    return cv2.VideoCapture(source)


def read_frame(source: str, *, warmup: int = 5, size: tuple[int, int] | None = None) -> NDArray[np.uint8]:
    """One (H, W, 3) uint8 BGR frame from ``source``: ``"0"`` (camera index), an image file, or anything
    OpenCV can open as video (a file, ``rtsp://``, ``http://``). Cameras get ``warmup`` frames to settle
    their exposure first, and are asked for ``size`` (``open_video``)."""
    path = Path(source)
    if path.suffix.lower() in IMAGE_SUFFIXES:
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise SourceError(f"cannot read image {source}")
        return np.asarray(image, dtype=np.uint8)
    cap = open_video(source, size=size)
    try:
        if not cap.isOpened():
            raise SourceError(f"cannot open camera or video {source!r}")
        frame = None
        for _ in range(1 + (warmup if source.isdigit() else 0)):
            ok, got = cap.read()
            if ok:
                frame = got
        if frame is None:
            raise SourceError(f"no frame from {source!r}")
        return np.asarray(frame, dtype=np.uint8)
    finally:
        cap.release()
