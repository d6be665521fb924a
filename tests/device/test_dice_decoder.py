"""What a hub's messages mean: identity, each throw exactly once, gaps, and refusals."""

from __future__ import annotations

import pytest

from nardy.device.decoder import HubDecoder
from nardy.device.events import Battery, Connected, DiceEvent, ProtocolError, Roll, Rolling, Tilt
from nardy.device.protocol import BadLine, Message


def decoder() -> HubDecoder:
    hub = HubDecoder(fallback_device="/dev/ttyUSB0", port="/dev/ttyUSB0", clock=lambda: 42.0)
    hub.connection_opened()
    return hub


def feed(hub: HubDecoder, *messages: Message) -> list[DiceEvent]:
    return [event for message in messages for event in hub.decode(message)]


def hello(boot: str = "b1", **extra: object) -> Message:
    return Message.make("HELLO", proto=1, id="tower-1", fw="1.0", boot=boot, **extra)


def roll(seq: int, dice: str = "3-5", **extra: object) -> Message:
    return Message.make("ROLL", seq=seq, d=dice, **extra)


def test_hello_connects_once_per_connection() -> None:
    hub = decoder()
    first = feed(hub, hello())
    assert first == [Connected("tower-1", 1, "1.0", "b1", "/dev/ttyUSB0", None)]
    assert first[0].timestamp == 42.0
    assert feed(hub, hello()) == []  # the answer to a repeated HELLO?
    hub.connection_opened(downtime=3.5)
    assert feed(hub, hello()) == [Connected("tower-1", 1, "1.0", "b1", "/dev/ttyUSB0", 3.5)]


def test_a_reboot_is_a_new_connection_and_numbers_start_again() -> None:
    hub = decoder()
    feed(hub, hello("b1"), roll(1), roll(2))
    events = feed(hub, hello("b2"), roll(1))
    assert events[0] == Connected("tower-1", 1, "1.0", "b2", "/dev/ttyUSB0", None)
    assert events[1] == Roll((3, 5), 1, "tower-1")


def test_rolls_are_tagged_with_the_hub_id_or_the_port_before_hello() -> None:
    hub = decoder()
    assert feed(hub, roll(1)) == [Roll((3, 5), 1, "/dev/ttyUSB0")]
    feed(hub, hello())
    assert feed(hub, roll(2, "6-6")) == [Roll((6, 6), 2, "tower-1")]


def test_duplicates_are_dropped_and_counted() -> None:
    hub = decoder()
    events = feed(hub, hello(), roll(5), roll(5), roll(5, replay=1))
    assert events[1:] == [Roll((3, 5), 5, "tower-1")]
    assert hub.duplicates == 2


def test_a_roll_seen_before_the_first_hello_is_still_a_duplicate_after_it() -> None:
    hub = decoder()
    feed(hub, roll(5))
    assert feed(hub, hello(), roll(5, replay=1)) == [Connected("tower-1", 1, "1.0", "b1", "/dev/ttyUSB0")]
    assert hub.duplicates == 1


def test_same_number_from_another_boot_is_not_a_duplicate() -> None:
    hub = decoder()
    feed(hub, hello("b1"), roll(1))
    assert feed(hub, hello("b2"), roll(1))[1:] == [Roll((3, 5), 1, "tower-1")]


def test_a_resent_roll_not_seen_before_counts_and_says_what_was_missed() -> None:
    hub = decoder()
    feed(hub, hello(), roll(3))
    hub.connection_opened(downtime=2.0)
    events = feed(hub, hello(), roll(6, "2-4", replay=1))
    assert events[1] == Roll((2, 4), 6, "tower-1", replay=True, missed=2)


def test_hello_with_seq_sets_the_baseline_for_missed_throws() -> None:
    hub = decoder()
    feed(hub, hello(seq=16))
    assert feed(hub, roll(18)) == [Roll((3, 5), 18, "tower-1", missed=1)]
    # without seq= in HELLO the first roll has no baseline: nothing is known to be missed
    assert feed(decoder(), hello(), roll(18))[1] == Roll((3, 5), 18, "tower-1", missed=0)


@pytest.mark.parametrize(
    "bad",
    [
        roll(1, "7-2"),
        roll(1, "0-3"),
        roll(1, "3-5-1"),
        roll(1, "35"),
        roll(1, "a-b"),
        Message.make("ROLL", d="3-5"),
        Message.make("ROLL", seq=1),
        Message.make("ROLL", seq="-1", d="3-5"),
        Message.make("ROLL", seq="1.5", d="3-5"),
        roll(1, replay=2),
    ],
)
def test_impossible_rolls_are_errors_never_rolls(bad: Message) -> None:
    hub = decoder()
    events = feed(hub, hello(), bad)
    assert not any(isinstance(event, Roll) for event in events)
    assert isinstance(events[-1], ProtocolError) and events[-1].message == "bad roll"
    assert bad.line() in events[-1].detail
    assert feed(hub, roll(1))  # a bad roll does not use up its number


def test_battery_is_reported_when_it_changes() -> None:
    hub = decoder()
    events = feed(hub, Message.make("BAT", pct=80), Message.make("BAT", pct=80), Message.make("BAT", pct=79))
    assert events == [Battery(80, "/dev/ttyUSB0"), Battery(79, "/dev/ttyUSB0")]
    hub.connection_opened(1.0)
    assert feed(hub, Message.make("BAT", pct=79)) == [Battery(79, "/dev/ttyUSB0")]
    assert [e.message for e in feed(hub, Message.make("BAT", pct=101))] == ["bad message"]  # type: ignore[union-attr]


def test_rolling_is_reported_when_the_dice_start_moving() -> None:
    hub = decoder()
    rolling = Message("ROLLING")
    events = feed(hub, hello(), rolling, rolling, roll(1), rolling, Message("TILT"), rolling)
    assert [type(e) for e in events] == [Connected, Rolling, Roll, Rolling, Tilt, Rolling]


def test_hub_errors_heartbeats_and_unknown_things() -> None:
    hub = decoder()
    assert feed(hub, Message.make("ERR", msg="sensor timeout")) == [
        ProtocolError("device error", "sensor timeout", "/dev/ttyUSB0")
    ]
    assert (
        feed(hub, Message("HB"), Message.make("LED", color="red"), Message("HELLO?"), Message("SYNC")) == []
    )
    assert hub.ignored == 4
    # unknown fields are ignored: a later protocol may add them
    assert feed(hub, hello(), roll(1, temp="21"))[1:] == [Roll((3, 5), 1, "tower-1")]


def test_a_newer_protocol_is_accepted_and_a_bad_hello_is_not() -> None:
    hub = decoder()
    events = feed(hub, Message.make("HELLO", proto=2, id="tower-9", flags="x"))
    assert events == [Connected("tower-9", 2, "", "", "/dev/ttyUSB0")]
    for bad in (
        Message.make("HELLO", proto=1),
        Message.make("HELLO", id="x"),
        Message.make("HELLO", proto="v1", id="x"),
    ):
        assert [e.message for e in decoder().decode(bad)] == ["bad message"]  # type: ignore[union-attr]


def test_bad_lines_become_protocol_errors() -> None:
    hub = decoder()
    (event,) = hub.decode(BadLine("bad checksum", "says 0000, computed 7155", b"$ROLL..."))
    assert event == ProtocolError("bad checksum", "says 0000, computed 7155", "/dev/ttyUSB0")
