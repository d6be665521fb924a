"""Where the checkers of a ``BoardLayout`` physically lie on the board (used by the renderer).

Each checker becomes a ``Placed`` disc at board (x, y) on stacking ``level`` 0 (on the board), 1 (on
top of others)... Stacks longer than a point follow one of two house habits:

- ``"layers"``: a line of ``line_capacity`` from the base, then a second layer in the gaps of the
  first (4 on 5), a third (3 on 4), and so on -- 5 + 4 + 3 + 2 + 1 = 15;
- ``"line"``: one line that runs past the point's tip as far as the opposite stack allows (a
  long-nardy head), the rest in a second layer on that line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from nardy.vision.geometry import POINTS_PER_ROW, BoardGeometry, Row
from nardy.vision.layout import BoardLayout, Colour

Stacking = Literal["layers", "line"]


@dataclass(frozen=True)
class Placed:
    """One checker lying flat: centre (x, y) in board units, ``level`` 0 on the board."""

    colour: Colour
    x: float
    y: float
    level: int = 0


@dataclass(frozen=True)
class OffChecker:
    """A borne-off checker standing on its edge in the tray: centre (x, y), board units."""

    colour: Colour
    x: float
    y: float


@dataclass(frozen=True)
class PlacementConfig:
    """How neatly checkers are put down."""

    along_jitter: float = 0.05
    """Standard deviation of a checker's position along its point, in checker diameters."""
    across_jitter: float = 0.05
    """Standard deviation across the point, in checker diameters."""
    max_gap: float = 0.08
    """Largest gap left between neighbouring checkers of a line, in checker diameters."""
    line_margin: float = 0.15
    """Free space kept between a long line and the opposite stack, in checker diameters."""
    max_line: int = 8
    """Longest line a player makes before piling on top (a long-nardy head runs past its point's tip
    into the middle of the board, not across it)."""


def _line_limit(geometry: BoardGeometry, opposite: int, config: PlacementConfig) -> int:
    d = 2.0 * geometry.checker_radius
    room = geometry.height - opposite * d * (1.0 + config.max_gap) - config.line_margin * d
    return max(geometry.line_capacity, min(config.max_line, int(room / (d * (1.0 + config.max_gap)))))


def stack_positions(
    geometry: BoardGeometry,
    row: Row,
    index: int,
    count: int,
    stacking: Stacking,
    opposite: int,
    rng: np.random.Generator,
    config: PlacementConfig = PlacementConfig(),
) -> list[tuple[float, float, int]]:
    """(x, y, level) of ``count`` checkers on one point; ``opposite`` is the size of the stack on the
    point facing it across the board (limits how far a line may run)."""
    d = 2.0 * geometry.checker_radius
    cap = geometry.line_capacity
    x0, _ = geometry.slot(row, index, 0)
    sign = geometry.direction(row)
    base = geometry.base_y(row)
    first = min(count, cap) if stacking == "layers" else min(count, _line_limit(geometry, opposite, config))
    out: list[tuple[float, float, int]] = []
    along = 0.0
    line: list[float] = []
    for _ in range(first):
        along += rng.uniform(0.0, config.max_gap) * d
        pos = along + 0.5 * d + rng.normal(0.0, config.along_jitter) * d * 0.3
        line.append(pos)
        along += d
    for pos in line:
        out.append((x0 + rng.normal(0.0, config.across_jitter) * d, base + sign * pos, 0))
    left = count - first
    level = 1
    below = line
    while left > 0:
        gaps = [(a + b) / 2.0 for a, b in zip(below, below[1:], strict=False)]
        if not gaps:
            gaps = below
        take = gaps[:left]
        for pos in take:
            out.append(
                (
                    x0 + rng.normal(0.0, config.across_jitter) * d,
                    base + sign * (pos + rng.normal(0.0, config.along_jitter) * d * 0.3),
                    level,
                )
            )
        left -= len(take)
        below = take
        level += 1
    return out


def place_layout(
    layout: BoardLayout,
    geometry: BoardGeometry,
    rng: np.random.Generator,
    stacking: Stacking | dict[tuple[Row, int], Stacking] = "layers",
    config: PlacementConfig = PlacementConfig(),
) -> tuple[list[Placed], list[OffChecker]]:
    """Checkers on points and the bar, and the borne-off ones in the tray."""
    placed: list[Placed] = []
    pairs: tuple[tuple[Row, Row], ...] = (("top", "bottom"), ("bottom", "top"))
    for row, other in pairs:
        for i in range(POINTS_PER_ROW):
            stack = layout.row(row)[i]
            if stack.colour is None:
                continue
            mode: Stacking = stacking if isinstance(stacking, str) else stacking.get((row, i), "layers")
            opposite = layout.row(other)[i].count
            for x, y, level in stack_positions(
                geometry,
                row,
                i,
                stack.count,
                mode,
                opposite,
                rng,
                config,
            ):
                placed.append(Placed(stack.colour, x, y, level))
    d = 2.0 * geometry.checker_radius
    first: Colour = "light" if rng.random() < 0.5 else "dark"
    for colour in ("light", "dark"):
        n = layout.bar.of(colour)
        sign = -1.0 if colour == first else 1.0
        for k in range(n):
            y = geometry.height / 2.0 + sign * (0.6 + k * (1.0 + rng.uniform(0, config.max_gap))) * d
            placed.append(Placed(colour, geometry.bar_x + rng.normal(0, config.across_jitter) * d, y, 0))
    off: list[OffChecker] = []
    x0, _, x1, _ = geometry.tray_rect()
    step = geometry.checker_height * 1.05
    trays: tuple[tuple[Colour, float, float], ...] = (("light", 0.0, 1.0), ("dark", geometry.height, -1.0))
    for colour, start, sign in trays:
        for k in range(layout.off.of(colour)):
            off.append(
                OffChecker(
                    colour,
                    (x0 + x1) / 2.0,
                    start + sign * (0.01 + (k + 0.5) * step),
                )
            )
    return placed, off
