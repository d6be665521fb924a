from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from nardy.calibration.lens import (
    LensError,
    PatternSpec,
    calibrate_lens,
    distort_points,
    undistort_image,
    undistort_points,
)
from nardy.vision.camera import look_at
from nardy.vision.render import distortion_maps

SIZE = (960, 720)
FOCAL = 800.0
K1 = -0.15


def _chessboard_view(spec: PatternSpec, tilt: float, azimuth: float) -> np.ndarray:
    """A printed chessboard (``spec`` inner corners, 1 unit squares, on white paper) photographed by a
    camera with radial distortion ``K1``."""
    px = 40
    cols, rows = spec.cols + 1, spec.rows + 1
    board = np.full(((rows + 2) * px, (cols + 2) * px), 255, np.uint8)
    for r in range(rows):
        for c in range(cols):
            if (r + c) % 2 == 0:
                board[(r + 1) * px : (r + 2) * px, (c + 1) * px : (c + 2) * px] = 0
    # board pixel (u, v) <-> pattern units (u / px - 2, v / px - 2): inner corner (0, 0) at (2 px, 2 px)
    centre = np.array([(cols - 2) / 2.0, (rows - 2) / 2.0, 0.0])
    cam = look_at(centre, tilt, azimuth, 14.0, 0.0, FOCAL, SIZE, (K1, 0.0))
    to_board = np.array([[1.0 / px, 0, -2.0], [0, 1.0 / px, -2.0], [0, 0, 1]])
    h = cam.plane_homography(0.0) @ to_board
    flat = cv2.warpPerspective(cv2.cvtColor(board, cv2.COLOR_GRAY2BGR), h, SIZE, borderValue=(90, 110, 130))
    maps = distortion_maps(cam)
    assert maps is not None
    return np.asarray(cv2.remap(flat, maps[0], maps[1], cv2.INTER_LINEAR), dtype=np.uint8)


def test_a_few_chessboard_views_give_the_lens() -> None:
    spec = PatternSpec("chessboard", 8, 5)
    views = [
        _chessboard_view(spec, t, a) for t, a in ((5, 0), (30, 0), (30, 90), (30, 180), (35, 270), (25, 45))
    ]
    intr, used = calibrate_lens(spec, views)
    assert used >= 5
    assert intr.k[0, 0] == pytest.approx(FOCAL, rel=0.03)
    assert intr.rms < 1.0
    # OpenCV's k1 is in normalised units, the same as the renderer's
    assert intr.distortion[0] == pytest.approx(K1, abs=0.04)
    pts = np.array([[50.0, 60.0], [480.0, 360.0], [900.0, 700.0]])
    back = distort_points(intr, undistort_points(intr, pts, SIZE), SIZE)
    assert np.allclose(back, pts, atol=0.05)
    assert undistort_image(intr, views[0]).shape == views[0].shape


def test_too_few_views_are_refused() -> None:
    spec = PatternSpec("chessboard", 8, 5)
    blank = np.zeros((120, 160, 3), np.uint8)
    with pytest.raises(LensError, match="found in 0 of 2 views"):
        calibrate_lens(spec, [blank, blank])
    with pytest.raises(ValueError, match="too small"):
        PatternSpec("chessboard", 1, 5)
    assert math.isfinite(spec.object_points().sum())
