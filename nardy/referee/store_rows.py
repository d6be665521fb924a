"""Rows of the match database to and from :mod:`nardy.rules.record` values.

Times are stored as ISO 8601 text with their timezone, positions as the position JSON, plays in
their canonical notation (mover's numbering), rolls as ``"6-5"``.
"""

from __future__ import annotations

import errno
import json
import sqlite3
from datetime import datetime

from nardy.referee.store_errors import StoreCorruptError, StoreError, StoreNotFoundError
from nardy.rules import Color, Play, Position, Roll, find_variant
from nardy.rules.errors import RulesError
from nardy.rules.record import (
    Action,
    CubeAction,
    CubeState,
    GameRecord,
    MatchInfo,
    MatchRecord,
    TurnRecord,
    cube_state,
    parse_time,
    result_from_json,
    steps_text,
)

_TURN_COLUMNS = (
    "game_id, seq, color, roll, play, before, after, rolled_at, decided_at, "
    "illegal, accepted, corrected, manual, reason, note"
)


def t(value: datetime | None) -> str | None:
    """A time as stored."""
    return None if value is None else value.isoformat()


def pt(value: object) -> datetime | None:
    """A stored time back."""
    return parse_time(value) if value is not None else None


def rowid(cur: sqlite3.Cursor) -> int:
    if cur.lastrowid is None:  # pragma: no cover - an INSERT always sets it
        raise StoreError(errno.EIO, "the database did not return the new row's id")
    return int(cur.lastrowid)


# ----------------------------------------------------------------------------- writing
def insert_match(conn: sqlite3.Connection, info: MatchInfo, created: datetime, ended: datetime | None) -> int:
    cur = conn.execute(
        "INSERT INTO matches (white, black, variant, options, length, venue, event, started_at, "
        "ended_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            info.white,
            info.black,
            info.variant.name,
            json.dumps(info.variant.options_dict()),
            info.length,
            info.venue,
            info.event,
            t(info.started_at or created),
            t(ended),
            t(created),
        ),
    )
    return rowid(cur)


def insert_game(conn: sqlite3.Connection, match_id: int, game: GameRecord) -> int:
    result = game.result
    cur = conn.execute(
        "INSERT INTO games (match_id, number, started_at, ended_at, winner, multiplier, cube, ending) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            match_id,
            game.number,
            t(game.started_at),
            t(game.ended_at),
            None if result is None else result.winner.value,
            None if result is None else result.multiplier,
            None if result is None else result.cube,
            game.ending,
        ),
    )
    return rowid(cur)


def insert_action(conn: sqlite3.Connection, game_id: int, seq: int, action: Action) -> int:
    """Insert a turn or a cube action at place ``seq`` of its game; return its row id."""
    if isinstance(action, CubeAction):
        cur = conn.execute(
            "INSERT INTO cube_actions (game_id, seq, kind, color, cube, at) VALUES (?, ?, ?, ?, ?, ?)",
            (game_id, seq, action.kind, action.color.value, action.cube, t(action.at)),
        )
        return rowid(cur)
    cur = conn.execute(
        f"INSERT INTO turns ({_TURN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            game_id,
            seq,
            action.color.value,
            action.roll.text(),
            steps_text(action.play),
            action.before.json_text(),
            action.after.json_text(),
            t(action.rolled_at),
            t(action.decided_at),
            int(action.illegal),
            int(action.accepted),
            int(action.corrected),
            int(action.manual),
            action.reason,
            action.note,
        ),
    )
    return rowid(cur)


# ----------------------------------------------------------------------------- reading
def match_row(conn: sqlite3.Connection, match_id: int) -> sqlite3.Row:
    row: sqlite3.Row | None = conn.execute("SELECT * FROM matches WHERE id = ?", (match_id,)).fetchone()
    if row is None:
        raise StoreNotFoundError(errno.ENOENT, f"no match with id {match_id}")
    return row


def next_seq(conn: sqlite3.Connection, game_id: int) -> int:
    """The place of the next action in a game (turns and cube actions share one sequence)."""
    row = conn.execute(
        "SELECT max(coalesce((SELECT max(seq) FROM turns WHERE game_id = ?), 0), "
        "coalesce((SELECT max(seq) FROM cube_actions WHERE game_id = ?), 0))",
        (game_id, game_id),
    ).fetchone()
    return int(row[0]) + 1


def game_cube(conn: sqlite3.Connection, game_id: int) -> CubeState:
    rows = conn.execute(
        "SELECT kind, color, cube FROM cube_actions WHERE game_id = ? ORDER BY seq", (game_id,)
    ).fetchall()
    return cube_state([CubeAction(r[0], Color.parse(r[1]), int(r[2])) for r in rows])


