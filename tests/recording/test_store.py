"""The SQLite match store: what the referee records comes back; resume; bad input; schema versions."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from nardy.referee import migrations
from nardy.referee.store import (
    MatchStore,
    StoreCorruptError,
    StoreError,
    StoreNotFoundError,
    StoreSchemaError,
    StoreUsageError,
)
from nardy.rules import Color
from nardy.rules.record import CubeAction, MatchRecord, TurnRecord
from nardy.rules.scoring import GameResult
from tests.recording.helpers import random_match
from tests.recording.recorder_process import jpeg


class Clock:
    """A settable clock for the store."""

    def __init__(self) -> None:
        self.now = datetime(2025, 3, 14, 21, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def store(tmp_path: Path, clock: Clock) -> Iterator[MatchStore]:
    with MatchStore.open(tmp_path / "matches.db", clock=clock) as s:
        yield s


def record_match(
    store: MatchStore, match: MatchRecord, *, games: int | None = None, actions: int | None = None
) -> int:
    """Record ``match`` call by call as the referee does; stop early to leave it open."""
    match_id = store.create_match(match.info)
    store.begin_session(match_id)
    for g, game in enumerate(match.games[:games]):
        game_id = store.start_game(match_id, at=game.started_at, jpeg=jpeg(g, 0, 500))
        stop = actions if games is not None and g == games - 1 else None
        for a, action in enumerate(game.actions[:stop]):
            if isinstance(action, TurnRecord):
                store.add_turn(game_id, action, jpeg(g, a + 1, 500))
            else:
                store.add_cube_action(game_id, action)
        if stop is None:
            assert game.result is not None and game.ending is not None
            store.end_game(game_id, game.result, game.ending, at=game.ended_at)
    if games is None:
        store.end_match(match_id, at=match.ended_at)
    return match_id


@pytest.mark.parametrize(("variant", "seed"), [("short", 21), ("long", 4)])
def test_what_is_recorded_comes_back(store: MatchStore, variant: str, seed: int) -> None:
    match = random_match(variant, 5, seed, illegal_rate=0.02)
    match_id = record_match(store, match)
    assert store.load_match(match_id) == match
    (summary,) = store.list_matches()
    assert summary.score == match.score and summary.turns == sum(len(g.turns) for g in match.games)
    assert not summary.open and store.open_match() is None
    ids = store.turn_ids(match_id)
    assert [len(i) for i in ids] == [len(g.turns) for g in match.games]
    first_game = match.games[0]
    third_turn = [i for i, a in enumerate(first_game.actions) if isinstance(a, TurnRecord)][2]
    assert store.snapshot(ids[0][2]) == jpeg(0, third_turn + 1, 500)
    assert store.integrity_check() == [] and store.schema_version == migrations.LATEST


def test_import_record_keeps_everything(store: MatchStore) -> None:
    match = random_match("short", 7, 1, illegal_rate=0.02)
    assert store.load_match(store.import_record(match)) == match


def test_resume_where_it_stopped(tmp_path: Path, clock: Clock) -> None:
    match = random_match("short", 7, 1, cube_rate=0.03)
    game = match.games[1]
    pending = next(i for i, a in enumerate(game.actions) if isinstance(a, CubeAction) and a.kind == "double")
    with MatchStore.open(tmp_path / "m.db", clock=clock) as store:
        match_id = record_match(store, match, games=2, actions=10)
    clock.now = game.actions[9].decided_at + timedelta(minutes=6, seconds=28)  # type: ignore[union-attr]
    with MatchStore.open(tmp_path / "m.db", clock=clock) as store:
        point = store.open_match()
        assert point is not None and point.match_id == match_id
        assert point.game_id is not None and point.last_turn == game.actions[9]
        assert point.position == game.actions[9].after  # type: ignore[union-attr]
        assert point.score == match.scores()[1]
        assert point.gap == timedelta(minutes=6, seconds=28)
        text = point.describe()
        assert "Game 2, after turn 10" in text and "(6 min 28 s)" in text
        assert f"{point.position.turn} to play" in text
        store.begin_session(match_id)
        (gap,) = store.gaps(match_id)
        assert gap.length == timedelta(minutes=6, seconds=28) and "6 min 28 s" in gap.describe()
        assert pending == 10
        for action in game.actions[10 : pending + 1]:
            if isinstance(action, TurnRecord):
                store.add_turn(point.game_id, action)
            else:
                store.add_cube_action(point.game_id, action)
        waiting = store.open_match()
        assert waiting is not None and waiting.cube.offered_by is game.actions[pending].color
        assert "waiting for the answer" in waiting.describe()


def test_bad_requests_are_refused_and_change_nothing(store: MatchStore) -> None:
    match = random_match("short", 3, 5, max_games=1)
    game = match.games[0]
    match_id = store.create_match(match.info)
    game_id = store.start_game(match_id)
    turn = game.turns[0]
    with pytest.raises(StoreUsageError, match="not a whole JPEG"):
        store.add_turn(game_id, turn, b"PNG...")
    with pytest.raises(StoreUsageError, match="under"):
        store.add_turn(game_id, turn, jpeg(0, 0, 3_000_000))
    with pytest.raises(StoreNotFoundError, match="no game with id 99"):
        store.add_turn(99, turn)
    with pytest.raises(StoreNotFoundError, match="no match with id 42"):
        store.start_game(42)
    with pytest.raises(StoreUsageError, match="game 1 of match 1 is not finished"):
        store.start_game(match_id)
    with pytest.raises(StoreUsageError, match="no double was offered"):
        store.add_cube_action(game_id, CubeAction("take", Color.BLACK, 2))
    long_turn = random_match("long", 1, 1, max_games=1).games[0].turns[0]
    with pytest.raises(StoreUsageError, match="a long nardy turn for a short nardy match"):
        store.add_turn(game_id, long_turn)
    with pytest.raises(ValueError):  # usage errors are ValueErrors too
        store.add_alert(match_id, "  ")
    assert store.load_match(match_id).games[0].actions == ()
    turn_id = store.add_turn(game_id, turn)
    store.add_cube_action(game_id, CubeAction("double", turn.color.other, 2))
    with pytest.raises(StoreUsageError, match="has doubled: record the take or drop first"):
        store.add_turn(game_id, game.turns[1])
    store.add_cube_action(game_id, CubeAction("drop", turn.color, 2))
    assert game.result is not None
    with pytest.raises(StoreUsageError, match="counts the cube at 2, but it is at 1"):
        store.end_game(game_id, GameResult(turn.color.other, 1, 2, "single game"), "drop")
    store.end_game(game_id, GameResult(turn.color.other, 1, 1, "single game"), "drop")
    with pytest.raises(StoreUsageError, match="is over"):
        store.add_turn(game_id, game.turns[1])
    store.mark_turn(turn_id, corrected=True, note="re-read by hand")
    marked = store.load_match(match_id).games[0].turns[0]
    assert marked.corrected and marked.note == "re-read by hand" and not marked.illegal
    with pytest.raises(StoreNotFoundError):
        store.mark_turn(12345, accepted=True)
    with pytest.raises(StoreUsageError, match="needs a note"):
        store.revise_turn(turn_id, turn.play, turn.after, note=" ")
    with pytest.raises(StoreNotFoundError, match="no turn with id 12345"):
        store.revise_turn(12345, turn.play, turn.after, note="re-read")
    with pytest.raises(StoreUsageError, match="another variant's turn"):
        store.revise_turn(turn_id, long_turn.play, long_turn.after, note="re-read")
    assert store.load_match(match_id).games[0].turns[0].play == turn.play  # nothing was changed
    alert_id = store.add_alert(
        match_id, "point 19 is closed: taken back", code="illegal-play", game_id=game_id
    )
    assert [(a.id, a.code, a.text) for a in store.alerts(match_id)] == [
        (alert_id, "illegal-play", "point 19 is closed: taken back")
    ]
    store.end_match(match_id)
    with pytest.raises(StoreUsageError, match="already over"):
        store.end_match(match_id)


def test_no_double_in_the_crawford_game(store: MatchStore) -> None:
    match = random_match("short", 7, 1, cube_rate=0.03)
    assert match.crawford_games() == {4}
    match_id = record_match(store, match, games=4, actions=3)
    game_id = store.open_match().game_id  # type: ignore[union-attr]
    assert game_id is not None
    mover = match.games[3].turns[2].color.other
    with pytest.raises(StoreUsageError, match="no doubling in the Crawford game"):
        store.add_cube_action(game_id, CubeAction("double", mover, 2))
    assert store.load_match(match_id).games[3].cube_actions == ()


def test_closed_store_and_missing_file(tmp_path: Path) -> None:
    store = MatchStore.open(tmp_path / "a.db")
    store.close()
    with pytest.raises(StoreError, match="closed"):
        store.list_matches()
    with pytest.raises(StoreNotFoundError):
        MatchStore.open(tmp_path / "missing.db", create=False)
    assert not (tmp_path / "missing.db").exists()


def test_files_that_are_not_match_databases(tmp_path: Path) -> None:
    text = tmp_path / "notes.db"
    text.write_text("this is not a database, it is a note about the 5-point match" * 100)
    with pytest.raises(StoreCorruptError, match="not a database"):
        MatchStore.open(text)
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE invoices (id INTEGER)")
    conn.close()
    with pytest.raises(StoreCorruptError, match="not a nardy match database"):
        MatchStore.open(other)
    assert text.read_text().startswith("this is not a database")


# ----------------------------------------------------------------------------- schema versions
def _v1_database(path: Path, match: MatchRecord) -> None:
    """A database as the first schema version wrote it, with one finished game in it."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    assert migrations.migrate(conn, target=1) == [1]
    from nardy.referee import store_rows

    created = datetime(2025, 3, 14, 20, 0, tzinfo=UTC)
    conn.execute("BEGIN")
    match_id = store_rows.insert_match(conn, match.info, created, None)
    game_id = store_rows.insert_game(conn, match_id, match.games[0])
    for seq, action in enumerate(match.games[0].actions, 1):
        store_rows.insert_action(conn, game_id, seq, action)
    conn.execute("COMMIT")
    conn.close()


