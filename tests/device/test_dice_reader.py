"""The serial reader over real transports: pseudo-terminals, ``loop://`` and ``socket://``.

Every wait is for an event (or for data on a descriptor), never a sleep. To check that something
did *not* happen, a test sends a marker after it and waits for the marker.
"""

from __future__ import annotations

import dataclasses
import os
import select
import tty
from pathlib import Path

import pytest
import serial

from nardy.device.emulator import HubConfig, HubEmulator
from nardy.device.events import (
    Battery,
    Connected,
    DiceEvent,
    Disconnected,
    ProtocolError,
    Roll,
    Rolling,
    Tilt,
)
from nardy.device.protocol import Message, Parser
from nardy.device.serial_reader import PortUnavailable, ReaderConfig, SerialDiceReader

from .conftest import FAST, WAIT, EventLog


def marker(hub: HubEmulator, events: EventLog) -> list[DiceEvent]:
    """Everything the reader reported up to a TILT sent now (so up to everything sent before)."""
    start = len(events.seen)
    hub.tilt()
    events.next(Tilt)
    return events.since(start)[:-1]


# -- every message over a pseudo-terminal ----------------------------------------------------


def test_a_hub_on_a_pty_reports_every_kind_of_event(
    hub: HubEmulator, reader: SerialDiceReader, events: EventLog
) -> None:
    connected = events.next(Connected)
    assert connected == Connected("tower-1", 1, "emulator-1", hub.state.boot, hub.path, None)
    assert events.next(Battery) == Battery(100, "tower-1")
    assert reader.connected and reader.device == "tower-1"

    dice = hub.roll()
    assert events.next(Rolling) == Rolling("tower-1")
    assert events.next(Roll) == Roll(dice, 1, "tower-1")
    assert hub.roll((6, 6)) == (6, 6)
    assert events.next(Roll) == Roll((6, 6), 2, "tower-1")
    hub.tilt()
    assert events.next(Tilt) == Tilt("tower-1")
    hub.battery(40)
    assert events.next(Battery) == Battery(40, "tower-1")
    hub.error("sensor timeout")
    assert events.next(ProtocolError) == ProtocolError("device error", "sensor timeout", "tower-1")
    hub.send_raw(Message.make("FUTURE", x=1).encode())  # unknown: ignored
    assert not [e for e in marker(hub, events) if not isinstance(e, Rolling)]
    reader.send(Message("PING"))
    assert hub.wait_for("PING", WAIT)


def test_heartbeats_keep_a_quiet_hub_alive(hub: HubEmulator, events: EventLog) -> None:
    config = dataclasses.replace(FAST, heartbeat_timeout=0.3)
    with SerialDiceReader(hub.path, events.queue, config=config) as reader:
        events.next(Connected)
        # three heartbeat timeouts pass with nothing but heartbeats; the link must hold
        assert hub.wait_for_heartbeats(int(3 * 0.3 / hub.config.heartbeat_interval), WAIT)
        seen = marker(hub, events)
        assert not any(isinstance(e, Disconnected) for e in seen)
        assert reader.stats().disconnections == 0


def test_lines_split_and_merged_anyhow(hub: HubEmulator, reader: SerialDiceReader, events: EventLog) -> None:
    events.next(Connected)
    lines = b"".join(Message.make("ROLL", seq=n, d="2-3").encode() for n in range(1, 6))
    hub.send_raw(lines[:7])
    hub.send_raw(lines[7:40])
    hub.send_raw(lines[40:])
    assert [events.next(Roll).seq for _ in range(5)] == [1, 2, 3, 4, 5]


def test_bad_checksums_are_dropped_reported_and_counted(
    hub: HubEmulator, reader: SerialDiceReader, events: EventLog
) -> None:
    events.next(Connected)
    hub.send_raw(b"$ROLL,seq=9,d=6-6*0000\r\n")
    error = events.next(ProtocolError)
    assert error.message == "bad checksum" and "$ROLL,seq=9,d=6-6*0000" in error.detail
    assert not any(isinstance(e, Roll) for e in marker(hub, events))
    assert reader.stats().bad_lines == 1


def test_impossible_dice_with_a_good_checksum_are_an_error_not_a_roll(
    hub: HubEmulator, reader: SerialDiceReader, events: EventLog
) -> None:
    events.next(Connected)
    hub.send_raw(Message.make("ROLL", seq=3, d="7-1").encode())
    assert events.next(ProtocolError).message == "bad roll"
    assert not any(isinstance(e, Roll) for e in marker(hub, events))


