import dataclasses

import cv2
import numpy as np
import pytest

from nardy.vision.config import RecognizerConfig, RectifyConfig
from nardy.vision.detect import Detector
from nardy.vision.geometry import BoardGeometry
from nardy.vision.masks import OUTSIDE, board_masks
from nardy.vision.recognizer import Recognizer
from nardy.vision.rectify import rectify, rectify_maps


def test_halving_the_frame_first_keeps_the_lookup_where_it_was() -> None:
    """A board that fills the frame is halved before the lookup; the halved frame's pixels must be
    found where the lookup expects them. Against the lookup on the full frame (a smooth pattern, so
    neither view aliases), the two rectified views agree to 0.03 of a pixel (0.008 measured; a
    5-tap pyramid halving, whose pixels sit half a frame pixel from where 2x2 means do, was 0.09
    and 0.24 pixels off)."""
    size = (1280, 720)
    corners = np.array([[140.0, 60.0], [1150.0, 70.0], [1160.0, 660.0], [130.0, 650.0]])
    rng = np.random.default_rng(3)
    noise = cv2.GaussianBlur((rng.random((size[1], size[0])) * 255).astype(np.float32), (0, 0), 4.0)
    grey = cv2.normalize(noise, None, 0, 255, cv2.NORM_MINMAX).astype(np.uint8)
    frame = np.asarray(cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR), dtype=np.uint8)
    config = RectifyConfig()
    halved = rectify_maps(config, BoardGeometry(), corners, size)
    full = rectify_maps(dataclasses.replace(config, prefilter=False), BoardGeometry(), corners, size)
    assert halved.levels == 1 and full.levels == 0
    a, b = (cv2.cvtColor(rectify(m, frame), cv2.COLOR_BGR2GRAY).astype(np.float64) for m in (halved, full))
    (dx, dy), response = cv2.phaseCorrelate(a, b)
    assert response > 0.5
    assert abs(dx) < 0.03 and abs(dy) < 0.03


def test_the_halved_crop_is_whole_blocks_inside_the_frame() -> None:
    """Whatever the corners, the crop the lookup reads is whole blocks (so each halved pixel is the
    mean of a whole block) and lies inside the frame."""
    rng = np.random.default_rng(11)
    for _ in range(20):
        w, h = int(rng.integers(900, 2000)), int(rng.integers(600, 1200))
        x0, y0 = rng.uniform(0, 0.15) * w, rng.uniform(0, 0.15) * h
        x1, y1 = rng.uniform(0.85, 1.0) * w - 1, rng.uniform(0.85, 1.0) * h - 1
        corners = np.array([[x0, y0], [x1, y0 + 5], [x1 - 7, y1], [x0 + 3, y1]])
        maps = rectify_maps(RectifyConfig(), BoardGeometry(), corners, (w, h))
        rx0, ry0, rx1, ry1 = maps.roi
        step = 2**maps.levels
        assert maps.levels >= 1
        assert 0 <= rx0 < rx1 <= w and 0 <= ry0 < ry1 <= h
        assert (rx1 - rx0) % step == 0 and (ry1 - ry0) % step == 0
        frame = np.zeros((h, w, 3), np.uint8)
        assert rectify(maps, frame).shape == (maps.size[1], maps.size[0], 3)


def test_a_side_margin_widens_the_view_and_moves_the_board_by_it() -> None:
    """With a side margin the view also shows a strip past the playing area's left and right edges:
    the playing area is the same pixels as without one, ``left`` pixels further right, and the
    masks' columns, bar and playing area move with it, the strips being OUTSIDE."""
    size = (1280, 720)
    corners = np.array([[260.0, 120.0], [1020.0, 135.0], [1080.0, 640.0], [200.0, 620.0]])
    geometry = BoardGeometry()
    plain = rectify_maps(RectifyConfig(side_margin=0.0), geometry, corners, size)
    wide = rectify_maps(RectifyConfig(side_margin=0.5), geometry, corners, size)
    left = wide.left
    assert plain.left == 0 and left == 10
    assert wide.size == (plain.size[0] + 2 * left, plain.size[1])
    inner = slice(left, left + plain.size[0])
    np.testing.assert_allclose(wide.frame_points[:, inner], plain.frame_points, atol=1e-3)
    np.testing.assert_allclose(wide.surface[:, inner], plain.surface, atol=1e-5)
    # the strips see past the edges: left of x = 0 and right of x = 1 on the board
    assert (wide.surface[:, : left - 1, 0] < 0).all() and (wide.surface[:, -left + 1 :, 0] > 1).all()
    a = board_masks(geometry, plain.px_per_unit, plain.size, 0.06, plain.surface)
    b = board_masks(geometry, wide.px_per_unit, wide.size, 0.06, wide.surface, left)
    assert a.area_x == (0, plain.size[0]) and b.area_x == (left, left + plain.size[0])
    np.testing.assert_allclose(b.column_x, a.column_x + left)
    assert b.bar_x == a.bar_x + left
    assert (b.region[:, inner] == a.region).mean() > 0.999
    assert (b.region[:, : left - 1] == OUTSIDE).all() and (b.region[:, -left + 1 :] == OUTSIDE).all()
    assert (b.place[:, inner] == a.place).all()


def test_a_detector_fitted_on_another_margin_is_refused(detector: Detector) -> None:
    """The detector reads the view it was fitted on: a configuration with another side margin is
    refused when the recognizer is made, not read wrong."""
    assert detector.side_margin == RecognizerConfig().rectify.side_margin
    corners = np.array([[260.0, 120.0], [1020.0, 135.0], [1080.0, 640.0], [200.0, 620.0]])
    config = RecognizerConfig()
    other = dataclasses.replace(config, rectify=dataclasses.replace(config.rectify, side_margin=0.25))
    with pytest.raises(ValueError, match="side margin"):
        Recognizer(other, corners, detector=detector)
    Recognizer(config, corners, detector=detector)  # the shipped pair
