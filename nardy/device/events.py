"""What dice sources report: small frozen events, the same for every source.

Every event carries ``timestamp``, the :func:`time.monotonic` reading when it was made (left out
of equality, so tests compare events by content). :meth:`to_json` gives the dict that
``nardy dice listen --json`` prints, and :func:`event_from_json` reads it back.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, TypeAlias, get_args

__all__ = [
    "Battery",
    "Connected",
    "DiceEvent",
    "DiceValueError",
    "Disconnected",
    "EventFormatError",
    "ProtocolError",
    "Roll",
    "RollSource",
    "Rolling",
    "Tilt",
    "check_dice",
    "event_from_json",
]

RollSource: TypeAlias = Literal["e-dice", "manual", "replay"]
"""Where a roll came from: electronic dice over a serial port, a person, or a recorded log."""

_ROLL_SOURCES: tuple[str, ...] = get_args(RollSource)


class DiceValueError(ValueError):
    """Dice that cannot be: not two of them, or a value outside 1..6."""


class EventFormatError(ValueError):
    """A JSON object that is not a valid event."""


def check_dice(values: object) -> tuple[int, int]:
    """Return ``values`` as a pair of die faces, or raise :class:`DiceValueError`."""
    if not isinstance(values, (tuple, list)) or len(values) != 2:
        raise DiceValueError(f"a roll is two dice, got {values!r}")
    first, second = values
    for value in (first, second):
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 6:
            raise DiceValueError(f"a die shows 1 to 6, got {value!r} in {values!r}")
    return (first, second)


def _now() -> float:
    return time.monotonic()


def _stamp() -> Any:
    return field(default_factory=_now, kw_only=True, compare=False)


def _with_device(data: dict[str, Any], device: str | None) -> dict[str, Any]:
    if device is not None:
        data["device"] = device
    return data


@dataclass(frozen=True, slots=True)
class Connected:
    """A hub answered ``HELLO?``: it is there and says who it is."""

    type: ClassVar[str] = "connected"
    device: str
    """The hub's id (``id=`` in its HELLO)."""
    proto: int = 1
    """The protocol version the hub speaks."""
    fw: str = ""
    """The hub's firmware version, as it reports it."""
    boot: str = ""
    """The hub's boot id; it changes when the hub restarts and its roll numbers start again."""
    port: str = ""
    """The port URL the hub was reached on."""
    downtime: float | None = None
    """Seconds since the link was lost, when this is a reconnection; ``None`` the first time."""
    timestamp: float = _stamp()

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "device": self.device,
            "proto": self.proto,
            "fw": self.fw,
            "boot": self.boot,
            "port": self.port,
            "downtime": None if self.downtime is None else round(self.downtime, 3),
        }

    def describe(self) -> str:
        again = "" if self.downtime is None else f", back after {self.downtime:.1f} s"
        return f"connected {self.device} (protocol {self.proto}, firmware {self.fw or '?'}{again})"


@dataclass(frozen=True, slots=True)
class Rolling:
    """The dice are in motion."""

    type: ClassVar[str] = "rolling"
    device: str | None = None
    timestamp: float = _stamp()

    def to_json(self) -> dict[str, Any]:
        return _with_device({"type": self.type}, self.device)

    def describe(self) -> str:
        return "rolling..."


@dataclass(frozen=True, slots=True)
class Roll:
    """Both dice have settled: a throw to play."""

    type: ClassVar[str] = "roll"
    dice: tuple[int, int]
    """The two faces, in the order the hub reported them, each 1..6."""
    seq: int
    """The hub's throw number (per boot); manual and replayed rolls number their own."""
    device: str
    """Which hub (or ``manual``, or the device named in a replayed log)."""
    replay: bool = False
    """The hub resent this roll (after ``SYNC``); it was not seen before, so it counts."""
    source: RollSource = "e-dice"
    """``e-dice`` (a hub), ``manual`` (typed or clicked) or ``replay`` (a recorded log)."""
    missed: int = 0
    """How many throws of this hub were never received before this one (a gap in ``seq``)."""
    timestamp: float = _stamp()

    def __post_init__(self) -> None:
        check_dice(self.dice)
        if isinstance(self.seq, bool) or not isinstance(self.seq, int) or self.seq < 0:
            raise DiceValueError(f"seq must be a non-negative integer, got {self.seq!r}")
        if self.source not in _ROLL_SOURCES:
            raise DiceValueError(f"source must be one of {', '.join(_ROLL_SOURCES)}, got {self.source!r}")
        if self.missed < 0:
            raise DiceValueError(f"missed must not be negative, got {self.missed!r}")

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "dice": list(self.dice),
            "seq": self.seq,
            "device": self.device,
            "replay": self.replay,
            "source": self.source,
            "missed": self.missed,
        }

    def describe(self) -> str:
        notes = [f"seq {self.seq}", self.source]
        if self.replay:
            notes.append("resent")
        if self.missed:
            notes.append(f"{self.missed} missed before it")
        return f"roll {self.dice[0]}-{self.dice[1]} ({', '.join(notes)})"


