"""The board seen from straight above, as a texture: field, points, bar, frame and tray.

``board_texture`` returns an (H, W, 3) float32 BGR image in 0..255 covering
``geometry.outer_rect()`` at ``px_per_unit`` pixels per board unit; the renderer warps it into the
camera view.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from nardy.vision.geometry import POINTS_PER_ROW, ROWS, BoardGeometry
from nardy.vision.style import BGR, BoardStyle, Material, Ornament

Image = NDArray[np.float32]


def point_parity(row: str, index: int) -> int:
    """Which of a style's two point colours (``style.points``) the point ``index`` (0-11 from the
    row's left) of ``row`` is drawn in: the colours alternate, and facing points differ."""
    return index % 2 if row == "top" else (index + 1) % 2


def _noise(rng: np.random.Generator, shape: tuple[int, int], sigma: float) -> Image:
    """Smooth noise with unit standard deviation, correlation length ``sigma`` pixels."""
    small = (max(2, int(shape[1] / max(sigma, 1.0)) + 2), max(2, int(shape[0] / max(sigma, 1.0)) + 2))
    n = rng.standard_normal((small[1], small[0])).astype(np.float32)
    big = cv2.resize(n, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC)
    return np.asarray(big / (big.std() + 1e-6), dtype=np.float32)


