"""Which way round the board lies: from the camera's rows and colours to white's point numbers.

Vision reads a board in image terms (``nardy.vision.layout``): a ``top`` row of 12 points indexed
from the top-left corner, a ``bottom`` row of 12 indexed from the bottom-left corner (index ``i`` of
both rows is the same column), and two checker colour classes, ``light`` and ``dark``. The rules
speak of white's numbering 1..24 (white moves 24 -> 1, home 1..6; ``docs/rules.md``).

Both are tied together by two facts, which make an ``Orientation``:

- ``home``: the corner of the playing area where white's point 1 lies. Points 1..12 then run along
  that corner's row away from it, 13..24 come back along the other row, so 12 faces 13 and 24 faces
  1 across the board. The four corners are the four ways a board can be set up (white at the near or
  far side, moving clockwise or anticlockwise).
- ``white``: which colour class (``light`` or ``dark``) is white.

``to_white_points`` / ``from_white_points`` map any per-point values (stacks, readings,
probabilities) between the two orders; ``to_position`` / ``from_position`` do whole boards. All of
it is pure and has no camera in it: the referee uses it on every frame.

The starting position tells the orientation apart once the colour of white is known
(``infer_orientation``); it cannot tell which colour is white, because both starts are symmetric
under swapping colours and turning the board round: that comes from the user (default: light).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeVar

from nardy.rules.color import Color
from nardy.rules.position import Position
from nardy.vision.geometry import POINTS_PER_ROW, Row
from nardy.vision.layout import COLOURS, EMPTY, BoardLayout, Colour, Counts, Stack, layout_errors

T = TypeVar("T")

Corner = Literal["top-left", "top-right", "bottom-right", "bottom-left"]
CORNERS: tuple[Corner, Corner, Corner, Corner] = ("top-left", "top-right", "bottom-right", "bottom-left")
"""In the order ``corners`` take everywhere in nardy."""

POINTS = 2 * POINTS_PER_ROW


class OrientationError(ValueError):
    """An orientation that cannot be built or read (an unknown corner or colour, a wrong count)."""


@dataclass(frozen=True)
class Orientation:
    """How the board's rows and colour classes map to white's numbering.

    ``Orientation("bottom-right", "light")`` is the usual picture of a backgammon board with the
    light player sitting at the bottom: white's 1 is ``bottom[11]``, 12 is ``bottom[0]``, 13 is
    ``top[0]`` and 24 is ``top[11]`` (``BoardLayout.short_start()`` is drawn this way).
    """

    home: Corner = "bottom-right"
    """The corner where white's point 1 lies (white's home, points 1..6, is the quarter at it)."""
    white: Colour = "light"
    """The colour class of white's checkers."""

    def __post_init__(self) -> None:
        if self.home not in CORNERS:
            raise OrientationError(f"unknown corner {self.home!r}; expected one of {', '.join(CORNERS)}")
        if self.white not in COLOURS:
            raise OrientationError(f"white must be 'light' or 'dark', not {self.white!r}")

    # -- one point ----------------------------------------------------------------------------------
    @property
    def home_row(self) -> Row:
        """The row holding white's points 1..12."""
        return "top" if self.home.startswith("top") else "bottom"

    @property
    def far_row(self) -> Row:
        """The row holding white's points 13..24."""
        return "bottom" if self.home_row == "top" else "top"

    def place(self, point: int) -> tuple[Row, int]:
        """(row, index) of white's ``point`` (1..24)."""
        if not 1 <= point <= POINTS:
            raise OrientationError(f"point {point} outside 1..24")
        near = point if point <= POINTS_PER_ROW else POINTS + 1 - point  # the column's point in 1..12
        right = self.home.endswith("right")
        index = POINTS_PER_ROW - near if right else near - 1
        return (self.home_row if point <= POINTS_PER_ROW else self.far_row), index

    def point(self, row: Row, index: int) -> int:
        """White's point number (1..24) of ``row[index]``."""
        if not 0 <= index < POINTS_PER_ROW:
            raise OrientationError(f"point index {index} outside 0..11")
        near = POINTS_PER_ROW - index if self.home.endswith("right") else index + 1
        return near if row == self.home_row else POINTS + 1 - near

    # -- whole rows -----------------------------------------------------------------------------------
    def to_white_points(self, top: Sequence[T], bottom: Sequence[T]) -> tuple[T, ...]:
        """Reorder per-point values from the two image rows to white's numbering.

        ``top``: 12 values from the top-left; ``bottom``: 12 from the bottom-left (any type: stacks,
        readings, counts). Returns 24 values; item ``i`` belongs to white's point ``i + 1``.
        """
        if len(top) != POINTS_PER_ROW or len(bottom) != POINTS_PER_ROW:
            raise OrientationError(f"rows must hold 12 points each, not {len(top)} and {len(bottom)}")
        rows = {"top": top, "bottom": bottom}
        out = []
        for p in range(1, POINTS + 1):
            row, index = self.place(p)
            out.append(rows[row][index])
        return tuple(out)

    def from_white_points(self, points: Sequence[T]) -> tuple[tuple[T, ...], tuple[T, ...]]:
        """The inverse of ``to_white_points``: 24 values in white's numbering -> (top, bottom)."""
        if len(points) != POINTS:
            raise OrientationError(f"expected 24 points, not {len(points)}")
        top = tuple(points[self.point("top", i) - 1] for i in range(POINTS_PER_ROW))
        bottom = tuple(points[self.point("bottom", i) - 1] for i in range(POINTS_PER_ROW))
        return top, bottom

    # -- colours ------------------------------------------------------------------------------------------
    def colour_of(self, color: Color) -> Colour:
        """The image colour class of a side."""
        black: Colour = "dark" if self.white == "light" else "light"
        return self.white if color is Color.WHITE else black

    def color_of(self, colour: Colour) -> Color:
        """The side of an image colour class."""
        return Color.WHITE if colour == self.white else Color.BLACK

    # -- whole boards ---------------------------------------------------------------------------------------
    def to_position(self, layout: BoardLayout, variant: str, turn: Color = Color.WHITE) -> Position:
        """The rules' ``Position`` of a layout read off the board (raises ``PositionError`` if the
        layout cannot be one, e.g. a bar in long nardy)."""
        stacks = self.to_white_points(layout.top, layout.bottom)
        points = tuple(
            0 if s.colour is None else s.count if self.color_of(s.colour) is Color.WHITE else -s.count
            for s in stacks
        )
        w, b = self.colour_of(Color.WHITE), self.colour_of(Color.BLACK)
        return Position(
            variant, points, layout.bar.of(w), layout.bar.of(b), layout.off.of(w), layout.off.of(b), turn
        )

    def from_position(self, position: Position) -> BoardLayout:
        """The layout a camera sees of ``position`` on a board lying this way round."""
        w, b = self.colour_of(Color.WHITE), self.colour_of(Color.BLACK)
        stacks = [EMPTY if n == 0 else Stack(w if n > 0 else b, abs(n)) for n in position.points]
        top, bottom = self.from_white_points(stacks)

        def counts(white: int, black: int) -> Counts:
            return Counts(white, black) if w == "light" else Counts(black, white)

        return BoardLayout(
            top,
            bottom,
            counts(position.bar_white, position.bar_black),
            counts(position.off_white, position.off_black),
        )

    # -- JSON -----------------------------------------------------------------------------------------------
    def to_json(self) -> dict[str, str]:
        return {"home": self.home, "white": self.white}

    @classmethod
    def from_json(cls, data: Any) -> Orientation:
        if not isinstance(data, dict) or set(data) != {"home", "white"}:
            raise OrientationError(
                f'orientation must be {{"home": CORNER, "white": "light"|"dark"}}, not {data!r}'
            )
        return cls(data["home"], data["white"])


