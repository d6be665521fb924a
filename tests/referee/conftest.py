"""A referee with a manual clock, and a way to show it a settled board."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from nardy.referee.config import RefereeConfig
from nardy.referee.events import Event, EventBus
from nardy.referee.match import MatchInfo
from nardy.referee.reading import BoardReading
from nardy.referee.session import Referee
from nardy.rules import Position


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


class Table:
    """A referee plus helpers that play the part of the camera and the dice."""

    def __init__(self, info: MatchInfo, config: RefereeConfig | None = None) -> None:
        self.clock = Clock()
        self.ref = Referee(info, config, bus=EventBus(self.clock), clock=self.clock)

    def show(self, position: Position, confidence: float = 0.97, frames: int = 10) -> None:
        """The board shows ``position``, still, for long enough to settle."""
        self.see(BoardReading.certain(position, confidence), frames)

    def see(self, reading: BoardReading, frames: int = 10) -> None:
        """The camera gives ``reading`` for ``frames`` frames, 0.2 s apart."""
        for _ in range(frames):
            self.clock.t += 0.2
            self.ref.on_reading(reading)

    def hand(self, frames: int = 3) -> None:
        """A hand over the board."""
        reading = BoardReading.certain(self.ref.position, settled=False)
        reading = BoardReading(reading.points, reading.bar, reading.off, False, ("board",))
        for _ in range(frames):
            self.clock.t += 0.2
            self.ref.on_reading(reading)

    def roll(self, a: int, b: int) -> None:
        self.clock.t += 0.5
        self.ref.on_roll((a, b))

    def kinds(self, since: int = 0) -> list[str]:
        return [e.kind for e in self.ref.bus.history[since:]]

    def last(self, kind: str) -> Event:
        return [e for e in self.ref.bus.history if e.kind == kind][-1]

    def alerts(self) -> set[str]:
        return set(self.ref.alerts)


@pytest.fixture
def table() -> Callable[..., Table]:
    def make(variant: str = "short", config: RefereeConfig | None = None, **kw: object) -> Table:
        return Table(MatchInfo(variant=variant, **kw), config)  # type: ignore[arg-type]

    return make
