"""``nardy dice``: listen to electronic dice, emulate a dice hub, list serial ports.

The protocol is described in docs/dice-protocol.md. pyserial and the device package are imported
inside the commands, so that other subcommands start fast.
"""

from __future__ import annotations

import argparse
import json
import math
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nardy.device.events import DiceEvent
    from nardy.device.source import ThreadedSource

LISTEN_EPILOG = """\
examples:
  nardy dice listen --port /dev/ttyUSB0 --json
  nardy dice listen --port socket://192.0.2.7:7000 --log session.jsonl
  nardy dice listen --port 'hwgrep://dice tower' --wait
  nardy dice listen --replay session.jsonl --speed 0 --json
  nardy dice listen --manual        (type throws like "3 5", one per line)

With --json each event is one line of JSON, for instance
  {"type": "roll", "dice": [3, 5], "seq": 17, "device": "tower-1", ...}
Types: connected, rolling, roll, tilt, battery, disconnected, error.
"""

EMULATE_EPILOG = """\
It prints the path of its pseudo-terminal (or the socket:// URL with --tcp) on stdout; connect
with `nardy dice listen --port PATH`. Then press Enter to throw, or type a command:
  roll [A B] | rolling | tilt | battery N | error TEXT | garbage N | raw LINE
  unplug [S] | plug | silence [S] | resume | reboot | wait S | wait host | wait ping | help | quit
A --script file holds the same commands, one per line; it starts when a host first says HELLO?.
Ctrl-C ends the emulator (as does Ctrl-D on a terminal).
"""


class _Terminated(Exception):
    """SIGTERM arrived."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    dice = subparsers.add_parser(
        "dice",
        help="electronic dice: listen to a hub, emulate one, list serial ports",
        description="Electronic dice over a serial port (protocol: docs/dice-protocol.md).",
    )
    commands = dice.add_subparsers(dest="dice_command", metavar="COMMAND")
    dice.set_defaults(func=lambda args: _missing_command(dice))

    listen = commands.add_parser(
        "listen",
        help="print the events of a dice hub (or of a replayed log, or typed throws)",
        description="Read dice events and print one per line. Keeps going through unplugging, "
        "noise and silence; Ctrl-C ends it.",
        epilog=LISTEN_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    source = listen.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--port",
        metavar="URL",
        help="a serial port or pyserial URL: /dev/ttyUSB0, COM3, "
        "socket://HOST:PORT, loop://, hwgrep://PATTERN",
    )
    source.add_argument("--replay", metavar="FILE", help="replay a dice log written by --log")
    source.add_argument("--manual", action="store_true", help="read throws typed on standard input")
    listen.add_argument("--json", action="store_true", help="print events as JSON lines")
    listen.add_argument(
        "--lenient", action="store_true", help="accept lines without a checksum (for typing into a terminal)"
    )
    listen.add_argument(
        "--log", metavar="FILE", help="also record the events as a dice log (JSON lines with t)"
    )
    listen.add_argument("--rolls", type=_positive_int, metavar="N", help="stop after N rolls")
    listen.add_argument(
        "--wait", action="store_true", help="if the port is missing, wait for it to appear instead of failing"
    )
    listen.add_argument("--baud", type=_positive_int, default=115200, help="line speed (default 115200)")
    listen.add_argument("--name", help="what to call the hub until it says its id (default: the URL)")
    listen.add_argument(
        "--heartbeat-timeout",
        type=_positive_float,
        default=5.0,
        metavar="S",
        help="silence after which the hub counts as lost (default 5 s)",
    )
    listen.add_argument(
        "--speed",
        type=_speed,
        default=1.0,
        help="replay speed: 1 real time (default), 2 twice as fast, 0 as fast as possible",
    )
    listen.set_defaults(func=listen_command)

    emulate = commands.add_parser(
        "emulate",
        help="pretend to be a dice hub on a pseudo-terminal, for trying things without hardware",
        description="Run an emulated dice hub: HELLO on request, heartbeats, throws on Enter or "
        "from a script, simulated unplugging.",
        epilog=EMULATE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    emulate.add_argument("--seed", type=int, help="seed for the dice and boot ids (default: random)")
    emulate.add_argument("--script", metavar="FILE", help="commands to run once a host connects")
    emulate.add_argument("--id", default="emu-1", help="the hub id it reports (default emu-1)")
    emulate.add_argument(
        "--heartbeat",
        type=_positive_float,
        default=1.0,
        metavar="S",
        help="seconds between heartbeats (default 1)",
    )
    emulate.add_argument(
        "--settle",
        type=_non_negative_float,
        default=0.5,
        metavar="S",
        help="seconds the dice roll before they settle (default 0.5)",
    )
    emulate.add_argument(
        "--link",
        metavar="PATH",
        help="where to put the pty's stable path (default: in a new temporary directory)",
    )
    emulate.add_argument(
        "--tcp",
        type=int,
        metavar="PORT",
        help="serve on socket://127.0.0.1:PORT instead of a pty (0: any free port)",
    )
    emulate.set_defaults(func=emulate_command)

    ports = commands.add_parser(
        "ports",
        help="list the serial ports present",
        description="List serial ports with their USB descriptions, to find the dice hub.",
    )
    ports.add_argument("--json", action="store_true", help="print one JSON object per port")
    ports.set_defaults(func=ports_command)


def _missing_command(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2


def _positive_int(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {text}")
    return value


def _positive_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text}")
    return value


def _non_negative_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a number of seconds >= 0, got {text}")
    return value


def _speed(text: str) -> float:
    value = float(text)
    if math.isnan(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 (as fast as possible) or more, got {text}")
    return value


def _error(message: str) -> None:
    print(f"nardy dice: {message}", file=sys.stderr)


@contextmanager
def _terminate_on_sigterm() -> Iterator[None]:
    """Turn SIGTERM into an exception in the main thread, so cleanup runs."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: object) -> None:
        raise _Terminated

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


