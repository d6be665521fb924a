"""Stage 1 -- rectify: the camera frame to a top-down view of the playing area.

The view is taken on the plane of the tops of single checkers (``lift`` checker thicknesses above
the board), not the board's surface: from an oblique camera a checker's top is displaced from its
footprint by its height, and on the lifted plane every single-layer checker top is a circle exactly
over its point. The camera pose needed for that comes from the four corners alone (the focal length
is estimated from the homography, the principal point taken at the image centre), or from known
intrinsics, which also undo lens distortion.

``RectifyMaps`` is built once per camera position (``rectify_maps``) and applied per frame
(``rectify``).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from nardy.vision.camera import Camera, pose_from_homography
from nardy.vision.config import RectifyConfig
from nardy.vision.geometry import BoardGeometry, homography_to_image


@dataclass(frozen=True)
class Intrinsics:
    """A calibrated camera: 3x3 matrix ``k`` and OpenCV distortion coefficients ``dist``."""

    k: NDArray[np.float64]
    dist: NDArray[np.float64]


@dataclass(frozen=True)
class RectifyMaps:
    """Precomputed lookup from rectified pixels to frame pixels."""

    map1: NDArray[np.int16]
    map2: NDArray[np.uint16]
    levels: int
    """How many times the frame is halved (2x2 means) before the lookup."""
    roi: tuple[int, int, int, int]
    """(x0, y0, x1, y1) of the frame that the lookup reads (the board and a margin)."""
    px_per_unit: float
    """Rectified pixels per board unit."""
    size: tuple[int, int]
    """Rectified (width, height)."""
    camera: Camera
    """The camera pose recovered from the corners."""
    surface: NDArray[np.float32]
    """(h, w, 2) board (x, y) of the board's surface seen through each rectified pixel (from an
    oblique camera the surface under a checker top's plane is shifted)."""
    frame_size: tuple[int, int]
    frame_points: NDArray[np.float32]
    """(h, w, 2) frame (x, y) that each rectified pixel shows."""
    left: int = 0
    """Rectified x of the playing area's left edge (the view's strip beyond it, ``side_margin``)."""

    def from_board(self, x: float, y: float) -> tuple[float, float]:
        """Board (x, y), in board units on the plane the view is taken on -> rectified pixel (x, y)."""
        return x * self.px_per_unit + self.left, y * self.px_per_unit

    def to_frame(self, points: NDArray[np.floating]) -> NDArray[np.float64]:
        """Rectified (N, 2) pixel (x, y) -> frame (N, 2) pixel (x, y)."""
        p = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        h, w = self.frame_points.shape[:2]
        xi = np.clip(np.round(p[:, 0]).astype(int), 0, w - 1)
        yi = np.clip(np.round(p[:, 1]).astype(int), 0, h - 1)
        return np.asarray(self.frame_points[yi, xi], dtype=np.float64)


