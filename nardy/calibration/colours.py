"""Learning the colours from the start position: one frame of the set-up board gives the two checker
colours, the board's colours, the checkers' size and which way round the board lies.

With the corners known, the 24 points are at known places. The variant's start occupies a known set
of points for each side -- up to the board's orientation, so each orientation is tried: the one whose
two sets of occupied points have the most distinct colours (and differ most from the empty points) is
the board's. The lighter set is the ``light`` class. Colours are sampled on the checkers' top faces
(the camera pose from the corners says where a top face appears), the board's on empty points.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from nardy.calibration.orientation import CORNERS, Orientation, infer_orientation
from nardy.calibration.profile import ColourModel, ColourModels
from nardy.rules.position import Position
from nardy.vision.camera import Camera, pose_from_homography
from nardy.vision.geometry import BoardGeometry, homography_to_image
from nardy.vision.layout import BoardLayout, Counts, Stack

F32 = NDArray[np.float32]
F64 = NDArray[np.float64]


@dataclass(frozen=True)
class ColourConfig:
    sample_radius: float = 0.3
    """Radius of the patch sampled on a checker's top, as a fraction of the checker radius."""
    max_line: int = 5
    """Checkers sampled per stack (the first ones from the base, where they lie in one line)."""
    variance_floor: float = 2.0
    """Added to each colour model's standard deviation (Lab units)."""
    min_separation: float = 15.0
    """The two checker colours must be at least this far apart (Lab units) to be learned."""
    board_inset: float = 0.25
    """Fraction of a point's width kept free of its outline when sampling an empty point."""
    size_min: float = 0.6
    """Smallest checker diameter looked for (fraction of the point width)."""
    size_max: float = 1.0
    """Largest."""


@dataclass(frozen=True)
class StartReading:
    """What one frame of the start position taught."""

    colours: ColourModels
    orientation: Orientation
    """Which way round the board lies (white taken as the light checkers)."""
    separation: float
    """Lab distance between the two checker colours."""
    margin: float
    """How much better the chosen orientation explained the frame than the next one (0..1)."""
    checker_diameter: float
    """Measured checker diameter as a fraction of the point width."""


class ColourError(ValueError):
    """The frame does not show the start position clearly enough to learn from."""


def _camera(geometry: BoardGeometry, corners: F64, size: tuple[int, int]) -> Camera:
    return pose_from_homography(homography_to_image(geometry, corners), size)


def _patch(lab: F32, centre: F64, radius: float) -> F64:
    h, w = lab.shape[:2]
    r = max(1, int(round(radius)))
    x, y = int(round(centre[0])), int(round(centre[1]))
    x0, x1, y0, y1 = max(0, x - r), min(w, x + r + 1), max(0, y - r), min(h, y + r + 1)
    if x1 <= x0 or y1 <= y0:
        return np.zeros((0, 3))
    patch = lab[y0:y1, x0:x1].reshape(-1, 3).astype(np.float64)
    yy, xx = np.mgrid[y0:y1, x0:x1]
    keep = ((xx - centre[0]) ** 2 + (yy - centre[1]) ** 2).reshape(-1) <= r * r
    return np.asarray(patch[keep], dtype=np.float64)


def _checker_samples(
    config: ColourConfig, lab: F32, cam: Camera, geometry: BoardGeometry, layout: BoardLayout, colour: str
) -> list[F64]:
    """Lab samples on the top faces of the first checkers of each stack of ``colour``."""
    g = geometry
    out = []
    radius_px = None
    for row, i, stack in layout.stacks():
        if stack.colour != colour:
            continue
        for k in range(min(stack.count, config.max_line, g.line_capacity)):
            x, y = g.slot(row, i, k)
            top = np.array([[x, y, -g.checker_height]])
            c = cam.project(top, distort=False)[0]
            if radius_px is None:
                edge = cam.project(np.array([[x + g.checker_radius, y, -g.checker_height]]), distort=False)[0]
                radius_px = float(np.linalg.norm(edge - c)) * config.sample_radius
            out.append(_patch(lab, c, radius_px))
    return out


