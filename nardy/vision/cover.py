"""Which places a hand covers in a rendered scene: the labels the "not settled" reading is judged by.

A place -- a point (``top[i]``, ``bottom[i]``), the ``bar`` or the tray (``off``) -- is *covered*
when a hand or arm hides, or its shadow darkens, at least ``share`` of a part of the board its
reading rests on: for a point, its column from base to tip, or its checkers' discs together with its
first slot at the base (where a count starts); the bar; the tray. Hiding is judged on the plane of
the checkers' tops, as the camera sees it; the shadow on the board's surface, as the renderer casts
it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace

import cv2
import numpy as np
from numpy.typing import NDArray

from nardy.vision.geometry import POINTS_PER_ROW, ROWS
from nardy.vision.layout import Colour
from nardy.vision.placement import Placed
from nardy.vision.render import Hand, draw_hand, hand_polygons
from nardy.vision.scene import Loose, Sample, Scene, random_dice, random_layout

PX_PER_UNIT = 200.0
"""Resolution of the board-plane raster the coverage is measured on (pixels per board width)."""


def place_masks(scene: Scene, checkers: Sequence[Placed] = ()) -> dict[str, list[NDArray[np.bool_]]]:
    """The areas each place's reading rests on, on a board-plane raster (``raster_transform``), as
    (h, w) bool masks: a point's column, and its checkers' discs with its first slot."""
    g = scene.geometry
    to_px, (w, h) = raster_transform(scene)
    s = PX_PER_UNIT

    def rect(x0: float, y0: float, x1: float, y1: float) -> NDArray[np.bool_]:
        m = np.zeros((h, w), np.uint8)
        a = to_px @ np.array([x0, y0, 1.0])
        b = to_px @ np.array([x1, y1, 1.0])
        cv2.rectangle(m, (int(round(a[0])), int(round(a[1]))), (int(round(b[0])), int(round(b[1]))), 1, -1)
        return m > 0

    out: dict[str, list[NDArray[np.bool_]]] = {}
    r = g.checker_radius
    for row in ROWS:
        for i in range(POINTS_PER_ROW):
            x = g.point_x(i)
            y0 = g.base_y(row)
            y1 = y0 + g.direction(row) * g.point_len
            column = rect(x - g.point_width / 2, min(y0, y1), x + g.point_width / 2, max(y0, y1))
            core = np.zeros((h, w), np.uint8)
            discs = [
                (c.x, c.y)
                for c in checkers
                if abs(c.x - x) < g.point_width / 2 and (c.y < g.height / 2) == (row == "top")
            ]
            for cx, cy in [g.slot(row, i, 0.0), *discs]:
                p = to_px @ np.array([cx, cy, 1.0])
                cv2.circle(core, (int(round(p[0])), int(round(p[1]))), int(round(r * s)), 1, -1)
            out[f"{row}[{i}]"] = [column, core > 0]
    out["bar"] = [rect(g.half_width, 0.0, g.half_width + g.bar_width, g.height)]
    out["off"] = [rect(*g.tray_rect())]
    return out


def raster_transform(scene: Scene) -> tuple[NDArray[np.float64], tuple[int, int]]:
    """3x3 board (x, y) -> raster pixel transform and the raster's (w, h): the outer board."""
    x0, y0, x1, y1 = scene.geometry.outer_rect()
    s = PX_PER_UNIT
    to_px = np.array([[s, 0.0, -x0 * s], [0.0, s, -y0 * s], [0.0, 0.0, 1.0]])
    return to_px, (int(np.ceil((x1 - x0) * s)), int(np.ceil((y1 - y0) * s)))


