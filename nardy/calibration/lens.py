"""The camera's lens: intrinsics from a few views of a chessboard or ChArUco pattern
(``cv2.calibrateCamera``), and undoing its distortion before the board is looked for.

Without intrinsics the finder fits a mild radial distortion itself (``nardy.calibration.refine.Lens``)
and the recognizer rectifies through the corners; intrinsics make both exact for strong lenses.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from nardy.calibration.profile import LensCalibration

F64 = NDArray[np.float64]


@dataclass(frozen=True)
class PatternSpec:
    """A calibration pattern: ``kind`` "chessboard" (``cols`` x ``rows`` *inner* corners) or "charuco"
    (``cols`` x ``rows`` squares, markers of ``dictionary``); ``square`` is the square side in any unit."""

    kind: str = "chessboard"
    cols: int = 9
    rows: int = 6
    square: float = 1.0
    marker: float = 0.7
    """ChArUco marker side as a fraction of the square."""
    dictionary: str = "DICT_4X4_50"

    def __post_init__(self) -> None:
        if self.kind not in ("chessboard", "charuco"):
            raise ValueError(f"pattern kind must be 'chessboard' or 'charuco', not {self.kind!r}")
        if self.cols < 2 or self.rows < 2:
            raise ValueError(f"a {self.cols}x{self.rows} pattern is too small")

    def object_points(self) -> F64:
        """(N, 3) corner positions on the pattern (z = 0), in the order OpenCV finds them."""
        n_cols, n_rows = (
            (self.cols, self.rows) if self.kind == "chessboard" else (self.cols - 1, self.rows - 1)
        )
        grid = np.mgrid[0:n_cols, 0:n_rows].T.reshape(-1, 2) * self.square
        if self.kind == "charuco":
            grid = grid + self.square
        return np.column_stack([grid, np.zeros(len(grid))]).astype(np.float64)

    def charuco_board(self) -> cv2.aruco.CharucoBoard:
        from nardy.calibration.markers import dictionary

        return cv2.aruco.CharucoBoard(
            (self.cols, self.rows), self.square, self.square * self.marker, dictionary(self.dictionary)
        )


class LensError(ValueError):
    """Too few usable views to calibrate the lens."""


def find_pattern(spec: PatternSpec, image: NDArray[np.uint8]) -> tuple[F64, F64] | None:
    """The pattern's corners in ``image`` (H, W, 3) uint8 BGR or grey: (object (N, 3), image (N, 2)), or
    None if it is not (fully enough) seen."""
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    if spec.kind == "chessboard":
        ok, corners = cv2.findChessboardCornersSB(grey, (spec.cols, spec.rows), flags=cv2.CALIB_CB_EXHAUSTIVE)
        if not ok or corners is None:
            return None
        return spec.object_points(), np.asarray(corners, dtype=np.float64).reshape(-1, 2)
    detector = cv2.aruco.CharucoDetector(spec.charuco_board())
    ch_corners, ch_ids, _, _ = detector.detectBoard(grey)
    if ch_ids is None or len(ch_ids) < 6:
        return None
    obj = spec.object_points()[np.asarray(ch_ids).reshape(-1)]
    return obj, np.asarray(ch_corners, dtype=np.float64).reshape(-1, 2)


def calibrate_lens(
    spec: PatternSpec, images: Sequence[NDArray[np.uint8]], *, min_views: int = 4, radial_only: bool = True
) -> tuple[LensCalibration, int]:
    """The lens from views of the pattern (all the same size); also returns how many views were used.

    ``radial_only`` keeps tangential distortion and k3 at zero, which a handful of views cannot
    pin down reliably.
    """
    if not images:
        raise LensError("no images to calibrate from")
    size = (images[0].shape[1], images[0].shape[0])
    objs, imgs = [], []
    for im in images:
        if (im.shape[1], im.shape[0]) != size:
            raise LensError(f"all views must be {size[0]}x{size[1]}, one is {im.shape[1]}x{im.shape[0]}")
        found = find_pattern(spec, im)
        if found is not None:
            objs.append(found[0].astype(np.float32))
            imgs.append(found[1].astype(np.float32).reshape(-1, 1, 2))
    if len(objs) < min_views:
        raise LensError(f"the pattern was found in {len(objs)} of {len(images)} views; need {min_views}")
    flags = cv2.CALIB_ZERO_TANGENT_DIST | cv2.CALIB_FIX_K3 if radial_only else 0
    rms, k, dist, _, _ = cv2.calibrateCamera(objs, imgs, size, None, None, flags=flags)
    d = np.asarray(dist, dtype=np.float64).reshape(-1)
    return LensCalibration.from_values(np.asarray(k, dtype=np.float64), d, size, float(rms)), len(objs)


def undistort_image(lens: LensCalibration, image: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """The frame as an ideal pinhole camera with the same matrix would see it."""
    intr = lens.for_size((image.shape[1], image.shape[0]))
    return np.asarray(cv2.undistort(image, intr.k, intr.dist), dtype=np.uint8)


def undistort_points(lens: LensCalibration, points: F64, size: tuple[int, int]) -> F64:
    """Image points (N, 2) of a frame of ``size`` -> where they are in the undistorted frame."""
    intr = lens.for_size(size)
    p = cv2.undistortPoints(np.asarray(points, np.float64).reshape(-1, 1, 2), intr.k, intr.dist, P=intr.k)
    return np.asarray(p, dtype=np.float64).reshape(-1, 2)


def distort_points(lens: LensCalibration, points: F64, size: tuple[int, int]) -> F64:
    """The inverse of ``undistort_points``."""
    intr = lens.for_size(size)
    k = intr.k
    p = np.asarray(points, np.float64).reshape(-1, 2)
    norm = np.column_stack([(p[:, 0] - k[0, 2]) / k[0, 0], (p[:, 1] - k[1, 2]) / k[1, 1], np.ones(len(p))])
    out, _ = cv2.projectPoints(norm.reshape(-1, 1, 3), np.zeros(3), np.zeros(3), k, intr.dist)
    return np.asarray(out, dtype=np.float64).reshape(-1, 2)
