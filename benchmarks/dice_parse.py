"""How many dice-protocol lines per second the parser, the decoder and the serial reader handle.

    python3 benchmarks/dice_parse.py [--lines N] [--out FILE] [--no-pty]

Prints a table and writes the numbers as JSON (default: benchmarks/results/dice_parse.json).
A hub sends a few lines per second; the point is the headroom against a flooding or noisy hub,
and that feeding one byte at a time (as a slow serial port may) stays affordable.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import queue
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from nardy.device.decoder import HubDecoder
from nardy.device.protocol import Message, Parser

RESULTS = Path(__file__).resolve().parent / "results" / "dice_parse.json"


def make_stream(lines: int, rng: random.Random, *, corrupt: float = 0.0) -> bytes:
    """A realistic mix of hub lines; ``corrupt`` is the share with one byte flipped."""
    out = bytearray(Message.make("HELLO", proto=1, id="tower-1", fw="1.0", boot="5e1f09a2").encode())
    seq = 0
    for _ in range(lines - 1):
        kind = rng.random()
        if kind < 0.5:
            message = Message("HB")
        elif kind < 0.7:
            message = Message("ROLLING")
        elif kind < 0.9:
            seq += 1
            message = Message.make("ROLL", seq=seq, d=f"{rng.randint(1, 6)}-{rng.randint(1, 6)}")
        elif kind < 0.95:
            message = Message.make("BAT", pct=rng.randint(0, 100))
        else:
            message = Message("TILT")
        line = bytearray(message.encode())
        if rng.random() < corrupt:
            line[rng.randrange(1, len(line) - 1)] ^= 1 << rng.randrange(7)
        out += line
    return bytes(out)


def best_of(repeats: int, action: Callable[[], object]) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times)


def parse_only(stream: bytes, chunk: int) -> Callable[[], object]:
    pieces = [stream[i : i + chunk] for i in range(0, len(stream), chunk)]

    def run() -> int:
        parser = Parser()
        return sum(len(parser.feed(piece)) for piece in pieces)

    return run


def parse_and_decode(stream: bytes, chunk: int) -> Callable[[], object]:
    pieces = [stream[i : i + chunk] for i in range(0, len(stream), chunk)]

    def run() -> int:
        parser = Parser()
        hub = HubDecoder(fallback_device="bench")
        hub.connection_opened()
        return sum(len(hub.decode(item)) for piece in pieces for item in parser.feed(piece))

    return run


def through_a_pty(lines: int) -> float:
    """Seconds for a real reader to take ``lines`` from an emulated hub on a pseudo-terminal."""
    from nardy.device.emulator import HubConfig, HubEmulator
    from nardy.device.events import DiceEvent, Tilt
    from nardy.device.serial_reader import ReaderConfig, SerialDiceReader

    stream = make_stream(lines, random.Random(2))
    events: queue.Queue[DiceEvent] = queue.Queue()
    config = ReaderConfig(poll_interval=0.01)
    with HubEmulator(HubConfig(heartbeat_interval=1.0, raw_write_timeout=60.0)) as hub:
        with SerialDiceReader(hub.path, events, config=config):
            while events.get(timeout=10).type != "connected":
                pass
            start = time.perf_counter()
            hub.send_raw(stream)
            hub.tilt()  # the marker: when it arrives, every line before it was read
            while not isinstance(events.get(timeout=60), Tilt):
                pass
            return time.perf_counter() - start


def row(case: str, chunk: int, lines: int, seconds: float) -> dict[str, Any]:
    return {
        "case": case,
        "chunk_bytes": chunk,
        "lines": lines,
        "seconds": round(seconds, 4),
        "lines_per_second": round(lines / seconds),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--lines", type=int, default=100_000, help="lines per measurement (default 100000)")
    parser.add_argument("--repeats", type=int, default=3, help="best of this many runs (default 3)")
    parser.add_argument("--out", type=Path, default=RESULTS, help=f"JSON results (default {RESULTS})")
    parser.add_argument(
        "--no-pty", action="store_true", help="skip the measurement through a pseudo-terminal"
    )
    args = parser.parse_args(argv)

    rng = random.Random(1)
    clean = make_stream(args.lines, rng)
    noisy = make_stream(args.lines, rng, corrupt=0.1)
    cases: list[tuple[str, int, int, Callable[[], object]]] = []
    for chunk in (len(clean), 4096, 64):
        cases.append(("parse", chunk, args.lines, parse_only(clean, chunk)))
    byte_lines = max(1, args.lines // 20)
    cases.append(("parse", 1, byte_lines, parse_only(make_stream(byte_lines, rng), 1)))
    cases.append(("parse + decode", 4096, args.lines, parse_and_decode(clean, 4096)))
    cases.append(("parse + decode, 10% corrupted", 4096, args.lines, parse_and_decode(noisy, 4096)))

    results = []
    for name, chunk, lines, action in cases:
        seconds = best_of(args.repeats, action)
        results.append(row(name, chunk, lines, seconds))
    if not args.no_pty and sys.platform != "win32":
        pty_lines = max(1, args.lines // 5)
        seconds = through_a_pty(pty_lines)
        results.append(row("serial reader over a pty", 0, pty_lines, seconds))

    if hasattr(os, "getloadavg"):
        print(f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)", file=sys.stderr)
    print(f"{'case':<32} {'chunk':>8} {'lines':>8} {'lines/s':>12}")
    for result in results:
        size = result["chunk_bytes"]
        chunk = "stream" if size == 0 else "all" if size == len(clean) else str(size)
        print(f"{result['case']:<32} {chunk:>8} {result['lines']:>8} {result['lines_per_second']:>12,}")

    report = {
        "benchmark": "dice_parse",
        "python": platform.python_version(),
        "machine": platform.machine(),
        "processor_count": os.cpu_count(),
        "load_average": [round(load, 2) for load in os.getloadavg()] if hasattr(os, "getloadavg") else None,
        "results": results,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