def hand_cover(scene: Scene, hands: Sequence[Hand]) -> NDArray[np.bool_]:
    """(h, w) bool on the board-plane raster: hidden by a hand (seen at the checkers' tops) or in its
    shadow."""
    to_px, (w, h) = raster_transform(scene)
    cam = scene.camera
    hidden = np.zeros((h, w), np.float32)
    if hands:
        img = np.zeros((cam.size[1], cam.size[0], 3), np.float32)
        seen = np.zeros((cam.size[1], cam.size[0]), np.float32)
        for hand in hands:
            seen = np.maximum(seen, draw_hand(img, cam, hand))
        # board raster -> image on the plane of single checkers' tops
        to_image = cam.plane_homography(-scene.geometry.checker_height) @ np.linalg.inv(to_px)
        hidden = np.asarray(
            cv2.warpPerspective(seen, to_image, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP),
            dtype=np.float32,
        )
    shadow = np.zeros((h, w), np.uint8)
    light = np.asarray(scene.lighting.shadow_direction, dtype=np.float64)
    for hand in hands:
        arm, parts = hand_polygons(hand)
        for poly in [arm, *parts]:
            q = (poly + light * hand.height) @ to_px[:2, :2].T + to_px[:2, 2]
            cv2.fillPoly(shadow, [np.round(q).astype(np.int32)], 1)
    return np.asarray((hidden > 0.5) | (shadow > 0), dtype=np.bool_)


def covered_places(
    scene: Scene, hands: Sequence[Hand], checkers: Sequence[Placed] = (), share: float = 0.25
) -> tuple[str, ...]:
    """The places (``top[i]``, ``bottom[i]``, ``bar``, ``off``) at least ``share`` hidden or shadowed
    by ``hands``; ``checkers`` (a ``Sample``'s) extend each point's area to its own discs."""
    cover = hand_cover(scene, hands)
    out = []
    for name, areas in place_masks(scene, checkers).items():
        if any(m.any() and float(cover[m].mean()) >= share for m in areas):
            out.append(name)
    return tuple(out)


SKINS = ((120, 150, 200), (95, 125, 175), (70, 95, 140), (45, 65, 100), (150, 175, 215))
"""Skin tones (BGR) of the hands in ``hand_set``."""
SLEEVES = ((80, 60, 50), (40, 40, 40), (200, 200, 205), (40, 40, 150), (60, 110, 60), (150, 110, 60))
"""Sleeve colours (BGR) of the arms in ``hand_set``: navy, black, white, red, green, blue."""


def hand_set(
    n: int, seed: int, *, size: tuple[int, int] = (1280, 720), tilt: tuple[float, float] = (0.0, 50.0)
) -> Iterator[tuple[Scene, Sample, tuple[Hand, ...]]]:
    """``n`` rendered frames with a hand over the board, each on a new random scene, seeded: the
    fingertips on the top checker of a stack (about to lift it) or over a point (putting one down,
    sometimes holding it), the arm reaching from the near or the far side of the table."""
    for k in range(n):
        rng = np.random.default_rng([seed, 7, k])
        scene = Scene.random(rng, size=size, tilt=tilt)
        layout = random_layout(rng)
        g = scene.geometry
        taken = [(row, i, s.count) for row, i, s in layout.stacks() if s.count]
        if taken and rng.random() < 0.6:
            row, i, count = taken[int(rng.integers(len(taken)))]
            x, y = g.slot(row, i, float(min(count - 1, 4)))
        else:
            row = "top" if rng.random() < 0.5 else "bottom"
            x, y = g.slot(row, int(rng.integers(12)), float(rng.uniform(0, 4)))
        near = rng.random() < 0.7
        hand = replace(
            Hand(x, y),
            from_deg=float(rng.uniform(-40, 40) + (0.0 if near else 180.0)),
            height=float(rng.uniform(0.05, 0.14)),
            skin=SKINS[int(rng.integers(len(SKINS)))],
            sleeve=SLEEVES[int(rng.integers(len(SLEEVES)))],
            scale=float(rng.uniform(0.9, 1.2)),
        )
        loose: tuple[Loose, ...] = ()
        if rng.random() < 0.3:
            colour: Colour = "light" if rng.random() < 0.5 else "dark"
            loose = (Loose(colour, x, y, lift=float(rng.uniform(0.0, 0.03))),)
        dice = random_dice(scene, layout, rng, int(rng.integers(0, 3)))
        sample = scene.render(layout, dice=dice, hands=(hand,), loose=loose, rng=rng)
        sample.meta["index"] = k
        sample.meta["dice"], sample.meta["loose"] = dice, loose  # to draw the same frame again
        yield scene, sample, (hand,)
