"""The durable record of matches: an SQLite database the referee writes one decision at a time.

Durability: the database runs in WAL mode with ``synchronous=FULL``, and every call that
records something is one transaction, committed -- written and synced to the disk -- before
the call returns. A crash, a ``kill -9`` or a power cut loses at most the call that was running;
everything returned before it is there when the database is opened again. A full disk raises
:class:`StoreFullError` and rolls back only that call.

The referee's API (ids are integers; times are timezone-aware datetimes and default to now)::

    store = MatchStore.open("matches.db")
    match_id = store.create_match(MatchInfo("Anna", "Boris", find_variant("short"), length=5))
    store.begin_session(match_id)                      # also after a restart: the gap is kept
    game_id = store.start_game(match_id, jpeg=start_picture)
    turn_id = store.add_turn(game_id, turn, jpeg=settled_picture)   # committed when it returns
    store.add_cube_action(game_id, CubeAction("double", Color.WHITE, 2))
    store.add_alert(match_id, "point 19 is closed: taken back", code="closed", game_id=game_id)
    store.mark_turn(turn_id, accepted=True)
    store.end_game(game_id, result, "bear-off")
    store.end_match(match_id)
    point = store.open_match()          # after a restart: the open match, where it stands, the gap
    record = store.load_match(match_id) # a MatchRecord, for the exports
    store.close()

Errors are :class:`StoreError` (an :class:`OSError`) and its narrow kinds (see
:mod:`nardy.referee.store_errors`); none is silent. Bad input -- an unknown id, a turn for a
finished game, a picture that is not a JPEG -- raises a kind that is also a :class:`ValueError`
or :class:`LookupError`.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import socket
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from nardy.referee import store_rows as rows
from nardy.referee.migrations import LATEST, SchemaError, migrate, user_version
from nardy.referee.resume import Gap, ResumePoint
from nardy.referee.store_errors import (
    StoreCorruptError,
    StoreError,
    StoreFullError,
    StoreNotFoundError,
    StoreSchemaError,
    StoreUsageError,
    translate,
)
from nardy.rules import Play, Position
from nardy.rules.record import (
    CubeAction,
    CubeState,
    MatchInfo,
    MatchRecord,
    TurnRecord,
    cube_problem,
    steps_text,
)
from nardy.rules.scoring import GameResult

log = logging.getLogger(__name__)

Clock = Callable[[], datetime]

MAX_JPEG_BYTES = 2_000_000
"""The largest board picture the store takes (a small JPEG of a board is 20-80 kB)."""

__all__ = [
    "LATEST",
    "MAX_JPEG_BYTES",
    "Alert",
    "Gap",
    "MatchStore",
    "MatchSummary",
    "ResumePoint",
    "StoreCorruptError",
    "StoreError",
    "StoreFullError",
    "StoreNotFoundError",
    "StoreSchemaError",
    "StoreUsageError",
]


@dataclass(frozen=True, slots=True)
class Alert:
    """Something the referee told the players or the director, kept with the match."""

    id: int
    match_id: int
    at: datetime
    text: str
    code: str = ""
    game_id: int | None = None
    turn_id: int | None = None


@dataclass(frozen=True, slots=True)
class MatchSummary:
    """One line of ``nardy matches list``."""

    id: int
    white: str
    black: str
    variant: str
    length: int
    venue: str
    event: str
    started_at: datetime | None
    ended_at: datetime | None
    games: int
    turns: int
    score: tuple[int, int]
    """``(white, black)`` after the finished games."""
    last_activity: datetime | None

    @property
    def open(self) -> bool:
        return self.ended_at is None


def _now() -> datetime:
    return datetime.now(UTC)


class MatchStore:
    """An open match database. Thread-safe; use one per process and close it (or use ``with``)."""

    def __init__(self, conn: sqlite3.Connection, path: Path, clock: Clock) -> None:
        """Use :meth:`open`."""
        self._conn: sqlite3.Connection | None = conn
        self.path = path
        self._clock = clock
        self._lock = threading.RLock()

    # ------------------------------------------------------------------ opening
    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        *,
        create: bool = True,
        clock: Clock = _now,
        busy_timeout: float = 5.0,
        max_bytes: int | None = None,
    ) -> MatchStore:
        """Open the database at ``path`` (creating it unless ``create`` is false), upgrading an older one.

        ``max_bytes`` caps the database's size (a quota): reaching it is reported like a full disk.

        Raises :class:`StoreNotFoundError` when there is no file and ``create`` is false,
        :class:`StoreCorruptError` when the file is not a match database,
        :class:`StoreSchemaError` when it is of a newer version, :class:`StoreError` otherwise.
        """
        target = Path(path)
        if not create and not target.exists():
            raise StoreNotFoundError(errno.ENOENT, "no match database here", str(target))
        try:
            conn = sqlite3.connect(
                str(target), timeout=busy_timeout, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as exc:
            raise translate(exc, "opening the match database", target) from exc
        conn.row_factory = sqlite3.Row
        try:
            mode = str(conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]).lower()
            if mode != "wal":
                raise StoreError(
                    errno.EIO, f"the database cannot use write-ahead logging ({mode})", str(target)
                )
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("PRAGMA foreign_keys = ON")
            if max_bytes is not None:
                page = int(conn.execute("PRAGMA page_size").fetchone()[0])
                conn.execute(f"PRAGMA max_page_count = {max(int(max_bytes) // page, 1):d}")
            applied = migrate(conn)
            if applied:
                log.info("match database %s upgraded to schema version(s) %s", target, applied)
        except SchemaError as exc:
            conn.close()
            kind = StoreCorruptError if "not a nardy" in str(exc) else StoreSchemaError
            raise kind(errno.EINVAL, str(exc), str(target)) from None
        except sqlite3.Error as exc:
            conn.close()
            raise translate(exc, "opening the match database", target) from exc
        except BaseException:
            conn.close()
            raise
        return cls(conn, target, clock)

    def close(self) -> None:
        """Close the database; further calls raise :class:`StoreError`."""
        with self._lock:
            if self._conn is not None:
                conn, self._conn = self._conn, None
                conn.close()

    def __enter__(self) -> MatchStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def closed(self) -> bool:
        return self._conn is None

    @property
    def schema_version(self) -> int:
        with self._read("reading the schema version") as conn:
            return user_version(conn)

    # ------------------------------------------------------------------ transactions
    @contextmanager
    def _transaction(self, begin: str, what: str) -> Iterator[sqlite3.Connection]:
        with self._lock:
            conn = self._conn
            if conn is None:
                raise StoreError(errno.EBADF, "the match database is closed", str(self.path))
            try:
                conn.execute(begin)
                yield conn
                conn.execute("COMMIT")
            except BaseException as exc:
                if conn.in_transaction:
                    try:
                        conn.execute("ROLLBACK")
                    except sqlite3.Error:  # after a failed commit SQLite may have rolled back itself
                        log.warning("rollback after a failed %s failed too", what, exc_info=True)
                if isinstance(exc, sqlite3.Error):
                    raise translate(exc, what, self.path) from exc
                raise

    def _write(self, what: str) -> AbstractContextManager[sqlite3.Connection]:
        """One transaction, committed at the end of the ``with`` block; on any error all of it is undone."""
        return self._transaction("BEGIN IMMEDIATE", what)

    def _read(self, what: str) -> AbstractContextManager[sqlite3.Connection]:
        """A consistent snapshot to read from."""
        return self._transaction("BEGIN", what)

    # ------------------------------------------------------------------ recording
    def create_match(self, info: MatchInfo) -> int:
        """Record a new match; return its id. ``info.started_at`` defaults to now."""
        if not isinstance(info, MatchInfo):
            raise StoreUsageError(errno.EINVAL, f"create_match takes a MatchInfo, not {type(info).__name__}")
        with self._write("recording the new match") as conn:
            return rows.insert_match(conn, info, self._clock(), None)

    def begin_session(self, match_id: int, at: datetime | None = None) -> int:
        """Note that recording starts or restarts for ``match_id``: the record then shows the gap."""
        with self._write("recording the start of a session") as conn:
            rows.match_row(conn, match_id)
            cur = conn.execute(
                "INSERT INTO sessions (match_id, opened_at, pid, host) VALUES (?, ?, ?, ?)",
                (match_id, rows.t(at or self._clock()), os.getpid(), socket.gethostname()),
            )
            return rows.rowid(cur)

    def start_game(self, match_id: int, *, at: datetime | None = None, jpeg: bytes | None = None) -> int:
        """Start the next game of an open match; return its id. ``jpeg``: the starting board's picture.

        Refused while the previous game is unfinished or once the match is over.
        """
        _check_jpeg(jpeg)
        when = at or self._clock()
        with self._write("starting a game") as conn:
            if rows.match_row(conn, match_id)["ended_at"] is not None:
                raise StoreUsageError(errno.EINVAL, f"match {match_id} is over; no game can start")
            last = conn.execute(
                "SELECT number, ending FROM games WHERE match_id = ? ORDER BY number DESC LIMIT 1",
                (match_id,),
            ).fetchone()
            if last is not None and last["ending"] is None:
                raise StoreUsageError(
                    errno.EINVAL, f"game {last['number']} of match {match_id} is not finished"
                )
            number = 1 if last is None else int(last["number"]) + 1
            cur = conn.execute(
                "INSERT INTO games (match_id, number, started_at) VALUES (?, ?, ?)",
                (match_id, number, rows.t(when)),
            )
            game_id = rows.rowid(cur)
            if jpeg is not None:
                conn.execute(
                    "INSERT INTO snapshots (game_id, turn_id, taken_at, jpeg) VALUES (?, NULL, ?, ?)",
                    (game_id, rows.t(when), bytes(jpeg)),
                )
            return game_id

    def add_turn(self, game_id: int, turn: TurnRecord, jpeg: bytes | None = None) -> int:
        """Record a decided turn and the picture of the settled board; committed before it returns.

        ``turn.decided_at`` defaults to now. Returns the turn's id. On :class:`StoreFullError`
        nothing of the turn was saved: keep it, alert, and call again (without the picture
        it may fit) once there is room.
        """
        if not isinstance(turn, TurnRecord):
            raise StoreUsageError(errno.EINVAL, f"add_turn takes a TurnRecord, not {type(turn).__name__}")
        _check_jpeg(jpeg)
        if turn.decided_at is None:
            turn = replace(turn, decided_at=self._clock())
        with self._write(f"saving a turn of game id {game_id}") as conn:
            game = self._open_game(conn, game_id)
            if turn.before.variant != game["variant"]:
                raise StoreUsageError(
                    errno.EINVAL, f"a {turn.before.variant} nardy turn for a {game['variant']} nardy match"
                )
            pending = rows.game_cube(conn, game_id).offered_by
            if pending is not None:
                raise StoreUsageError(errno.EINVAL, f"{pending} has doubled: record the take or drop first")
            turn_id = rows.insert_action(conn, game_id, rows.next_seq(conn, game_id), turn)
            if jpeg is not None:
                conn.execute(
                    "INSERT INTO snapshots (game_id, turn_id, taken_at, jpeg) VALUES (?, ?, ?, ?)",
                    (game_id, turn_id, rows.t(turn.decided_at), bytes(jpeg)),
                )
            return turn_id

    def add_cube_action(self, game_id: int, action: CubeAction) -> int:
        """Record a double, take or drop, checked against the cube so far; return its id.

        A drop does not end the game by itself: call :meth:`end_game` with the result.
        """
        if not isinstance(action, CubeAction):
            raise StoreUsageError(
                errno.EINVAL, f"add_cube_action takes a CubeAction, not {type(action).__name__}"
            )
        with self._write(f"saving a cube action of game id {game_id}") as conn:
            game = self._open_game(conn, game_id)
            if not json.loads(game["options"]).get("cube", True):
                raise StoreUsageError(errno.EINVAL, f"match {game['match_id']} is played without the cube")
            problem = cube_problem(rows.game_cube(conn, game_id), action)
            if action.kind == "double" and rows.is_crawford_game(conn, game_id):
                problem = "no doubling in the Crawford game"
            if problem:
                raise StoreUsageError(errno.EINVAL, problem)
            if action.at is None:
                action = CubeAction(action.kind, action.color, action.cube, self._clock())
            return rows.insert_action(conn, game_id, rows.next_seq(conn, game_id), action)

    def add_alert(
        self,
        match_id: int,
        text: str,
        *,
        code: str = "",
        game_id: int | None = None,
        turn_id: int | None = None,
        at: datetime | None = None,
    ) -> int:
        """Keep an alert the referee raised (an illegal play taken back, a board it could not read...)."""
        if not isinstance(text, str) or not text.strip():
            raise StoreUsageError(errno.EINVAL, "an alert needs a text")
        with self._write("saving an alert") as conn:
            rows.match_row(conn, match_id)
            cur = conn.execute(
                "INSERT INTO alerts (match_id, game_id, turn_id, at, code, text) VALUES (?, ?, ?, ?, ?, ?)",
                (match_id, game_id, turn_id, rows.t(at or self._clock()), code, text),
            )
            return rows.rowid(cur)

    def mark_turn(
        self,
        turn_id: int,
        *,
        illegal: bool | None = None,
        accepted: bool | None = None,
        corrected: bool | None = None,
        manual: bool | None = None,
        reason: str | None = None,
        note: str | None = None,
    ) -> None:
        """Change a recorded turn's flags or texts (None leaves one as it is)."""
        flags = {"illegal": illegal, "accepted": accepted, "corrected": corrected, "manual": manual}
        changes: dict[str, Any] = {k: int(bool(v)) for k, v in flags.items() if v is not None}
        changes.update({k: str(v) for k, v in (("reason", reason), ("note", note)) if v is not None})
        if not changes:
            return
        with self._write(f"marking turn id {turn_id}") as conn:
            if conn.execute("SELECT 1 FROM turns WHERE id = ?", (turn_id,)).fetchone() is None:
                raise StoreNotFoundError(errno.ENOENT, f"no turn with id {turn_id}")
            sets = ", ".join(f"{name} = ?" for name in changes)  # names from the fixed lists above
            conn.execute(f"UPDATE turns SET {sets} WHERE id = ?", (*changes.values(), turn_id))

    def revise_turn(
        self, turn_id: int, play: Play, after: Position, note: str, before: Position | None = None
    ) -> None:
        """Put right a recorded turn's play and the position it left (the referee re-read a
        doubtful play once the next board showed it), and the position it started from when a
        turn before it was re-read (``before``); ``note`` says so in the record, after any note
        the turn had (what was said of it when it was first recorded stays)."""
        if not note.strip():
            raise StoreUsageError(errno.EINVAL, "a revised turn needs a note saying why")
        with self._write(f"revising turn id {turn_id}") as conn:
            row = conn.execute("SELECT before FROM turns WHERE id = ?", (turn_id,)).fetchone()
            if row is None:
                raise StoreNotFoundError(errno.ENOENT, f"no turn with id {turn_id}")
            variants = {after.variant} | ({before.variant} if before is not None else set())
            if variants != {Position.from_json(row["before"]).variant}:
                raise StoreUsageError(
                    errno.EINVAL, f"a {after.variant} nardy position for another variant's turn"
                )
            start = row["before"] if before is None else before.json_text()
            conn.execute(
                "UPDATE turns SET play = ?, before = ?, after = ?,"
                " note = CASE WHEN note = '' THEN ? ELSE note || '; ' || ? END WHERE id = ?",
                (steps_text(play), start, after.json_text(), note, note, turn_id),
            )

    def end_game(
        self, game_id: int, result: GameResult, ending: str = "bear-off", at: datetime | None = None
    ) -> None:
        """Record how the game ended: ``"bear-off"``, ``"drop"`` or ``"resign"``."""
        if not isinstance(result, GameResult):
            raise StoreUsageError(errno.EINVAL, f"end_game takes a GameResult, not {type(result).__name__}")
        if ending not in ("bear-off", "drop", "resign"):
            raise StoreUsageError(errno.EINVAL, f"a game ends by bear-off, drop or resign, not {ending!r}")
        with self._write(f"ending game id {game_id}") as conn:
            self._open_game(conn, game_id)
            cube = rows.game_cube(conn, game_id)
            if cube.offered_by is not None:
                raise StoreUsageError(
                    errno.EINVAL, f"{cube.offered_by} has doubled: record the take or drop first"
                )
            if result.cube != cube.value:
                raise StoreUsageError(
                    errno.EINVAL, f"the result counts the cube at {result.cube}, but it is at {cube.value}"
                )
            conn.execute(
                "UPDATE games SET ended_at = ?, winner = ?, multiplier = ?, cube = ?, ending = ? "
                "WHERE id = ?",
                (
                    rows.t(at or self._clock()),
                    result.winner.value,
                    result.multiplier,
                    result.cube,
                    ending,
                    game_id,
                ),
            )

    def end_match(self, match_id: int, at: datetime | None = None) -> None:
        """Close the match: it is then no longer offered for resuming."""
        with self._write(f"ending match {match_id}") as conn:
            if rows.match_row(conn, match_id)["ended_at"] is not None:
                raise StoreUsageError(errno.EINVAL, f"match {match_id} is already over")
            conn.execute(
                "UPDATE matches SET ended_at = ? WHERE id = ?", (rows.t(at or self._clock()), match_id)
            )

    def import_record(self, record: MatchRecord) -> int:
        """Store a whole match (read from a ``.mat`` or JSON file) in one transaction; return its id.

        The match is stored closed (it is not offered for resuming).
        """
        if not isinstance(record, MatchRecord):
            raise StoreUsageError(
                errno.EINVAL, f"import_record takes a MatchRecord, not {type(record).__name__}"
            )
        now = self._clock()
        with self._write("importing a match") as conn:
            match_id = rows.insert_match(conn, record.info, now, record.ended_at or now)
            for game in record.games:
                game_id = rows.insert_game(conn, match_id, game)
                for seq, action in enumerate(game.actions, 1):
                    rows.insert_action(conn, game_id, seq, action)
            return match_id

    # ------------------------------------------------------------------ reading
    def open_match(self) -> ResumePoint | None:
        """The most recent unfinished match: where it stands and how long nothing was recorded."""
        with self._read("looking for an open match") as conn:
            row = conn.execute(
                "SELECT id FROM matches WHERE ended_at IS NULL ORDER BY id DESC LIMIT 1"
            ).fetchone()
            if row is None:
                return None
            match_id = int(row["id"])
            record = rows.load_match(conn, match_id, str(self.path))
            game = conn.execute(
                "SELECT id FROM games WHERE match_id = ? AND ending IS NULL ORDER BY number DESC LIMIT 1",
                (match_id,),
            ).fetchone()
            last = conn.execute(
                "SELECT t.id FROM turns t JOIN games g ON g.id = t.game_id WHERE g.match_id = ? "
                "ORDER BY g.number DESC, t.seq DESC LIMIT 1",
                (match_id,),
            ).fetchone()
            activity = rows.last_activity(conn, match_id)
        open_game = record.games[-1] if game is not None and record.games else None
        turns = [turn for g in record.games for turn in g.turns]
        return ResumePoint(
            match_id=match_id,
            record=record,
            game_id=None if game is None else int(game["id"]),
            position=None if open_game is None else open_game.position(record.variant.name),
            cube=CubeState() if open_game is None else open_game.cube(),
            last_turn=turns[-1] if turns else None,
            last_turn_id=None if last is None else int(last["id"]),
            last_activity=activity,
            now=self._clock(),
        )

    def load_match(self, match_id: int) -> MatchRecord:
        """The whole match as a :class:`~nardy.rules.record.MatchRecord` (for the exports)."""
        with self._read(f"reading match {match_id}") as conn:
            return rows.load_match(conn, match_id, str(self.path))

    def list_matches(self) -> list[MatchSummary]:
        """Every match, oldest first."""
        with self._read("listing the matches") as conn:
            found = conn.execute(
                "SELECT m.*, "
                "(SELECT count(*) FROM games g WHERE g.match_id = m.id) AS n_games, "
                "(SELECT count(*) FROM turns t JOIN games g ON g.id = t.game_id "
                "   WHERE g.match_id = m.id) AS n_turns, "
                "(SELECT coalesce(sum(g.multiplier * g.cube), 0) FROM games g "
                "   WHERE g.match_id = m.id AND g.winner = 'white') AS w_points, "
                "(SELECT coalesce(sum(g.multiplier * g.cube), 0) FROM games g "
                "   WHERE g.match_id = m.id AND g.winner = 'black') AS b_points "
                "FROM matches m ORDER BY m.id"
            ).fetchall()
            return [
                MatchSummary(
                    id=int(r["id"]),
                    white=r["white"],
                    black=r["black"],
                    variant=r["variant"],
                    length=int(r["length"]),
                    venue=r["venue"],
                    event=r["event"],
                    started_at=rows.pt(r["started_at"]),
                    ended_at=rows.pt(r["ended_at"]),
                    games=int(r["n_games"]),
                    turns=int(r["n_turns"]),
                    score=(int(r["w_points"]), int(r["b_points"])),
                    last_activity=rows.last_activity(conn, int(r["id"])),
                )
                for r in found
            ]

    def turn_ids(self, match_id: int) -> list[list[int]]:
        """The ids of each game's turns, in order (to find their pictures)."""
        with self._read(f"reading match {match_id}") as conn:
            rows.match_row(conn, match_id)
            games = conn.execute(
                "SELECT id FROM games WHERE match_id = ? ORDER BY number", (match_id,)
            ).fetchall()
            query = "SELECT id FROM turns WHERE game_id = ? ORDER BY seq"
            return [[int(r[0]) for r in conn.execute(query, (g[0],))] for g in games]

    def snapshot(self, turn_id: int) -> bytes | None:
        """The JPEG of the board after the turn, if one was kept."""
        with self._read(f"reading the picture of turn id {turn_id}") as conn:
            row = conn.execute("SELECT jpeg FROM snapshots WHERE turn_id = ?", (turn_id,)).fetchone()
            return None if row is None else bytes(row[0])

    def alerts(self, match_id: int) -> list[Alert]:
        """The match's alerts, oldest first."""
        with self._read(f"reading the alerts of match {match_id}") as conn:
            rows.match_row(conn, match_id)
            found = conn.execute(
                "SELECT * FROM alerts WHERE match_id = ? ORDER BY id", (match_id,)
            ).fetchall()
            return [
                Alert(
                    id=int(r["id"]),
                    match_id=match_id,
                    at=rows.pt(r["at"]) or self._clock(),
                    text=r["text"],
                    code=r["code"],
                    game_id=r["game_id"],
                    turn_id=r["turn_id"],
                )
                for r in found
            ]

    def gaps(self, match_id: int) -> list[Gap]:
        """Each restart of the recorder after the first session, with the time nothing was recorded."""
        with self._read(f"reading the sessions of match {match_id}") as conn:
            rows.match_row(conn, match_id)
            query = "SELECT opened_at FROM sessions WHERE match_id = ? ORDER BY id"
            opened = [rows.pt(r[0]) for r in conn.execute(query, (match_id,))]
            return [
                Gap(rows.last_activity(conn, match_id, before=at), at) for at in opened[1:] if at is not None
            ]

    def integrity_check(self) -> list[str]:
        """SQLite's ``PRAGMA integrity_check`` and ``foreign_key_check``: empty when the file is sound."""
        with self._read("checking the database") as conn:
            problems = [str(r[0]) for r in conn.execute("PRAGMA integrity_check")]
            if problems == ["ok"]:
                problems = []
            return problems + [f"foreign key: {tuple(r)}" for r in conn.execute("PRAGMA foreign_key_check")]

    # ------------------------------------------------------------------ internals
    @staticmethod
    def _open_game(conn: sqlite3.Connection, game_id: int) -> sqlite3.Row:
        row: sqlite3.Row | None = conn.execute(
            "SELECT g.*, m.variant, m.options, m.ended_at AS match_ended FROM games g "
            "JOIN matches m ON m.id = g.match_id WHERE g.id = ?",
            (game_id,),
        ).fetchone()
        if row is None:
            raise StoreNotFoundError(errno.ENOENT, f"no game with id {game_id}")
        if row["ending"] is not None:
            raise StoreUsageError(errno.EINVAL, f"game {row['number']} of match {row['match_id']} is over")
        if row["match_ended"] is not None:
            raise StoreUsageError(errno.EINVAL, f"match {row['match_id']} is over")
        return row


def _check_jpeg(data: bytes | None) -> None:
    if data is None:
        return
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise StoreUsageError(errno.EINVAL, f"a board picture is JPEG bytes, not {type(data).__name__}")
    raw = bytes(data)
    if len(raw) < 4 or raw[:3] != b"\xff\xd8\xff" or raw[-2:] != b"\xff\xd9":
        raise StoreUsageError(
            errno.EINVAL, "the board picture is not a whole JPEG (it must start FFD8FF, end FFD9)"
        )
    if len(raw) > MAX_JPEG_BYTES:
        raise StoreUsageError(
            errno.EFBIG,
            f"the board picture has {len(raw)} bytes; a board snapshot must stay under {MAX_JPEG_BYTES}",
        )
