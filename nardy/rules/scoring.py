"""Game end and its value.

Short nardy: 1 point; mars (gammon) 2 when the loser bore off none; koks (backgammon) 3 when,
besides, the loser has a checker on the bar or in the winner's home. Long nardy: oin 1; mars 2
when the loser bore off none; with the ``koks`` option, 3 when, besides, the loser still has a
checker in the winner's home. All times the doubling cube.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from nardy.rules.color import Color
from nardy.rules.position import CHECKERS, Position
from nardy.rules.variants import LongOptions

if TYPE_CHECKING:
    from nardy.rules.variants import Variant

NAMES = {
    "short": {1: "single game", 2: "mars (gammon)", 3: "koks (backgammon)"},
    "long": {1: "oin", 2: "mars", 3: "koks"},
}

# The winner's home in white's numbering.
_HOME = {
    "short": {Color.WHITE: range(1, 7), Color.BLACK: range(19, 25)},
    "long": {Color.WHITE: range(1, 7), Color.BLACK: range(13, 19)},
}


@dataclass(frozen=True, slots=True)
class GameResult:
    """How a finished game ended."""

    winner: Color
    multiplier: int
    """1 (single / oin), 2 (mars, gammon) or 3 (koks, backgammon)."""
    cube: int
    """The value of the doubling cube."""
    name: str
    """The kind of win in words, e.g. ``"mars (gammon)"``."""

    @property
    def points(self) -> int:
        """Match points won: the multiplier times the cube."""
        return self.multiplier * self.cube

    def to_json(self) -> dict[str, Any]:
        return {
            "winner": self.winner.value,
            "multiplier": self.multiplier,
            "cube": self.cube,
            "points": self.points,
            "name": self.name,
        }


def winner(position: Position) -> Color | None:
    """The side that has borne off all 15 checkers, if either."""
    if position.off_white == CHECKERS:
        return Color.WHITE
    if position.off_black == CHECKERS:
        return Color.BLACK
    return None


def game_result(variant: Variant, position: Position, cube: int = 1) -> GameResult | None:
    """The result of the game if ``position`` ends it, else None."""
    if cube < 1 or cube & (cube - 1):
        raise ValueError(f"the cube shows a power of two, not {cube}")
    win = winner(position)
    if win is None:
        return None
    loser = win.other
    multiplier = 1
    if position.off(loser) == 0:
        multiplier = 2
        in_home = any(position.count(loser, p) for p in _HOME[variant.name][win])
        if variant.name == "short":
            if in_home or position.bar(loser):
                multiplier = 3
        elif isinstance(variant.options, LongOptions) and variant.options.koks and in_home:
            multiplier = 3
    return GameResult(win, multiplier, cube, NAMES[variant.name][multiplier])
