"""The other dice sources: manual entry, the terminal, dice logs and their replay."""

from __future__ import annotations

import io
import os
import queue
from pathlib import Path

import pytest

from nardy.device.dicelog import DiceLogError, DiceLogWriter, LogEntry, load_dice_log, read_dice_log
from nardy.device.events import Connected, DiceEvent, DiceValueError, ProtocolError, Roll, Rolling, Tilt
from nardy.device.manual import ManualDice, TerminalDice, parse_dice
from nardy.device.replay import ReplayDice

from .conftest import EventLog


class FakeClock:
    """A clock that only moves when something waits on it."""

    def __init__(self, now: float = 100.0) -> None:
        self.now = now
        self.waits: list[float] = []

    def __call__(self) -> float:
        return self.now

    def wait(self, seconds: float) -> bool:
        self.waits.append(round(seconds, 9))
        self.now += seconds
        return False


# -- manual ----------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["3 5", "35", "3-5", "3,5", " 3 : 5 ", "3/5", "3x5"])
def test_parse_dice_reads_what_people_type(text: str) -> None:
    assert parse_dice(text) == (3, 5)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("7 1", "1 to 6"),
        ("0 3", "1 to 6"),
        ("3", "two dice"),
        ("3 5 6", "two dice"),
        ("", "two dice"),
        ("three five", "two dice"),
    ],
)
def test_parse_dice_refuses_the_rest(text: str, why: str) -> None:
    with pytest.raises(DiceValueError, match=why):
        parse_dice(text)


def test_manual_dice_numbers_its_rolls_and_refuses_bad_ones() -> None:
    got: list[DiceEvent] = []
    manual = ManualDice(got.append, clock=lambda: 5.0)
    with pytest.raises(RuntimeError, match="not started"):
        manual.roll((3, 5))
    manual.start()
    first = manual.roll((3, 5))
    second = manual.enter("6 6")
    with pytest.raises(DiceValueError):
        manual.enter("6 7")
    assert (
        got
        == [first, second]
        == [Roll((3, 5), 1, "manual", source="manual"), Roll((6, 6), 2, "manual", source="manual")]
    )
    assert first.timestamp == 5.0
    manual.stop()
    with pytest.raises(RuntimeError):
        manual.enter("1 1")


def test_terminal_dice_reads_a_real_file_descriptor(events: EventLog) -> None:
    read_end, write_end = os.pipe()
    with (
        os.fdopen(read_end, "r") as stream,
        TerminalDice(stream, events.queue, poll_interval=0.01) as terminal,
    ):
        os.write(write_end, b"3 5\n\n9 9\n")
        assert events.next(Roll) == Roll((3, 5), 1, "terminal", source="manual")
        error = events.next(ProtocolError)
        assert error.message == "bad entry" and "9 9" in error.detail
        os.write(write_end, b"6")
        os.write(write_end, b"-1\n1 2")  # the last line has no ending: it counts at the end of input
        assert events.next(Roll).dice == (6, 1)
        os.close(write_end)
        assert events.next(Roll).dice == (1, 2)
        assert terminal.wait(5.0), "end of input ends the source"
        assert terminal.failure is None


def test_terminal_dice_stops_while_nobody_types(events: EventLog) -> None:
    read_end, write_end = os.pipe()
    try:
        with os.fdopen(read_end, "r") as stream:
            terminal = TerminalDice(stream, events.queue, poll_interval=0.01)
            terminal.start()
            terminal.stop(timeout=2.0)
            assert not terminal.running
    finally:
        os.close(write_end)


def test_terminal_dice_reads_a_text_stream_without_descriptor(events: EventLog) -> None:
    terminal = TerminalDice(io.StringIO("1 1\nnonsense\n2 2\n"), events.queue)
    terminal.start()
    assert terminal.wait(5.0)
    kinds = [type(event) for event in events.drain()]
    assert kinds == [Roll, ProtocolError, Roll]


# -- dice logs -------------------------------------------------------------------------------

LOG = """\
{"t": 0.0, "type": "connected", "device": "tower-1", "proto": 1}
{"t": 1.25, "type": "rolling", "device": "tower-1"}

{"t": 3.5, "type": "roll", "dice": [3, 5], "seq": 1, "device": "replay"}
{"t": 3.5, "type": "tilt"}
{"t": 10, "type": "roll", "dice": [6, 6], "seq": 2}
"""


def test_read_dice_log() -> None:
    entries = read_dice_log(LOG.splitlines())
    assert [entry.t for entry in entries] == [0.0, 1.25, 3.5, 3.5, 10.0]
    assert entries[0].event == Connected("tower-1")
    assert entries[2].event == Roll((3, 5), 1, "replay")
    assert entries[4].event == Roll((6, 6), 2, "replay")


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("not json", "not JSON"),
        ("[1, 2]", "JSON object"),
        ('{"type": "tilt"}', "'t' must be"),
        ('{"t": -1, "type": "tilt"}', "'t' must be"),
        ('{"t": "3", "type": "tilt"}', "'t' must be"),
        ('{"t": 0.5, "type": "tilt"}', "goes backwards"),
        ('{"t": 2, "type": "roll", "dice": [3, 9], "seq": 1}', "bad roll"),
        ('{"t": 2, "type": "explosion"}', "unknown event type"),
    ],
)
def test_bad_log_lines_are_refused_with_file_and_line(line: str, why: str) -> None:
    lines = ['{"t": 1.0, "type": "rolling"}', line]
    with pytest.raises(DiceLogError, match=f"game.jsonl:2: .*{why}"):
        read_dice_log(lines, name="game.jsonl")


