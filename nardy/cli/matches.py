"""``nardy matches``: list, show, export and import recorded matches."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

DEFAULT_DB = "matches.db"
"""The match database when neither ``--db`` nor ``NARDY_DB`` names one."""


def register(subparsers: Any) -> None:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--db",
        type=Path,
        default=Path(os.environ.get("NARDY_DB", DEFAULT_DB)),
        help=f"the match database (default: $NARDY_DB or ./{DEFAULT_DB})",
    )
    p = subparsers.add_parser(
        "matches",
        help="list, show, export and import recorded matches",
        description=(
            "Recorded matches live in an SQLite database, one committed transaction per turn. "
            "Export a match for GNU Backgammon or eXtreme Gammon (.mat, SGF), as JSON with the position "
            "at every turn, or as a printable score sheet (HTML or PDF); import a .mat or JSON match."
        ),
    )
    sub = p.add_subparsers(dest="matches_command", metavar="ACTION", required=True)

    ls = sub.add_parser("list", parents=[common], help="one line per match")
    ls.add_argument("--json", action="store_true", help="machine-readable output")
    ls.set_defaults(func=run_list)

    show = sub.add_parser("show", parents=[common], help="a match's games, results, alerts and gaps")
    show.add_argument("id", type=int, help="the match id (see nardy matches list)")
    show.add_argument(
        "--json", action="store_true", help="the whole record as JSON (as export --format json --no-analysis)"
    )
    show.set_defaults(func=run_show)

    export = sub.add_parser(
        "export",
        parents=[common],
        help="write a match as .mat, SGF, JSON or a score sheet",
        description=(
            "mat: Jellyfish match text for GNU Backgammon / eXtreme Gammon (long nardy: same layout, its "
            "variant in the header); sgf: SGF GM[6], short nardy only; json: every turn with the positions "
            "before and after; sheet: printable HTML score sheet; pdf: the score sheet as PDF. "
            "json, sheet and pdf also carry the analysis: each play's equity lost against the best play, "
            "marked ?! doubtful, ? error or ?? blunder, and each player's totals."
        ),
    )
    export.add_argument("id", type=int, help="the match id")
    export.add_argument("--format", required=True, choices=["mat", "sgf", "json", "sheet", "pdf"])
    export.add_argument("--out", type=Path, help="the file to write (default: standard output)")
    export.add_argument("--snapshots", type=Path, metavar="DIR", help="also write the board pictures to DIR")
    export.add_argument(
        "--no-analysis",
        dest="analyse",
        action="store_false",
        help="leave the plays unmarked (the analysis ranks every turn: seconds to minutes for a long match)",
    )
    export.set_defaults(func=run_export)

    imp = sub.add_parser(
        "import",
        parents=[common],
        help="add a match from a .mat or JSON file",
        description="Read a .mat file (each play checked by the rules, illegal ones flagged) or JSON match.",
    )
    imp.add_argument("file", type=Path)
    imp.add_argument("--variant", help="short or long, when the .mat file does not say")
    imp.set_defaults(func=run_import)


def _open(path: Path, create: bool = False) -> Any:
    from nardy.referee.store import MatchStore

    return MatchStore.open(path, create=create)


def _fail(message: object) -> int:
    print(f"nardy matches: {message}", file=sys.stderr)
    return 2


def _when(value: Any) -> str:
    return "-" if value is None else value.astimezone().strftime("%Y-%m-%d %H:%M")


def run_list(args: argparse.Namespace) -> int:
    from nardy.referee.store import StoreError

    try:
        with _open(args.db) as store:
            matches = store.list_matches()
    except StoreError as exc:
        return _fail(exc)
    if args.json:
        for m in matches:
            row = {
                "id": m.id,
                "white": m.white,
                "black": m.black,
                "variant": m.variant,
                "length": m.length,
                "venue": m.venue,
                "event": m.event,
                "started_at": None if m.started_at is None else m.started_at.isoformat(),
                "open": m.open,
                "games": m.games,
                "turns": m.turns,
                "score": {"white": m.score[0], "black": m.score[1]},
            }
            print(json.dumps(row, ensure_ascii=False))
        return 0
    if not matches:
        print(f"no matches in {args.db}", file=sys.stderr)
        return 0
    for m in matches:
        length = f"to {m.length}" if m.length else "session"
        state = "open" if m.open else "over"
        score = f"{m.white} {m.score[0]}-{m.score[1]} {m.black}"
        counts = f"({m.games} games, {m.turns} turns, {state})"
        print(f"{m.id:4d}  {_when(m.started_at)}  {m.variant:5} {length:6}  {score}  {counts}")
    return 0


def run_show(args: argparse.Namespace) -> int:
    from nardy.referee.export import game_rows, match_json
    from nardy.referee.store import StoreError

    try:
        with _open(args.db) as store:
            if args.json:
                print(json.dumps(match_json(store, args.id), indent=1, ensure_ascii=False))
                return 0
            record = store.load_match(args.id)
            alerts = store.alerts(args.id)
            gaps = store.gaps(args.id)
            point = store.open_match()
    except StoreError as exc:
        return _fail(exc)
    info = record.info
    length = f"to {info.length} points" if info.length else "unlimited session"
    print(f"Match {args.id}: {info.white} (white) v {info.black} (black), {info.variant.title}, {length}")
    for label, value in (("Event", info.event), ("Venue", info.venue), ("Started", _when(info.started_at))):
        if value:
            print(f"  {label}: {value}")
    scores = record.scores()
    crawford = record.crawford_games()
    for i, game in enumerate(record.games):
        white, black = scores[i]
        tag = ", Crawford" if game.number in crawford else ""
        flagged = sum(1 for t in game.turns if t.flags)
        result = "not finished"
        if game.result is not None:
            result = f"{info.player(game.result.winner)} wins {game.result.points} ({game.ending})"
        extra = f", {flagged} flagged" if flagged else ""
        print(f"  Game {game.number} at {white}-{black}{tag}: {len(game_rows(game))} rows{extra}; {result}")
    white, black = record.score
    print(f"  Score: {white}-{black}" + ("" if record.ended_at else " (match open)"))
    for gap in gaps:
        print(f"  Gap: {gap.describe()}")
    for alert in alerts:
        print(f"  Alert {alert.at.astimezone():%H:%M:%S}: {alert.text}")
    if point is not None and point.match_id == args.id:
        print(f"  Resume: {point.describe()}")
    return 0


def _write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` whole or not at all: an old file stays until the new one is complete."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def run_export(args: argparse.Namespace) -> int:
    from nardy.referee.export import ANALYSED, analyse_record, export_match, export_snapshots
    from nardy.referee.store import StoreError
    from nardy.rules.errors import RulesError

    try:
        with _open(args.db) as store:
            analysis = None
            if args.analyse and args.format in ANALYSED:
                analysis = analyse_record(store.load_match(args.id))
                if not analysis.ok:
                    print(f"nardy matches: exporting without the marks: {analysis.problem}", file=sys.stderr)
            data = export_match(store, args.id, args.format, analysis=analysis)
            pictures = export_snapshots(store, args.id, args.snapshots) if args.snapshots else []
        if args.out is not None:
            _write_atomically(args.out, data)
            print(f"wrote match {args.id} as {args.format} to {args.out}", file=sys.stderr)
        else:
            sys.stdout.buffer.write(data)
            sys.stdout.flush()
    except (StoreError, RulesError, OSError) as exc:
        return _fail(exc)
    if args.snapshots:
        print(f"wrote {len(pictures)} board pictures to {args.snapshots}", file=sys.stderr)
    return 0


def run_import(args: argparse.Namespace) -> int:
    from nardy.referee.store import StoreError
    from nardy.rules.errors import RulesError
    from nardy.rules.matfile import read_mat
    from nardy.rules.record import MatchRecord

    try:
        text = args.file.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        return _fail(f"cannot read {args.file}: {exc}")
    try:
        if text.lstrip().startswith("{"):
            try:
                data = json.loads(text)
            except json.JSONDecodeError as exc:
                return _fail(f"{args.file}: not valid JSON: {exc.msg} at line {exc.lineno}")
            record = MatchRecord.from_json(data)
        else:
            record = read_mat(text, args.variant)
    except RulesError as exc:
        return _fail(f"{args.file}: {exc}")
    try:
        with _open(args.db, create=True) as store:
            match_id = store.import_record(record)
    except StoreError as exc:
        return _fail(exc)
    flagged = sum(1 for g in record.games for t in g.turns if t.illegal)
    note = f"; {flagged} illegal play(s) flagged" if flagged else ""
    white, black = record.score
    print(
        f"imported match {match_id}: {record.info.white} {white}-{black} {record.info.black}, "
        f"{len(record.games)} games{note}"
    )
    return 0