def is_crawford_game(conn: sqlite3.Connection, game_id: int) -> bool:
    """Whether the game is its match's Crawford game (no doubling)."""
    game = conn.execute(
        "SELECT g.match_id, g.number, m.length, m.options FROM games g JOIN matches m ON m.id = g.match_id "
        "WHERE g.id = ?",
        (game_id,),
    ).fetchone()
    if game is None or int(game["length"]) <= 0 or not json.loads(game["options"]).get("crawford", True):
        return False
    length = int(game["length"])
    white = black = 0
    query = "SELECT number, winner, multiplier * cube FROM games WHERE match_id = ? ORDER BY number"
    for number, winner, points in conn.execute(query, (game["match_id"],)):
        if (white == length - 1) != (black == length - 1):
            return bool(number == game["number"])
        if winner == "white":
            white += points
        elif winner == "black":
            black += points
    return False


def last_activity(conn: sqlite3.Connection, match_id: int, before: datetime | None = None) -> datetime | None:
    """The latest time stamp recorded for the match (with ``before``: the latest not after it)."""
    texts: list[str] = []
    for sql in (
        "SELECT decided_at FROM turns t JOIN games g ON g.id = t.game_id WHERE g.match_id = ?",
        "SELECT at FROM cube_actions c JOIN games g ON g.id = c.game_id WHERE g.match_id = ?",
        "SELECT started_at FROM games WHERE match_id = ?",
        "SELECT ended_at FROM games WHERE match_id = ?",
        "SELECT started_at FROM matches WHERE id = ?",
        "SELECT ended_at FROM matches WHERE id = ?",
    ):
        if before is None:  # the latest row is enough
            sql = sql.replace("SELECT ", "SELECT max(", 1).replace(" FROM", ") FROM", 1)
        texts += [r[0] for r in conn.execute(sql, (match_id,)) if r[0] is not None]
    times = [x for x in (pt(text) for text in texts) if x is not None]
    if before is not None:
        times = [x for x in times if x <= before]
    return max(times) if times else None


def load_match(conn: sqlite3.Connection, match_id: int, path: str) -> MatchRecord:
    m = match_row(conn, match_id)
    try:
        variant = find_variant(m["variant"], **json.loads(m["options"]))
        info = MatchInfo(
            white=m["white"],
            black=m["black"],
            variant=variant,
            length=int(m["length"]),
            venue=m["venue"],
            event=m["event"],
            started_at=pt(m["started_at"]),
        )
        rows = conn.execute("SELECT * FROM games WHERE match_id = ? ORDER BY number", (match_id,)).fetchall()
        games = tuple(load_game(conn, variant.name, g) for g in rows)
        return MatchRecord(info, games, ended_at=pt(m["ended_at"]))
    except (RulesError, json.JSONDecodeError, KeyError, TypeError) as exc:
        raise StoreCorruptError(errno.EIO, f"match {match_id} cannot be read back: {exc}", path) from None


def load_game(conn: sqlite3.Connection, variant: str, g: sqlite3.Row) -> GameRecord:
    rows: list[tuple[int, Action]] = []
    for r in conn.execute("SELECT * FROM turns WHERE game_id = ?", (g["id"],)):
        turn = TurnRecord(
            roll=Roll.from_text(r["roll"]),
            play=Play.from_text(r["play"]),
            before=Position.from_json(r["before"]),
            after=Position.from_json(r["after"]),
            rolled_at=pt(r["rolled_at"]),
            decided_at=pt(r["decided_at"]),
            illegal=bool(r["illegal"]),
            accepted=bool(r["accepted"]),
            corrected=bool(r["corrected"]),
            manual=bool(r["manual"]),
            reason=r["reason"],
            note=r["note"],
        )
        rows.append((int(r["seq"]), turn))
    for r in conn.execute("SELECT * FROM cube_actions WHERE game_id = ?", (g["id"],)):
        rows.append(
            (int(r["seq"]), CubeAction(r["kind"], Color.parse(r["color"]), int(r["cube"]), pt(r["at"])))
        )
    rows.sort(key=lambda row: row[0])
    result = ending = None
    if g["ending"] is not None:
        fields = {
            "winner": g["winner"],
            "multiplier": g["multiplier"],
            "cube": g["cube"],
            "ending": g["ending"],
        }
        result, ending = result_from_json(variant, fields)
    return GameRecord(
        number=int(g["number"]),
        actions=tuple(action for _, action in rows),
        result=result,
        ending=ending,
        started_at=pt(g["started_at"]),
        ended_at=pt(g["ended_at"]),
    )
