"""Dice entered by a person: from the dashboard (:class:`ManualDice`) or a terminal (:class:`TerminalDice`).

Both make the same :class:`~nardy.device.events.Roll` events as a hub, with ``source="manual"``
and their own throw numbers. What cannot be read as two dice 1..6 is refused with a clear
message and never becomes a roll.
"""

from __future__ import annotations

import codecs
import io
import os
import re
import select
import threading
import time
from collections.abc import Callable
from typing import TextIO

from nardy.device.events import DiceValueError, ProtocolError, Roll, check_dice
from nardy.device.source import EventSink, ThreadedSource, as_callback

__all__ = ["ManualDice", "TerminalDice", "parse_dice"]

_DICE_TEXT = re.compile(r"\s*(\d)\s*[-,:/xX ]?\s*(\d)\s*")


def parse_dice(text: str) -> tuple[int, int]:
    """Read two dice as a person types them: ``3 5``, ``35``, ``3-5``, ``3,5``, ``3:5``.

    Raises :class:`~nardy.device.events.DiceValueError` (a ``ValueError``) otherwise.
    """
    match = _DICE_TEXT.fullmatch(text)
    if match is None:
        raise DiceValueError(f"cannot read two dice from {text!r}: type them like '3 5' or '35'")
    try:
        return check_dice((int(match.group(1)), int(match.group(2))))
    except DiceValueError as exc:
        raise DiceValueError(f"cannot use {text.strip()!r}: {exc}") from None


class ManualDice:
    """A dice source fed by calls: the dashboard's dice buttons or a form.

    Between :meth:`start` and :meth:`stop`, :meth:`roll` and :meth:`enter` deliver a
    :class:`Roll` to ``sink`` (in the caller's thread) and return it. Thread-safe.
    """

    def __init__(
        self, sink: EventSink, *, device: str = "manual", clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.device = device
        self.clock = clock
        self._deliver = as_callback(sink)
        self._lock = threading.Lock()
        self._seq = 0
        self._active = False

    def __repr__(self) -> str:
        return f"ManualDice(device={self.device!r})"

    def start(self) -> None:
        self._active = True

    def stop(self, timeout: float = 5.0) -> None:
        self._active = False

    def roll(self, dice: tuple[int, int] | list[int]) -> Roll:
        """Report a throw of ``dice``; raises :class:`DiceValueError` for impossible dice."""
        checked = check_dice(dice)
        with self._lock:
            if not self._active:
                raise RuntimeError(f"{self!r} is not started")
            self._seq += 1
            event = Roll(checked, self._seq, self.device, source="manual", timestamp=self.clock())
            self._deliver(event)
        return event

    def enter(self, text: str) -> Roll:
        """Report a throw typed as text (see :func:`parse_dice`)."""
        return self.roll(parse_dice(text))


class TerminalDice(ThreadedSource):
    """Read throws typed one per line (``3 5``) from ``stream`` until it ends or :meth:`stop`.

    A line that is not two dice becomes a :class:`ProtocolError` ``bad entry`` saying why;
    blank lines are skipped. When ``stream`` has a file descriptor it is read without blocking,
    so :meth:`stop` returns promptly even while nobody types.
    """

    thread_name = "dice-terminal"

    def __init__(
        self,
        stream: TextIO,
        sink: EventSink,
        *,
        device: str = "terminal",
        clock: Callable[[], float] = time.monotonic,
        poll_interval: float = 0.1,
    ) -> None:
        super().__init__(sink)
        self.stream = stream
        self.poll_interval = poll_interval
        self._manual = ManualDice(self._emit, device=device, clock=clock)

    def __repr__(self) -> str:
        return f"TerminalDice(device={self._manual.device!r})"

    def _main(self) -> None:
        self._manual.start()
        try:
            fd = self.stream.fileno()
        except (OSError, AttributeError, io.UnsupportedOperation):
            for line in self.stream:
                if self._stopping.is_set():
                    return
                self._line(line)
            return
        self._read_fd(fd)

    def _read_fd(self, fd: int) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        pending = ""
        while not self._stopping.is_set():
            ready, _, _ = select.select([fd], [], [], self.poll_interval)
            if not ready:
                continue
            data = os.read(fd, 4096)
            pending += decoder.decode(data, final=not data)
            *lines, pending = pending.split("\n")
            for line in lines:
                self._line(line)
            if not data:
                if pending:
                    self._line(pending)
                return

    def _line(self, line: str) -> None:
        if not line.strip():
            return
        try:
            self._manual.enter(line)
        except DiceValueError as exc:
            device, now = self._manual.device, self._manual.clock()
            self._emit(ProtocolError("bad entry", str(exc), device, timestamp=now))