ORIENTATIONS: tuple[Orientation, ...] = tuple(Orientation(c, w) for w in COLOURS for c in CORNERS)
"""All eight orientations."""


class Scorable(Protocol):
    """Anything that can say how likely a layout is (``nardy.vision`` observations can)."""

    def log_probability(self, layout: BoardLayout) -> float: ...


@dataclass(frozen=True)
class OrientationGuess:
    """The result of ``infer_orientation``."""

    orientation: Orientation
    """The best orientation."""
    score: float
    """Its score: log-probability of the start position (an observation) or minus the number of
    points that differ from it (a layout)."""
    margin: float
    """Score of the best minus the runner-up (inf if only one was possible)."""
    matches: bool
    """True when the frame shows the start position exactly (a layout) or it is the likeliest
    reading (an observation) -- when False the guess is a best effort and should be confirmed."""
    scores: tuple[tuple[Orientation, float], ...] = ()
    """Every candidate and its score, best first."""


def infer_orientation(
    seen: BoardLayout | Scorable,
    variant: str,
    *,
    white: Colour | None = "light",
    start: Position | None = None,
) -> OrientationGuess:
    """Which way round the board lies, from a frame showing ``variant``'s starting position.

    ``seen``: a ``BoardLayout`` read off the frame, or anything with ``log_probability(layout)`` (an
    observation). ``white``: the colour class of white (the start cannot tell it: see the module
    docstring); ``None`` tries both and picks light on a tie. ``start``: a custom start position
    (default: the variant's). Short nardy's 2/5/3/5 pattern and long nardy's two heads of 15 each
    single out one corner.
    """
    position = start if start is not None else Position.initial(variant)
    candidates = [o for o in ORIENTATIONS if white is None or o.white == white]
    scored: list[tuple[Orientation, float]] = []
    for o in candidates:
        expected = o.from_position(position)
        if isinstance(seen, BoardLayout):
            score = -float(len([e for e in layout_errors(expected, seen) if e not in ("bar", "off")]))
        else:
            score = float(seen.log_probability(expected))
        scored.append((o, score))
    # stable: on a tie the earlier candidate (light before dark) wins
    scored.sort(key=lambda item: -item[1] if math.isfinite(item[1]) else math.inf)
    best, score = scored[0]
    runner = scored[1][1] if len(scored) > 1 else -math.inf
    margin = score - runner if math.isfinite(score) and math.isfinite(runner) else math.inf
    if isinstance(seen, BoardLayout):
        matches = score == 0.0
    else:
        matches = math.isfinite(score) and margin > 0
    return OrientationGuess(best, score, margin, matches, tuple(scored))
