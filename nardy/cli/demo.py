"""``nardy demo``: the whole product on a bundled recording, with no camera and no dice."""

from __future__ import annotations

import argparse
import os
import sys
import webbrowser
from pathlib import Path
from typing import Any

from nardy.cli._args import parse_size


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "demo",
        help="see it work: a recorded game through vision, dice, referee, recorder and dashboard",
        description=(
            "Play a recorded game (a video of a real-looking board and its dice log) through the same "
            "code as a live table -- video decoding, vision, dice events, referee, recorder and dashboard -- "
            "and open the dashboard. The recording is made on first run (a few minutes) and cached."
        ),
    )
    p.add_argument("--variant", choices=["short", "long"], default="short", help="which game (default short)")
    p.add_argument("--speed", type=float, default=1.0, help="times real time (0: as fast as possible)")
    p.add_argument("--no-browser", action="store_true", help="do not open a browser (headless machines)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000, help="dashboard port (0: any free one)")
    p.add_argument(
        "--db",
        type=Path,
        default=Path(os.environ.get("NARDY_DB", "matches.db")),
        help="match database (default: $NARDY_DB or ./matches.db)",
    )
    p.add_argument(
        "--cache", type=Path, default=None, help="where the recording is kept (default ~/.cache/nardy)"
    )
    p.add_argument("--size", default="640x360", help="video size of the recording (default 640x360)")
    p.add_argument("--mode", choices=["referee", "training"], default="training", help="training shows hints")
    p.add_argument(
        "--exit-at-end", action="store_true", help="quit when the recording ends (default: keep serving)"
    )
    p.set_defaults(func=run)


class _Progress:
    def __init__(self, label: str) -> None:
        self.label = label
        self.last = -1

    def __call__(self, done: int, total: int) -> None:
        pct = 100 * done // max(total, 1)
        if pct == self.last:
            return
        self.last = pct
        bar = "#" * (pct // 4)
        print(
            f"\r{self.label} [{bar:<25}] {pct:3d}% ({done}/{total} frames)",
            end="",
            file=sys.stderr,
            flush=True,
        )
        if done >= total:
            print(file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    from nardy.calibration.profile import Profile
    from nardy.cli._live import LiveSession, SessionOptions
    from nardy.cli.serve import game_record, print_record
    from nardy.referee.match import MatchInfo
    from nardy.referee.recording import RecordingSpec, cached_recording

    try:
        w, h = parse_size(args.size)
    except ValueError as exc:
        print(f"nardy demo: {exc}", file=sys.stderr)
        return 2
    spec = RecordingSpec(variant=args.variant, size=(w, h))
    try:
        recording = cached_recording(spec, args.cache, _Progress(f"making the {args.variant} demo recording"))
    except OSError as exc:
        print(f"nardy demo: cannot make the recording: {exc}", file=sys.stderr)
        return 2
    truth = recording.load_truth()
    session = LiveSession(
        SessionOptions(
            camera=str(recording.video),
            dice=str(recording.dice_log),
            profile=Profile.load(recording.profile),
            variant=args.variant,
            db=args.db,
            match=MatchInfo(args.variant, 0, "Demo White", "Demo Black", venue="nardy demo"),
            host=args.host,
            port=args.port,
            mode=args.mode,
            speed=args.speed,
            profile_path=recording.profile,
        )
    )
    try:
        session.start()
    except OSError as exc:
        session.stop()
        print(f"nardy demo: {exc}", file=sys.stderr)
        return 2
    link = f"{session.url}?token={session.token}"
    print(f"dashboard: {link}", file=sys.stderr)
    minutes = truth["duration"] / 60 / (args.speed or 1e9)
    print(
        f"playing a {args.variant} nardy game of {len(truth['turns'])} turns "
        f"({'as fast as possible' if not args.speed else f'about {minutes:.0f} min at {args.speed:g}x'})",
        file=sys.stderr,
    )
    if not args.no_browser:
        webbrowser.open(link)
    code = 0
    try:
        session.wait()
        assert session.referee is not None
        record = game_record(session.referee)
        print_record(record)
        code = _compare(record, truth)
        if not args.exit_at_end:
            print("the recording has ended; the dashboard stays up (Ctrl-C to quit)", file=sys.stderr)
            while True:
                session.ended.wait(3600)
    except KeyboardInterrupt:
        pass
    finally:
        session.stop()
    print(f"the match is in {args.db}: try 'nardy matches list --db {args.db}'", file=sys.stderr)
    return code


def _compare(record: dict[str, Any], truth: dict[str, Any]) -> int:
    """Say how the referee's record compares with the script; 0 when it is the same."""
    seen = [t["play"] for g in record["games"] for t in g["turns"]]
    want = [t["play"] for t in truth["turns"]]
    same = sum(1 for a, b in zip(seen, want, strict=False) if a == b)
    illegal = sum(1 for a in record["alerts"] if a["kind"] == "illegal")
    print(
        f"referee recorded {len(seen)} turns, {same} of the {len(want)} scripted ones the same; "
        f"{illegal} illegal play(s) caught of {len(truth['illegal'])}",
        file=sys.stderr,
    )
    return 0 if seen == want and illegal == len(truth["illegal"]) else 1
