"""Debug drawings: what calibration found, drawn on the frame for people to check."""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from nardy.calibration.refine import board_homography, model_segments
from nardy.vision.geometry import BoardGeometry

LABELS = ("TL", "TR", "BR", "BL")


def draw_board(
    image: NDArray[np.uint8],
    corners: NDArray[np.float64],
    geometry: BoardGeometry | None = None,
    *,
    text: str = "",
    colour: tuple[int, int, int] = (0, 0, 255),
    alternatives: tuple[NDArray[np.float64], ...] = (),
) -> NDArray[np.uint8]:
    """A copy of ``image`` (H, W, 3) uint8 BGR with the board's drawing at ``corners`` (4, 2): the outline,
    the bar and the points, the corners named, other candidates in grey and ``text`` at the top."""
    g = geometry or BoardGeometry()
    out = image.copy()
    for alt in alternatives:
        cv2.polylines(out, [np.round(alt).astype(np.int32)], True, (160, 160, 160), 1, cv2.LINE_AA)
    h = board_homography(g, np.asarray(corners, dtype=np.float64))
    thick = max(1, int(round(max(image.shape[:2]) / 600)))
    for seg in model_segments(g, (0.0, 1.0)):
        pts = np.array([seg.a, seg.b], dtype=np.float64)
        q = pts @ h[:, :2].T + h[:, 2]
        q = q[:, :2] / q[:, 2:3]
        cv2.line(
            out,
            tuple(np.round(q[0]).astype(int)),
            tuple(np.round(q[1]).astype(int)),
            colour,
            thick,
            cv2.LINE_AA,
        )
    for label, (x, y) in zip(LABELS, corners, strict=True):
        cv2.circle(out, (int(round(x)), int(round(y))), 4 * thick, (0, 255, 255), -1, cv2.LINE_AA)
        cv2.putText(
            out,
            label,
            (int(x) + 6 * thick, int(y) - 6 * thick),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.5 * thick,
            (0, 255, 255),
            thick,
            cv2.LINE_AA,
        )
    if text:
        cv2.putText(
            out,
            text,
            (10, 24 * thick),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.6 * thick,
            (0, 0, 0),
            3 * thick,
            cv2.LINE_AA,
        )
        cv2.putText(
            out,
            text,
            (10, 24 * thick),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.6 * thick,
            (255, 255, 255),
            thick,
            cv2.LINE_AA,
        )
    return np.asarray(out, dtype=np.uint8)
