"""Replay a recorded dice log as a dice source (for the demo and for tests).

Events come out when their ``t`` comes due: in real time by default, ``speed`` times faster, or
as fast as possible with ``speed=0`` (or infinity). Replayed rolls have ``source="replay"``.
The clock and the wait are injectable, so tests replay a long log instantly and still check
the timing.
"""

from __future__ import annotations

import dataclasses
import math
import os
import time
from collections.abc import Callable, Iterable

from nardy.device.dicelog import LogEntry, load_dice_log
from nardy.device.events import Roll
from nardy.device.source import EventSink, ThreadedSource

__all__ = ["ReplayDice"]


class ReplayDice(ThreadedSource):
    """Deliver the events of a dice log to ``sink`` on the log's schedule.

    ``entries`` come from :func:`~nardy.device.dicelog.read_dice_log` (or use :meth:`from_file`).
    ``clock()`` returns seconds (default :func:`time.monotonic`); ``wait(seconds)`` waits and
    returns ``True`` when the replay should stop (default: wait on :meth:`stop`). :meth:`start`
    replays in a thread; :meth:`run` replays in the caller's.
    """

    thread_name = "dice-replay"

    def __init__(
        self,
        entries: Iterable[LogEntry],
        sink: EventSink,
        *,
        speed: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
        wait: Callable[[float], bool] | None = None,
    ) -> None:
        super().__init__(sink)
        if math.isnan(speed) or speed < 0:
            raise ValueError(f"speed must be 0 (as fast as possible) or more, got {speed!r}")
        self.entries = list(entries)
        self.speed = speed
        self.clock = clock
        self._wait = wait if wait is not None else self._stopping.wait
        self.delivered = 0
        """How many events have been delivered."""

    @classmethod
    def from_file(
        cls,
        path: str | os.PathLike[str],
        sink: EventSink,
        *,
        speed: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
        wait: Callable[[float], bool] | None = None,
    ) -> ReplayDice:
        """Replay the dice log at ``path``; raises :class:`~nardy.device.dicelog.DiceLogError`."""
        return cls(load_dice_log(path), sink, speed=speed, clock=clock, wait=wait)

    def __repr__(self) -> str:
        return f"ReplayDice({len(self.entries)} events, speed={self.speed:g})"

    def run(self) -> None:
        """Replay every event in the calling thread, then return."""
        self._main()

    def _main(self) -> None:
        as_fast_as_possible = self.speed == 0 or math.isinf(self.speed)
        start = self.clock()
        for entry in self.entries:
            if self._stopping.is_set():
                return
            if not as_fast_as_possible:
                delay = start + entry.t / self.speed - self.clock()
                if delay > 0 and self._wait(delay):
                    return
            event = entry.event
            if isinstance(event, Roll):
                event = dataclasses.replace(event, source="replay", timestamp=self.clock())
            else:
                event = dataclasses.replace(event, timestamp=self.clock())
            self._emit(event)
            self.delivered += 1
