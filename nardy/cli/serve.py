"""``nardy serve`` (referee a live game with the dashboard) and ``nardy replay`` (a recording)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

DEFAULT_DB = "matches.db"


def _db_default() -> Path:
    return Path(os.environ.get("NARDY_DB", DEFAULT_DB))


def _options(pairs: list[str]) -> dict[str, Any]:
    from nardy.cli.plays import _options as parse

    return parse(pairs)


def _motion_watch_flag(parser: argparse.ArgumentParser) -> None:
    """``--no-motion-watch``, shared by serve and replay (``FrameReader.watch_motion``)."""
    parser.add_argument(
        "--no-motion-watch",
        action="store_true",
        help="do not take what changed since the last frame for a hand at work (for a lamp that flickers "
        "against the camera's frame rate, so that every frame differs)",
    )


def register(subparsers: Any) -> None:
    s = subparsers.add_parser(
        "serve",
        help="referee a live game: camera, dice, rules, record and dashboard",
        description=(
            "Watch a real board with a camera, read the dice from a hub, referee every play under the "
            "rules, record the match and show it all on the dashboard."
        ),
    )
    s.add_argument("--camera", required=True, help="camera index (0), video file or stream URL")
    s.add_argument(
        "--dice", default="manual", help="serial URL of the dice hub, a dice log to replay, or 'manual'"
    )
    s.add_argument("--profile", required=True, type=Path, help="board profile from 'nardy calibrate board'")
    s.add_argument("--variant", default=None, help="short or long (default: the profile's)")
    s.add_argument("--match", type=int, default=0, metavar="N", help="match length in points (0: unlimited)")
    s.add_argument("--white", default="White", help="the white player's name")
    s.add_argument("--black", default="Black", help="the black player's name")
    s.add_argument("--venue", default="", help="club, hall or table")
    s.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="a rule option")
    s.add_argument(
        "--db", type=Path, default=_db_default(), help="match database (default: $NARDY_DB or ./matches.db)"
    )
    s.add_argument("--resume", action="store_true", help="continue the unfinished match in the database")
    s.add_argument(
        "--host", default="127.0.0.1", help="where the dashboard listens (0.0.0.0: the whole network)"
    )
    s.add_argument("--port", type=int, default=8000)
    s.add_argument("--mode", choices=["referee", "training"], default="referee", help="training shows hints")
    s.add_argument("--speed", type=float, default=1.0, help="video files and dice logs: times real time")
    s.add_argument("--lenient", action="store_true", help="accept dice lines without a checksum")
    _motion_watch_flag(s)
    s.set_defaults(func=run_serve)

    r = subparsers.add_parser(
        "replay",
        help="run a recording (video + dice log) through the referee and print the game record",
        description="Run a recorded game through vision and the referee as fast as it can; print the record.",
    )
    r.add_argument("--video", required=True, help="the video file")
    r.add_argument("--dice-log", required=True, type=Path, help="the dice log (nardy dice listen --log)")
    r.add_argument("--profile", required=True, type=Path, help="the board profile")
    r.add_argument("--variant", default=None, help="short or long (default: the profile's)")
    r.add_argument("--match", type=int, default=0, metavar="N")
    r.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
    r.add_argument("--db", type=Path, default=None, help="also record the match in this database")
    r.add_argument("--json", action="store_true", help="print the record as JSON")
    _motion_watch_flag(r)
    r.set_defaults(func=run_replay)


def _profile(path: Path) -> Any:
    from nardy.calibration.profile import Profile

    return Profile.load(path)


def run_serve(args: argparse.Namespace) -> int:
    from nardy.cli._live import LiveSession, SessionOptions
    from nardy.referee.match import MatchInfo
    from nardy.rules import find_variant

    try:
        profile = _profile(args.profile)
        variant = find_variant(args.variant or profile.variant).name
        options = _options(args.option)
        find_variant(variant, **options)
    except (OSError, ValueError) as exc:
        print(f"nardy serve: {exc}", file=sys.stderr)
        return 2
    info = MatchInfo(variant, args.match, args.white, args.black, options, args.venue)
    session = LiveSession(
        SessionOptions(
            camera=args.camera,
            dice=args.dice,
            profile=profile,
            variant=variant,
            db=args.db,
            match=info,
            host=args.host,
            port=args.port,
            mode=args.mode,
            speed=args.speed,
            resume=args.resume,
            lenient=args.lenient,
            watch_motion=not args.no_motion_watch,
            profile_path=args.profile,
        )
    )
    try:
        session.start()
    except (OSError, ValueError) as exc:
        session.stop()
        print(f"nardy serve: {exc}", file=sys.stderr)
        return 2
    print(f"dashboard: {session.url}", file=sys.stderr)
    print(f"controls:  {session.url}?token={session.token}", file=sys.stderr)
    try:
        session.wait()
    except KeyboardInterrupt:
        pass
    finally:
        session.stop()
    return 0


def run_replay(args: argparse.Namespace) -> int:
    from nardy.device.dicelog import load_dice_log
    from nardy.referee.events import EventBus
    from nardy.referee.live import CameraError, FrameReader, FrameSizeError, VideoClock, replay, video_frames
    from nardy.referee.match import MatchInfo
    from nardy.referee.session import Referee
    from nardy.rules import find_variant

    try:
        profile = _profile(args.profile)
        variant = find_variant(args.variant or profile.variant).name
        options = _options(args.option)
        find_variant(variant, **options)
        entries = load_dice_log(args.dice_log)
    except (OSError, ValueError) as exc:
        print(f"nardy replay: {exc}", file=sys.stderr)
        return 2
    from nardy.calibration.drift import DriftConfig, DriftMonitor
    from nardy.calibration.orientation import Orientation

    clock = VideoClock()
    referee = Referee(MatchInfo(variant, args.match, options=options), bus=EventBus(clock), clock=clock)
    reader = FrameReader(
        profile.recognizer(),
        profile.orientation or Orientation(),
        variant,
        drift=DriftMonitor(DriftConfig(), profile.corner_array, profile.geometry),
        size=profile.image_size,
        watch_motion=not args.no_motion_watch,
    )
    store = recorder = None
    if args.db is not None:
        from nardy.referee.recorder import Recorder
        from nardy.referee.store import MatchStore

        store = MatchStore.open(args.db)
        recorder = Recorder(store, referee)
    try:
        stats = replay(video_frames(args.video), [(e.t, e.event) for e in entries], referee, reader, clock)
    except (CameraError, FrameSizeError) as exc:
        print(f"nardy replay: {exc}", file=sys.stderr)
        return 2
    finally:
        if recorder is not None:
            recorder.close()
        if store is not None:
            store.close()
    record = game_record(referee)
    record["stats"] = {
        "frames": stats.frames,
        "dice_events": stats.dice_events,
        "seconds": round(stats.seconds, 2),
        "fps": round(stats.fps, 1),
        "x_realtime": round(stats.realtime_factor, 2),
    }
    if args.json:
        print(json.dumps(record))
    else:
        print_record(record)
    return 0


def game_record(referee: Any) -> dict[str, Any]:
    """The referee's record of the match so far, from its event stream."""
    games: list[dict[str, Any]] = []
    alerts = []
    for event in referee.bus.history:
        if event.kind == "game-started":
            games.append({"game": event.data["game"], "turns": [], "result": None})
        elif event.kind == "turn-ended" and games:
            turn = event.data["turn"]
            games[-1]["turns"].append(
                {"mover": turn["mover"], "roll": turn["roll"], "play": turn["play"], "flags": turn["flags"]}
            )
        elif event.kind == "game-over" and games:
            games[-1]["result"] = event.data["result"]
        elif event.kind in ("alert", "illegal"):
            alerts.append({"t": round(event.t, 2), "kind": event.kind, **event.data})
    return {
        "variant": referee.variant.name,
        "score": referee.score.to_json(),
        "games": games,
        "alerts": alerts,
    }


def print_record(record: dict[str, Any]) -> None:
    for game in record["games"]:
        print(f"Game {game['game']}")
        for i, turn in enumerate(game["turns"], 1):
            flags = f"  [{', '.join(turn['flags'])}]" if turn["flags"] else ""
            roll = f"{turn['roll'][0]}-{turn['roll'][1]}"
            print(f"  {i:3d}. {turn['mover']:5s} {roll}: {turn['play'] or '(no play)'}{flags}")
        if game["result"]:
            r = game["result"]
            print(f"  {r['winner']} wins {r['points']} point(s): {r['name']}")
    for alert in record["alerts"]:
        if alert["kind"] == "illegal":
            print(f"illegal at {alert['t']}s: {alert['reason']}")
    stats = record.get("stats")
    if stats:
        pace = f"{stats['fps']} fps, {stats['x_realtime']}x real time"
        print(f"{stats['frames']} frames in {stats['seconds']} s ({pace})")
