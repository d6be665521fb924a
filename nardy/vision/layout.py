"""``BoardLayout``: where the checkers are, in image terms (rows, light/dark), not in game terms.

The referee maps light/dark and the two rows to white/black and point numbers with the calibration
profile's orientation; vision never needs to know which side is which.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

import numpy as np

from nardy.vision.geometry import POINTS_PER_ROW, Row

Colour = Literal["light", "dark"]
COLOURS: tuple[Colour, Colour] = ("light", "dark")
CHECKERS_PER_SIDE = 15


class Stack(NamedTuple):
    """The checkers on one point: ``colour`` is None exactly when ``count`` is 0."""

    colour: Colour | None
    count: int  # type: ignore[assignment]

    def json(self) -> dict[str, int]:
        """``{"light": n, "dark": n}`` as in ``nardy recognize --json``."""
        return {
            "light": self.count if self.colour == "light" else 0,
            "dark": self.count if self.colour == "dark" else 0,
        }


EMPTY = Stack(None, 0)


class Counts(NamedTuple):
    """A count per colour (the bar, the trays)."""

    light: int = 0
    dark: int = 0

    def of(self, colour: Colour) -> int:
        return self.light if colour == "light" else self.dark

    def json(self) -> dict[str, int]:
        return {"light": self.light, "dark": self.dark}


NO_COUNTS = Counts()


class LayoutError(ValueError):
    """A layout that no board can show (a point with two colours, more than 15 of a colour...)."""


def _stack_from_json(item: Mapping[str, Any]) -> Stack:
    light, dark = int(item.get("light", 0)), int(item.get("dark", 0))
    if light and dark:
        raise LayoutError(f"a point holds both colours: {dict(item)!r}")
    if light:
        return Stack("light", light)
    if dark:
        return Stack("dark", dark)
    return EMPTY


@dataclass(frozen=True)
class BoardLayout:
    """Checkers on a board as a camera sees them.

    ``top`` holds the 12 points along the top-left -> top-right edge, ordered from the top-left;
    ``bottom`` the 12 along the bottom-left -> bottom-right edge, ordered from the bottom-left.
    """

    top: tuple[Stack, ...]
    """12 stacks of the top row, from the top-left."""
    bottom: tuple[Stack, ...]
    """12 stacks of the bottom row, from the bottom-left."""
    bar: Counts = Counts()
    """Checkers on the bar."""
    off: Counts = Counts()
    """Checkers borne off (in the trays)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "top", tuple(Stack(*s) for s in self.top))
        object.__setattr__(self, "bottom", tuple(Stack(*s) for s in self.bottom))
        object.__setattr__(self, "bar", Counts(*self.bar))
        object.__setattr__(self, "off", Counts(*self.off))
        for name in ("top", "bottom"):
            row = getattr(self, name)
            if len(row) != POINTS_PER_ROW:
                raise LayoutError(f"{name} row has {len(row)} points, not 12")
            for i, (colour, count) in enumerate(row):
                if count < 0 or (count == 0) != (colour is None):
                    raise LayoutError(f"{name}[{i}] = {colour!r} x {count} is not a stack")
        for colour in COLOURS:
            if min(self.bar.of(colour), self.off.of(colour)) < 0:
                raise LayoutError(f"negative bar/off count for {colour}")

    # -- access ---------------------------------------------------------------------------------------
    def row(self, row: Row) -> tuple[Stack, ...]:
        return self.top if row == "top" else self.bottom

    def total(self, colour: Colour) -> int:
        """All checkers of ``colour``: on points, on the bar and off."""
        on_points = sum(s.count for s in self.top + self.bottom if s.colour == colour)
        return on_points + self.bar.of(colour) + self.off.of(colour)

    def stacks(self) -> Iterable[tuple[Row, int, Stack]]:
        """(row, index, stack) for all 24 points."""
        rows: tuple[Row, Row] = ("top", "bottom")
        for row in rows:
            for i, s in enumerate(self.row(row)):
                yield row, i, s

    # -- text and JSON ----------------------------------------------------------------------------------
    def json(self) -> dict[str, Any]:
        """The layout part of ``nardy recognize --json``."""
        return {
            "top": [s.json() for s in self.top],
            "bottom": [s.json() for s in self.bottom],
            "bar": self.bar.json(),
            "off": self.off.json(),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> BoardLayout:
        bar, off = data.get("bar", {}), data.get("off", {})
        return cls(
            tuple(_stack_from_json(s) for s in data["top"]),
            tuple(_stack_from_json(s) for s in data["bottom"]),
            Counts(int(bar.get("light", 0)), int(bar.get("dark", 0))),
            Counts(int(off.get("light", 0)), int(off.get("dark", 0))),
        )

    def text(self) -> str:
        """Compact text: ``top: L2 . D5 ... | bottom: ... | bar L0 D1 | off L0 D0``."""

        def cell(s: Stack) -> str:
            return "." if s.colour is None else f"{s.colour[0].upper()}{s.count}"

        top = " ".join(cell(s) for s in self.top)
        bottom = " ".join(cell(s) for s in self.bottom)
        return (
            f"top: {top} | bottom: {bottom} | bar L{self.bar.light} D{self.bar.dark}"
            f" | off L{self.off.light} D{self.off.dark}"
        )

    # -- constructors --------------------------------------------------------------------------------------
    @classmethod
    def empty(cls) -> BoardLayout:
        return cls((EMPTY,) * POINTS_PER_ROW, (EMPTY,) * POINTS_PER_ROW)

    @classmethod
    def from_points(
        cls,
        points: Mapping[tuple[Row, int], tuple[Colour, int]],
        bar: Counts = NO_COUNTS,
        off: Counts = NO_COUNTS,
    ) -> BoardLayout:
        """Build from ``{(row, index): (colour, count)}``; unlisted points are empty."""
        top = [EMPTY] * POINTS_PER_ROW
        bottom = [EMPTY] * POINTS_PER_ROW
        for (row, i), (colour, count) in points.items():
            (top if row == "top" else bottom)[i] = Stack(colour, count) if count else EMPTY
        return cls(tuple(top), tuple(bottom), bar, off)

    @classmethod
    def short_start(cls) -> BoardLayout:
        """Backgammon's starting position seen with light moving from the top-right round to the
        bottom-right (light's 24-point is top[11], its 1-point bottom[11])."""
        return cls.from_points(
            {
                ("top", 11): ("light", 2),
                ("top", 0): ("light", 5),
                ("bottom", 4): ("light", 3),
                ("bottom", 6): ("light", 5),
                ("bottom", 11): ("dark", 2),
                ("bottom", 0): ("dark", 5),
                ("top", 4): ("dark", 3),
                ("top", 6): ("dark", 5),
            }
        )

    @classmethod
    def long_start(cls) -> BoardLayout:
        """Long nardy's starting position: light's head of 15 at top[11], dark's at bottom[0]."""
        return cls.from_points({("top", 11): ("light", 15), ("bottom", 0): ("dark", 15)})

    @classmethod
    def random(
        cls,
        rng: np.random.Generator,
        *,
        max_stack: int = 15,
        bar_chance: float = 0.15,
        off_chance: float = 0.15,
    ) -> BoardLayout:
        """A random layout with 15 checkers a side and no point shared by both colours.

        Stacks are mostly small, with a tail up to ``max_stack``; some checkers are on the bar or
        borne off with the given chances.
        """
        owner: list[Colour | None] = [None] * (2 * POINTS_PER_ROW)
        counts = [0] * (2 * POINTS_PER_ROW)
        bar, off = {"light": 0, "dark": 0}, {"light": 0, "dark": 0}
        for colour in COLOURS:
            left = CHECKERS_PER_SIDE
            if rng.random() < bar_chance:
                bar[colour] = int(rng.integers(1, 4))
                left -= bar[colour]
            if rng.random() < off_chance:
                off[colour] = int(rng.integers(1, left))
                left -= off[colour]
            while left > 0:
                free = [i for i in range(24) if owner[i] in (None, colour)]
                i = int(rng.choice(free))
                if counts[i] >= max_stack:
                    continue
                size = int(min(left, max_stack - counts[i], rng.geometric(0.45)))
                owner[i] = colour
                counts[i] += max(1, size)
                left -= max(1, size)
        stacks = [Stack(o, c) if c else EMPTY for o, c in zip(owner, counts, strict=True)]
        return cls(
            tuple(stacks[:12]),
            tuple(stacks[12:]),
            Counts(bar["light"], bar["dark"]),
            Counts(off["light"], off["dark"]),
        )


def layout_errors(truth: BoardLayout, seen: BoardLayout) -> list[str]:
    """The places where ``seen`` differs from ``truth`` (``top[3]``, ``bar``...), for tests and
    benchmarks."""
    wrong: list[str] = []
    rows: tuple[Row, Row] = ("top", "bottom")
    for row in rows:
        a: Sequence[Stack] = truth.row(row)
        b: Sequence[Stack] = seen.row(row)
        wrong.extend(f"{row}[{i}]" for i in range(POINTS_PER_ROW) if a[i] != b[i])
    if truth.bar != seen.bar:
        wrong.append("bar")
    if truth.off != seen.off:
        wrong.append("off")
    return wrong
