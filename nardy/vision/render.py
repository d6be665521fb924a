"""Drawing a board scene through a camera: the pieces (checkers, dice, cube, a hand) and the
photographic effects (light, glare, lens, blur, noise, JPEG).

Everything here draws into float32 BGR images in 0..255; ``nardy.vision.scene`` assembles it into
frames. Objects are projected with ``nardy.vision.camera.Camera`` (pinhole, no distortion: the lens is
applied to the finished frame).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np
from numpy.typing import NDArray

from nardy.vision.camera import Camera
from nardy.vision.style import BGR, CheckerStyle

Image = NDArray[np.float32]
Array = NDArray[np.float64]

_SHIFT = 4
_ONE = 1 << _SHIFT


_FAR = 1e6
"""Pixels beyond this are far off the frame: an arm reaching from behind the camera projects
to huge or non-finite coordinates, which are pulled in to here (OpenCV clips the rest)."""


def _fix(points: Array) -> NDArray[np.int32]:
    """Pixel (..., 2) float coordinates -> OpenCV's fixed point with ``_SHIFT`` fractional bits."""
    finite = np.nan_to_num(np.asarray(points, dtype=np.float64), nan=0.0, posinf=_FAR, neginf=-_FAR)
    return np.asarray(np.round(np.clip(finite, -_FAR, _FAR) * _ONE), dtype=np.int32)


def _colour(c: BGR | NDArray[np.floating], factor: float = 1.0) -> tuple[float, float, float]:
    a = np.clip(np.asarray(c, dtype=np.float64) * factor, 0, 255)
    return (float(a[0]), float(a[1]), float(a[2]))


@dataclass(frozen=True)
class Die:
    """A die lying on the board: centre (x, y) in board units, ``value`` 1..6 on top, ``yaw``
    degrees, ``side`` in board units."""

    x: float
    y: float
    value: int = 1
    yaw: float = 0.0
    side: float = 0.034
    colour: BGR = (235, 240, 240)
    pips: BGR = (20, 20, 20)


@dataclass(frozen=True)
class Cube:
    """The doubling cube lying on the board, showing ``value`` (2..64)."""

    x: float
    y: float
    value: int = 64
    yaw: float = 0.0
    side: float = 0.045
    colour: BGR = (225, 235, 240)
    ink: BGR = (30, 30, 30)


@dataclass(frozen=True)
class Hand:
    """A hand reaching over the board: fingertips at board (x, y), the arm coming from
    ``from_deg`` (0: from beyond the bottom edge, 90: from the left), held ``height`` above the
    board (board units)."""

    x: float
    y: float
    from_deg: float = 0.0
    height: float = 0.08
    skin: BGR = (120, 150, 200)
    sleeve: BGR = (80, 60, 50)
    scale: float = 1.0


@dataclass(frozen=True)
class Lighting:
    """Light over the scene."""

    gain: float = 1.0
    """Overall exposure."""
    gradient: tuple[float, float] = (0.0, 0.0)
    """Relative change of brightness across the image in x and y (e.g. 0.3: 30% brighter on one side)."""
    vignette: float = 0.0
    """Darkening at the image corners (0..1)."""
    glare: tuple[tuple[float, float, float, float], ...] = ()
    """Glare spots as (x, y, radius, strength): image fractions, and 0..255 added at the centre."""
    shadow_direction: tuple[float, float] = (0.3, 0.4)
    """Horizontal shift of a shadow per unit of height (board x, y)."""
    shadow_strength: float = 0.45
    """How much a shadow darkens the board (0..1)."""
    colour_cast: BGR = (1.0, 1.0, 1.0)
    """Per-channel gain (white balance)."""


@dataclass(frozen=True)
class Effects:
    """The camera's imperfections."""

    blur: float = 0.0
    """Gaussian blur sigma in pixels."""
    motion: float = 0.0
    """Motion blur length in pixels."""
    noise: float = 2.0
    """Sensor noise standard deviation (0..255 scale)."""
    jpeg_quality: int = 90
    """JPEG quality the frame is compressed with (0: not compressed)."""


@dataclass
class Drawable:
    """A piece to draw, with its distance from the camera for painter's ordering."""

    depth: float
    kind: str
    payload: object = field(default=None)


def circle3d(x: float, y: float, z: float, radius: float, n: int) -> Array:
    a = np.linspace(0, 2 * math.pi, n, endpoint=False)
    return np.column_stack([x + radius * np.cos(a), y + radius * np.sin(a), np.full(n, z)])


