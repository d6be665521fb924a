"""A throw of two dice."""

from __future__ import annotations

import re
from dataclasses import dataclass

from nardy.rules.errors import RollError

_ROLL_RE = re.compile(r"^\s*([1-6])\s*[-:,/ ]?\s*([1-6])\s*$")


@dataclass(frozen=True, slots=True, order=True)
class Roll:
    """Two dice, stored larger first: ``Roll(3, 5) == Roll(5, 3)`` and its text is ``"5-3"``."""

    high: int
    """The larger die (the one that counts when only one die can be played)."""
    low: int
    """The smaller die (equal to :attr:`high` for a double)."""

    def __init__(self, d1: int, d2: int) -> None:
        for d in (d1, d2):
            if isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 6:
                raise RollError(f"a die shows 1 to 6, not {d!r}")
        object.__setattr__(self, "high", max(d1, d2))
        object.__setattr__(self, "low", min(d1, d2))

    @property
    def is_double(self) -> bool:
        """Both dice show the same number (it is then played four times)."""
        return self.high == self.low

    @property
    def steps(self) -> tuple[int, ...]:
        """The die values to play: four for a double, else both dice, larger first."""
        if self.is_double:
            return (self.high,) * 4
        return (self.high, self.low)

    @property
    def pips(self) -> int:
        """The total the roll moves when all of it is played."""
        return sum(self.steps)

    @classmethod
    def from_text(cls, text: str) -> Roll:
        """Read ``"6-5"``, ``"65"``, ``"6 5"`` or ``"6:5"``."""
        match = _ROLL_RE.match(text)
        if match is None:
            raise RollError(f"not a roll: {text!r} (expected two dice such as '6-5')")
        return cls(int(match.group(1)), int(match.group(2)))

    @classmethod
    def from_any(cls, value: object) -> Roll:
        """A :class:`Roll`, a text, or a pair of integers such as ``[6, 5]``."""
        if isinstance(value, Roll):
            return value
        if isinstance(value, str):
            return cls.from_text(value)
        if isinstance(value, (list, tuple)) and len(value) == 2:
            a, b = value
            if isinstance(a, int) and isinstance(b, int):
                return cls(a, b)
        raise RollError(f"not a roll: {value!r} (expected two dice such as [6, 5])")

    def text(self) -> str:
        return f"{self.high}-{self.low}"

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return f"Roll({self.high}, {self.low})"
