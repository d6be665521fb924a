"""End to end: whole rendered games through vision and the referee, exactly as live.

Seeded random games of both variants are scripted (checkers moved one at a time, hands over the
board between steps, checkers mid-slide, dice on the board, a share of plays made illegally first
and then put right), drawn frame by frame with the vision renderer on a random board style per
game, and run through ``Recognizer`` -> orientation -> ``Referee`` with the dice events at their
times. Reported: plays recorded right (the game record at the end, after any play the referee
re-read), false alarms per 100 turns (alerts other than the injected illegal plays and the
requests below), "please check" notes per 100 turns (a play recorded, or re-read, that the
referee asks a person to verify: information, not an alarm), "please look" requests per 100
turns, notes that the camera keeps reading a point unlike the record (a count), injected
illegal plays caught -- and of those, how many the referee's first alert named where the play
was made (one of the points it names is one the illegal play changed: an alert for
the wrong reason, say a misread pile elsewhere, is caught but not named), and of those missed, how
many the referee still asked a person to look at as a possible illegal play (a warning saying what
may be wrong, raised when the camera is not sure enough for an alarm; such a play is not counted
as caught) -- and frames per second
of vision + referee (rendering excluded) against the recording's own rate.

Run: ``python -m benchmarks.referee_e2e [--games 4] [--seed 1] [--size 1280x720]``; halves of a set run on
two cores are put together with ``--merge A.json B.json``. ``--draw N`` (N > 0) plays the same games
with another draw of each frame's sensor noise (and motion blur's direction, where the scene has
motion blur); the board, the light and where each checker lies stay the same. A game that goes
wrong on one draw only was decided by the noise on a few frames. ``--ornamented`` plays the same
games on the same boards with a medallion carved in the middle of each half of the field, as on
many long-nardy boards (``nardy.vision.style.Ornament``).
"""

from __future__ import annotations

import argparse
import bisect
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks._table import table, write
from nardy.calibration.colours import ColourConfig, learn_from_start
from nardy.calibration.orientation import CORNERS, Orientation
from nardy.cli._args import parse_size
from nardy.referee.events import Event, EventBus
from nardy.referee.live import FrameReader, VideoClock
from nardy.referee.match import MatchInfo
from nardy.referee.session import Referee
from nardy.referee.simulate import SimConfig, TableScript, script_games
from nardy.rules import Position
from nardy.vision.config import RecognizerConfig
from nardy.vision.recognizer import Recognizer
from nardy.vision.scene import Scene
from nardy.vision.style import random_ornament

ALARMS_IGNORED = {"illegal-play", "please-look", "check-play", "point-misread"}
"""Alert codes that are not false alarms: the injected illegal plays' own alert (counted as
caught or not), the requests to look or to check, and the notes that the camera keeps reading a
point unlike the record (counted on their own: each says what it read and what stands recorded,
which differ, so it is never false in what it says; the count is what it costs the players)."""


def named_where(script: TableScript, illegal_events: Sequence[Event]) -> int:
    """How many of ``script``'s illegal plays the first illegal-play event in their window (up to a
    second after it is taken back) names at least one point of: a point (1..24, white's numbering)
    where the board before the play and the board the illegal play left differ."""
    times = [f.t for f in script.frames]

    def board_at(t: float) -> Position:
        return script.frames[max(bisect.bisect_left(times, t) - 1, 0)].position

    named = 0
    for start, end in script.illegal:
        before, shown = board_at(start), board_at(end)
        changed = {i + 1 for i in range(24) if before.points[i] != shown.points[i]}
        first = next((e for e in illegal_events if start <= e.t <= end + 1.0), None)
        named += first is not None and bool(changed & set(first.data.get("points") or ()))
    return named