def rectify_maps(
    config: RectifyConfig,
    geometry: BoardGeometry,
    corners: NDArray[np.floating],
    frame_size: tuple[int, int],
    intrinsics: Intrinsics | None = None,
) -> RectifyMaps:
    """Lookup maps for frames of ``frame_size`` (width, height) whose playing area has image
    ``corners`` (4, 2) float (TL, TR, BR, BL)."""
    corners = np.asarray(corners, dtype=np.float64).reshape(4, 2)
    if intrinsics is not None:
        pts = cv2.undistortPoints(corners.reshape(-1, 1, 2), intrinsics.k, intrinsics.dist, P=intrinsics.k)
        flat = np.asarray(pts, dtype=np.float64).reshape(4, 2)
        h = homography_to_image(geometry, flat)
        cam = pose_from_homography(h, frame_size, focal=float(intrinsics.k[0, 0]))
        cam = Camera(intrinsics.k, cam.r, cam.t, frame_size)
    else:
        h = homography_to_image(geometry, corners)
        cam = pose_from_homography(h, frame_size, default_focal=config.default_focal)
    s = config.point_px / geometry.point_width
    w, hh = int(round(s)), int(round(s * geometry.height))
    left = int(round(config.side_margin * config.point_px))
    w += 2 * left
    xs = (np.arange(w, dtype=np.float64) - left + 0.5) / s
    ys = (np.arange(hh, dtype=np.float64) + 0.5) / s
    gx, gy = np.meshgrid(xs, ys)
    z = -config.lift * geometry.checker_height
    board = np.column_stack([gx.ravel(), gy.ravel(), np.full(gx.size, z)])
    if intrinsics is not None:
        rvec, _ = cv2.Rodrigues(cam.r)
        img, _ = cv2.projectPoints(board.reshape(-1, 1, 3), rvec, cam.t, intrinsics.k, intrinsics.dist)
        pix = np.asarray(img, dtype=np.float64).reshape(-1, 2)
    else:
        # the corners fix the board plane exactly; the lift is a small correction from the pose
        lift = cam.project(board, distort=False) - cam.project(board * [1, 1, 0], distort=False)
        q = board[:, :2] @ h[:, :2].T + h[:, 2]
        pix = q[:, :2] / q[:, 2:3] + lift
    pix = np.asarray(pix.reshape(hh, w, 2), dtype=np.float64)
    if intrinsics is not None:
        flat_pix = cv2.undistortPoints(pix.reshape(-1, 1, 2), intrinsics.k, intrinsics.dist, P=intrinsics.k)
        flat_pix = np.asarray(flat_pix, dtype=np.float64).reshape(-1, 2)
    else:
        flat_pix = pix.reshape(-1, 2)
    hinv = np.linalg.inv(h)
    q = flat_pix @ hinv[:, :2].T + hinv[:, 2]
    surface = (q[:, :2] / q[:, 2:3]).reshape(hh, w, 2).astype(np.float32)
    # how many frame pixels one rectified pixel spans: halve the frame while that is over the limit
    span = float(np.median(np.linalg.norm(np.diff(pix, axis=1), axis=2)))
    levels = 0
    while config.prefilter and span / (2**levels) > config.max_span and levels < 3:
        levels += 1
    frame_points = pix.astype(np.float32)
    step = 2**levels  # frame pixels per pixel of the halved frame
    margin = 4 * step
    x0, y0 = (int(max(0, np.floor(v) - margin)) for v in pix.reshape(-1, 2).min(axis=0))
    x1 = int(min(frame_size[0], np.ceil(pix[:, :, 0].max()) + margin))
    y1 = int(min(frame_size[1], np.ceil(pix[:, :, 1].max()) + margin))
    # a crop whose sides are whole multiples of the halving's step is averaged in exact blocks
    # (and by OpenCV's quick path); it gives up less of the margin than one step
    x1, y1 = x0 + (x1 - x0) // step * step, y0 + (y1 - y0) // step * step
    if x1 <= x0 or y1 <= y0:
        raise ValueError(f"the board corners {corners.tolist()} lie outside the frame")
    pix = (pix - [x0, y0] + 0.5) / step - 0.5
    m1, m2 = cv2.convertMaps(pix[:, :, 0].astype(np.float32), pix[:, :, 1].astype(np.float32), cv2.CV_16SC2)
    return RectifyMaps(
        np.asarray(m1),
        np.asarray(m2),
        levels,
        (x0, y0, x1, y1),
        s,
        (w, hh),
        cam,
        surface,
        frame_size,
        frame_points,
        left,
    )


def rectify(maps: RectifyMaps, frame: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """frame (H, W, 3) uint8 BGR -> top-down playing area (h, w, 3) uint8 BGR, ``maps.size``."""
    if (frame.shape[1], frame.shape[0]) != maps.frame_size:
        raise ValueError(
            f"frame is {frame.shape[1]}x{frame.shape[0]}, the maps were made for "
            f"{maps.frame_size[0]}x{maps.frame_size[1]}"
        )
    x0, y0, x1, y1 = maps.roi
    src: NDArray[np.uint8] = frame[y0:y1, x0:x1]
    if maps.levels:
        # each block of 2**levels x 2**levels pixels averaged (the crop is whole blocks)
        size = ((x1 - x0) >> maps.levels, (y1 - y0) >> maps.levels)
        src = np.asarray(cv2.resize(src, size, interpolation=cv2.INTER_AREA), dtype=np.uint8)
    out = cv2.remap(src, maps.map1, maps.map2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(out, dtype=np.uint8)
