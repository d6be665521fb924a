"""Getting one frame to calibrate from: a camera index, an image or video file, or a stream URL."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"}


class SourceError(OSError):
    """No frame could be read from the source."""


def read_frame(source: str, *, warmup: int = 5) -> NDArray[np.uint8]:
    """One (H, W, 3) uint8 BGR frame from ``source``: ``"0"`` (camera index), an image file, or anything
    OpenCV can open as video (a file, ``rtsp://``, ``http://``). Cameras get ``warmup`` frames to settle
    their exposure first."""
    path = Path(source)
    if path.suffix.lower() in IMAGE_SUFFIXES:
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise SourceError(f"cannot read image {source}")
        return np.asarray(image, dtype=np.uint8)
    cap = cv2.VideoCapture(int(source)) if source.isdigit() else cv2.VideoCapture(source)
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
