"""The recorder writes the referee's decisions to a real SQLite file, and survives a full one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from nardy.referee.events import STORAGE
from nardy.referee.recorder import Recorder
from nardy.referee.store import MatchStore
from nardy.rules import Color, Position
from tests.referee.conftest import Table

Make = Callable[..., Table]


def _play_opening(t: Table) -> None:
    start = Position.initial("short")
    t.show(start)
    t.roll(3, 1)
    t.show(start.apply("8/5 6/5"))
    t.roll(6, 4)
    t.show(t.ref.position.apply("24/18 13/9"))
    t.roll(2, 2)


def test_turns_cube_and_alerts_reach_the_store(table: Make, tmp_path: Path) -> None:
    t = table("short", length=5, white="Anna", black="Boris")
    with MatchStore.open(tmp_path / "m.db") as store:
        recorder = Recorder(store, t.ref)
        _play_opening(t)
        t.roll(5, 5)  # thrown out of turn: an alert, recorded
        record = store.load_match(recorder.match_id or 0)
        turns = [turn for game in record.games for turn in game.turns]
        assert [turn.play.text() for turn in turns] == ["8/5 6/5", "24/18 13/9"]
        assert record.info.white == "Anna" and record.info.length == 5
        assert any("out of turn" in a.text for a in store.alerts(recorder.match_id or 0))
        recorder.close()


def _noise_jpeg(seed: int) -> bytes:
    rng = np.random.default_rng(seed)
    ok, data = cv2.imencode(".jpg", rng.integers(0, 255, (400, 400, 3), dtype=np.uint8))
    assert ok
    return bytes(data.tobytes())


def test_a_full_disk_alerts_keeps_every_turn_and_drops_pictures(table: Make, tmp_path: Path) -> None:
    path = tmp_path / "small.db"
    with MatchStore.open(path):
        pass
    pictures = iter(range(10_000))
    t = table("short")
    with MatchStore.open(path, max_bytes=path.stat().st_size + 400_000) as store:
        recorder = Recorder(store, t.ref, snapshot=lambda: _noise_jpeg(next(pictures)))
        _play_opening(t)
        for a, b in ((6, 5), (4, 3), (6, 2), (5, 1), (3, 2)):
            before = t.ref.turn
            assert before is not None
            legal = list(t.ref.variant.legal_plays(before.before, before.roll, before.first_turn).positions())
            t.show(legal[0])
            t.roll(a, b)
        assert recorder.pictures_dropped and STORAGE in t.alerts()
        assert "no longer saved" in t.ref.alerts[STORAGE].text
        record = store.load_match(recorder.match_id or 0)
        recorded = [turn.after.points for game in record.games for turn in game.turns]
        assert recorded == [m.after.points for m in t.ref.moves]
        assert store.integrity_check() == [] and len(recorded) == 7
        recorder.close()


def test_resume_after_a_restart_goes_on_from_the_last_turn(table: Make, tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    t = table("short", length=3)
    with MatchStore.open(path) as store:
        recorder = Recorder(store, t.ref)
        _play_opening(t)  # two turns recorded; white has thrown 2-2
        recorder.close()
    # the process dies; a new referee picks the match up from the file
    t2 = table("short")
    with MatchStore.open(path) as store:
        point = store.open_match()
        assert point is not None
        t2.ref.resume(point)
        recorder = Recorder(
            store, t2.ref, match_id=point.match_id, game_id=point.game_id, last_turn_id=point.last_turn_id
        )
        assert t2.ref.info.length == 3 and len(t2.ref.moves) == 2
        assert t2.ref.position.same_board(t.ref.moves[-1].after)
        assert t2.last("resumed").data["to_move"] == "white"
        t2.show(t2.ref.position)
        t2.roll(2, 2)  # white throws again and plays on
        t2.show(t2.ref.position.apply("6/4(2) 8/6(2)"))
        t2.roll(3, 1)
        record = store.load_match(point.match_id)
        assert [turn.play.text() for turn in record.games[0].turns] == ["8/5 6/5", "24/18 13/9", "8/4(2)"]
        assert store.gaps(point.match_id)
        recorder.close()


def test_a_play_re_read_from_the_next_board_is_put_right_in_the_store(table: Make, tmp_path: Path) -> None:
    from tests.referee.test_session import _torn_between_24_13_and_24_18_13_8

    t = table("short")
    with MatchStore.open(tmp_path / "m.db") as store:
        recorder = Recorder(store, t.ref)
        _torn_between_24_13_and_24_18_13_8(t, lean=0.55)
        t.roll(3, 1)  # recorded as 24/13, doubtful
        truth = Position.initial("short").apply("24/18 13/8")
        t.show(truth.with_turn(Color.BLACK).apply("8/5 6/5"))
        t.roll(5, 2)  # black's turn ends: it is recorded after the revised one
        record = store.load_match(recorder.match_id or 0)
        turns = [turn for game in record.games for turn in game.turns]
        assert [turn.play.text() for turn in turns] == ["24/18 13/8", "8/5 6/5"]
        assert turns[0].after.same_board(truth) and "first recorded as 24/13" in turns[0].note
        assert store.integrity_check() == []
        recorder.close()


def test_turns_re_read_further_back_are_put_right_in_the_store(table: Make, tmp_path: Path) -> None:
    from nardy.referee.reading import BoardReading
    from tests.referee.test_session import RESYNC, _bear_off_carried_on

    t = table("short", config=RESYNC, options={"opening": "rethrow"})
    with MatchStore.open(tmp_path / "m.db") as store:
        recorder = Recorder(store, t.ref)
        truth = _bear_off_carried_on(t)
        points: list[dict[int, float]] = [{n: 1.0} for n in truth.points]
        points[0] = {truth.points[0]: 0.97, truth.points[0] + 1: 0.03}
        t.see(BoardReading.from_distributions(points, ({0: 1.0}, {0: 1.0}), None), frames=60)
        record = store.load_match(recorder.match_id or 0)
        turns = record.games[-1].turns
        assert [turn.play.text() for turn in turns] == [m.play.text() for m in t.ref.moves]
        assert turns[0].play.text() == "2/off 1/off" and "first recorded as 2/off" in turns[0].note
        # what was said of it when it was first recorded stays
        assert turns[0].note.startswith("the camera was unsure")
        # the turns after it start and end where the re-read play left them
        for turn, kept in zip(turns, t.ref.moves, strict=True):
            assert turn.before.same_board(kept.before) and turn.after.same_board(kept.after)
        assert turns[-1].after.same_board(truth) and "put right" in turns[1].note
        assert store.integrity_check() == []
        recorder.close()
