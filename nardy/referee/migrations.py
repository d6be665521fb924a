"""Versions of the match database's schema, and the steps between them.

The version is SQLite's ``PRAGMA user_version``; ``PRAGMA application_id`` marks the file as
ours. :func:`migrate` brings a database from any older version to :data:`LATEST` in a single
transaction: either every step applies or none does, and a database of a *newer* version is
refused rather than touched.

Version 1 is the match record: matches, games, turns, cube actions and alerts. Version 2 adds
board snapshots (a small JPEG per settled position, kept apart from the turns so that reading a
match does not page in images) and recording sessions (each start or resume of the recorder,
so the gaps in a record can be shown).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

APPLICATION_ID = 0x4E617264
"""``PRAGMA application_id`` of a match database (``"Nard"``)."""

_V1 = """
CREATE TABLE matches (
    id          INTEGER PRIMARY KEY,
    white       TEXT NOT NULL,
    black       TEXT NOT NULL,
    variant     TEXT NOT NULL CHECK (variant IN ('short', 'long')),
    options     TEXT NOT NULL,                 -- rule options, JSON
    length      INTEGER NOT NULL CHECK (length >= 0),
    venue       TEXT NOT NULL DEFAULT '',
    event       TEXT NOT NULL DEFAULT '',
    started_at  TEXT,                          -- ISO 8601 with timezone
    ended_at    TEXT,                          -- NULL while the match is open
    created_at  TEXT NOT NULL
);
CREATE TABLE games (
    id          INTEGER PRIMARY KEY,
    match_id    INTEGER NOT NULL REFERENCES matches (id),
    number      INTEGER NOT NULL CHECK (number >= 1),
    started_at  TEXT,
    ended_at    TEXT,
    winner      TEXT CHECK (winner IN ('white', 'black')),
    multiplier  INTEGER CHECK (multiplier IN (1, 2, 3)),
    cube        INTEGER CHECK (cube >= 1),
    ending      TEXT CHECK (ending IN ('bear-off', 'drop', 'resign')),
    UNIQUE (match_id, number)
);
CREATE TABLE turns (
    id          INTEGER PRIMARY KEY,
    game_id     INTEGER NOT NULL REFERENCES games (id),
    seq         INTEGER NOT NULL,              -- order in the game, shared with cube_actions
    color       TEXT NOT NULL CHECK (color IN ('white', 'black')),
    roll        TEXT NOT NULL,                 -- "6-5"
    play        TEXT NOT NULL,                 -- each step as made (mover's numbering), "" for no play
    before      TEXT NOT NULL,                 -- position JSON
    after       TEXT NOT NULL,                 -- position JSON
    rolled_at   TEXT,
    decided_at  TEXT,
    illegal     INTEGER NOT NULL DEFAULT 0 CHECK (illegal IN (0, 1)),
    accepted    INTEGER NOT NULL DEFAULT 0 CHECK (accepted IN (0, 1)),
    corrected   INTEGER NOT NULL DEFAULT 0 CHECK (corrected IN (0, 1)),
    manual      INTEGER NOT NULL DEFAULT 0 CHECK (manual IN (0, 1)),
    reason      TEXT NOT NULL DEFAULT '',
    note        TEXT NOT NULL DEFAULT '',
    UNIQUE (game_id, seq)
);
CREATE TABLE cube_actions (
    id          INTEGER PRIMARY KEY,
    game_id     INTEGER NOT NULL REFERENCES games (id),
    seq         INTEGER NOT NULL,
    kind        TEXT NOT NULL CHECK (kind IN ('double', 'take', 'drop')),
    color       TEXT NOT NULL CHECK (color IN ('white', 'black')),
    cube        INTEGER NOT NULL CHECK (cube >= 2),
    at          TEXT,
    UNIQUE (game_id, seq)
);
CREATE TABLE alerts (
    id          INTEGER PRIMARY KEY,
    match_id    INTEGER NOT NULL REFERENCES matches (id),
    game_id     INTEGER REFERENCES games (id),
    turn_id     INTEGER REFERENCES turns (id),
    at          TEXT NOT NULL,
    code        TEXT NOT NULL DEFAULT '',
    text        TEXT NOT NULL
);
CREATE INDEX alerts_by_match ON alerts (match_id);
"""

_V2 = """
CREATE TABLE snapshots (
    id          INTEGER PRIMARY KEY,
    game_id     INTEGER NOT NULL REFERENCES games (id),
    turn_id     INTEGER UNIQUE REFERENCES turns (id),   -- NULL: the game's starting position
    taken_at    TEXT,
    jpeg        BLOB NOT NULL
);
CREATE INDEX snapshots_by_game ON snapshots (game_id);
CREATE TABLE sessions (
    id          INTEGER PRIMARY KEY,
    match_id    INTEGER NOT NULL REFERENCES matches (id),
    opened_at   TEXT NOT NULL,
    pid         INTEGER,
    host        TEXT NOT NULL DEFAULT ''
);
CREATE INDEX sessions_by_match ON sessions (match_id);
"""


def _script(sql: str) -> Callable[[sqlite3.Connection], None]:
    def step(conn: sqlite3.Connection) -> None:
        # executescript() would commit the open transaction: run the statements one by one instead
        pending = ""
        for piece in sql.split(";"):
            pending += piece + ";"
            if sqlite3.complete_statement(pending):
                if pending.strip(" \n;"):
                    conn.execute(pending)
                pending = ""
        if pending.strip(" \n;"):
            raise ValueError(f"incomplete SQL in a migration: {pending!r}")

    return step


MIGRATIONS: tuple[tuple[int, str, Callable[[sqlite3.Connection], None]], ...] = (
    (1, "the match record", _script(_V1)),
    (2, "board snapshots and recording sessions", _script(_V2)),
)
"""``(version, what it adds, step)``: the step takes the database from ``version - 1`` to ``version``."""

LATEST = MIGRATIONS[-1][0]


class SchemaError(Exception):
    """Raised by :func:`migrate` for a database it must not touch; the store wraps it."""


def user_version(conn: sqlite3.Connection) -> int:
    row = conn.execute("PRAGMA user_version").fetchone()
    return int(row[0])


def migrate(conn: sqlite3.Connection, target: int = LATEST) -> list[int]:
    """Upgrade ``conn``'s database to ``target``; return the versions applied (empty if none).

    ``conn`` must be in autocommit mode (``isolation_level=None``) with no open transaction.
    Raises :class:`SchemaError` for a database of a newer version or of another application,
    and lets an SQLite error through after rolling everything back.
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = user_version(conn)
        app = int(conn.execute("PRAGMA application_id").fetchone()[0])
        if app not in (0, APPLICATION_ID):
            raise SchemaError(f"not a nardy match database (application id {app:#x})")
        if version == 0 and app == 0:
            tables = conn.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table'").fetchone()[0]
            if tables:
                raise SchemaError("not a nardy match database (it holds other tables)")
        if version > target:
            raise SchemaError(
                f"the database is at schema version {version}, newer than this program's {target}: "
                "upgrade the program, the database was left untouched"
            )
        applied = []
        for number, _, step in MIGRATIONS:
            if version < number <= target:
                step(conn)
                conn.execute(f"PRAGMA user_version = {number:d}")
                applied.append(number)
        if applied and app == 0:
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID:d}")
        conn.execute("COMMIT")
        return applied
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
