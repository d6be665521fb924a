"""Dice logs: a session's events as JSON lines, to record now and replay later.

Each line is one event as ``nardy dice listen --json`` prints it, plus ``t``, the seconds since
the recording started::

    {"t": 0.0, "type": "connected", "device": "tower-1", "proto": 1}
    {"t": 3.5, "type": "roll", "dice": [3, 5], "seq": 1, "device": "tower-1"}

``t`` never decreases. Blank lines are allowed; anything else that is not an event is an error
naming the file and line.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, TextIO

from nardy.device.events import DiceEvent, EventFormatError, event_from_json

__all__ = ["DiceLogError", "DiceLogWriter", "LogEntry", "load_dice_log", "read_dice_log"]


class DiceLogError(ValueError):
    """A dice log that cannot be read; the message names the file and line."""


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One line of a dice log."""

    t: float
    """Seconds since the recording started."""
    event: DiceEvent


def read_dice_log(lines: Iterable[str], *, name: str = "<dice log>") -> list[LogEntry]:
    """Parse the lines of a dice log. Raises :class:`DiceLogError` at the first bad line."""
    entries: list[LogEntry] = []
    last = 0.0
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{name}:{number}"
        try:
            data: Any = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DiceLogError(f"{where}: not JSON ({exc.msg})") from exc
        if not isinstance(data, dict):
            raise DiceLogError(f"{where}: expected a JSON object, got {line.strip()[:60]!r}")
        t = data.get("t")
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t) or t < 0:
            raise DiceLogError(f"{where}: 't' must be seconds since the start (a number >= 0), got {t!r}")
        if t < last:
            raise DiceLogError(f"{where}: 't' goes backwards ({t} after {last})")
        last = float(t)
        try:
            event = event_from_json(data, timestamp=0.0)
        except EventFormatError as exc:
            raise DiceLogError(f"{where}: {exc}") from exc
        entries.append(LogEntry(float(t), event))
    return entries


def load_dice_log(path: str | os.PathLike[str]) -> list[LogEntry]:
    """Read the dice log at ``path`` (see :func:`read_dice_log`)."""
    with open(path, encoding="utf-8") as file:
        return read_dice_log(file, name=str(path))


class DiceLogWriter:
    """Append events to a dice log, ``t`` counted from ``start`` (default: now).

    ``target`` is a path (opened, and closed by :meth:`close`) or an open text file (left open).
    Each line is flushed as it is written, so a recording survives the program being killed.
    """

    def __init__(
        self,
        target: str | os.PathLike[str] | TextIO,
        *,
        clock: Callable[[], float] = time.monotonic,
        start: float | None = None,
    ) -> None:
        if isinstance(target, (str, os.PathLike)):
            self._file: TextIO = open(Path(target), "w", encoding="utf-8")
            self._owned = True
        else:
            self._file = target
            self._owned = False
        self.start = clock() if start is None else start

    def write(self, event: DiceEvent) -> None:
        t = max(0.0, event.timestamp - self.start)
        line = json.dumps({"t": round(t, 3), **event.to_json()})
        self._file.write(line + "\n")
        self._file.flush()

    def close(self) -> None:
        if self._owned and not self._file.closed:
            self._file.close()

    def __enter__(self) -> DiceLogWriter:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