def test_duplicates_are_dropped(hub: HubEmulator, reader: SerialDiceReader, events: EventLog) -> None:
    events.next(Connected)
    line = Message.make("ROLL", seq=4, d="5-5").encode()
    hub.send_raw(line + line + Message.make("ROLL", seq=4, d="5-5", replay=1).encode())
    assert events.next(Roll) == Roll((5, 5), 4, "tower-1", missed=3)  # the hub said seq=0 in HELLO
    assert not any(isinstance(e, Roll) for e in marker(hub, events))
    assert reader.stats().duplicates == 2


def test_garbage_and_line_noise_do_not_stop_the_dice(
    hub: HubEmulator, reader: SerialDiceReader, events: EventLog
) -> None:
    events.next(Connected)
    hub.garbage(3000)
    hub.send_raw(b"\x00\xff$ROLL,seq=1,d=3-")  # a line broken by noise
    dice = hub.roll()
    assert events.next(Roll, seq=1).dice == dice
    errors = [e for e in events.seen if isinstance(e, ProtocolError)]
    assert errors and all(e.message != "source failed" for e in errors)
    assert reader.failure is None


def test_a_flooding_hub_cannot_flood_the_owner(hub: HubEmulator, events: EventLog) -> None:
    config = dataclasses.replace(FAST, error_limit=5, error_window=0.2)
    with SerialDiceReader(hub.path, events.queue, config=config) as reader:
        events.next(Connected)
        hub.send_raw(b"$ROLL,seq=1,d=1-1*0000\n" * 3000)
        hub.roll((2, 2))
        assert events.next(Roll) == Roll((2, 2), 1, "tower-1")
        summary = events.next(ProtocolError, message="errors suppressed")
        stats = reader.stats()
        assert stats.bad_lines == 3000
        reported = [e for e in events.seen if isinstance(e, ProtocolError) and e.message == "bad checksum"]
        assert len(reported) + stats.suppressed_errors == 3000
        assert len(reported) < 100
        assert "more protocol errors" in summary.detail


# -- losing the hub and finding it again -----------------------------------------------------


def test_unplug_and_replug_reconnects_and_recovers_the_missed_roll(
    hub: HubEmulator, reader: SerialDiceReader, events: EventLog
) -> None:
    events.next(Connected)
    hub.roll((1, 2))
    events.next(Roll)
    hub.unplug()
    lost = events.next(Disconnected)
    assert lost.device == "tower-1" and "port lost" in lost.reason
    assert not Path(hub.path).exists()
    hub.roll((3, 3))  # thrown while the cable is out: the hub keeps counting
    hub.roll((4, 4))
    hub.plug()
    back = events.next(Connected)
    assert back.downtime is not None and back.downtime > 0
    roll = events.next(Roll)
    assert roll == Roll((4, 4), 3, "tower-1", replay=True, missed=1)
    assert hub.received.count("HELLO?") >= 2 and "SYNC" in hub.received
    assert reader.stats().disconnections == 1 and reader.stats().connections >= 2
    hub.roll((5, 6))
    assert events.next(Roll) == Roll((5, 6), 4, "tower-1")


def test_sync_after_replug_does_not_repeat_a_roll_already_seen(
    hub: HubEmulator, reader: SerialDiceReader, events: EventLog
) -> None:
    events.next(Connected)
    hub.roll((2, 5))
    events.next(Roll)
    hub.unplug()
    events.next(Disconnected)
    hub.plug()
    events.next(Connected)
    assert hub.wait_for("SYNC", WAIT)  # answered in the same step: the marker comes after the answer
    assert not any(isinstance(e, Roll) for e in marker(hub, events))
    assert reader.stats().duplicates == 1


def test_a_silent_hub_is_lost_then_found(hub: HubEmulator, events: EventLog) -> None:
    config = dataclasses.replace(FAST, heartbeat_timeout=0.3)
    with SerialDiceReader(hub.path, events.queue, config=config):
        events.next(Connected)
        hub.silence()
        lost = events.next(Disconnected)
        assert lost.reason.startswith("silent for")
        hub.resume()
        back = events.next(Connected)
        assert back.downtime is not None


