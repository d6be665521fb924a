"""Where an unfinished match stands after a crash or a restart, and the gaps in its record.

:meth:`nardy.referee.store.MatchStore.open_match` gives a :class:`ResumePoint`: the position to
continue from, the cube, the last turn and how long nothing has been recorded; the dashboard
shows :meth:`ResumePoint.describe` and each :class:`Gap`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from nardy.rules.position import Position
from nardy.rules.record import CubeState, MatchRecord, TurnRecord


@dataclass(frozen=True, slots=True)
class Gap:
    """A stretch with nothing recorded: from the last record before a restart to the restart."""

    stopped_at: datetime | None
    """The last time stamp recorded before the recorder stopped (None: nothing recorded yet)."""
    resumed_at: datetime
    """When recording started again."""

    @property
    def length(self) -> timedelta | None:
        return None if self.stopped_at is None else self.resumed_at - self.stopped_at

    def describe(self) -> str:
        if self.stopped_at is None:
            return f"recording restarted at {self.resumed_at.astimezone():%H:%M:%S}"
        assert self.length is not None
        return (
            f"nothing recorded from {self.stopped_at.astimezone():%H:%M:%S} "
            f"to {self.resumed_at.astimezone():%H:%M:%S} "
            f"({duration(self.length)})"
        )


@dataclass(frozen=True, slots=True)
class ResumePoint:
    """Where an unfinished match stands, for ``nardy serve --resume``."""

    match_id: int
    record: MatchRecord
    game_id: int | None
    """The game in progress (None: the next game has not started)."""
    position: Position | None
    """The position to continue from, with the side to move (None when no game is in progress)."""
    cube: CubeState
    """The cube in the game in progress; ``cube.offered_by`` set: a double waits for its answer."""
    last_turn: TurnRecord | None
    last_turn_id: int | None
    last_activity: datetime | None
    """The last time stamp in the record."""
    now: datetime

    @property
    def gap(self) -> timedelta | None:
        """How long nothing has been recorded."""
        return None if self.last_activity is None else self.now - self.last_activity

    @property
    def score(self) -> tuple[int, int]:
        """``(white, black)`` after the finished games."""
        return self.record.score

    def describe(self) -> str:
        """A few sentences for the dashboard and the log."""
        info = self.record.info
        white, black = self.score
        length = f" (match to {info.length})" if info.length else ""
        text = f"Match {self.match_id}: {info.white} {white} - {black} {info.black}{length}."
        games = self.record.games
        if self.game_id is not None and games:
            game = games[-1]
            turn = self.last_turn if game.turns else None
            if turn is not None:
                play = turn.play.text() or "no play"
                text += (
                    f" Game {game.number}, after turn {len(game.turns)} ({turn.color} {turn.roll}: {play})."
                )
            else:
                text += f" Game {game.number}, no turn played yet."
            if self.cube.offered_by is not None:
                text += f" {self.cube.offered_by} doubled to {self.cube.value * 2}: waiting for the answer."
            elif self.position is not None:
                text += f" {self.position.turn} to play."
        else:
            text += " The next game has not started."
        if self.gap is not None and self.last_activity is not None:
            since = self.last_activity.astimezone()
            text += f" Nothing recorded since {since:%H:%M:%S} ({duration(self.gap)})."
        return text


def duration(delta: timedelta) -> str:
    """``"6 min 28 s"``, ``"1 h 5 min"``."""
    seconds = max(int(delta.total_seconds()), 0)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes} min"
    if minutes:
        return f"{minutes} min {secs} s"
    return f"{secs} s"
