"""Synthetic boards for tests, benchmarks and demo recordings.

A ``Scene`` fixes one board (style, texture), one camera and one light, drawn from a seed; its
``render`` draws any ``BoardLayout`` on it, with optional dice, cube, hands and checkers in motion,
and returns a ``Sample``: the image plus exact labels (the layout, the playing area's image corners,
whether the board is settled). Successive ``render`` calls on one scene make the frames of a video::

    scene = Scene.random(np.random.default_rng(7))
    sample = scene.render(BoardLayout.short_start())
    cv2.imwrite("board.png", sample.image)      # (720, 1280, 3) uint8 BGR
    sample.corners                              # (4, 2) float64: TL, TR, BR, BL of the playing area

``synthetic_set(n, seed)`` yields a varied labelled set (what ``nardy synth`` writes).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from nardy.vision.camera import Camera, look_at
from nardy.vision.geometry import BoardGeometry, Row
from nardy.vision.layout import BoardLayout, Colour
from nardy.vision.placement import OffChecker, Placed, Stacking, place_layout
from nardy.vision.render import (
    Cube,
    Die,
    Effects,
    Hand,
    Lighting,
    apply_lighting,
    die_corners,
    distortion_maps,
    draw_box,
    draw_checker,
    draw_hand,
    finish,
    hand_polygons,
)
from nardy.vision.style import BoardStyle, Ornament, random_ornament, random_style
from nardy.vision.texture import board_texture, material


@dataclass(frozen=True)
class Loose:
    """A checker not on a stack -- held or sliding: centre (x, y) board units, ``lift`` above the board
    in board units."""

    colour: Colour
    x: float
    y: float
    lift: float = 0.0


@dataclass(frozen=True)
class CameraSpec:
    """Where the camera is: tilt from straight above (degrees), azimuth (0: beyond the bottom edge),
    roll, horizontal field of view, how much of the frame the board fills, lens distortion k1."""

    tilt: float = 0.0
    azimuth: float = 0.0
    roll: float = 0.0
    fov: float = 60.0
    fill: float = 0.85
    k1: float = 0.0
    offset: tuple[float, float] = (0.0, 0.0)
    """Shift of the board in the frame, as fractions of the free margin."""


@dataclass(frozen=True)
class Sample:
    """One rendered frame and its labels."""

    image: NDArray[np.uint8]
    """(H, W, 3) uint8 BGR."""
    corners: NDArray[np.float64]
    """(4, 2) image (x, y) of the playing area's top-left, top-right, bottom-right, bottom-left."""
    layout: BoardLayout
    """What is on the board (loose checkers are not part of it)."""
    settled: bool
    """False when a hand is over the board or a checker is in motion."""
    meta: dict[str, Any] = field(default_factory=dict)
    """Style family, checker set, tilt... for per-kind statistics."""
    checkers: tuple[Placed, ...] = ()
    """Where every checker on the points and the bar lies (board units, stacking level)."""


def _fit_distance(geometry: BoardGeometry, spec: CameraSpec, size: tuple[int, int]) -> tuple[Camera, float]:
    """Place the camera so the outer board fills ``spec.fill`` of the frame."""
    w, h = size
    focal = (w / 2) / math.tan(math.radians(spec.fov) / 2)
    x0, y0, x1, y1 = geometry.outer_rect()
    centre = np.array([(x0 + x1) / 2, (y0 + y1) / 2, 0.0])
    outline = np.array([[x0, y0, 0], [x1, y0, 0], [x1, y1, 0], [x0, y1, 0]], dtype=np.float64)
    dist = 2.0
    for _ in range(30):
        cam = look_at(centre, spec.tilt, spec.azimuth, dist, spec.roll, focal, size, (spec.k1, 0.0))
        p = cam.project(outline, distort=False)
        span = max(np.ptp(p[:, 0]) / w, np.ptp(p[:, 1]) / h)
        dist *= span / spec.fill
    # aim off the board's centre so the board sits anywhere in the frame (the principal point stays
    # at the image centre, as in a real camera)
    p = cam.project(outline, distort=False)
    lo, hi = p.min(axis=0), p.max(axis=0)
    want = np.array([spec.offset[0] * (w - (hi[0] - lo[0])) / 2, spec.offset[1] * (h - (hi[1] - lo[1])) / 2])
    target = centre.copy()
    for _ in range(8):
        cam = look_at(target, spec.tilt, spec.azimuth, dist, spec.roll, focal, size, (spec.k1, 0.0))
        p = cam.project(outline, distort=False)
        err = want - ((p.min(axis=0) + p.max(axis=0)) / 2 - [w / 2, h / 2])
        # move the aim point against the shift, in board units (roughly dist / focal per pixel)
        jac = dist / focal
        target[:2] -= np.array([[cam.r[0, 0], cam.r[1, 0]], [cam.r[0, 1], cam.r[1, 1]]]) @ err * jac
    p = cam.project(outline, distort=False)
    if p.min() < 0 or p[:, 0].max() > w or p[:, 1].max() > h:
        cam = look_at(centre, spec.tilt, spec.azimuth, dist, spec.roll, focal, size, (spec.k1, 0.0))
    return cam, dist