def _board_samples(
    config: ColourConfig, lab: F32, h: F64, geometry: BoardGeometry, layout: BoardLayout, parity: int
) -> F64:
    """Lab samples of empty points of one parity (their middle third)."""
    g = geometry
    pts = []
    for row, i, stack in layout.stacks():
        p = i % 2 if row == "top" else (i + 1) % 2
        if stack.count or p != parity:
            continue
        tri = g.triangle(row, i)
        centre = tri[:2].mean(axis=0) * 0.6 + tri[2] * 0.4
        pts.append(centre)
    if not pts:
        return np.zeros((0, 3))
    img = _project(h, np.asarray(pts))
    unit = float(np.linalg.norm(_project(h, np.array([[1.0, 0.0]])) - _project(h, np.array([[0.0, 0.0]]))))
    r = g.point_width * config.board_inset * unit
    return np.vstack([_patch(lab, c, r) for c in img])


def _swap(layout: BoardLayout) -> BoardLayout:
    """The same layout with light and dark exchanged."""

    def flip(row: tuple[Stack, ...]) -> tuple[Stack, ...]:
        return tuple(
            Stack(None if st.colour is None else "dark" if st.colour == "light" else "light", st.count)
            for st in row
        )

    return BoardLayout(
        flip(layout.top),
        flip(layout.bottom),
        Counts(layout.bar.dark, layout.bar.light),
        Counts(layout.off.dark, layout.off.light),
    )


def _project(h: F64, pts: F64) -> F64:
    q = pts @ h[:, :2].T + h[:, 2]
    return np.asarray(q[:, :2] / q[:, 2:3], dtype=np.float64)


def _separation(a: F64, b: F64) -> float:
    """Fisher-like separation of two sample sets along the line joining their medians."""
    ma, mb = np.median(a, axis=0), np.median(b, axis=0)
    d = float(np.linalg.norm(ma - mb))
    if d < 1e-6:
        return 0.0
    u = (mb - ma) / d
    spread = np.sqrt(0.5 * (np.var(a @ u) + np.var(b @ u))) + 1.0
    return d / float(spread)


def learn_from_start(
    config: ColourConfig,
    image: NDArray[np.uint8],
    corners: F64,
    variant: str,
    geometry: BoardGeometry | None = None,
) -> StartReading:
    """Learn the colours (and orientation, checker size) from ``image`` (H, W, 3) uint8 BGR showing
    ``variant``'s start position, the playing area at ``corners`` (4, 2) TL, TR, BR, BL."""
    g = geometry or BoardGeometry()
    corners = np.asarray(corners, dtype=np.float64).reshape(4, 2)
    lab = np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2LAB), dtype=np.float32)
    cam = _camera(g, corners, (image.shape[1], image.shape[0]))
    start = Position.initial(variant)
    scored = []
    for home in CORNERS:
        layout = Orientation(home, "light").from_position(start)
        a = _checker_samples(config, lab, cam, g, layout, "light")
        b = _checker_samples(config, lab, cam, g, layout, "dark")
        if not a or not b:
            continue
        sa, sb = np.vstack(a), np.vstack(b)
        empty = np.vstack(
            [_board_samples(config, lab, homography_to_image(g, corners), g, layout, p) for p in (0, 1)]
        )
        # checkers should differ from each other and from the empty board
        sep = _separation(sa, sb)
        if len(empty):
            sep += 0.5 * min(_separation(sa, empty), _separation(sb, empty))
        scored.append((sep, home, sa, sb, layout, a + b))
    if not scored:
        raise ColourError("no checkers where the start position has them")
    scored.sort(key=lambda s: -s[0])
    best_sep, home, sa, sb, layout, _ = scored[0]
    la, lb = ColourModel.fit(sa, config.variance_floor), ColourModel.fit(sb, config.variance_floor)
    separation = float(np.linalg.norm(la.mean_array - lb.mean_array))
    if separation < config.min_separation:
        raise ColourError(
            f"the two checker colours are only {separation:.0f} Lab units apart; is the start "
            "position set up and the corners right?"
        )
    # the picture as seen, "light" being the lighter group; a half-turned board with the colours swapped
    # looks the same, so that picture (not the corner tried) gives the orientation, white taken as light
    lighter = la.mean[0] >= lb.mean[0]
    picture = layout if lighter else _swap(layout)
    light, dark = (la, lb) if lighter else (lb, la)
    orientation = infer_orientation(picture, variant, white="light").orientation
    rivals = [sc for sc, _, _, _, lay, _ in scored[1:] if _swap(lay) != layout and lay != layout]
    margin = (best_sep - max(rivals)) / max(best_sep, 1e-9) if rivals else 1.0
    h = homography_to_image(g, corners)
    board = {}
    for name, parity in (("points_even", 0), ("points_odd", 1)):
        s = _board_samples(config, lab, h, g, layout, parity)
        if len(s) > 3:
            board[name] = ColourModel.fit(s, config.variance_floor)
    field = _field_samples(lab, h, g)
    if len(field) > 3:
        board["field"] = ColourModel.fit(field, config.variance_floor)
    # each sampled checker top must look unlike the board's own colours
    refs = np.array([b.mean for b in board.values()]) if board else np.zeros((0, 3))
    patches = [p for p in scored[0][5] if len(p)]
    if len(refs) and patches:
        medians = np.array([np.median(p, axis=0) for p in patches])
        nearest = np.min(np.linalg.norm(medians[:, None, :] - refs[None, :, :], axis=2), axis=1)
        gap = float(np.median(nearest))
        if gap < config.min_separation:
            raise ColourError(f"the 'checkers' look like the board itself ({gap:.0f} Lab units from its "
                              "colours): are the checkers set up in the start position?")
    diameter = measure_diameter(config, lab, cam, g, picture, light, dark)
    return StartReading(ColourModels(light, dark, board), orientation, separation, float(margin), diameter)


