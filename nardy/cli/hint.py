"""``nardy hint`` and ``nardy analyse``: the best play for a roll, and a played game's mistakes."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from nardy.cli.plays import EPILOG_POSITION, _position

PLIES_HELP = (
    "our own engine's search depth: 1 evaluates each resulting position as it stands (gnubg calls "
    "this 0-ply), 2 also averages over the opponent's 21 rolls and best replies (default 1)"
)


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "hint",
        help="rank the legal plays of a roll, best first",
        description=(
            "Rank every legal play of a roll with an equity (cubeless points per game for the side to "
            "move, after its play) and its win and gammon chances. Short nardy uses GNU Backgammon when "
            "it is installed and our own network otherwise; long nardy uses our own network. The "
            "'engine' field says which one answered."
        ),
        epilog=EPILOG_POSITION,
    )
    p.add_argument("--position", metavar="POS", required=True, help="the position before the roll")
    p.add_argument("--roll", required=True, help="the dice, e.g. 6-5")
    p.add_argument("--variant", default=None, help="short (backgammon) or long (narde); default: from POS")
    p.add_argument("--turn", choices=["white", "black"], help="the side to move (overrides POS)")
    p.add_argument("--first-turn", action="store_true", help="the mover's first turn of the game")
    p.add_argument(
        "--engine", choices=["gnubg", "own"], default="gnubg", help="prefer gnubg (short nardy) or our own"
    )
    p.add_argument("--plies", type=int, choices=[1, 2], default=1, help=PLIES_HELP)
    p.add_argument(
        "--gnubg-plies", type=int, choices=[0, 1, 2, 3], default=2, help="gnubg's depth (default 2)"
    )
    p.add_argument("--top", type=int, default=10, help="how many plays to print (text output; default 10)")
    p.add_argument("--json", action="store_true", help="machine-readable output: every play")
    p.set_defaults(func=run_hint)

    a = subparsers.add_parser(
        "analyse",
        aliases=["analyze"],
        help="mark the mistakes of a played game",
        description=(
            "Review each turn of a game: the equity the play gave up against the best play, marked "
            "doubtful (0.04 or more), error (0.08) or blunder (0.16). Input: a match record as "
            "'nardy matches export' writes it in JSON, or JSON lines "
            '{"position": P, "roll": [d1, d2], "first_turn": bool, "play": "24/18 13/8"} '
            '(or "after": P2 instead of "play"; "play": null when the roll could not be played).'
        ),
        epilog=EPILOG_POSITION,
    )
    a.add_argument("file", type=Path, help="the match JSON or the turns, one a line ('-' for standard input)")
    a.add_argument("--engine", choices=["gnubg", "own"], default="gnubg")
    a.add_argument("--plies", type=int, choices=[1, 2], default=1, help=PLIES_HELP)
    a.add_argument("--json", action="store_true", help="machine-readable output")
    a.set_defaults(func=run_analyse)


def run_hint(args: argparse.Namespace) -> int:
    from nardy.hints import engine_for
    from nardy.rules import Roll, find_variant

    try:
        position = _position(args.position, args.variant, args.turn, "position")
        variant = find_variant(args.variant or position.variant)
        if variant.name != position.variant:
            raise ValueError(f"the position is {position.variant} nardy, but the variant is {variant.title}")
        roll = Roll.from_text(args.roll)
        engine = engine_for(variant, prefer=args.engine, plies=args.plies, gnubg_plies=args.gnubg_plies)
        hint = engine.hint(position, roll, args.first_turn)
    except (ValueError, FileNotFoundError) as exc:
        print(f"nardy hint: {exc}", file=sys.stderr)
        return 2
    if hint.note:
        print(f"nardy hint: {hint.note}", file=sys.stderr)
    if args.json:
        print(json.dumps(hint.to_json(), separators=(",", ":")))
        return 0
    if not hint.plays:
        print(f"{position.turn} cannot play {roll}: the turn passes")
        return 0
    print(f"{len(hint.plays)} plays of {roll} for {position.turn}, ranked by {hint.engine}:")
    for i, entry in enumerate(hint.plays[: args.top], 1):
        chances = (
            ""
            if entry.chances is None
            else f"  win {entry.chances.win:.1%}  gammon {entry.chances.win_gammon:.1%}"
        )
        loss = "" if i == 1 else f" ({-entry.loss:+.3f})"
        print(f"{i:3d}. {entry.play.text():<24} {entry.equity:+.3f}{loss}{chances}")
    return 0


def _match_record(text: str) -> Any:
    """The match record if ``text`` is one match JSON (``nardy matches export`` writes it), else None."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return None
    if not isinstance(data, dict) or data.get("format") != "nardy-match":
        return None
    from nardy.rules.record import MatchRecord

    return MatchRecord.from_json(data)


def _review_lines(text: str, engine_name: str, plies: int) -> Any:
    from nardy.hints import AnalysisConfig, HintEngine, MatchReview, PlayReview, engine_for, review_turn
    from nardy.rules import Position, Roll

    engines: dict[str, HintEngine] = {}
    config = AnalysisConfig()
    reviews: list[PlayReview] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            case = json.loads(line)
            if not isinstance(case, dict):
                raise ValueError("each line must be a JSON object")
            position = _position(case.get("position"), case.get("variant"), None, "position")
            play: Any = case.get("play")
            if "after" in case:
                play = Position.from_json(case["after"], position.variant)
            roll = Roll.from_any(case.get("roll"))
            first = case.get("first_turn", False)
            if not isinstance(first, bool):
                raise ValueError("'first_turn' must be true or false")
            engine = engines.get(position.variant)
            if engine is None:
                engine = engines[position.variant] = engine_for(position.variant, engine_name, plies)  # type: ignore[arg-type]
            reviews.append(review_turn(len(reviews), (position, roll, first, play), engine, config))
        except (ValueError, TypeError) as exc:
            raise ValueError(f"line {number}: {exc}") from None
    return MatchReview(tuple(reviews), config)


def run_analyse(args: argparse.Namespace) -> int:
    from nardy.hints import analyse_match, engine_for

    try:
        text = sys.stdin.read() if str(args.file) == "-" else args.file.read_text(encoding="utf-8")
        record = _match_record(text)
        if record is not None:
            review = analyse_match(record, engine_for(record.variant, args.engine, args.plies))
        else:
            review = _review_lines(text, args.engine, args.plies)
    except (OSError, ValueError, TypeError) as exc:
        print(f"nardy analyse: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(review.to_json(), separators=(",", ":")))
        return 0
    for r in review.plays:
        played = r.played.text() if r.played is not None else "-"
        best = r.best.play.text() if r.best is not None else "-"
        loss = "" if r.loss is None else f"{-r.loss:+.3f}"
        flag = (
            f"  {r.mark.upper()}"
            if r.mark in ("blunder", "error", "illegal")
            else (f"  {r.mark}" if r.mark else "")
        )
        game = "" if r.game is None else f"g{r.game} "
        print(
            f"{game}{r.index + 1:4d}. {r.mover.value:<5} {r.roll}  {played:<22} best {best:<22} {loss}{flag}"
        )
    for color, s in review.summary().items():
        marks = ", ".join(f"{n} {m}" for m, n in sorted(s.marks.items())) or "no marks"
        lost = f"{s.total_loss:.3f} equity lost ({s.mean_loss:.3f} a decision)"
        print(f"{color}: {s.decisions} decisions, {lost}; {marks}")
    return 0
