"""Dice sources: electronic dice hubs over a serial port, manual entry, and replayed logs.

Every source reports the same events (:mod:`nardy.device.events`) to a callback or a queue::

    import queue
    from nardy.device import SerialDiceReader, Roll

    events = queue.Queue()
    with SerialDiceReader("/dev/ttyUSB0", events):
        while True:
            event = events.get()
            if isinstance(event, Roll):
                print(event.dice)

The wire protocol is in docs/dice-protocol.md and :mod:`nardy.device.protocol`. The hub emulator
(:mod:`nardy.device.emulator`, POSIX only) is not imported here.
"""

from nardy.device.dicelog import DiceLogError, DiceLogWriter, LogEntry, load_dice_log, read_dice_log
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
    RollSource,
    Tilt,
    check_dice,
    event_from_json,
)
from nardy.device.manual import ManualDice, TerminalDice, parse_dice
from nardy.device.protocol import BadLine, FrameError, Message, Parser, crc16
from nardy.device.replay import ReplayDice
from nardy.device.serial_reader import PortUnavailable, ReaderConfig, ReaderStats, SerialDiceReader
from nardy.device.source import DiceSource, EventSink

__all__ = [
    "BadLine",
    "Battery",
    "Connected",
    "DiceEvent",
    "DiceLogError",
    "DiceLogWriter",
    "DiceSource",
    "DiceValueError",
    "Disconnected",
    "EventFormatError",
    "EventSink",
    "FrameError",
    "LogEntry",
    "ManualDice",
    "Message",
    "Parser",
    "PortUnavailable",
    "ProtocolError",
    "ReaderConfig",
    "ReaderStats",
    "ReplayDice",
    "Roll",
    "RollSource",
    "Rolling",
    "SerialDiceReader",
    "TerminalDice",
    "Tilt",
    "check_dice",
    "crc16",
    "event_from_json",
    "load_dice_log",
    "parse_dice",
    "read_dice_log",
]
