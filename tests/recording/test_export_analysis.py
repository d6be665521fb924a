"""The analysis in the exports: marks in the JSON and on the score sheets, none in the .mat, and an
export that goes on without them when the analysis fails.

The match has one deliberate blunder: white opens 3-1 with 8/7 8/5 (8/5 6/5, making the 5-point,
is best; this gives up about 0.39 points a game with GNU Backgammon and with our own network).
Black's 24/18* 13/8 and white's bar/21 8/5 are the best plays, or within 0.04 of it, for both.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any, NoReturn

import pytest

from nardy.cli import main
from nardy.hints import engine_for
from nardy.referee.export import analyse_record, export_match
from nardy.referee.store import MatchStore
from nardy.rules import Color, Play, Position, Roll, find_variant
from nardy.rules.matfile import read_mat
from nardy.rules.record import CubeAction, GameRecord, MatchInfo, MatchRecord, judge_turn
from tests.recording.conftest import assert_same_games

SHORT = find_variant("short")


def blunder_match() -> MatchRecord:
    start = Position.initial("short")
    opening = judge_turn(SHORT, start, Roll(3, 1), Play.from_text("8/7 8/5"), True)
    reply = judge_turn(SHORT, opening.after, Roll(6, 5), Play.from_text("24/18* 13/8"), True)
    entry = judge_turn(SHORT, reply.after, Roll(4, 3), Play.from_text("bar/21 8/5"), False)
    assert not (opening.illegal or reply.illegal or entry.illegal)
    cube = (CubeAction("double", Color.WHITE, 2), CubeAction("take", Color.BLACK, 2))
    game = GameRecord(1, (opening, reply, *cube, entry))
    return MatchRecord(MatchInfo("Anna", "Boris", SHORT, length=3), (game,))


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "club.db"
    with MatchStore.open(path) as store:
        store.import_record(blunder_match())
    return path


def export(db: Path, fmt: str, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[str, str]:
    assert main(["matches", "export", "1", "--format", fmt, "--db", str(db), *extra]) == 0
    captured = capsys.readouterr()
    return captured.out, captured.err


def turn_actions(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [a for a in data["games"][0]["actions"] if a["type"] == "turn"]


def test_the_json_marks_every_turn(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, _ = export(db, "json", capsys)
    data = json.loads(out)
    opening, reply, entry = (a["analysis"] for a in turn_actions(data))
    assert opening["mark"] == "blunder" and opening["loss"] > 0.3
    assert opening["best"] == "8/5 6/5" and opening["rank"] > 1 and opening["choices"] > 10
    assert reply["mark"] == "" and entry["mark"] == "" and entry["rank"] == 1
    assert all("analysis" not in a for a in data["games"][0]["actions"] if a["type"] != "turn")
    summary = data["analysis"]["summary"]
    assert summary["white"]["marks"] == {"blunder": 1} and summary["white"]["decisions"] == 2
    assert summary["black"]["marks"] == {} and summary["black"]["total_loss"] < 0.04
    assert data["analysis"]["thresholds"] == {"doubtful": 0.04, "error": 0.08, "blunder": 0.16}
    assert data["analysis"]["engine"]
    # readers of the record pass over the analysis
    assert_same_games(blunder_match(), MatchRecord.from_json(data))


def test_the_score_sheets_mark_the_blunder(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheet, _ = export(db, "sheet", capsys)
    assert "3-1: 8/7 8/5 <span class='mark blunder' title='blunder: gave up 0." in sheet
    assert "; best 8/5 6/5'>?? <small>-0." in sheet
    assert sheet.count("class='mark ") == 1 and "doubles to 2" in sheet
    assert "Anna (white): 1 blunder, 0 errors, 0 doubtful;" in sheet
    assert "Boris (black): 0 blunders, 0 errors, 0 doubtful;" in sheet
    assert "?? blunder (0.16 or more)" in sheet
    out = tmp_path / "sheet.pdf"
    assert main(["matches", "export", "1", "--format", "pdf", "--db", str(db), "--out", str(out)]) == 0
    pdf = out.read_bytes()
    assert b"(  1\\) 3-1: 8/7 8/5 ??" in pdf
    assert b"Anna \\(white\\): 1 blunder, 0 errors, 0 doubtful;" in pdf
    assert b"?? blunder \\(0.16 or more\\)" in pdf


def test_no_analysis_and_the_mat_file_stay_unmarked(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, _ = export(db, "json", capsys, "--no-analysis")
    data = json.loads(out)
    assert "analysis" not in data and all("analysis" not in a for a in turn_actions(data))
    sheet, _ = export(db, "sheet", capsys, "--no-analysis")
    assert "class='mark" not in sheet and "Analysis" not in sheet
    mat, _ = export(db, "mat", capsys)
    assert mat == export(db, "mat", capsys, "--no-analysis")[0]
    assert "?" not in mat.replace("; [", "")
    assert_same_games(blunder_match(), read_mat(mat))


def test_a_failed_analysis_does_not_stop_the_export(
    db: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kwargs: object) -> NoReturn:
        raise RuntimeError("the engine is broken")

    monkeypatch.setattr("nardy.hints.analysis.analyse_match", broken)
    out, err = export(db, "json", capsys)
    assert "exporting without the marks: the analysis failed: the engine is broken" in err
    data = json.loads(out)
    assert data["analysis"] == {"error": "the analysis failed: the engine is broken"}
    assert all(a["analysis"] is None for a in turn_actions(data))
    sheet, _ = export(db, "sheet", capsys)
    assert "None: the analysis failed: the engine is broken." in sheet and "class='mark" not in sheet
    assert "8/7 8/5" in sheet


def test_an_analysis_made_once_serves_every_format(db: Path) -> None:
    made: list[str] = []

    def own(variant: Any) -> Any:
        made.append(variant.name)
        return engine_for(variant, prefer="own")

    with MatchStore.open(db) as store:
        analysis = analyse_record(store.load_match(1), own)
        assert analysis.ok and analysis.engine == "own short 1-ply"
        data = json.loads(export_match(store, 1, "json", analysis=analysis))
        sheet = export_match(store, 1, "sheet", analysis=analysis).decode()
        plain = export_match(store, 1, "sheet").decode()
    assert made == ["short"]
    assert turn_actions(data)[0]["analysis"]["mark"] == "blunder"
    assert "?? <small>" in sheet and "<small>" not in plain


def test_turns_recorded_after_the_analysis_are_left_unmarked(db: Path) -> None:
    whole = blunder_match()
    (game,) = whole.games
    earlier = replace(whole, games=(replace(game, actions=game.actions[:2]),))
    analysis = analyse_record(earlier, lambda variant: engine_for(variant, prefer="own"))
    with MatchStore.open(db) as store:
        data = json.loads(export_match(store, 1, "json", analysis=analysis))
        sheet = export_match(store, 1, "sheet", analysis=analysis).decode()
    opening, reply, entry = (a["analysis"] for a in turn_actions(data))
    assert opening["mark"] == "blunder" and reply is not None and entry is None
    assert "4-3: bar/21 8/5</td>" in sheet