def test_migration_from_version_1_keeps_every_turn(tmp_path: Path) -> None:
    match = random_match("short", 7, 1, illegal_rate=0.02)
    assert len(match.games) > 1
    path = tmp_path / "old.db"
    _v1_database(path, match)
    with MatchStore.open(path) as store:
        assert store.schema_version == 2
        record = store.load_match(1)
        assert record.games == match.games[:1]
        # what version 2 adds works on the upgraded file
        game_id = store.start_game(1, jpeg=jpeg(1, 0, 300))
        turn_id = store.add_turn(game_id, match.games[1].turns[0], jpeg(1, 1, 300))
        assert store.snapshot(turn_id) == jpeg(1, 1, 300)
        store.begin_session(1)
        assert store.integrity_check() == []


def test_a_failing_migration_leaves_the_old_database_untouched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    match = random_match("short", 5, 21)
    path = tmp_path / "old.db"
    _v1_database(path, match)

    def broken(conn: sqlite3.Connection) -> None:
        conn.execute("CREATE TABLE snapshots (id INTEGER PRIMARY KEY)")
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(migrations, "MIGRATIONS", (migrations.MIGRATIONS[0], (2, "broken", broken)))
    with pytest.raises(StoreError, match="disk I/O error"):
        MatchStore.open(path)
    monkeypatch.undo()
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert "snapshots" not in tables
    finally:
        conn.close()
    with MatchStore.open(path) as store:
        assert store.load_match(1).games == match.games[:1]


def test_a_newer_database_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    MatchStore.open(path).close()
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    with pytest.raises(StoreSchemaError, match="schema version 99, newer than this program's 2"):
        MatchStore.open(path)
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 99
    finally:
        conn.close()