def test_a_reboot_starts_the_numbers_again(
    hub: HubEmulator, reader: SerialDiceReader, events: EventLog
) -> None:
    first = events.next(Connected)
    hub.roll((1, 1))
    events.next(Roll)
    hub.reboot()
    again = events.next(Connected)
    assert again.boot != first.boot and again.downtime is None
    hub.roll((2, 2))
    assert events.next(Roll) == Roll((2, 2), 1, "tower-1")


def test_hello_is_repeated_until_answered(tmp_path: Path, events: EventLog) -> None:
    master, slave = os.openpty()
    tty.setraw(slave)
    link = tmp_path / "hub"
    link.symlink_to(os.ttyname(slave))
    parser = Parser()

    def host_says() -> str:
        while True:
            assert select.select([master], [], [], WAIT)[0], "the reader said nothing"
            for item in parser.feed(os.read(master, 1024)):
                assert isinstance(item, Message)
                return item.type

    try:
        with SerialDiceReader(str(link), events.queue, config=FAST) as reader:
            assert host_says() == "HELLO?"  # lost, as if the board were still resetting
            assert host_says() == "HELLO?"
            os.write(master, Message.make("HELLO", proto=1, id="late-1", boot="b").encode())
            assert events.next(Connected).device == "late-1"
            os.write(master, Message.make("ROLL", seq=1, d="6-5").encode())
            assert events.next(Roll) == Roll((6, 5), 1, "late-1")
            assert reader.connected
    finally:
        os.close(master)
        os.close(slave)


def test_two_hubs_on_one_machine(events: EventLog) -> None:
    config_a = HubConfig(device_id="tower-1", heartbeat_interval=0.05)
    config_b = HubConfig(device_id="tower-2", heartbeat_interval=0.05)
    with HubEmulator(config_a, seed=1) as hub_a, HubEmulator(config_b, seed=2) as hub_b:
        assert hub_a.path != hub_b.path
        with (
            SerialDiceReader(hub_a.path, events.queue, config=FAST),
            SerialDiceReader(hub_b.path, events.queue, config=FAST),
        ):
            devices = {events.next(Connected).device, events.next(Connected).device}
            assert devices == {"tower-1", "tower-2"}
            hub_a.roll((1, 2))
            hub_b.roll((5, 6))
            hub_a.roll((3, 4))
            rolls = [events.next(Roll) for _ in range(3)]
            by_device = {(roll.device, roll.seq): roll.dice for roll in rolls}
            assert by_device == {("tower-1", 1): (1, 2), ("tower-2", 1): (5, 6), ("tower-1", 2): (3, 4)}
            hub_b.unplug()
            assert events.next(Disconnected).device == "tower-2"
            hub_a.roll((6, 6))
            assert events.next(Roll).device == "tower-1"


# -- opening ports ---------------------------------------------------------------------------


def test_a_missing_port_fails_at_once_when_not_waiting(tmp_path: Path, events: EventLog) -> None:
    config = dataclasses.replace(FAST, wait_for_port=False)
    reader = SerialDiceReader(str(tmp_path / "nothing"), events.queue, config=config)
    reader.start()
    assert reader.wait(WAIT)
    assert isinstance(reader.failure, PortUnavailable)
    error = events.next(ProtocolError)
    assert error.message == "cannot open port" and "nothing" in error.detail


def test_a_bad_url_fails_even_when_waiting(events: EventLog) -> None:
    reader = SerialDiceReader("nonsense://here", events.queue, config=FAST)
    reader.start()
    assert reader.wait(WAIT)
    assert isinstance(reader.failure, PortUnavailable)
    assert events.next(ProtocolError).message == "cannot open port"


def test_waiting_for_a_hub_that_is_plugged_in_later(tmp_path: Path, events: EventLog) -> None:
    link = tmp_path / "tower"
    with SerialDiceReader(str(link), events.queue, config=FAST, name="my tower") as reader:
        error = events.next(ProtocolError)
        assert error.message == "cannot open port" and error.device == "my tower"
        with HubEmulator(HubConfig(device_id="tower-7", heartbeat_interval=0.05), link=link) as hub:
            assert events.next(Connected).device == "tower-7"
            hub.roll((2, 1))
            assert events.next(Roll).dice == (2, 1)
            # retrying said "cannot open port" once, not once per attempt
            assert [e for e in events.seen if isinstance(e, ProtocolError)] == [error]
        assert reader.failure is None