# -- listen ----------------------------------------------------------------------------------


def _format(event: DiceEvent, as_json: bool) -> str:
    if as_json:
        return json.dumps(event.to_json())
    device = getattr(event, "device", None) or "-"
    return f"{time.strftime('%H:%M:%S')}  {device:<12} {event.describe()}"


def listen_command(args: argparse.Namespace) -> int:
    import queue

    from nardy.device.dicelog import DiceLogError, DiceLogWriter
    from nardy.device.events import Roll
    from nardy.device.manual import TerminalDice
    from nardy.device.replay import ReplayDice
    from nardy.device.serial_reader import ReaderConfig, SerialDiceReader

    events: queue.Queue[DiceEvent] = queue.Queue()
    source: ThreadedSource
    if args.port is not None:
        config = ReaderConfig(
            baudrate=args.baud,
            lenient=args.lenient,
            wait_for_port=args.wait,
            heartbeat_timeout=args.heartbeat_timeout,
        )
        source = SerialDiceReader(args.port, events, config=config, name=args.name)
    elif args.replay is not None:
        try:
            source = ReplayDice.from_file(args.replay, events, speed=args.speed)
        except (OSError, DiceLogError) as exc:
            _error(str(exc))
            return 1
    else:
        if sys.stdin.isatty():
            print("type each throw like '3 5' and press Enter; Ctrl-D ends", file=sys.stderr)
        source = TerminalDice(sys.stdin, events)

    try:
        writer = DiceLogWriter(args.log) if args.log else None
    except OSError as exc:
        _error(f"cannot write the log: {exc}")
        return 1
    rolls = 0
    try:
        with _terminate_on_sigterm():
            source.start()
            while True:
                try:
                    event = events.get(timeout=0.2)
                except queue.Empty:
                    if not source.running and events.empty():
                        break
                    continue
                print(_format(event, args.json), flush=True)
                if writer is not None:
                    writer.write(event)
                if isinstance(event, Roll):
                    rolls += 1
                    if args.rolls is not None and rolls >= args.rolls:
                        break
    except _Terminated:
        pass
    finally:
        source.stop()
        try:
            while True:  # what the source said while stopping (a last "disconnected")
                event = events.get_nowait()
                print(_format(event, args.json), flush=True)
                if writer is not None:
                    writer.write(event)
        except queue.Empty:
            pass
        finally:
            if writer is not None:
                writer.close()
    if isinstance(source, SerialDiceReader):
        stats = source.stats()
        print(
            f"{source.device}: {stats.messages} messages, {stats.bad_lines} bad lines, "
            f"{stats.duplicates} duplicates dropped, {stats.disconnections} disconnections",
            file=sys.stderr,
        )
    if source.failure is not None:
        _error(str(source.failure))
        return 1
    return 0


