"""``nardy matches``: export every format from the store, import .mat and JSON, and refuse bad input."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from nardy.cli import main
from nardy.referee.export import score_sheet_lines
from nardy.referee.store import MatchStore
from nardy.rules import Position
from nardy.rules.matfile import read_mat
from nardy.rules.record import MatchRecord
from tests.recording.conftest import DATA, assert_same_games
from tests.recording.helpers import random_match


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "club.db"
    with MatchStore.open(path) as store:
        store.import_record(random_match("short", 7, 16, cube_rate=0.03, illegal_rate=0.01))
        store.import_record(random_match("long", 3, 4, white="Ильхам", black="Тигран"))
    return path


def _pdf_objects_are_where_xref_says(pdf: bytes) -> None:
    start = int(re.search(rb"startxref\n(\d+)", pdf).group(1))  # type: ignore[union-attr]
    table = pdf[start:].split(b"trailer")[0].split(b"\n")
    count = int(table[1].split()[1])
    offsets = [int(row.split()[0]) for row in table[3 : 2 + count]]
    for number, offset in enumerate(offsets, 1):
        assert pdf[offset:].startswith(b"%d 0 obj" % number)


def test_every_format(db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with MatchStore.open(db) as store:
        short, long = store.load_match(1), store.load_match(2)
    for fmt in ("mat", "sgf", "json", "sheet", "pdf"):
        out = tmp_path / f"m1.{fmt}"
        assert main(["matches", "export", "1", "--format", fmt, "--out", str(out), "--db", str(db)]) == 0
    assert_same_games(short, read_mat((tmp_path / "m1.mat").read_text()))
    assert (tmp_path / "m1.sgf").read_text().startswith("(;FF[4]GM[6]")
    data = json.loads((tmp_path / "m1.json").read_text())
    assert MatchRecord.from_json(data) == short and data["id"] == 1
    for game in data["games"]:
        for action in game["actions"]:
            if action["type"] == "turn":
                assert Position.from_json(action["before"]).apply(action["steps"]) == Position.from_json(
                    action["after"]
                )
    sheet = (tmp_path / "m1.sheet").read_text()
    white, black = short.score
    assert f"Final score: Anna Petrosyan {white} - {black} Boris Aliyev" in sheet
    assert "(Crawford)" in sheet and "doubles to 2" in sheet and "[illegal, accepted]" in sheet
    for game in short.games:
        for turn in game.turns:
            assert turn.play.text() in sheet or not turn.play
    pdf = (tmp_path / "m1.pdf").read_bytes()
    assert pdf.startswith(b"%PDF-1.4") and pdf.rstrip().endswith(b"%%EOF")
    _pdf_objects_are_where_xref_says(pdf)
    assert b"(Final score: Anna Petrosyan" in pdf
    # long nardy: .mat with its variant, JSON, the sheet with every character of the names
    assert main(["matches", "export", "2", "--format", "mat", "--db", str(db)]) == 0
    text = capsys.readouterr().out
    assert '[Variation "Long Nardy"]' in text
    assert_same_games(long, read_mat(text))
    assert main(["matches", "export", "2", "--format", "sheet", "--db", str(db)]) == 0
    assert "Ильхам" in capsys.readouterr().out
    assert main(["matches", "export", "2", "--format", "sgf", "--db", str(db)]) == 2
    assert "short nardy" in capsys.readouterr().err


def test_list_and_show(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["matches", "list", "--db", str(db)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and "Anna Petrosyan 6-7 Boris Aliyev" in lines[0] and "over" in lines[0]
    assert main(["matches", "list", "--json", "--db", str(db)]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert rows[1]["variant"] == "long" and rows[1]["white"] == "Ильхам"
    assert main(["matches", "show", "1", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert re.search(r"Game 5 at \d-\d, Crawford", out) and "Score: 6-7" in out
    assert "Boris Aliyev wins" in out and "flagged" in out


def test_import_round_trip_and_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "imported.db"
    assert main(["matches", "import", str(DATA / "gnubg-selfplay-7pt.mat"), "--db", str(db)]) == 0
    assert "imported match 1: gnubg 2-7 root, 4 games" in capsys.readouterr().out
    out = tmp_path / "back.mat"
    assert main(["matches", "export", "1", "--format", "mat", "--out", str(out), "--db", str(db)]) == 0
    original = read_mat((DATA / "gnubg-selfplay-7pt.mat").read_text())
    assert_same_games(original, read_mat(out.read_text()))
    json_file = tmp_path / "m.json"
    json_file.write_text(json.dumps(random_match("long", 1, 2, max_games=1).to_json()))
    assert main(["matches", "import", str(json_file), "--db", str(db)]) == 0
    capsys.readouterr()
    bad = tmp_path / "bad.mat"
    bad.write_text(" 3 point match\n\n Game 1\n A : 0      B : 0\n  1) 31: 8/5 6/5   42: 24/20 24/22 13/9\n")
    assert main(["matches", "import", str(bad), "--db", str(db)]) == 2
    assert "bad.mat: line 5" in capsys.readouterr().err
    with MatchStore.open(db) as store:
        assert len(store.list_matches()) == 2  # nothing half-imported
    # a failed export leaves an existing file as it was
    assert main(["matches", "export", "9", "--format", "mat", "--out", str(out), "--db", str(db)]) == 2
    assert "no match with id 9" in capsys.readouterr().err
    assert_same_games(original, read_mat(out.read_text()))
    assert main(["matches", "list", "--db", str(tmp_path / "none.db")]) == 2
    assert not (tmp_path / "none.db").exists()


def test_sheet_text_lists_flags_and_results() -> None:
    match = random_match("short", 7, 16, cube_rate=0.03, illegal_rate=0.01)
    lines = score_sheet_lines(match, 5)
    assert lines[0] == "SCORE SHEET - Anna Petrosyan v Boris Aliyev"
    assert any("resigned" in line for line in lines) and any(
        "the double was dropped" in line for line in lines
    )
    flagged = [t for g in match.games for t in g.turns if t.illegal]
    assert flagged
    for turn in flagged:
        assert any(f"{turn.roll}: {turn.play.text()} [illegal, accepted]" in line for line in lines)