DEFAULT_GEOMETRY = BoardGeometry()


class Scene:
    """One board, one camera, one light; ``render`` draws frames of any layout on it."""

    def __init__(
        self,
        style: BoardStyle,
        camera: CameraSpec,
        lighting: Lighting,
        effects: Effects,
        *,
        size: tuple[int, int] = (1280, 720),
        geometry: BoardGeometry = DEFAULT_GEOMETRY,
        seed: int = 0,
        stacking: Stacking = "layers",
        texture_px: float | None = None,
    ) -> None:
        self.style = style
        self.camera_spec = camera
        self.lighting = lighting
        self.effects = effects
        self.size = size
        self.geometry = geometry
        self.seed = seed
        self.stacking: Stacking = stacking
        self.camera, _ = _fit_distance(geometry, camera, size)
        rng = np.random.default_rng([seed, 1])
        px = texture_px or max(400.0, 1.1 * size[0] * camera.fill)
        self._texture, self._to_px = board_texture(geometry, style, rng, px)
        table = material(rng, (size[1] // 4, size[0] // 4), style.table, "wood", 1.0, 1.0, size[0] / 8)
        self._table = np.asarray(cv2.resize(table, size, interpolation=cv2.INTER_LINEAR), dtype=np.float32)
        self._lens = distortion_maps(self.camera)
        self._frame = 0

    # -- construction ----------------------------------------------------------------------------------
    @classmethod
    def random(
        cls,
        rng: np.random.Generator,
        *,
        size: tuple[int, int] = (1280, 720),
        family: str | None = None,
        checker_set: str | None = None,
        tilt: tuple[float, float] = (0.0, 50.0),
        geometry: BoardGeometry = DEFAULT_GEOMETRY,
        harsh: float = 1.0,
        ornament: Ornament | None = None,
    ) -> Scene:
        """A scene with everything drawn from ``rng``; ``harsh`` scales the photographic nuisances;
        ``ornament`` decorates the field (drawing nothing from ``rng``: the same scene otherwise)."""
        style = random_style(rng, family, checker_set)
        if ornament is not None:
            style = replace(style, ornament=ornament)
        spec = CameraSpec(
            tilt=float(rng.uniform(*tilt)),
            azimuth=float(rng.normal(0, 12) if rng.random() < 0.75 else rng.uniform(-180, 180)),
            roll=float(rng.normal(0, 3)),
            fov=float(rng.uniform(45, 75)),
            fill=float(rng.uniform(0.7, 0.95)),
            k1=float(rng.uniform(-0.08, 0.03) * harsh),
            offset=(float(rng.uniform(-1, 1)), float(rng.uniform(-1, 1))),
        )
        glare = tuple(
            (
                float(rng.uniform(0.1, 0.9)),
                float(rng.uniform(0.1, 0.9)),
                float(rng.uniform(0.03, 0.15)),
                float(rng.uniform(30, 110) * harsh),
            )
            for _ in range(int(rng.integers(0, 3)))
        )
        lighting = Lighting(
            gain=float(rng.uniform(0.75, 1.15)),
            gradient=(float(rng.normal(0, 0.25 * harsh)), float(rng.normal(0, 0.25 * harsh))),
            vignette=float(rng.uniform(0, 0.35 * harsh)),
            glare=glare,
            shadow_direction=(float(rng.normal(0, 0.5)), float(rng.normal(0, 0.5))),
            shadow_strength=float(rng.uniform(0.2, 0.6)),
            colour_cast=(float(rng.uniform(0.85, 1.15)), 1.0, float(rng.uniform(0.85, 1.15))),
        )
        effects = Effects(
            blur=float(rng.uniform(0, 1.3 * harsh)),
            motion=float(rng.uniform(0, 3) * harsh if rng.random() < 0.2 else 0.0),
            noise=float(rng.uniform(1, 6) * harsh),
            jpeg_quality=int(rng.integers(45, 96)),
        )
        stacking: Stacking = "line" if rng.random() < 0.5 else "layers"
        return cls(
            style,
            spec,
            lighting,
            effects,
            size=size,
            geometry=geometry,
            seed=int(rng.integers(2**31)),
            stacking=stacking,
        )

    def with_camera(self, camera: CameraSpec) -> Scene:
        """The same board and light seen from another camera."""
        return Scene(
            self.style,
            camera,
            self.lighting,
            self.effects,
            size=self.size,
            geometry=self.geometry,
            seed=self.seed,
            stacking=self.stacking,
        )

    # -- labels ----------------------------------------------------------------------------------------------
    def corners(self) -> NDArray[np.float64]:
        """(4, 2) float64 image corners of the playing area (TL, TR, BR, BL), lens included."""
        board = np.column_stack([self.geometry.corners(), np.zeros(4)])
        return self.camera.project(board)

    def project(self, points: NDArray[np.floating], height: float = 0.0) -> NDArray[np.float64]:
        """Board (N, 2) points at ``height`` above the board -> image (N, 2), lens included."""
        p = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        return self.camera.project(np.column_stack([p, np.full(len(p), -height)]))

    # -- drawing ------------------------------------------------------------------------------
    def render(
        self,
        layout: BoardLayout,
        *,
        dice: Sequence[Die] = (),
        cube: Cube | None = None,
        hands: Sequence[Hand] = (),
        loose: Sequence[Loose] = (),
        stacking: Stacking | dict[tuple[Row, int], Stacking] | None = None,
        rng: np.random.Generator | None = None,
    ) -> Sample:
        """Draw ``layout`` and the extras; ``rng`` drives per-frame noise (default: the scene's seed and
        a frame counter, so a scene renders the same video every time; a frame drawn with its own
        ``rng`` does not move the counter, so it leaves that video as it was). Checker positions
        depend only on the scene's seed and the layout, so an unchanged stack stays put from frame to
        frame."""
        if rng is None:
            self._frame += 1
            rng = np.random.default_rng([self.seed, 2, self._frame])
        geometry, cam = self.geometry, self.camera
        placed, off = place_layout(
            layout, geometry, np.random.default_rng([self.seed, 3]), stacking or self.stacking
        )
        light = self.lighting.shadow_direction
        tex = self._texture.copy()
        shadow = np.zeros(tex.shape[:2], np.float32)
        r, th = geometry.checker_radius, geometry.checker_height
        to_px = self._to_px
        scale = to_px[0, 0]

        def shadow_disc(x: float, y: float, radius: float, height: float) -> None:
            cx = (x + light[0] * height) * scale + to_px[0, 2]
            cy = (y + light[1] * height) * scale + to_px[1, 2]
            cv2.circle(
                shadow, (int(cx * 16), int(cy * 16)), int(radius * scale * 16), 1.0, -1, cv2.LINE_AA, 4
            )

        for p in placed:
            shadow_disc(p.x, p.y, r * 1.02, th * (p.level + 1))
        for lo in loose:
            shadow_disc(lo.x, lo.y, r, th + lo.lift)
        for d in dice:
            shadow_disc(d.x, d.y, d.side * 0.6, d.side)
        if cube is not None:
            shadow_disc(cube.x, cube.y, cube.side * 0.6, cube.side)
        for hand in hands:
            arm, parts = hand_polygons(hand)
            for poly in [arm, *parts]:
                q = (poly + np.asarray(light) * hand.height) * scale + to_px[:2, 2]
                cv2.fillPoly(shadow, [np.round(q * 16).astype(np.int32)], 1.0, cv2.LINE_AA, 4)
        shadow = np.asarray(cv2.GaussianBlur(shadow, (0, 0), max(1.0, 0.006 * scale)), dtype=np.float32)
        tex *= (1.0 - self.lighting.shadow_strength * np.clip(shadow, 0, 1))[:, :, None]

        img = self._table.copy()
        h_board = cam.plane_homography(0.0) @ np.linalg.inv(to_px)
        cv2.warpPerspective(
            tex, h_board, self.size, dst=img, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_TRANSPARENT
        )

        styles = {"light": self.style.light, "dark": self.style.dark}
        items: list[tuple[float, int, Any]] = []
        pos = cam.position

        def depth(x: float, y: float, z: float) -> float:
            return -float(np.linalg.norm(np.array([x, y, z]) - pos))

        for p in placed:
            z0 = -p.level * th
            items.append((depth(p.x, p.y, z0 - th), 0, ("checker", p, z0)))
        for lo in loose:
            moving = Placed(lo.colour, lo.x, lo.y)
            items.append((depth(lo.x, lo.y, -lo.lift - th), 0, ("checker", moving, -lo.lift)))
        for o in off:
            items.append((depth(o.x, o.y, -r), 0, ("off", o, 0.0)))
        for d in dice:
            items.append((depth(d.x, d.y, -d.side), 0, ("die", d, 0.0)))
        if cube is not None:
            items.append((depth(cube.x, cube.y, -cube.side), 0, ("cube", cube, 0.0)))
        items.sort(key=lambda it: it[0])
        shades = np.random.default_rng([self.seed, 4])
        for _, _, (kind, obj, z0) in items:
            if kind == "checker":
                assert isinstance(obj, Placed)
                draw_checker(
                    img,
                    cam,
                    obj.x,
                    obj.y,
                    z0,
                    r,
                    th,
                    styles[obj.colour],
                    light,
                    shade=float(shades.uniform(0.93, 1.07)),
                )
            elif kind == "off":
                assert isinstance(obj, OffChecker)
                st = styles[obj.colour]
                corners = _slab_corners(obj.x, obj.y, 2 * r * 0.95, th, 2 * r * 0.9)
                draw_box(img, cam, corners, tuple(c * st.edge_darkening for c in st.top), 0, st.top, light)  # type: ignore[arg-type]
            elif kind == "die":
                assert isinstance(obj, Die)
                draw_box(img, cam, die_corners(obj), obj.colour, obj.value, obj.pips, light)
            elif kind == "cube":
                assert isinstance(obj, Cube)
                draw_box(img, cam, die_corners(obj), obj.colour, str(obj.value), obj.ink, light)
        for hand in hands:
            draw_hand(img, cam, hand)
        apply_lighting(img, self.lighting)
        if self._lens is not None:
            img = np.asarray(
                cv2.remap(img, self._lens[0], self._lens[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT),
                dtype=np.float32,
            )
        effects = replace(self.effects, noise=self.effects.noise * float(rng.uniform(0.8, 1.2)))
        image = finish(img, effects, rng)
        extras = [(d.x, d.y) for d in dice] + ([(cube.x, cube.y)] if cube is not None else [])
        meta = {
            "family": self.style.family,
            "checker_set": self.style.checker_set,
            "tilt": self.camera_spec.tilt,
            "azimuth": self.camera_spec.azimuth,
            "seed": self.seed,
            "stacking": stacking if isinstance(stacking, str) else self.stacking,
            "dice_and_cube": extras,
        }
        return Sample(
            image, self.corners(), layout, settled=not hands and not loose, meta=meta, checkers=tuple(placed)
        )

    # -- helpers for placing extras ---------------------------------------------------------
    def free_spot(
        self, layout: BoardLayout, rng: np.random.Generator, clearance: float
    ) -> tuple[float, float]:
        """A random board (x, y) in the playing area at least ``clearance`` from every checker's edge
        and off the bar."""
        placed, _ = place_layout(layout, self.geometry, np.random.default_rng([self.seed, 3]), self.stacking)
        g = self.geometry
        r = g.checker_radius
        for _ in range(200):
            x = float(rng.uniform(clearance, 1 - clearance))
            y = float(rng.uniform(clearance, g.height - clearance))
            if abs(x - g.bar_x) < g.bar_width / 2 + clearance:
                continue
            if all(math.hypot(x - p.x, y - p.y) > r + clearance for p in placed):
                return x, y
        return g.bar_x, g.height / 2


def _slab_corners(x: float, y: float, width: float, thickness: float, height: float) -> NDArray[np.float64]:
    out = []
    for z in (0.0, -height):
        for u, v in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
            out.append([x + u * width / 2, y + v * thickness / 2, z])
    return np.asarray(out, dtype=np.float64)


def random_dice(scene: Scene, layout: BoardLayout, rng: np.random.Generator, count: int) -> list[Die]:
    """``count`` dice lying on free parts of the playing area."""
    out = []
    colours = [
        ((235, 240, 240), (20, 20, 20)),
        ((30, 30, 180), (240, 240, 240)),
        ((25, 25, 25), (240, 240, 240)),
        ((200, 230, 240), (30, 30, 120)),
    ]
    c, p = colours[int(rng.integers(len(colours)))]
    for _ in range(count):
        x, y = scene.free_spot(layout, rng, 0.035)
        out.append(Die(x, y, int(rng.integers(1, 7)), float(rng.uniform(0, 90)), colour=c, pips=p))
    return out


def random_layout(rng: np.random.Generator) -> BoardLayout:
    """A mix of opening positions (both variants) and random mid-game ones."""
    u = rng.random()
    if u < 0.1:
        return BoardLayout.short_start()
    if u < 0.2:
        return BoardLayout.long_start()
    return BoardLayout.random(rng)


def synthetic_sample(
    seed: int,
    index: int,
    *,
    size: tuple[int, int] = (1280, 720),
    tilt: tuple[float, float] = (0.0, 50.0),
    families: Sequence[str] | None = None,
    checker_sets: Sequence[str] | None = None,
    extras: bool = True,
    geometry: BoardGeometry = DEFAULT_GEOMETRY,
    ornamented: bool = False,
) -> Sample:
    """Sample ``index`` of ``synthetic_set(n, seed, ...)`` (any ``n`` above ``index``), drawn on its
    own: every sample has its own random stream. ``geometry``: the board's proportions (the same
    scene, camera and position drawn on a board of other proportions); ``ornamented``: the same
    scene, camera and position with a medallion on the field (``style.Ornament``, from a stream of
    its own)."""
    from nardy.vision.style import BOARD_FAMILIES, CHECKER_SETS

    fams = list(families or BOARD_FAMILIES)
    sets = list(checker_sets or CHECKER_SETS)
    ornament = random_ornament(np.random.default_rng([seed, index, 9])) if ornamented else None
    rng = np.random.default_rng([seed, index])
    scene = Scene.random(
        rng,
        size=size,
        family=fams[index % len(fams)],
        checker_set=sets[(index // len(fams)) % len(sets)],
        tilt=tilt,
        geometry=geometry,
        ornament=ornament,
    )
    layout = random_layout(rng)
    dice = random_dice(scene, layout, rng, int(rng.integers(0, 3))) if extras else []
    cube = None
    if extras and rng.random() < 0.3:
        x, y = scene.free_spot(layout, rng, 0.04)
        cube = Cube(x, y, int(2 ** rng.integers(1, 7)), float(rng.uniform(0, 90)))
    sample = scene.render(layout, dice=dice, cube=cube, rng=rng)
    sample.meta["index"] = index
    if ornament is not None:
        sample.meta["ornament"] = asdict(ornament)
    return sample


def synthetic_set(
    n: int,
    seed: int,
    *,
    size: tuple[int, int] = (1280, 720),
    tilt: tuple[float, float] = (0.0, 50.0),
    families: Sequence[str] | None = None,
    checker_sets: Sequence[str] | None = None,
    extras: bool = True,
    ornamented: bool = False,
) -> Iterator[Sample]:
    """``n`` labelled samples, each on a new random scene (style, camera and light), seeded.

    Families and checker sets cycle so every kind appears evenly; ``extras`` adds dice and the cube
    on free parts of the board; ``ornamented`` a medallion on every field (``synthetic_sample``).
    """
    for i in range(n):
        yield synthetic_sample(
            seed,
            i,
            size=size,
            tilt=tilt,
            families=families,
            checker_sets=checker_sets,
            extras=extras,
            ornamented=ornamented,
        )
