"""The two sides."""

from __future__ import annotations

import enum


class Color(enum.Enum):
    """A side of the board. White moves 24 -> 1 in white's numbering, in both variants."""

    WHITE = "white"
    BLACK = "black"

    @property
    def other(self) -> Color:
        """The opponent."""
        return Color.BLACK if self is Color.WHITE else Color.WHITE

    @classmethod
    def parse(cls, text: str) -> Color:
        """``"white"``/``"w"``/``"black"``/``"b"`` (any case) to a colour."""
        key = text.strip().lower()
        if key in ("white", "w"):
            return cls.WHITE
        if key in ("black", "b"):
            return cls.BLACK
        raise ValueError(f"unknown side {text!r}: expected 'white' or 'black'")

    def __str__(self) -> str:
        return self.value


WHITE = Color.WHITE
BLACK = Color.BLACK
