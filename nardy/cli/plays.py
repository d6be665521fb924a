"""``nardy plays`` and ``nardy judge``: the rules engine from the command line.

Both take one case from options or, with ``--batch``, JSON lines on standard input, and
write one JSON line per case. A bad case gets one error line ``{"error": "..."}`` and the
rest go on.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable
from typing import Any, TextIO

from nardy.rules import Color, Position, Roll, RulesError, Variant, find_variant
from nardy.rules.notation import parse_position

EPILOG_POSITION = (
    'POS is the position JSON ({"variant": ..., "points": [24 ints, white positive], "bar": {...}, '
    '"off": {...}, "turn": "white"|"black"}), or for short nardy an XGID or a GNU Backgammon '
    "position ID. Plays are written in the mover's own numbering (24/18 13/8, bar/22*, 6/off, 13/7(2))."
)


def register(subparsers: Any) -> None:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--variant", default=None, help="short (backgammon) or long (narde); default: from POS"
    )
    common.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a rule option, e.g. block_rule=final, head_doubles=any, max_per_point=6, koks=true",
    )
    common.add_argument("--roll", help="the dice, e.g. 6-5")
    common.add_argument("--first-turn", action="store_true", help="the mover's first turn of the game")
    common.add_argument("--turn", choices=["white", "black"], help="the side to move (overrides POS)")
    common.add_argument("--json", action="store_true", help="machine-readable output")
    common.add_argument(
        "--batch", action="store_true", help="read JSON lines from stdin, write one line each"
    )

    p = subparsers.add_parser(
        "plays",
        parents=[common],
        help="list the legal plays of a roll",
        description="List every legal play of a roll: one entry per distinct resulting position.",
        epilog=EPILOG_POSITION + ' Batch lines: {"position": P, "roll": [d1, d2], "first_turn": bool}.',
    )
    p.add_argument("--position", metavar="POS", help="the position before the roll")
    p.set_defaults(func=run_plays)

    j = subparsers.add_parser(
        "judge",
        parents=[common],
        help="say whether a position is a legal result of a roll, and why not",
        description="Judge an observed position as the result of a play: legal or not, which play, why not.",
        epilog=EPILOG_POSITION
        + ' Batch lines: {"before": P, "after": P2, "roll": [d1, d2], "first_turn": bool}. '
        "The side to move is before's turn.",
    )
    j.add_argument("--before", metavar="POS", help="the position before the play")
    j.add_argument("--after", metavar="POS", help="the position observed after it")
    j.set_defaults(func=run_judge)


# ---------------------------------------------------------------------------- helpers
def _options(pairs: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep:
            raise RulesError(f"--option takes NAME=VALUE, not {pair!r}")
        text = value.strip()
        parsed: Any = text
        if text.lower() in ("true", "yes", "on"):
            parsed = True
        elif text.lower() in ("false", "no", "off"):
            parsed = False
        elif text.lower() in ("none", "null"):
            parsed = None
        elif text.isdigit():
            parsed = int(text)
        out[name.strip().replace("-", "_")] = parsed
    return out


def _variant(name: str | None, position: Position | None, options: dict[str, Any]) -> Variant:
    if name is None:
        if position is None:
            raise RulesError("no variant: give --variant or a position JSON with 'variant'")
        name = position.variant
    return find_variant(name, **options)


def _position(value: object, variant: str | None, turn: str | None, field: str) -> Position:
    side = Color.parse(turn) if turn else None
    if isinstance(value, dict):
        pos = Position.from_json(value, variant)
        return pos if side is None else pos.with_turn(side)
    if isinstance(value, str):
        return parse_position(value, variant, side)
    raise RulesError(f"'{field}' must be a position JSON object or text, not {value!r}")


def _first_turn(value: object) -> bool:
    if not isinstance(value, bool):
        raise RulesError(f"'first_turn' must be true or false, not {value!r}")
    return value


def _plays_case(variant: Variant, position: Position, roll: Roll, first_turn: bool) -> dict[str, Any]:
    if position.variant != variant.name:
        raise RulesError(f"the position is {position.variant} nardy, but the variant is {variant.title}")
    legal = variant.legal_plays(position, roll, first_turn)
    return {"plays": [{"play": play.text(), "position": after.to_json()} for play, after in legal.items()]}


def _batch(lines: Iterable[str], out: TextIO, handle: Callable[[dict[str, Any]], dict[str, Any]]) -> int:
    errors = total = 0
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        total += 1
        try:
            try:
                case = json.loads(line)
            except json.JSONDecodeError as exc:
                raise RulesError(f"not valid JSON: {exc.msg} at column {exc.colno}") from None
            if not isinstance(case, dict):
                raise RulesError("each line must be a JSON object")
            result = handle(case)
        except (ValueError, TypeError) as exc:
            errors += 1
            result = {"error": f"line {number}: {exc}"}
        out.write(json.dumps(result, separators=(",", ":")) + "\n")
        out.flush()
    if errors:
        print(f"nardy: {errors} of {total} lines had errors", file=sys.stderr)
    return 0


# ---------------------------------------------------------------------------- plays
def run_plays(args: argparse.Namespace) -> int:
    try:
        options = _options(args.option)
        if args.variant:
            find_variant(args.variant, **options)
    except ValueError as exc:
        print(f"nardy plays: {exc}", file=sys.stderr)
        return 2
    if args.batch:

        def handle(case: dict[str, Any]) -> dict[str, Any]:
            unknown = set(case) - {"position", "roll", "first_turn", "variant"}
            if unknown:
                raise RulesError(f"unknown field(s): {', '.join(sorted(unknown))}")
            if "position" not in case or "roll" not in case:
                raise RulesError("a case needs 'position' and 'roll'")
            name = case.get("variant", args.variant)
            position = _position(case["position"], name, args.turn, "position")
            variant = _variant(name, position, options)
            roll = Roll.from_any(case["roll"])
            return _plays_case(variant, position, roll, _first_turn(case.get("first_turn", False)))

        return _batch(sys.stdin, sys.stdout, handle)

    try:
        if args.position is None or args.roll is None:
            raise RulesError("give --position and --roll (or --batch)")
        position = _position(args.position, args.variant, args.turn, "position")
        variant = _variant(args.variant, position, options)
        roll = Roll.from_text(args.roll)
        result = _plays_case(variant, position, roll, args.first_turn)
    except ValueError as exc:
        print(f"nardy plays: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result, separators=(",", ":")))
        return 0
    plays = result["plays"]
    if not plays:
        print(f"{position.turn} cannot play {roll}: the turn passes")
        return 0
    noun = "play" if len(plays) == 1 else "plays"
    print(f"{len(plays)} legal {noun} of {roll} for {position.turn} ({variant.title}):")
    for entry in sorted(plays, key=lambda e: e["play"]):
        print(f"  {entry['play']}")
    return 0


# ---------------------------------------------------------------------------- judge
def run_judge(args: argparse.Namespace) -> int:
    try:
        options = _options(args.option)
        if args.variant:
            find_variant(args.variant, **options)
    except ValueError as exc:
        print(f"nardy judge: {exc}", file=sys.stderr)
        return 2

    def judge_case(
        before_v: object, after_v: object, roll_v: object, first: bool, name: str | None
    ) -> dict[str, Any]:
        before = _position(before_v, name, args.turn, "before")
        variant = _variant(name, before, options)
        after = _position(after_v, name or before.variant, None, "after")
        if before.variant != variant.name or after.variant != variant.name:
            raise RulesError(
                f"positions of {before.variant} and {after.variant} nardy given to {variant.title}"
            )
        roll = Roll.from_any(roll_v)
        verdict = variant.judge(before, after, roll, first)
        result: dict[str, Any] = verdict.to_json()
        return result

    if args.batch:

        def handle(case: dict[str, Any]) -> dict[str, Any]:
            unknown = set(case) - {"before", "after", "roll", "first_turn", "variant"}
            if unknown:
                raise RulesError(f"unknown field(s): {', '.join(sorted(unknown))}")
            for key in ("before", "after", "roll"):
                if key not in case:
                    raise RulesError(f"a case needs '{key}'")
            return judge_case(
                case["before"],
                case["after"],
                case["roll"],
                _first_turn(case.get("first_turn", False)),
                case.get("variant", args.variant),
            )

        return _batch(sys.stdin, sys.stdout, handle)

    try:
        if args.before is None or args.after is None or args.roll is None:
            raise RulesError("give --before, --after and --roll (or --batch)")
        result = judge_case(args.before, args.after, args.roll, args.first_turn, args.variant)
    except ValueError as exc:
        print(f"nardy judge: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result, separators=(",", ":")))
    elif result["legal"]:
        print(f"legal: {result['play'] or '(no play possible)'}")
    else:
        played = f" ({result['play']})" if result["play"] else ""
        print(f"illegal{played}: {result['reason']}")
    return 0 if result["legal"] else 1