def test_a_failing_callback_ends_the_reader_and_is_kept(hub: HubEmulator) -> None:
    def broken(event: DiceEvent) -> None:
        raise RuntimeError("the owner's bug")

    reader = SerialDiceReader(hub.path, broken, config=FAST)
    reader.start()
    assert reader.wait(WAIT)
    assert isinstance(reader.failure, RuntimeError)


def test_send_without_a_port_raises(events: EventLog) -> None:
    reader = SerialDiceReader("loop://", events.queue, config=FAST)
    with pytest.raises(serial.SerialException, match="not connected"):
        reader.send(Message("PING"))


def test_stop_is_prompt_and_a_reader_starts_once(hub: HubEmulator, events: EventLog) -> None:
    reader = SerialDiceReader(hub.path, events.queue, config=FAST)
    reader.start()
    events.next(Connected)
    with pytest.raises(RuntimeError, match="started already"):
        reader.start()
    reader.stop(timeout=2.0)
    reader.stop(timeout=2.0)
    assert not reader.running
    assert events.next(Disconnected).reason == "stopped"
    assert reader.stats().disconnections == 0


def test_config_is_checked() -> None:
    with pytest.raises(ValueError, match="heartbeat_timeout"):
        ReaderConfig(heartbeat_timeout=0)
    with pytest.raises(ValueError, match="unknown reader settings"):
        ReaderConfig.from_mapping({"heartbeat": 3})
    assert ReaderConfig.from_mapping({"heartbeat_timeout": 3}).heartbeat_timeout == 3


# -- loop:// and socket:// -------------------------------------------------------------------


def loop_port() -> serial.SerialBase:
    """A ``loop://`` port the test keeps, to play the hub: what it writes, the reader reads."""
    return serial.serial_for_url("loop://", timeout=FAST.poll_interval)


def test_loop_url_every_message_type(events: EventLog) -> None:
    port = loop_port()
    for message in (
        Message.make("HELLO", proto=1, id="loop-1", fw="x", boot="b"),
        Message("ROLLING"),
        Message.make("ROLL", seq=1, d="4-6"),
        Message("TILT"),
        Message.make("BAT", pct=55),
        Message("HB"),
        Message.make("ERR", msg="oops"),
    ):
        port.write(message.encode())
    with SerialDiceReader("loop://", events.queue, config=FAST, opener=lambda url, config: port) as reader:
        assert events.next(Connected).device == "loop-1"
        assert events.next(Rolling) == Rolling("loop-1")
        assert events.next(Roll) == Roll((4, 6), 1, "loop-1")
        assert events.next(Tilt) == Tilt("loop-1")
        assert events.next(Battery) == Battery(55, "loop-1")
        assert events.next(ProtocolError) == ProtocolError("device error", "oops", "loop-1")
        # and what the reader sends comes back to it: its own HELLO? is a host command, ignored
        reader.send(Message.make("ROLL", seq=2, d="1-1"))
        assert events.next(Roll) == Roll((1, 1), 2, "loop-1")
    assert not port.is_open


@pytest.mark.parametrize("lenient", [True, False])
def test_lenient_mode_takes_typed_lines_and_strict_mode_does_not(events: EventLog, lenient: bool) -> None:
    port = loop_port()
    port.write(b"roll, seq=1, d=3-4\r\n$TILT*EAE6\n")
    config = dataclasses.replace(FAST, lenient=lenient)
    with SerialDiceReader("loop://", events.queue, config=config, opener=lambda url, config: port):
        events.next(Tilt)
    rolls = [e for e in events.seen if isinstance(e, Roll)]
    errors = [e.message for e in events.seen if isinstance(e, ProtocolError)]
    if lenient:
        assert rolls == [Roll((3, 4), 1, "loop://")] and errors == []
    else:
        assert rolls == [] and errors == ["noise"]


def test_socket_url_with_reconnection(events: EventLog) -> None:
    config = HubConfig(device_id="wifi-1", heartbeat_interval=0.05)
    with HubEmulator(config, seed=3, tcp=True) as hub:
        assert hub.path.startswith("socket://127.0.0.1:")
        with SerialDiceReader(hub.path, events.queue, config=FAST):
            assert events.next(Connected).device == "wifi-1"
            hub.roll((6, 1))
            assert events.next(Roll) == Roll((6, 1), 1, "wifi-1")
            hub.unplug()
            events.next(Disconnected)
            hub.roll((2, 2))
            hub.plug()
            assert events.next(Connected).downtime is not None
            assert events.next(Roll) == Roll((2, 2), 2, "wifi-1", replay=True)