def _field_samples(lab: F32, h: F64, g: BoardGeometry) -> F64:
    """The field between the two rows of points, away from the bar."""
    ys = np.linspace(g.point_len + 0.02, g.height - g.point_len - 0.02, 3)
    xs = np.concatenate(
        [np.linspace(0.05, g.half_width - 0.05, 6), np.linspace(g.half_width + g.bar_width + 0.05, 0.95, 6)]
    )
    pts = np.array([[x, y] for x in xs for y in ys])
    img = _project(h, pts)
    hh, ww = lab.shape[:2]
    inside = (img[:, 0] >= 0) & (img[:, 0] < ww) & (img[:, 1] >= 0) & (img[:, 1] < hh)
    idx = np.round(img[inside]).astype(int)
    return np.asarray(lab[idx[:, 1], idx[:, 0]], dtype=np.float64)


def measure_diameter(
    config: ColourConfig,
    lab: F32,
    cam: Camera,
    geometry: BoardGeometry,
    layout: BoardLayout,
    light: ColourModel,
    dark: ColourModel,
) -> float:
    """The checker diameter (fraction of the point width) from the lengths of single lines of checkers:
    along each occupied point's centre line (on the plane of the checkers' tops), the run of pixels of
    the stack's colour divided by the number of checkers. Falls back to the geometry's value."""
    g = geometry
    models = {"light": light, "dark": dark}
    estimates = []
    steps = np.linspace(0.0, g.point_len * 1.2, 240)
    for row, i, stack in layout.stacks():
        if stack.colour is None or not 2 <= stack.count <= g.line_capacity:
            continue
        x = g.point_x(i)
        y = g.base_y(row) + g.direction(row) * steps
        pts = np.column_stack([np.full_like(y, x), y, np.full_like(y, -g.checker_height)])
        img = cam.project(pts, distort=False)
        hh, ww = lab.shape[:2]
        inside = (img[:, 0] >= 0) & (img[:, 0] < ww - 1) & (img[:, 1] >= 0) & (img[:, 1] < hh - 1)
        if not inside.all():
            continue
        idx = np.round(img).astype(int)
        col = lab[idx[:, 1], idx[:, 0]].astype(np.float64)
        own = models[stack.colour].distance(col)
        other = models["dark" if stack.colour == "light" else "light"].distance(col)
        is_checker = own < np.minimum(other, 3.0 * np.sqrt(3.0))
        # the run from the base: last checker pixel before a gap of a quarter diameter
        run = 0.0
        gap = 0
        max_gap = int(len(steps) * 0.25 * 2 * g.checker_radius / (g.point_len * 1.2)) + 1
        for k, c in enumerate(is_checker):
            if c:
                run, gap = steps[k], 0
            else:
                gap += 1
                if gap > max_gap and run > 0:
                    break
        if run > 0:
            estimates.append(run / stack.count / g.point_width)
    if not estimates:
        return g.checker_diameter
    d = float(np.median(estimates))
    return float(np.clip(d, config.size_min, config.size_max))