def run_game(
    variant: str,
    seed: int,
    size: tuple[int, int],
    illegal_rate: float,
    learned_colours: bool = False,
    draw: int = 0,
    ornamented: bool = False,
) -> dict[str, Any]:
    """One scripted game through vision and the referee. ``learned_colours``: the recognizer is
    given the checker colours learned from a still frame of the start position, as ``nardy
    calibrate board`` stores them in a profile (else the colours come from each frame). ``draw``:
    which draw of each frame's sensor noise (0: the scene's own). ``ornamented``: the same game on
    the same board with a medallion on its field (``style.Ornament``, from a stream of its own)."""
    rng = np.random.default_rng(seed)
    ornament = random_ornament(np.random.default_rng([seed, 9])) if ornamented else None
    scene = Scene.random(rng, size=size, ornament=ornament)
    orientation = Orientation(
        home=CORNERS[int(rng.integers(4))], white="light" if rng.random() < 0.5 else "dark"
    )
    script = script_games(variant, scene, orientation, seed=seed, config=SimConfig(illegal_rate=illegal_rate))
    clock = VideoClock()
    referee = Referee(MatchInfo(variant=variant), bus=EventBus(clock), clock=clock)
    colours = None
    if learned_colours:
        # drawn with noise of its own, so the game's frames are the very frames of a run without it
        still = scene.render(
            orientation.from_position(Position.initial(variant)), rng=np.random.default_rng([seed, 4])
        ).image
        learned = learn_from_start(ColourConfig(), still, scene.corners(), variant)
        colours = learned.colours.prototypes()
    recognizer = Recognizer(RecognizerConfig(), scene.corners(), colours=colours)
    reader = FrameReader(recognizer, orientation, variant)
    dice = list(script.dice)
    busy = 0.0
    for k, frame in enumerate(script.frames):
        layout = orientation.from_position(frame.position)
        noise = np.random.default_rng([seed, 5, draw, k]) if draw else None
        image = scene.render(layout, dice=frame.dice, hands=frame.hands, loose=frame.loose, rng=noise).image
        t0 = time.perf_counter()
        while dice and dice[0]["t"] <= frame.t:
            clock.t = dice[0]["t"]
            referee.on_dice_event(dice.pop(0))
        clock.t = frame.t
        referee.on_reading(reader.read(image), frame.t)
        busy += time.perf_counter() - t0

    truth = [(t.mover, t.after.points, t.after.bar_white, t.after.bar_black) for t in script.turns]
    seen = [(m.mover, m.after.points, m.after.bar_white, m.after.bar_black) for m in referee.moves]
    right = sum(1 for a, b in zip(truth, seen, strict=False) if a == b)
    first_wrong = next((i for i, (a, b) in enumerate(zip(truth, seen, strict=False)) if a != b), None)
    history = referee.bus.history
    illegal_events = [e for e in history if e.kind == "illegal"]
    caught_in = [any(start <= e.t <= end + 1.0 for e in illegal_events) for start, end in script.illegal]
    caught = sum(caught_in)
    # an illegal play not caught that the referee still asked a person to look at, saying the board
    # may show an illegal play (a warning, not an alarm: the camera was not sure enough)
    doubts = [
        e
        for e in history
        if e.kind == "alert" and e.data["code"] == "please-look" and e.data["severity"] == "warning"
    ]
    looked_at = sum(
        1
        for (start, end), hit in zip(script.illegal, caught_in, strict=True)
        if not hit and any(start <= e.t <= end + 1.0 for e in doubts)
    )
    named = named_where(script, illegal_events)
    in_window = [any(s <= e.t <= end + 1.0 for s, end in script.illegal) for e in history]
    false_alarms = sum(
        1
        for e, inside in zip(history, in_window, strict=True)
        if (e.kind == "alert" and e.data["code"] not in ALARMS_IGNORED)
        or (e.kind == "illegal" and not inside)
    )
    looks = sum(1 for e in history if e.kind == "alert" and e.data["code"] == "please-look")
    checks = sum(1 for e in history if e.kind == "alert" and e.data["code"] == "check-play")
    misread = sum(1 for e in history if e.kind == "alert" and e.data["code"] == "point-misread")
    return {
        "variant": variant,
        "seed": seed,
        "style": scene.style.family if hasattr(scene.style, "family") else "",
        "turns": len(truth),
        "recorded": len(seen),
        "right": right,
        "first_wrong": first_wrong,
        "illegal": len(script.illegal),
        "caught": caught,
        "looked_at": looked_at,
        "named": named,
        "false_alarms": false_alarms,
        "looks": looks,
        "checks": checks,
        "misread_notes": misread,
        "frames": len(script.frames),
        "video_seconds": script.duration,
        "busy_seconds": busy,
    }


