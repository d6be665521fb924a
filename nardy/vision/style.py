"""Randomised looks for the synthetic renderer: board materials, point and checker colours, lights.

Colours are BGR tuples of floats in 0..255 (OpenCV order). ``random_style`` draws a style from a
named family with wide jitter, so no two boards look alike; the families exist so benchmarks can
report accuracy per kind of board and hold kinds out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

BGR = tuple[float, float, float]
Material = Literal["felt", "wood", "paint"]
Finish = Literal["flat", "glossy", "engraved"]

BOARD_FAMILIES = ("felt", "walnut", "oak", "painted")
CHECKER_SETS = ("black_white", "red_white", "gold_translucent", "blue_red", "pearl_grey")


@dataclass(frozen=True)
class CheckerStyle:
    """How one colour of checkers looks."""

    top: BGR
    """Colour of the top face."""
    finish: Finish = "flat"
    """flat, glossy (specular highlight) or engraved (concentric rings on top)."""
    alpha: float = 1.0
    """Opacity of the top face (below 1: translucent checkers that show the board through)."""
    edge_darkening: float = 0.65
    """Brightness of the cylinder side relative to the top face."""


@dataclass(frozen=True)
class Ornament:
    """A decoration carved or burnt into the field, as on many long-nardy boards: in the middle of
    each half a medallion of rings and petals round a centre, which shows between the points and in
    the band between their tips (the points are painted over it)."""

    contrast: float
    """How much darker than the field the carving is (a share of its brightness; below 0: lighter)."""
    radius: float
    """The medallion's outer radius, as a share of the half's width."""
    rings: int
    """Concentric rings (1 or more)."""
    petals: int
    """Petals of the rosette inside the rings (0 for none)."""
    line: float
    """Width of the carved lines (board units)."""
    filled: bool
    """Whether the innermost ring is filled in (a dark centre) rather than drawn as a line."""

    def __post_init__(self) -> None:
        if not -1.0 < self.contrast < 1.0:
            raise ValueError(f"ornament contrast {self.contrast} is outside (-1, 1)")
        if not 0.0 < self.radius <= 0.5 or self.rings < 1 or self.petals < 0 or self.line <= 0:
            raise ValueError(f"ornament {self} has no medallion to draw")


def random_ornament(rng: np.random.Generator) -> Ornament:
    """A medallion drawn from ``rng``: faint to strong, darker (carved, burnt) or, now and then,
    lighter (inlaid) than the field."""
    contrast = float(rng.uniform(0.15, 0.5)) * (1.0 if rng.random() < 0.8 else -0.6)
    return Ornament(
        contrast=contrast,
        radius=float(rng.uniform(0.2, 0.45)),
        rings=int(rng.integers(1, 4)),
        petals=int(rng.choice([0, 6, 8, 12])),
        line=float(rng.uniform(0.002, 0.006)),
        filled=bool(rng.random() < 0.3),
    )


@dataclass(frozen=True)
class BoardStyle:
    """How a board looks (everything the renderer randomises about the board itself)."""

    family: str
    field_material: Material
    field: BGR
    point_material: Material
    points: tuple[BGR, BGR]
    """Colours of the points of even and odd index (index 0 of the top row is the first)."""
    frame: BGR
    bar: BGR
    tray: BGR
    table: BGR
    light: CheckerStyle
    dark: CheckerStyle
    checker_set: str
    point_border: float = 0.0
    """Width of a contrasting border line round each point (board units, 0 for none)."""
    grain_scale: float = 1.0
    """Scale of the wood grain / felt texture."""
    texture_strength: float = 1.0
    ornament: Ornament | None = None
    """A decoration on the field (None: a plain field)."""


def _jitter(rng: np.random.Generator, colour: BGR, amount: float) -> BGR:
    c = np.clip(np.asarray(colour) + rng.normal(0.0, amount, 3), 0, 255)
    return (float(c[0]), float(c[1]), float(c[2]))


def _scale(colour: BGR, factor: float) -> BGR:
    c = np.clip(np.asarray(colour) * factor, 0, 255)
    return (float(c[0]), float(c[1]), float(c[2]))


_FELT = [
    (40, 110, 30),
    (110, 70, 20),
    (30, 30, 140),
    (60, 60, 60),
    (25, 25, 25),
    (120, 140, 150),
    (50, 90, 120),
]
_FELT_POINTS = [
    ((235, 235, 235), (30, 30, 170)),
    ((200, 220, 230), (40, 40, 40)),
    ((30, 150, 210), (150, 90, 30)),
    ((220, 220, 220), (20, 20, 20)),
    ((40, 170, 220), (40, 100, 40)),
    ((170, 170, 170), (60, 30, 110)),
]
_WALNUT = [(40, 60, 95), (30, 45, 75), (45, 70, 110)]
_OAK = [(110, 165, 205), (95, 150, 195), (130, 180, 215)]
_WOOD_POINTS = [
    ((60, 100, 150), (25, 35, 55)),
    ((150, 195, 225), (40, 55, 85)),
    ((120, 170, 210), (35, 35, 120)),
    ((200, 215, 225), (30, 45, 70)),
    ((35, 40, 110), (30, 90, 40)),
]
_PAINT_FIELD = [(200, 220, 230), (40, 110, 30), (140, 60, 20), (80, 130, 170), (230, 230, 235)]
_TABLE = [(60, 80, 110), (150, 150, 150), (40, 40, 45), (170, 190, 200), (90, 60, 50)]


def _checkers(rng: np.random.Generator, name: str) -> tuple[CheckerStyle, CheckerStyle]:
    finishes: list[Finish] = ["flat", "glossy", "engraved"]
    finish_l = finishes[int(rng.integers(3))]
    finish_d = finish_l if rng.random() < 0.7 else finishes[int(rng.integers(3))]
    if name == "black_white":
        return (
            CheckerStyle(_jitter(rng, (225, 228, 230), 8), finish_l),
            CheckerStyle(_jitter(rng, (30, 30, 32), 6), finish_d),
        )
    if name == "red_white":
        return (
            CheckerStyle(_jitter(rng, (215, 225, 235), 8), finish_l),
            CheckerStyle(_jitter(rng, (35, 35, 165), 15), finish_d),
        )
    if name == "gold_translucent":
        return (
            CheckerStyle(
                _jitter(rng, (235, 240, 240), 6),
                "glossy",
                alpha=float(rng.uniform(0.6, 0.85)),
                edge_darkening=0.85,
            ),
            CheckerStyle(_jitter(rng, (40, 150, 200), 12), finish_d),
        )
    if name == "blue_red":
        return (
            CheckerStyle(_jitter(rng, (60, 60, 190), 15), finish_l),
            CheckerStyle(_jitter(rng, (130, 60, 30), 15), finish_d),
        )
    if name == "pearl_grey":
        base = rng.uniform(185, 220)
        return (
            CheckerStyle(_jitter(rng, (base + 8, base + 12, base + 14), 4), finish_l),
            CheckerStyle(_jitter(rng, (base - 55, base - 52, base - 50), 5), finish_d),
        )
    raise ValueError(f"unknown checker set {name!r}; known: {', '.join(CHECKER_SETS)}")


def random_style(
    rng: np.random.Generator, family: str | None = None, checker_set: str | None = None
) -> BoardStyle:
    """A board style from ``family`` (one of ``BOARD_FAMILIES``; random if None) with checkers from
    ``checker_set`` (one of ``CHECKER_SETS``; random if None), all colours jittered."""
    family = family or str(rng.choice(BOARD_FAMILIES))
    checker_set = checker_set or str(rng.choice(CHECKER_SETS))

    def pick(seq: list[Any]) -> Any:
        return seq[int(rng.integers(len(seq)))]

    table = _jitter(rng, pick(_TABLE), 20)
    light, dark = _checkers(rng, checker_set)
    if family == "felt":
        field = _jitter(rng, pick(_FELT), 15)
        pa, pb = pick(_FELT_POINTS)
        frame = _jitter(rng, pick([(30, 30, 30), (40, 60, 100), (20, 30, 60), (90, 90, 90)]), 10)
        return BoardStyle(
            family,
            "felt",
            field,
            "felt",
            (_jitter(rng, pa, 15), _jitter(rng, pb, 15)),
            frame,
            frame if rng.random() < 0.5 else field,
            field,
            table,
            light,
            dark,
            checker_set,
            point_border=0.0,
            grain_scale=float(rng.uniform(0.5, 2)),
            texture_strength=float(rng.uniform(0.5, 1.5)),
        )
    if family in ("walnut", "oak"):
        field = _jitter(rng, pick(_WALNUT if family == "walnut" else _OAK), 12)
        pa, pb = pick(_WOOD_POINTS)
        frame = _jitter(rng, _scale(field, float(rng.uniform(0.6, 1.2))), 10)
        border = float(rng.choice([0.0, 0.0, 0.002, 0.004]))
        return BoardStyle(
            family,
            "wood",
            field,
            "wood" if rng.random() < 0.6 else "paint",
            (_jitter(rng, pa, 15), _jitter(rng, pb, 15)),
            frame,
            frame,
            field,
            table,
            light,
            dark,
            checker_set,
            point_border=border,
            grain_scale=float(rng.uniform(0.6, 1.8)),
            texture_strength=float(rng.uniform(0.6, 1.6)),
        )
    if family == "painted":
        field = _jitter(rng, pick(_PAINT_FIELD), 15)
        colours = [
            (30, 30, 160),
            (30, 30, 30),
            (150, 80, 20),
            (40, 120, 40),
            (60, 150, 210),
            (230, 230, 230),
            (20, 80, 140),
        ]
        ia, ib = rng.choice(len(colours), 2, replace=False)
        frame = _jitter(rng, pick([(40, 60, 100), (30, 45, 75), (110, 165, 205)]), 10)
        return BoardStyle(
            family,
            "paint",
            field,
            "paint",
            (_jitter(rng, colours[int(ia)], 15), _jitter(rng, colours[int(ib)], 15)),
            frame,
            frame,
            field,
            table,
            light,
            dark,
            checker_set,
            point_border=float(rng.choice([0.0, 0.003])),
            grain_scale=float(rng.uniform(0.6, 1.8)),
            texture_strength=float(rng.uniform(0.3, 1.0)),
        )
    raise ValueError(f"unknown board family {family!r}; known: {', '.join(BOARD_FAMILIES)}")