@dataclass(frozen=True, slots=True)
class Tilt:
    """A die landed cocked: the player throws again."""

    type: ClassVar[str] = "tilt"
    device: str | None = None
    timestamp: float = _stamp()

    def to_json(self) -> dict[str, Any]:
        return _with_device({"type": self.type}, self.device)

    def describe(self) -> str:
        return "tilt: a cocked die, throw again"


@dataclass(frozen=True, slots=True)
class Battery:
    """The hub's battery level changed (or was reported for the first time)."""

    type: ClassVar[str] = "battery"
    pct: int
    """Charge in percent, 0..100."""
    device: str | None = None
    timestamp: float = _stamp()

    def to_json(self) -> dict[str, Any]:
        return _with_device({"type": self.type, "pct": self.pct}, self.device)

    def describe(self) -> str:
        return f"battery {self.pct}%"


@dataclass(frozen=True, slots=True)
class Disconnected:
    """The link to a hub was lost (unplugged, silent, or the source stopped)."""

    type: ClassVar[str] = "disconnected"
    device: str | None = None
    reason: str = ""
    """Why, for people: ``unplugged: ...``, ``silent for 5.0 s``, ``stopped``."""
    timestamp: float = _stamp()

    def to_json(self) -> dict[str, Any]:
        data = _with_device({"type": self.type}, self.device)
        if self.reason:
            data["reason"] = self.reason
        return data

    def describe(self) -> str:
        return f"disconnected ({self.reason})" if self.reason else "disconnected"


@dataclass(frozen=True, slots=True)
class ProtocolError:
    """Something went wrong that the owner should know about; nothing stopped.

    ``message`` is short and stable, fit for a program to match on (``bad checksum``,
    ``bad roll``, ``device error``, ``cannot open port``, ...; docs/dice-protocol.md lists them);
    ``detail`` says exactly what, for people.
    """

    type: ClassVar[str] = "error"
    message: str
    detail: str = ""
    device: str | None = None
    timestamp: float = _stamp()

    def to_json(self) -> dict[str, Any]:
        data = _with_device({"type": self.type, "message": self.message}, self.device)
        if self.detail:
            data["detail"] = self.detail
        return data

    def describe(self) -> str:
        return f"error: {self.message}" + (f" ({self.detail})" if self.detail else "")


DiceEvent: TypeAlias = Connected | Rolling | Roll | Tilt | Battery | Disconnected | ProtocolError
"""Any event a dice source reports."""


def _get(data: dict[str, Any], key: str, kind: type | tuple[type, ...], default: Any = ...) -> Any:
    if key not in data or data[key] is None:
        if default is ...:
            raise EventFormatError(f"{data.get('type')!r} event needs {key!r}")
        return default
    value = data[key]
    if isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,)):
        raise EventFormatError(f"{key!r} must not be true/false in {data!r}")
    if not isinstance(value, kind):
        raise EventFormatError(f"{key!r} has the wrong type in {data!r}")
    return value


def event_from_json(data: object, *, timestamp: float | None = None) -> DiceEvent:
    """Build an event from the dict :meth:`to_json` made; unknown keys are ignored.

    Raises :class:`EventFormatError` (a ``ValueError``) naming what is wrong.
    """
    if not isinstance(data, dict):
        raise EventFormatError(f"an event is a JSON object, got {data!r}")
    stamp = time.monotonic() if timestamp is None else timestamp
    kind = data.get("type")
    device: str | None = _get(data, "device", str, None)
    try:
        if kind == "roll":
            dice = _get(data, "dice", list)
            return Roll(
                check_dice(dice),
                _get(data, "seq", int),
                device if device is not None else "replay",
                replay=_get(data, "replay", bool, False),
                source=_get(data, "source", str, "e-dice"),
                missed=_get(data, "missed", int, 0),
                timestamp=stamp,
            )
        if kind == "rolling":
            return Rolling(device, timestamp=stamp)
        if kind == "tilt":
            return Tilt(device, timestamp=stamp)
        if kind == "battery":
            pct = _get(data, "pct", int)
            if not 0 <= pct <= 100:
                raise EventFormatError(f"battery pct must be 0..100, got {pct}")
            return Battery(pct, device, timestamp=stamp)
        if kind == "connected":
            downtime = _get(data, "downtime", (int, float), None)
            if downtime is not None and (not math.isfinite(downtime) or downtime < 0):
                raise EventFormatError(f"downtime must be a non-negative number, got {downtime!r}")
            return Connected(
                device if device is not None else "unknown",
                proto=_get(data, "proto", int, 1),
                fw=_get(data, "fw", str, ""),
                boot=_get(data, "boot", str, ""),
                port=_get(data, "port", str, ""),
                downtime=None if downtime is None else float(downtime),
                timestamp=stamp,
            )
        if kind == "disconnected":
            return Disconnected(device, _get(data, "reason", str, ""), timestamp=stamp)
        if kind == "error":
            return ProtocolError(
                _get(data, "message", str), _get(data, "detail", str, ""), device, timestamp=stamp
            )
    except DiceValueError as exc:
        raise EventFormatError(f"bad roll {data!r}: {exc}") from exc
    raise EventFormatError(f"unknown event type {kind!r}")
