"""Everything the referee decides, as events in one ordered stream.

The recorder and the dashboard consume the same stream: an :class:`Event` has a sequence number,
a time, a ``kind`` and a JSON body. Alerts are events too, with a severity, a code and a text;
an alert stays active until an ``alert-cleared`` event with its code.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

Severity = Literal["info", "warning", "error"]

# Alert codes
ILLEGAL_PLAY = "illegal-play"
UNFINISHED_PLAY = "unfinished-play"
OUT_OF_TURN = "dice-out-of-turn"
BOARD_CHANGED = "board-changed"
UNREADABLE = "position-unreadable"
NOT_SETTLED = "not-settled"
LOOK = "please-look"
CHECK = "check-play"
CAMERA_MOVED = "camera-moved"
DICE_DISCONNECTED = "dice-disconnected"
CAMERA_LOST = "camera-lost"
STORAGE = "storage"
COUNT_CHANGED = "checker-count"
POINT_MISREAD = "point-misread"
UNSEEN_SIDE = "checkers-unseen"


@dataclass(frozen=True, slots=True)
class Event:
    """One thing the referee decided or noticed."""

    seq: int
    """Position in the stream, from 1, without gaps."""
    t: float
    """When (the session's clock, seconds)."""
    kind: str
    """``game-started``, ``roll``, ``play``, ``illegal``, ``turn-ended``, ``alert`` ..."""
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "t": round(self.t, 3), "kind": self.kind, **self.data}


@dataclass(frozen=True, slots=True)
class Alert:
    """Something a person at the table should know."""

    code: str
    severity: Severity
    text: str
    points: tuple[int, ...] = ()
    """Points to highlight (white's numbering)."""

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "severity": self.severity, "text": self.text, "points": list(self.points)}


Listener = Callable[[Event], None]


class EventBus:
    """Numbers events and hands each to every listener, in order. Thread-safe.

    A listener that raises does not stop the others: its error becomes an ``error`` event
    (``listener-failed``) after the one it failed on.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic, keep: int = 100_000) -> None:
        self._clock = clock
        self.keep = keep
        """How many past events ``history`` keeps (the oldest half goes when it is full)."""
        self._lock = threading.RLock()
        self._listeners: list[Listener] = []
        self._seq = 0
        self.history: list[Event] = []
        """Every event so far (the session keeps them for the dashboard and tests)."""

    def subscribe(self, listener: Listener, replay: bool = False) -> Callable[[], None]:
        """Add a listener; returns a function that removes it.

        ``replay``: first hand it every event so far, so it misses nothing that came before.
        """
        with self._lock:
            if replay:
                for event in list(self.history):
                    listener(event)
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    def emit(self, kind: str, **data: Any) -> Event:
        with self._lock:
            self._seq += 1
            event = Event(self._seq, self._clock(), kind, data)
            self.history.append(event)
            if len(self.history) > self.keep:
                del self.history[: self.keep // 2]
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(event)
            except Exception as exc:  # a broken consumer must not stop the referee
                if kind != "listener-failed":
                    self.emit(
                        "listener-failed", listener=repr(listener), error=f"{type(exc).__name__}: {exc}"
                    )
        return event

    @property
    def seq(self) -> int:
        return self._seq