def summarise(games: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The table's rows (short, long, all) from ``run_game``'s results."""
    rows = []
    for variant in ("short", "long", "all"):
        chosen = [g for g in games if variant == "all" or g["variant"] == variant]
        if not chosen:
            continue
        turns = sum(g["turns"] for g in chosen)
        busy = sum(g["busy_seconds"] for g in chosen)
        frames = sum(g["frames"] for g in chosen)
        video = sum(g["video_seconds"] for g in chosen)
        rows.append(
            {
                "variant": variant,
                "games": len(chosen),
                "turns": turns,
                "plays_right_pct": 100.0 * sum(g["right"] for g in chosen) / max(turns, 1),
                "false_alarms_per_100": 100.0 * sum(g["false_alarms"] for g in chosen) / max(turns, 1),
                "checks_per_100": 100.0 * sum(g["checks"] for g in chosen) / max(turns, 1),
                "looks_per_100": 100.0 * sum(g["looks"] for g in chosen) / max(turns, 1),
                "misread_notes": sum(g.get("misread_notes", 0) for g in chosen),
                "illegal": sum(g["illegal"] for g in chosen),
                "caught": sum(g["caught"] for g in chosen),
                "looked_at": sum(g.get("looked_at", 0) for g in chosen),
                "named": sum(g["named"] for g in chosen),
                "fps": frames / busy if busy else 0.0,
                "x_realtime": video / busy if busy else 0.0,
            }
        )
    return rows


def summary_table(rows: Sequence[dict[str, Any]]) -> str:
    """The Markdown table of ``summarise``'s rows."""
    headers = [
        "variant",
        "games",
        "turns",
        "plays right %",
        "false alarms/100",
        "checks/100",
        "looks/100",
        "misread notes",
        "illegal caught",
        "missed, look asked",
        "named where",
        "fps",
        "× real time",
    ]
    return table(
        headers,
        [
            [
                r["variant"],
                r["games"],
                r["turns"],
                r["plays_right_pct"],
                r["false_alarms_per_100"],
                r["checks_per_100"],
                r["looks_per_100"],
                r["misread_notes"],
                f"{r['caught']}/{r['illegal']}",
                f"{r['looked_at']}/{r['illegal'] - r['caught']}",
                f"{r['named']}/{r['caught']}",
                r["fps"],
                r["x_realtime"],
            ]
            for r in rows
        ],
    )


def _name(learned_colours: bool, draw: int, ornamented: bool = False) -> str:
    """The result file's name for a run with these options."""
    return (
        "referee_e2e"
        + ("_learned" if learned_colours else "")
        + (f"_draw{draw}" if draw else "")
        + ("_ornamented" if ornamented else "")
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=4, help="games in all, alternating short and long")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--illegal-rate", type=float, default=0.05)
    parser.add_argument(
        "--learned-colours",
        action="store_true",
        help="give the recognizer the checker colours learned from a still start position, as a "
        "calibrated profile does (results in referee_e2e_learned.json)",
    )
    parser.add_argument(
        "--draw",
        type=int,
        default=0,
        help="another draw of each frame's sensor noise for the same games (0: the scenes' own; results in "
        "referee_e2e[_learned]_drawN.json)",
    )
    parser.add_argument(
        "--ornamented",
        action="store_true",
        help="the same games on boards with a medallion on the field "
        "(results in referee_e2e_ornamented.json)",
    )
    parser.add_argument(
        "--merge",
        nargs="+",
        metavar="JSON",
        help="play nothing: put together the games of earlier runs' result files (runs of a few games "
        "each, one per core) into one table and result file",
    )
    args = parser.parse_args(argv)
    if args.merge:
        runs = [json.loads(Path(f).read_text("utf-8")) for f in args.merge]
        games = [g for run in runs for g in run["games"]]
        rows = summarise(games)
        print(summary_table(rows))
        seeds = sorted(g["seed"] for g in games)
        print(f"\n{len(games)} games from {len(runs)} runs, seeds {', '.join(map(str, seeds))}")
        merged = {"args": {"merged": [run.get("args") for run in runs]}, "rows": rows, "games": games}
        first = runs[0].get("args") or {}
        name = _name(
            bool(first.get("learned_colours")), int(first.get("draw") or 0), bool(first.get("ornamented"))
        )
        print(f"wrote {write(name, merged)}")
        return 0
    try:
        w, h = parse_size(args.size)
    except ValueError as exc:
        parser.error(str(exc))
    import cv2

    cv2.setNumThreads(1)
    games = []
    for i in range(args.games):
        variant = "short" if i % 2 == 0 else "long"
        result = run_game(
            variant,
            args.seed + i,
            (w, h),
            args.illegal_rate,
            args.learned_colours,
            args.draw,
            args.ornamented,
        )
        games.append(result)
        print(
            f"game {i + 1}: {variant} seed {result['seed']}: "
            f"{result['right']}/{result['turns']} plays right, "
            f"{result['caught']}/{result['illegal']} illegal caught ({result['named']} named where, "
            f"{result['looked_at']} missed but looked at), "
            f"{result['false_alarms']} false alarms, "
            f"{result['checks']} checks",
            flush=True,
        )
    rows = summarise(games)
    print(summary_table(rows))
    print(
        f"\n{args.size}, one thread, seeds {args.seed}..{args.seed + args.games - 1}, "
        f"illegal rate {args.illegal_rate}, recording at {SimConfig().fps:g} fps"
        + (f", noise draw {args.draw}" if args.draw else "")
    )
    name = _name(args.learned_colours, args.draw, args.ornamented)
    print(f"wrote {write(name, {'args': vars(args), 'rows': rows, 'games': games})}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