def draw_checker(
    img: Image,
    cam: Camera,
    x: float,
    y: float,
    z0: float,
    radius: float,
    thickness: float,
    style: CheckerStyle,
    light_dir: tuple[float, float],
    n: int = 40,
    shade: float = 1.0,
) -> None:
    """Draw a flat checker whose bottom face is at height ``z0`` (negative: above the board)."""
    top_z = z0 - thickness
    bottom = cam.project(circle3d(x, y, z0, radius, n), distort=False)
    top = cam.project(circle3d(x, y, top_z, radius, n), distort=False)
    allp = np.vstack([bottom, top])
    x0, y0 = np.floor(allp.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(allp.max(axis=0)).astype(int) + 3
    hh, ww = img.shape[:2]
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, ww), min(y1, hh)
    if x1 <= x0 or y1 <= y0:
        return
    roi = img[y0:y1, x0:x1]
    work = roi.copy() if style.alpha < 1.0 else roi
    off = np.array([x0, y0], dtype=np.float64)
    top_colour = np.asarray(style.top, dtype=np.float64) * shade
    hull = cv2.convexHull(_fix(allp - off))
    cv2.fillConvexPoly(work, hull, _colour(top_colour, style.edge_darkening), cv2.LINE_AA, _SHIFT)
    # a darker line where the side meets the board
    cv2.polylines(
        work,
        [_fix(bottom - off)],
        True,
        _colour(top_colour, style.edge_darkening * 0.7),
        1,
        cv2.LINE_AA,
        _SHIFT,
    )
    top_px = _fix(top - off)
    cv2.fillPoly(work, [top_px], _colour(top_colour), cv2.LINE_AA, _SHIFT)
    rim = cam.project(circle3d(x, y, top_z, radius * 0.93, n), distort=False)
    cv2.polylines(work, [_fix(rim - off)], True, _colour(top_colour, 0.88), 1, cv2.LINE_AA, _SHIFT)
    if style.finish == "engraved":
        for frac in (0.72, 0.45):
            ring = cam.project(circle3d(x, y, top_z, radius * frac, n), distort=False)
            cv2.polylines(work, [_fix(ring - off)], True, _colour(top_colour, 0.72), 1, cv2.LINE_AA, _SHIFT)
    if style.finish == "glossy":
        hx, hy = x - light_dir[0] * radius * 0.9, y - light_dir[1] * radius * 0.9
        spot = cam.project(circle3d(hx, hy, top_z, radius * 0.28, 16), distort=False)
        layer = np.zeros_like(work[:, :, 0])
        cv2.fillPoly(layer, [_fix(spot - off)], 1.0, cv2.LINE_AA, _SHIFT)
        sigma = max(0.8, float(np.ptp(spot[:, 0])) * 0.3)
        layer = np.asarray(cv2.GaussianBlur(layer, (0, 0), sigma), dtype=np.float32)
        work += (layer * 90.0)[:, :, None]
    if style.alpha < 1.0:
        mask = np.zeros(work.shape[:2], np.float32)
        cv2.fillPoly(mask, [top_px], 1.0, cv2.LINE_AA, _SHIFT)
        a = (mask * (1.0 - style.alpha))[:, :, None]
        roi[:] = work * (1 - a) + roi * a


def _box_corners(x: float, y: float, side: float, yaw: float, sx: float, sy: float, height: float) -> Array:
    c, s = math.cos(math.radians(yaw)), math.sin(math.radians(yaw))
    out = []
    for z in (0.0, -height):
        for u, v in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
            dx, dy = u * sx * side / 2, v * sy * side / 2
            out.append([x + c * dx - s * dy, y + s * dx + c * dy, z])
    return np.asarray(out)