# -- emulate ---------------------------------------------------------------------------------


def emulate_command(args: argparse.Namespace) -> int:
    from nardy.device.emulator import HubConfig, HubEmulator
    from nardy.device.hub_script import ScriptError, ScriptRunner, Step, parse_command, parse_script

    steps: list[Step] = []
    if args.script is not None:
        try:
            with open(args.script, encoding="utf-8") as file:
                steps = parse_script(file, name=args.script)
        except (OSError, ScriptError) as exc:
            _error(str(exc))
            return 2
    try:
        config = HubConfig(device_id=args.id, heartbeat_interval=args.heartbeat, settle=args.settle)
    except ValueError as exc:
        _error(str(exc))
        return 2
    emulator = HubEmulator(
        config, seed=args.seed, link=args.link, tcp=args.tcp is not None, port=args.tcp or 0
    )
    stopping = threading.Event()

    def say(text: str) -> None:
        print(f"[{config.device_id}] {text}", file=sys.stderr, flush=True)

    runner = ScriptRunner(emulator, wait=stopping.wait, say=say)
    try:
        emulator.start()
    except OSError as exc:
        _error(f"cannot create the port: {exc}")
        return 1
    try:
        with _terminate_on_sigterm():
            print(emulator.path, flush=True)
            say(f"boot {emulator.state.boot}; connect with: nardy dice listen --port {emulator.path}")
            if steps:
                say(f"the script starts when a host says HELLO? ({len(steps)} commands)")
                while not emulator.wait_for_host(0.5):
                    pass
                for step in steps:
                    if not runner.run(step):
                        return 0
                say("script done")
            interactive = sys.stdin is not None and sys.stdin.isatty()
            if interactive:
                say("press Enter to throw, or type a command ('help' lists them)")
            for line in sys.stdin if sys.stdin is not None else ():
                try:
                    typed = parse_command(line, interactive=True)
                except ScriptError as exc:
                    say(str(exc))
                    continue
                if typed is not None and not runner.run(typed):
                    return 0
            if interactive:
                return 0
            stopping.wait()  # stdin is not a terminal and ended: serve until interrupted
            return 0
    except _Terminated:
        return 0
    finally:
        stopping.set()
        emulator.stop()


# -- ports -----------------------------------------------------------------------------------


def ports_command(args: argparse.Namespace) -> int:
    from serial.tools import list_ports

    ports = sorted(list_ports.comports(), key=lambda port: port.device)
    if not ports:
        print("no serial ports found (is the hub plugged in? try `nardy dice emulate`)", file=sys.stderr)
        return 0
    for port in ports:
        info: dict[str, Any] = {
            "device": port.device,
            "description": port.description,
            "hwid": port.hwid,
            "vid": port.vid,
            "pid": port.pid,
            "serial_number": port.serial_number,
            "manufacturer": port.manufacturer,
            "product": port.product,
        }
        if args.json:
            print(json.dumps(info), flush=True)
        else:
            print(f"{port.device}\t{port.description}\t{port.hwid}", flush=True)
    return 0
