"""Helpers for calibration tests and the finder benchmark: errors, clutter and markers on rendered frames."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
from numpy.typing import NDArray

from nardy.calibration.markers import CORNER_IDS, MODULES, sticker
from nardy.vision.scene import Scene


def corner_error(found: NDArray[np.float64] | None, truth: NDArray[np.float64]) -> float:
    """Largest corner error in pixels, over both namings of the board's half turn."""
    if found is None:
        return float("inf")
    return min(float(np.max(np.linalg.norm(found - np.roll(truth, s, axis=0), axis=1))) for s in (0, 2))


def board_mask(scene: Scene, margin: float = 0.03) -> NDArray[np.uint8]:
    """(H, W) uint8 255 where the board (frame and tray included, plus a margin) lies in the frame."""
    x0, y0, x1, y1 = scene.geometry.outer_rect()
    outline = scene.project(
        np.array(
            [
                [x0 - margin, y0 - margin],
                [x1 + margin, y0 - margin],
                [x1 + margin, y1 + margin],
                [x0 - margin, y1 + margin],
            ]
        )
    )
    mask = np.zeros((scene.size[1], scene.size[0]), np.uint8)
    cv2.fillPoly(mask, [np.round(outline).astype(np.int32)], 255)
    return mask


def add_clutter(
    image: NDArray[np.uint8], scene: Scene, rng: np.random.Generator, count: int = 6
) -> NDArray[np.uint8]:
    """Books, papers and phones (rectangles with straight edges, some with lines of text) lying beside the
    board, never on it."""
    out = image.copy()
    h, w = image.shape[:2]
    keep_off = board_mask(scene)
    layer = out.copy()
    drawn = np.zeros((h, w), np.uint8)
    for _ in range(count):
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        sw, sh = rng.uniform(0.08, 0.3) * w, rng.uniform(0.08, 0.3) * h
        angle = rng.uniform(0, 180)
        box = cv2.boxPoints(((cx, cy), (sw, sh), angle))
        colour = tuple(float(c) for c in rng.uniform(20, 240, 3))
        cv2.fillPoly(layer, [np.round(box).astype(np.int32)], colour, cv2.LINE_AA)
        cv2.fillPoly(drawn, [np.round(box).astype(np.int32)], 255)
        if rng.random() < 0.5:  # lines of text or ruled paper
            for k in range(1, 6):
                a = box[0] + (box[3] - box[0]) * k / 6
                b = box[1] + (box[2] - box[1]) * k / 6
                cv2.line(
                    layer,
                    tuple(np.round(a).astype(int)),
                    tuple(np.round(b).astype(int)),
                    (30, 30, 30),
                    1,
                    cv2.LINE_AA,
                )
    use = (drawn > 0) & (keep_off == 0)
    out[use] = layer[use]
    return out


def stick_markers(image: NDArray[np.uint8], scene: Scene, side: float) -> NDArray[np.uint8]:
    """The four corner stickers (marker plus a one-module white margin, ``side`` board units across) on
    the frame, each with its inner corner on its corner of the playing area."""
    out = image.copy()
    g = scene.geometry
    c = g.corners()
    outward = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], dtype=np.float64)
    px = 240
    for marker_id, corner, out_dir in zip(CORNER_IDS, c, outward, strict=True):
        st = sticker(marker_id, int(px * MODULES / (MODULES + 2)), 1.0)
        s = st.shape[0]
        far = corner + out_dir * side
        quad = np.array(
            [
                [min(corner[0], far[0]), min(corner[1], far[1])],
                [max(corner[0], far[0]), min(corner[1], far[1])],
                [max(corner[0], far[0]), max(corner[1], far[1])],
                [min(corner[0], far[0]), max(corner[1], far[1])],
            ]
        )
        dst = scene.project(quad)
        src = np.array([[0, 0], [s, 0], [s, s], [0, s]], dtype=np.float32)
        m = cv2.getPerspectiveTransform(src, dst.astype(np.float32))
        warped = cv2.warpPerspective(
            cv2.cvtColor(st, cv2.COLOR_GRAY2BGR), m, (out.shape[1], out.shape[0]), flags=cv2.INTER_AREA
        )
        mask = cv2.warpPerspective(np.full((s, s), 255, np.uint8), m, (out.shape[1], out.shape[0]))
        out[mask > 127] = warped[mask > 127]
    return out


def same_colour_frame(scene: Scene) -> Scene:
    """``scene`` with its frame, bar and tray the field's colour (a short side shows no edge)."""
    f = scene.style.field
    return Scene(
        dataclasses.replace(scene.style, frame=f, bar=f, tray=f),
        scene.camera_spec,
        scene.lighting,
        scene.effects,
        size=scene.size,
        seed=scene.seed,
    )