def _face_texture(size: int, colour: BGR, marks: str | int, ink: BGR) -> Image:
    tex = np.empty((size, size, 3), np.float32)
    tex[:] = colour
    if isinstance(marks, int) and marks > 0:
        spots = {
            1: [(0, 0)],
            2: [(-1, -1), (1, 1)],
            3: [(-1, -1), (0, 0), (1, 1)],
            4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
            5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
            6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
        }[marks]
        for u, v in spots:
            cv2.circle(
                tex,
                (int(size / 2 + u * size * 0.27), int(size / 2 + v * size * 0.27)),
                max(1, int(size * 0.09)),
                _colour(ink),
                -1,
                cv2.LINE_AA,
            )
    elif isinstance(marks, str) and marks:
        scale = size / 60.0
        (tw, th), _ = cv2.getTextSize(marks, cv2.FONT_HERSHEY_SIMPLEX, scale, max(1, int(scale * 2)))
        ink_mask = np.zeros((size, size), np.uint8)
        cv2.putText(
            ink_mask,
            marks,
            ((size - tw) // 2, (size + th) // 2),
            cv2.FONT_HERSHEY_SIMPLEX,
            scale,
            255,
            max(1, int(scale * 2)),
            cv2.LINE_AA,
        )
        a = (ink_mask.astype(np.float32) / 255.0)[:, :, None]
        tex = tex * (1 - a) + np.asarray(ink, np.float32)[None, None, :] * a
    return np.asarray(tex, dtype=np.float32)


def draw_box(
    img: Image,
    cam: Camera,
    corners: Array,
    colour: BGR,
    top_marks: str | int,
    ink: BGR,
    light: tuple[float, float],
) -> None:
    """Draw a box (die, cube, a checker standing in the tray) from its 8 corners (bottom 4, top 4)."""
    proj = cam.project(corners, distort=False)
    pos = cam.position
    faces = [(4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)]
    hh, ww = img.shape[:2]
    for fi, face in enumerate(faces):
        pts3 = corners[list(face)]
        centre = pts3.mean(axis=0)
        normal = np.cross(pts3[1] - pts3[0], pts3[2] - pts3[0])
        body = corners.mean(axis=0)
        if normal @ (centre - body) < 0:
            normal = -normal
        if normal @ (pos - centre) <= 0:
            continue
        quad = proj[list(face)]
        if fi == 0:
            x0, y0 = np.floor(quad.min(axis=0)).astype(int)
            x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 1
            x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, ww), min(y1, hh)
            if x1 <= x0 or y1 <= y0:
                continue
            size = 64
            tex = _face_texture(size, colour, top_marks, ink)
            src = np.array([[0, 0], [size, 0], [size, size], [0, size]], dtype=np.float32)
            m = cv2.getPerspectiveTransform(src, np.asarray(quad - [x0, y0], dtype=np.float32))
            warped = cv2.warpPerspective(tex, m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
            mask = np.zeros((y1 - y0, x1 - x0), np.float32)
            cv2.fillConvexPoly(mask, _fix(quad - [x0, y0]), 1.0, cv2.LINE_AA, _SHIFT)
            roi = img[y0:y1, x0:x1]
            roi[:] = roi * (1 - mask[:, :, None]) + warped * mask[:, :, None]
        else:
            lit = 0.55 + 0.25 * float(
                np.clip(
                    -(normal[0] * light[0] + normal[1] * light[1]) / (np.linalg.norm(normal) + 1e-9), -1, 1
                )
            )
            cv2.fillConvexPoly(img, _fix(quad), _colour(colour, lit), cv2.LINE_AA, _SHIFT)


def die_corners(die: Die | Cube) -> Array:
    return _box_corners(die.x, die.y, die.side, die.yaw, 1.0, 1.0, die.side)


def hand_polygons(hand: Hand) -> tuple[Array, list[Array]]:
    """Board-plane outlines of the arm and the hand (palm and fingers): ((N, 2), [(M, 2), ...])."""
    a = math.radians(hand.from_deg)
    back = np.array([-math.sin(a), math.cos(a)])  # towards where the arm comes from
    side = np.array([back[1], -back[0]])
    s = hand.scale
    tip = np.array([hand.x, hand.y])
    palm_c = tip + back * 0.10 * s
    parts: list[Array] = []
    t = np.linspace(0, 2 * math.pi, 24, endpoint=False)
    palm = palm_c + np.outer(np.cos(t), side) * 0.055 * s + np.outer(np.sin(t), back) * 0.06 * s
    parts.append(palm)
    for k, off in enumerate((-0.036, -0.012, 0.012, 0.036)):
        length = (0.065, 0.075, 0.072, 0.058)[k] * s
        c = palm_c + side * off * s - back * (0.04 * s + length / 2)
        parts.append(c + np.outer(np.cos(t), side) * 0.011 * s + np.outer(np.sin(t), back) * length / 2)
    thumb_c = palm_c + side * 0.065 * s - back * 0.01 * s
    parts.append(thumb_c + np.outer(np.cos(t), side) * 0.013 * s + np.outer(np.sin(t), back) * 0.04 * s)
    wrist = palm_c + back * 0.05 * s
    far = wrist + back * 1.5
    arm = np.array(
        [wrist + side * 0.045 * s, far + side * 0.06 * s, far - side * 0.06 * s, wrist - side * 0.045 * s]
    )
    return arm, parts


def draw_hand(img: Image, cam: Camera, hand: Hand) -> NDArray[np.float32]:
    """Draw ``hand`` over ``img``; returns the (H, W) float32 mask of what it covers."""
    arm, parts = hand_polygons(hand)
    hh, ww = img.shape[:2]
    mask = np.zeros((hh, ww), np.float32)
    sleeve_mask = np.zeros((hh, ww), np.float32)

    def lift(p: Array, z: float) -> Array:
        return cam.project(np.column_stack([p, np.full(len(p), z)]), distort=False)

    # the arm rises towards the body
    arm3 = np.column_stack([arm, [-hand.height, -hand.height - 0.5, -hand.height - 0.5, -hand.height]])
    arm_px = cam.project(arm3, distort=False)
    cv2.fillConvexPoly(sleeve_mask, _fix(arm_px), 1.0, cv2.LINE_AA, _SHIFT)
    for p in parts:
        cv2.fillPoly(mask, [_fix(lift(p, -hand.height))], 1.0, cv2.LINE_AA, _SHIFT)
    sleeve_mask = np.clip(sleeve_mask - mask, 0, 1)
    shade = 0.85 + 0.3 * np.linspace(0, 1, ww, dtype=np.float32)[None, :]
    skin = np.asarray(hand.skin, np.float32)[None, None, :] * shade[:, :, None]
    sleeve = np.asarray(hand.sleeve, np.float32)[None, None, :] * shade[:, :, None]
    m1, m2 = mask[:, :, None], sleeve_mask[:, :, None]
    img[:] = img * (1 - m1 - m2) + skin * m1 + sleeve * m2
    return np.asarray(np.clip(mask + sleeve_mask, 0, 1), dtype=np.float32)


def apply_lighting(img: Image, lighting: Lighting) -> None:
    """Brightness gradient, vignette, colour cast and glare, in place."""
    hh, ww = img.shape[:2]
    sw, sh = 64, 36
    xs = np.linspace(-0.5, 0.5, sw, dtype=np.float32)[None, :]
    ys = np.linspace(-0.5, 0.5, sh, dtype=np.float32)[:, None]
    gain = lighting.gain * (1 + lighting.gradient[0] * xs + lighting.gradient[1] * ys)
    gain = gain * (1 - lighting.vignette * (xs * xs + ys * ys) * 2)
    gain_full = cv2.resize(gain.astype(np.float32), (ww, hh), interpolation=cv2.INTER_LINEAR)
    img *= gain_full[:, :, None] * np.asarray(lighting.colour_cast, np.float32)[None, None, :]
    for gx, gy, radius, strength in lighting.glare:
        small = np.exp(
            -(((xs + 0.5 - gx) * ww) ** 2 + ((ys + 0.5 - gy) * hh) ** 2) / (2 * (radius * ww) ** 2)
        ).astype(np.float32)
        img += (cv2.resize(small, (ww, hh), interpolation=cv2.INTER_LINEAR) * strength)[:, :, None]


def distortion_maps(cam: Camera) -> tuple[NDArray[np.float32], NDArray[np.float32]] | None:
    """remap() maps turning an undistorted frame into what a lens with ``cam.dist`` shows."""
    if not any(cam.dist):
        return None
    ww, hh = cam.size
    step = 16
    gx, gy = np.meshgrid(
        np.arange(0, ww + step, step, dtype=np.float64), np.arange(0, hh + step, step, dtype=np.float64)
    )
    pts = np.column_stack([gx.ravel(), gy.ravel()]).reshape(-1, 1, 2)
    und = cv2.undistortPoints(pts, cam.k, cam.distortion_coefficients, P=cam.k).reshape(gx.shape + (2,))
    # bilinear interpolation of the coarse grid at every pixel (grid node k sits at pixel k * step)
    fx, fy = np.meshgrid(np.arange(ww, dtype=np.float32) / step, np.arange(hh, dtype=np.float32) / step)
    mx = cv2.remap(und[:, :, 0].astype(np.float32), fx, fy, cv2.INTER_LINEAR)
    my = cv2.remap(und[:, :, 1].astype(np.float32), fx, fy, cv2.INTER_LINEAR)
    return np.ascontiguousarray(mx), np.ascontiguousarray(my)


def finish(img: Image, effects: Effects, rng: np.random.Generator) -> NDArray[np.uint8]:
    """Blur, motion blur, sensor noise and JPEG: float image -> (H, W, 3) uint8 BGR."""
    if effects.blur > 0.1:
        img = np.asarray(cv2.GaussianBlur(img, (0, 0), effects.blur), dtype=np.float32)
    if effects.motion > 1.0:
        n = int(round(effects.motion))
        k = np.zeros((n, n), np.float32)
        angle = rng.uniform(0, math.pi)
        c = (n - 1) / 2
        cv2.line(
            k,
            (int(c - math.cos(angle) * c), int(c - math.sin(angle) * c)),
            (int(c + math.cos(angle) * c), int(c + math.sin(angle) * c)),
            1.0,
            1,
        )
        img = np.asarray(cv2.filter2D(img, -1, k / max(k.sum(), 1.0)), dtype=np.float32)
    if effects.noise > 0:
        img = img + rng.normal(0.0, effects.noise, img.shape).astype(np.float32)
    out = np.clip(img, 0, 255).astype(np.uint8)
    if effects.jpeg_quality > 0:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(effects.jpeg_quality)])
        decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
        if decoded is not None:
            out = np.asarray(decoded, dtype=np.uint8)
    return np.asarray(out, dtype=np.uint8)