def material(
    rng: np.random.Generator,
    shape: tuple[int, int],
    colour: BGR,
    kind: Material,
    scale: float,
    strength: float,
    px_per_unit: float,
) -> Image:
    """A patch of felt, wood or paint: (h, w, 3) float32 BGR."""
    h, w = shape
    base = np.asarray(colour, dtype=np.float32)
    if kind == "wood":
        yy = np.arange(h, dtype=np.float32)[:, None] / px_per_unit
        warp = _noise(rng, shape, 0.15 * px_per_unit * scale) * 0.04 * scale
        freq = float(rng.uniform(35, 80)) / scale
        rings = np.sin(2 * np.pi * freq * (yy + warp)) * 0.5 + 0.5
        fibre = _noise(rng, (h, max(2, w // 40)), 1.0)
        fibre = np.asarray(cv2.resize(fibre, (w, h), interpolation=cv2.INTER_LINEAR), dtype=np.float32)
        shade = 1.0 + strength * (0.10 * (rings**3 - 0.3) + 0.04 * fibre + 0.05 * _noise(rng, shape, 80))
        out = base[None, None, :] * shade[:, :, None]
        if rng.random() < 0.5:
            out = np.ascontiguousarray(out.transpose(1, 0, 2))
            out = cv2.resize(out, (w, h))
    elif kind == "felt":
        fine = rng.standard_normal((h, w)).astype(np.float32)
        fine = np.asarray(cv2.GaussianBlur(fine, (0, 0), 0.8), dtype=np.float32)
        shade = 1.0 + strength * (0.05 * fine / (fine.std() + 1e-6) + 0.03 * _noise(rng, shape, 60 * scale))
        out = base[None, None, :] * shade[:, :, None]
    else:
        shade = 1.0 + strength * 0.02 * _noise(rng, shape, 40 * scale)
        out = base[None, None, :] * shade[:, :, None]
    return np.asarray(np.clip(out, 0, 255), dtype=np.float32)


def _ornament_mask(
    geometry: BoardGeometry, ornament: Ornament, shape: tuple[int, int], to_px: NDArray[np.float64]
) -> Image:
    """(h, w) float32 coverage (0..1) of the carving of ``ornament`` on a texture of ``shape``
    (``to_px`` takes board units to its pixels): a medallion in the middle of each half."""
    scale = float(to_px[0, 0])
    mask = np.zeros(shape, np.float32)
    shift = 4  # sub-pixel precision of the drawing
    one = 1 << shift
    width = max(1, int(round(ornament.line * scale)))
    half = geometry.half_width
    for x0 in (0.0, half + geometry.bar_width):
        centre = np.array([x0 + half / 2, geometry.height / 2, 1.0]) @ to_px.T
        c = (int(round(centre[0] * one)), int(round(centre[1] * one)))
        outer = ornament.radius * half * scale
        for k in range(ornament.rings):
            r = outer * (1.0 - 0.18 * k)
            inner = k == ornament.rings - 1 and ornament.filled
            axes = (int(round(r * one)), int(round(r * one)))
            cv2.ellipse(mask, c, axes, 0.0, 0.0, 360.0, 1.0, -1 if inner else width, cv2.LINE_AA, shift)
        petal = outer * (1.0 - 0.18 * ornament.rings)
        for i in range(ornament.petals):
            angle = 360.0 * i / ornament.petals
            t = np.radians(angle)
            pc = (
                int(round((centre[0] + 0.5 * petal * np.cos(t)) * one)),
                int(round((centre[1] + 0.5 * petal * np.sin(t)) * one)),
            )
            axes = (int(round(0.5 * petal * one)), int(round(0.16 * petal * one)))
            cv2.ellipse(mask, pc, axes, angle, 0.0, 360.0, 1.0, width, cv2.LINE_AA, shift)
    return np.asarray(np.minimum(mask, 1.0), dtype=np.float32)


def board_texture(
    geometry: BoardGeometry, style: BoardStyle, rng: np.random.Generator, px_per_unit: float
) -> tuple[Image, NDArray[np.float64]]:
    """The top-down board texture and the 3x3 matrix taking board (x, y) to texture pixels."""
    x0, y0, x1, y1 = geometry.outer_rect()
    w, h = int(np.ceil((x1 - x0) * px_per_unit)), int(np.ceil((y1 - y0) * px_per_unit))
    to_px = np.array([[px_per_unit, 0, -x0 * px_per_unit], [0, px_per_unit, -y0 * px_per_unit], [0, 0, 1]])

    def px(points: NDArray[np.float64]) -> NDArray[np.int32]:
        p = points @ to_px[:2, :2].T + to_px[:2, 2]
        return np.asarray(np.round(p * 16), dtype=np.int32)

    def rect_mask(rx0: float, ry0: float, rx1: float, ry1: float) -> NDArray[np.uint8]:
        m = np.zeros((h, w), np.uint8)
        pts = np.array([[rx0, ry0], [rx1, ry0], [rx1, ry1], [rx0, ry1]])
        cv2.fillPoly(m, [px(pts)], 255, cv2.LINE_8, 4)
        return m

    frame_kind: Material = "wood" if style.field_material != "paint" or rng.random() < 0.5 else "paint"
    tex = material(
        rng, (h, w), style.frame, frame_kind, style.grain_scale, style.texture_strength, px_per_unit
    )
    field = material(
        rng, (h, w), style.field, style.field_material, style.grain_scale, style.texture_strength, px_per_unit
    )
    play = rect_mask(0.0, 0.0, 1.0, geometry.height) > 0
    if style.ornament is not None:
        field *= (1.0 - style.ornament.contrast * _ornament_mask(geometry, style.ornament, (h, w), to_px))[
            :, :, None
        ]
        np.clip(field, 0, 255, out=field)
    tex[play] = field[play]
    if geometry.tray_width > 0:
        tx0, ty0, tx1, ty1 = geometry.tray_rect()
        tray = (
            material(
                rng,
                (h, w),
                style.tray,
                style.field_material,
                style.grain_scale,
                style.texture_strength,
                px_per_unit,
            )
            * 0.85
        )
        m = rect_mask(tx0, ty0, tx1, ty1) > 0
        tex[m] = tray[m]
    bar = material(
        rng,
        (h, w),
        style.bar,
        "wood" if style.field_material == "wood" else style.field_material,
        style.grain_scale,
        style.texture_strength,
        px_per_unit,
    )
    bm = rect_mask(geometry.half_width, 0.0, geometry.half_width + geometry.bar_width, geometry.height) > 0
    tex[bm] = bar[bm]
    points = [
        material(rng, (h, w), c, style.point_material, style.grain_scale, style.texture_strength, px_per_unit)
        for c in style.points
    ]
    border = max(0.0, style.point_border) * px_per_unit
    border_colour = 0.5 * (np.asarray(style.points[0], np.float32) + np.asarray(style.points[1], np.float32))
    masks = [np.zeros((h, w), np.uint8), np.zeros((h, w), np.uint8)]
    outlines: list[NDArray[np.int32]] = []
    for row in ROWS:
        for i in range(POINTS_PER_ROW):
            tri = px(geometry.triangle(row, i))
            parity = point_parity(row, i)
            cv2.fillPoly(masks[parity], [tri], 255, cv2.LINE_AA, 4)
            outlines.append(tri)
    for parity in (0, 1):
        a = (masks[parity].astype(np.float32) / 255.0)[:, :, None]
        tex = tex * (1 - a) + points[parity] * a
    if border > 0.5:
        cv2.polylines(
            tex,
            outlines,
            True,
            tuple(float(c) for c in border_colour),
            max(1, int(round(border))),
            cv2.LINE_AA,
            4,
        )
    # a bevel: the frame darkens towards the playing area and the tray
    edge = cv2.GaussianBlur((~play).astype(np.float32), (0, 0), 0.004 * px_per_unit + 0.5)
    tex *= (1.0 - 0.25 * np.clip(1.0 - edge, 0, 1) * (~play))[:, :, None]
    line = np.zeros((h, w), np.float32)
    cv2.rectangle(
        line,
        (int(round(-x0 * px_per_unit)), int(round(-y0 * px_per_unit))),
        (int(round((1 - x0) * px_per_unit)), int(round((geometry.height - y0) * px_per_unit))),
        1.0,
        max(1, int(0.003 * px_per_unit)),
    )
    tex *= (1.0 - 0.4 * line)[:, :, None]
    return np.asarray(tex, dtype=np.float32), to_px
