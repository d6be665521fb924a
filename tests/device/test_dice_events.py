"""Events: validation, and the JSON that ``nardy dice listen --json`` prints and logs store."""

from __future__ import annotations

import json
from typing import Any

import pytest

from nardy.device.events import (
    Battery,
    Connected,
    DiceEvent,
    DiceValueError,
    Disconnected,
    EventFormatError,
    ProtocolError,
    Roll,
    Rolling,
    Tilt,
    check_dice,
    event_from_json,
)

EVENTS: list[DiceEvent] = [
    Connected("tower-1", 1, "1.0.2", "5e1f09a2", "/dev/ttyUSB0", None),
    Connected("tower-1", 1, "1.0.2", "5e1f09a2", "/dev/ttyUSB0", 4.25),
    Rolling("tower-1"),
    Rolling(),
    Roll((3, 5), 17, "tower-1"),
    Roll((6, 6), 2, "manual", source="manual"),
    Roll((1, 2), 9, "tower-2", replay=True, missed=3),
    Tilt("tower-1"),
    Battery(80, "tower-1"),
    Disconnected("tower-1", "silent for 5.0 s"),
    Disconnected(),
    ProtocolError("bad checksum", "says 0000", "tower-1"),
]


@pytest.mark.parametrize("event", EVENTS, ids=lambda e: type(e).__name__)
def test_json_round_trip(event: DiceEvent) -> None:
    data = json.loads(json.dumps(event.to_json()))
    assert data["type"] == event.type
    assert event_from_json(data) == event
    assert event.describe()


def test_the_documented_examples() -> None:
    roll = event_from_json({"type": "roll", "dice": [3, 5], "seq": 17, "device": "tower-1"})
    assert roll == Roll((3, 5), 17, "tower-1")
    assert {"type": "roll", "dice": [3, 5], "seq": 17, "device": "tower-1"}.items() <= roll.to_json().items()
    assert Rolling().to_json() == {"type": "rolling"}
    assert Tilt().to_json() == {"type": "tilt"}
    assert Disconnected().to_json() == {"type": "disconnected"}
    assert Battery(80).to_json() == {"type": "battery", "pct": 80}
    assert ProtocolError("bad checksum").to_json() == {"type": "error", "message": "bad checksum"}
    connected = Connected("tower-1").to_json()
    assert connected["type"] == "connected" and connected["device"] == "tower-1" and connected["proto"] == 1


def test_timestamps_are_monotonic_and_left_out_of_equality() -> None:
    first, second = Rolling("a"), Rolling("a")
    assert first.timestamp <= second.timestamp
    assert first == second
    assert Rolling("a", timestamp=1.0) == Rolling("a", timestamp=2.0)


@pytest.mark.parametrize("dice", [(0, 3), (3, 7), (1,), (1, 2, 3), (True, 2), ("3", "5"), (3.0, 5), 35, None])
def test_impossible_dice_are_refused(dice: Any) -> None:
    with pytest.raises(DiceValueError):
        check_dice(dice)
    with pytest.raises(DiceValueError):
        Roll(dice, 1, "x")


def test_roll_fields_are_checked() -> None:
    assert check_dice([2, 6]) == (2, 6)
    with pytest.raises(DiceValueError, match="seq"):
        Roll((1, 2), -1, "x")
    with pytest.raises(DiceValueError, match="source"):
        Roll((1, 2), 1, "x", source="telepathy")  # type: ignore[arg-type]
    with pytest.raises(DiceValueError, match="missed"):
        Roll((1, 2), 1, "x", missed=-1)


def test_events_are_frozen() -> None:
    roll = Roll((1, 2), 1, "x")
    with pytest.raises(AttributeError):
        roll.seq = 2  # type: ignore[misc]
    assert hash(roll) == hash(Roll((1, 2), 1, "x"))


@pytest.mark.parametrize(
    ("data", "why"),
    [
        ([], "JSON object"),
        ({"type": "dance"}, "unknown event type"),
        ({}, "unknown event type"),
        ({"type": "roll", "dice": [3, 7], "seq": 1}, "bad roll"),
        ({"type": "roll", "dice": [3, 5]}, "needs 'seq'"),
        ({"type": "roll", "dice": "35", "seq": 1}, "wrong type"),
        ({"type": "roll", "dice": [3, 5], "seq": True}, "true/false"),
        ({"type": "battery", "pct": 120}, "0..100"),
        ({"type": "battery"}, "needs 'pct'"),
        ({"type": "error"}, "needs 'message'"),
        ({"type": "connected", "device": "x", "downtime": -1}, "downtime"),
        ({"type": "tilt", "device": 3}, "wrong type"),
    ],
)
def test_bad_json_is_refused_with_the_reason(data: Any, why: str) -> None:
    with pytest.raises(EventFormatError, match=why):
        event_from_json(data)
