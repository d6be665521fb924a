"""Immutable positions and their JSON form.

Points are numbered 1..24 in **white's** numbering (white moves 24 -> 1 in both variants).
``points[i]`` is point ``i + 1``: positive for white checkers, negative for black ones.
The JSON form is the contract of every file format and API of the project::

    {"variant": "short"|"long", "points": [24 ints], "bar": {"white": n, "black": n},
     "off": {"white": n, "black": n}, "turn": "white"|"black"}
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from nardy.rules.color import Color
from nardy.rules.errors import NotationError, PositionError

if TYPE_CHECKING:
    from nardy.rules.play import Play

CHECKERS = 15
"""Checkers per side."""
VARIANT_NAMES = ("short", "long")

SHORT_START = (-2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2)
LONG_START = (0,) * 11 + (-15,) + (0,) * 11 + (15,)


@dataclass(frozen=True, slots=True)
class Position:
    """A position of either variant, with the side to move. Frozen and hashable.

    Each side may have fewer than 15 checkers in total (a practice position, or a sensor
    reading that lost one), never more.
    """

    variant: str
    """``"short"`` (backgammon) or ``"long"`` (long nardy)."""
    points: tuple[int, ...]
    """24 counts in white's numbering: positive white, negative black."""
    bar_white: int = 0
    """White checkers on the bar (short nardy only)."""
    bar_black: int = 0
    """Black checkers on the bar (short nardy only)."""
    off_white: int = 0
    """White checkers borne off."""
    off_black: int = 0
    """Black checkers borne off."""
    turn: Color = Color.WHITE
    """The side to move."""

    def __post_init__(self) -> None:
        if self.variant not in VARIANT_NAMES:
            raise PositionError(f"unknown variant {self.variant!r}: expected 'short' or 'long'")
        points = tuple(self.points)  # callers may pass a list
        object.__setattr__(self, "points", points)
        if len(points) != 24:
            raise PositionError(f"a position has 24 points, not {len(points)}")
        for i, n in enumerate(points):
            if isinstance(n, bool) or not isinstance(n, int):
                raise PositionError(f"point {i + 1} holds {n!r}, not a whole number")
        for name in ("bar_white", "bar_black", "off_white", "off_black"):
            n = getattr(self, name)
            if isinstance(n, bool) or not isinstance(n, int) or n < 0:
                raise PositionError(f"{name.replace('_', ' ')} is {n!r}, not a count")
        if not isinstance(self.turn, Color):
            raise PositionError(f"turn is {self.turn!r}, not a Color")
        if self.variant == "long" and (self.bar_white or self.bar_black):
            raise PositionError("long nardy has no bar, but the position has checkers on it")
        for color in Color:
            total = self.total(color)
            if total > CHECKERS:
                raise PositionError(f"{color} has {total} checkers; a side has {CHECKERS}")

    @classmethod
    def _trusted(
        cls,
        variant: str,
        points: tuple[int, ...],
        bar_white: int,
        bar_black: int,
        off_white: int,
        off_black: int,
        turn: Color,
    ) -> Position:
        """Build without checks: for the move generator, whose results are valid by construction."""
        self = object.__new__(cls)
        for name, value in (
            ("variant", variant),
            ("points", points),
            ("bar_white", bar_white),
            ("bar_black", bar_black),
            ("off_white", off_white),
            ("off_black", off_black),
            ("turn", turn),
        ):
            object.__setattr__(self, name, value)
        return self

    # ----------------------------------------------------------------- queries
    def count(self, color: Color, point: int) -> int:
        """Checkers of ``color`` on ``point`` (white's numbering 1..24)."""
        n = self.points[point - 1]
        return n if color is Color.WHITE and n > 0 else -n if color is Color.BLACK and n < 0 else 0

    def bar(self, color: Color) -> int:
        return self.bar_white if color is Color.WHITE else self.bar_black

    def off(self, color: Color) -> int:
        return self.off_white if color is Color.WHITE else self.off_black

    def on_board(self, color: Color) -> int:
        if color is Color.WHITE:
            return sum(n for n in self.points if n > 0)
        return -sum(n for n in self.points if n < 0)

    def total(self, color: Color) -> int:
        """All checkers of ``color``: on points, on the bar and borne off."""
        return self.on_board(color) + self.bar(color) + self.off(color)

    @property
    def complete(self) -> bool:
        """Both sides have all 15 checkers."""
        return self.total(Color.WHITE) == CHECKERS and self.total(Color.BLACK) == CHECKERS

    def same_board(self, other: Position) -> bool:
        """Same checkers everywhere, whoever is to move."""
        return (
            self.variant == other.variant
            and self.points == other.points
            and self.bar_white == other.bar_white
            and self.bar_black == other.bar_black
            and self.off_white == other.off_white
            and self.off_black == other.off_black
        )

    def with_turn(self, turn: Color) -> Position:
        """The same board with ``turn`` to move."""
        if turn is self.turn:
            return self
        if not isinstance(turn, Color):
            raise PositionError(f"turn is {turn!r}, not a Color")
        return Position._trusted(
            self.variant, self.points, self.bar_white, self.bar_black, self.off_white, self.off_black, turn
        )

    # ----------------------------------------------------------------- making new ones
    @classmethod
    def initial(cls, variant: str, turn: Color = Color.WHITE) -> Position:
        """The starting position of ``variant`` (``"short"`` or ``"long"``; aliases accepted)."""
        from nardy.rules.variants import find_variant

        name = find_variant(variant).name
        return cls(name, SHORT_START if name == "short" else LONG_START, turn=turn)

    def apply(self, play: Play | str) -> Position:
        """The position after the side to move makes ``play``; the turn passes to the opponent.

        This checks only what is physically possible (a checker at each source, an open
        destination); whether the play is legal for a roll is :mod:`nardy.rules.legal`'s question.
        """
        from nardy.rules.board import apply_steps
        from nardy.rules.play import Play as PlayType

        if isinstance(play, str):
            play = PlayType.from_text(play)
        return apply_steps(self, play.steps).with_turn(self.turn.other)

    # ----------------------------------------------------------------- JSON
    def to_json(self) -> dict[str, Any]:
        return {
            "variant": self.variant,
            "points": list(self.points),
            "bar": {"white": self.bar_white, "black": self.bar_black},
            "off": {"white": self.off_white, "black": self.off_black},
            "turn": self.turn.value,
        }

    def json_text(self) -> str:
        return json.dumps(self.to_json(), separators=(",", ":"))

    @classmethod
    def from_json(cls, data: str | Mapping[str, Any], variant: str | None = None) -> Position:
        """Read the position JSON (a text or a parsed mapping).

        ``variant`` fills in a missing ``"variant"``; ``bar``, ``off`` and ``turn`` default to
        empty / white. Errors say which field is wrong.
        """
        if isinstance(data, str):
            try:
                data = json.loads(data)
            except json.JSONDecodeError as exc:
                raise NotationError(f"position is not valid JSON: {exc.msg} at column {exc.colno}") from None
        if not isinstance(data, Mapping):
            raise NotationError("position JSON must be an object with 'points'")
        unknown = set(data) - {"variant", "points", "bar", "off", "turn"}
        if unknown:
            raise NotationError(f"position JSON has unknown field(s): {', '.join(sorted(unknown))}")
        name = data.get("variant", variant)
        if name is None:
            raise NotationError("position JSON has no 'variant'")
        if not isinstance(name, str):
            raise NotationError(f"'variant' must be a text, not {name!r}")
        from nardy.rules.variants import find_variant

        try:
            name = find_variant(name).name
        except ValueError as exc:
            raise NotationError(str(exc)) from None
        points = data.get("points")
        if not isinstance(points, list):
            raise NotationError("position JSON needs 'points': a list of 24 whole numbers")

        def pair(field: str) -> tuple[int, int]:
            value = data.get(field, {})
            if not isinstance(value, Mapping) or set(value) - {"white", "black"}:
                raise NotationError(f'\'{field}\' must be an object {{"white": n, "black": n}}')
            w, b = value.get("white", 0), value.get("black", 0)
            for v in (w, b):
                if isinstance(v, bool) or not isinstance(v, int):
                    raise NotationError(f"'{field}' counts must be whole numbers, not {v!r}")
            return w, b

        bar_w, bar_b = pair("bar")
        off_w, off_b = pair("off")
        turn_text = data.get("turn", "white")
        try:
            turn = Color.parse(turn_text) if isinstance(turn_text, str) else None
        except ValueError:
            turn = None
        if turn is None:
            raise NotationError(f"'turn' must be 'white' or 'black', not {turn_text!r}")
        return cls(name, tuple(points), bar_w, bar_b, off_w, off_b, turn)

    # ----------------------------------------------------------------- text
    def __str__(self) -> str:
        return self.json_text()

    def diagram(self, color: Color | None = None) -> str:
        """A small text picture (top row 13..24, bottom row 12..1 in white's numbering)."""

        def cell(n: int) -> str:
            return " . " if n == 0 else f"{'W' if n > 0 else 'B'}{abs(n):<2d}"

        top = " ".join(cell(self.points[i]) for i in range(12, 24))
        bottom = " ".join(cell(self.points[i]) for i in range(11, -1, -1))
        numbers_top = " ".join(f"{i:<3d}" for i in range(13, 25))
        numbers_bottom = " ".join(f"{i:<3d}" for i in range(12, 0, -1))
        extra = f"bar W{self.bar_white} B{self.bar_black}  off W{self.off_white} B{self.off_black}"
        return "\n".join([numbers_top, top, bottom, numbers_bottom, f"{extra}  {self.turn} to move"])