def test_a_written_log_reads_back(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    events: list[DiceEvent] = [
        Connected("tower-1", timestamp=100.0),
        Rolling("tower-1", timestamp=102.0),
        Roll((4, 2), 7, "tower-1", timestamp=102.5),
        ProtocolError("bad checksum", "x", "tower-1", timestamp=103.0),
    ]
    with DiceLogWriter(path, start=100.0) as writer:
        for event in events:
            writer.write(event)
    entries = load_dice_log(path)
    assert [entry.t for entry in entries] == [0.0, 2.0, 2.5, 3.0]
    assert [entry.event for entry in entries] == events
    first = path.read_text().splitlines()[0]
    assert first.startswith('{"t": 0.0, "type": "connected"')


def test_a_writer_leaves_an_open_file_open() -> None:
    stream = io.StringIO()
    with DiceLogWriter(stream, clock=lambda: 0.0) as writer:
        writer.write(Tilt(timestamp=1.5))
    assert not stream.closed
    assert stream.getvalue() == '{"t": 1.5, "type": "tilt"}\n'


# -- replay ----------------------------------------------------------------------------------


def test_replay_keeps_the_schedule_without_sleeping() -> None:
    clock = FakeClock()
    got: list[DiceEvent] = []
    replay = ReplayDice(read_dice_log(LOG.splitlines()), got.append, clock=clock, wait=clock.wait)
    replay.run()
    assert clock.waits == [1.25, 2.25, 6.5]  # nothing to wait for at t=0 and for the second t=3.5
    assert [type(event) for event in got] == [Connected, Rolling, Roll, Tilt, Roll]
    assert [event.timestamp for event in got] == [100.0, 101.25, 103.5, 103.5, 110.0]
    rolls = [event for event in got if isinstance(event, Roll)]
    assert all(roll.source == "replay" for roll in rolls)
    assert rolls[0] == Roll((3, 5), 1, "replay", source="replay")


def test_replay_speed_scales_the_waits() -> None:
    clock = FakeClock()
    ReplayDice(read_dice_log(LOG.splitlines()), lambda e: None, speed=2.5, clock=clock, wait=clock.wait).run()
    assert clock.waits == [0.5, 0.9, 2.6]


@pytest.mark.parametrize("speed", [0.0, float("inf")])
def test_replay_as_fast_as_possible_never_waits(speed: float) -> None:
    clock = FakeClock()
    got: list[DiceEvent] = []
    ReplayDice(read_dice_log(LOG.splitlines()), got.append, speed=speed, clock=clock, wait=clock.wait).run()
    assert clock.waits == [] and len(got) == 5


@pytest.mark.parametrize("speed", [-1.0, float("nan")])
def test_replay_refuses_a_negative_speed(speed: float) -> None:
    with pytest.raises(ValueError, match="speed"):
        ReplayDice([], lambda e: None, speed=speed)


def test_replay_in_a_thread_stops_when_asked(tmp_path: Path) -> None:
    path = tmp_path / "slow.jsonl"
    path.write_text('{"t": 0, "type": "rolling"}\n{"t": 3600, "type": "roll", "dice": [1, 1], "seq": 1}\n')
    got: queue.Queue[DiceEvent] = queue.Queue()
    replay = ReplayDice.from_file(path, got)
    replay.start()
    assert isinstance(got.get(timeout=5), Rolling)
    replay.stop(timeout=2.0)  # it was waiting an hour for the roll
    assert not replay.running and replay.delivered == 1 and got.empty()


def test_replay_in_a_thread_ends_by_itself(tmp_path: Path) -> None:
    entries = [LogEntry(0.0, Roll((2, 3), 1, "replay")), LogEntry(0.001, Roll((4, 5), 2, "replay"))]
    got: queue.Queue[DiceEvent] = queue.Queue()
    with ReplayDice(entries, got, speed=0) as replay:
        assert replay.wait(5.0)
    assert [got.get_nowait(), got.get_nowait()] == [
        Roll((2, 3), 1, "replay", source="replay"),
        Roll((4, 5), 2, "replay", source="replay"),
    ]


def test_a_failing_sink_reaches_the_owner_as_failure() -> None:
    def broken(event: DiceEvent) -> None:
        raise RuntimeError("sink is broken")

    replay = ReplayDice([LogEntry(0.0, Tilt())], broken, speed=0)
    replay.start()
    assert replay.wait(5.0)
    assert isinstance(replay.failure, RuntimeError)
    with pytest.raises(RuntimeError, match="started already"):
        replay.start()
