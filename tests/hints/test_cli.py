"""``nardy hint`` and ``nardy analyse`` as a user runs them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from nardy.rules import Position

START_LONG = json.dumps(Position.initial("long").to_json())


def nardy(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nardy", *args], input=stdin, capture_output=True, text=True, timeout=60
    )


def test_hint_text_and_json() -> None:
    out = nardy("hint", "--variant", "long", "--position", START_LONG, "--roll", "6-6", "--first-turn")
    assert out.returncode == 0, out.stderr
    assert "24/18(2)" in out.stdout and "own long 1-ply" in out.stdout
    out = nardy(
        "hint",
        "--position",
        "4HPwATDgc/ABMA",
        "--variant",
        "short",
        "--roll",
        "3-1",
        "--json",
        "--engine",
        "own",
        "--plies",
        "2",
    )
    data = json.loads(out.stdout)
    assert data["engine"] == "own short 2-ply" and len(data["plays"]) == 16
    equities = [p["equity"] for p in data["plays"] if p["plies"] == 2]
    assert equities == sorted(equities, reverse=True)


def test_hint_errors() -> None:
    out = nardy("hint", "--variant", "long", "--position", START_LONG, "--roll", "7-1")
    assert out.returncode == 2 and "roll" in out.stderr
    out = nardy("hint", "--variant", "short", "--position", START_LONG, "--roll", "3-1")
    assert out.returncode == 2


def test_analyse_file(tmp_path: Path) -> None:
    start = Position.initial("short")
    lines = [
        {"position": start.to_json(), "roll": [3, 1], "first_turn": True, "play": "24/20"},
        {"position": start.to_json(), "roll": [3, 1], "first_turn": True, "play": "8/5 6/5"},
        {"position": start.to_json(), "roll": [3, 1], "first_turn": True, "play": "24/18"},
    ]
    path = tmp_path / "game.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    out = nardy("analyse", str(path), "--engine", "own", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert [p["mark"] for p in data["plays"]][2] == "illegal"
    assert data["summary"]["white"]["decisions"] == 2
    text = nardy("analyse", str(path), "--engine", "own")
    assert "ILLEGAL" in text.stdout and "white: 2 decisions" in text.stdout


def test_analyse_a_match_record(tmp_path: Path) -> None:
    from nardy.rules import Play, Roll, find_variant
    from nardy.rules.record import GameRecord, MatchInfo, MatchRecord, judge_turn

    variant = find_variant("long")
    start = Position.initial("long")
    first = judge_turn(variant, start, Roll(6, 5), Play.from_text("24/13"), True)
    second = judge_turn(variant, first.after, Roll(3, 1), Play.from_text("24/21 21/20"), True)
    record = MatchRecord(MatchInfo("Ann", "Bob", variant), (GameRecord(1, (first, second)),))
    path = tmp_path / "match.json"
    path.write_text(json.dumps(record.to_json()))
    out = nardy("analyse", str(path), "--json")
    assert out.returncode == 0, out.stderr
    plays = json.loads(out.stdout)["plays"]
    assert [p["game"] for p in plays] == [1, 1]
    assert plays[0]["mark"] == "forced" and plays[1]["played"] == "24/20"
