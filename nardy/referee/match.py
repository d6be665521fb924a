"""Match state: score, length, the Crawford game and the doubling cube."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from nardy.rules import Color
from nardy.rules.scoring import GameResult


class CubeError(ValueError):
    """A cube action the rules do not allow now."""


@dataclass(frozen=True, slots=True)
class Cube:
    """The doubling cube."""

    value: int = 1
    owner: Color | None = None
    """Who may double next; None when centred."""
    offered_by: Color | None = None
    """A double offered and not yet answered."""

    def to_json(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "owner": None if self.owner is None else self.owner.value,
            "offered_by": None if self.offered_by is None else self.offered_by.value,
        }


@dataclass(frozen=True, slots=True)
class MatchInfo:
    """What a match is: who plays what, to how many points."""

    variant: str = "short"
    length: int = 0
    """Points to win; 0 for unlimited (money play)."""
    white: str = "White"
    black: str = "Black"
    options: dict[str, Any] = field(default_factory=dict)
    venue: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "variant": self.variant,
            "length": self.length,
            "white": self.white,
            "black": self.black,
            "options": dict(self.options),
            "venue": self.venue,
        }


@dataclass(frozen=True, slots=True)
class MatchScore:
    """The score and the Crawford state."""

    white: int = 0
    black: int = 0
    crawford_game: bool = False
    """This game is the Crawford game (no doubling)."""
    crawford_done: bool = False
    """The Crawford game has been played."""

    def of(self, color: Color) -> int:
        return self.white if color is Color.WHITE else self.black

    def after(self, result: GameResult, length: int, crawford_rule: bool) -> MatchScore:
        """The score after a game, with the next game's Crawford flag."""
        white = self.white + (result.points if result.winner is Color.WHITE else 0)
        black = self.black + (result.points if result.winner is Color.BLACK else 0)
        done = self.crawford_done or self.crawford_game
        crawford = (
            crawford_rule
            and length > 0
            and not done
            and (white == length - 1 or black == length - 1)
            and max(white, black) < length
        )
        return replace(self, white=white, black=black, crawford_game=crawford, crawford_done=done)

    def winner(self, length: int) -> Color | None:
        if length <= 0:
            return None
        if self.white >= length:
            return Color.WHITE
        if self.black >= length:
            return Color.BLACK
        return None

    def to_json(self) -> dict[str, Any]:
        return {"white": self.white, "black": self.black, "crawford": self.crawford_game}
