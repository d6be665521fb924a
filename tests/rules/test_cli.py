"""``nardy plays`` and ``nardy judge`` as a user runs them (a real process)."""

from __future__ import annotations

import json
import subprocess
import sys

from nardy.rules import Position

START_LONG = Position.initial("long").to_json()
START_SHORT = Position.initial("short").to_json()


def nardy(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nardy", *args], input=stdin, capture_output=True, text=True, timeout=60
    )


def test_plays_human_and_json() -> None:
    out = nardy(
        "plays", "--variant", "long", "--position", json.dumps(START_LONG), "--roll", "6-5", "--first-turn"
    )
    assert out.returncode == 0 and "24/13" in out.stdout
    out = nardy("plays", "--position", "4HPwATDgc/ABMA", "--roll", "3-1", "--json")
    plays = json.loads(out.stdout)["plays"]
    assert len(plays) == 16
    assert any(p["play"] == "8/5 6/5" for p in plays)


def test_plays_batch_with_errors_in_between() -> None:
    lines = [
        json.dumps({"position": START_LONG, "roll": [6, 6], "first_turn": True}),
        "{not json",
        json.dumps({"position": START_LONG, "roll": [7, 1]}),
        json.dumps({"position": {**START_LONG, "points": [1] + START_LONG["points"][1:]}, "roll": [1, 2]}),
        json.dumps({"position": START_SHORT, "roll": [6, 5]}),
        json.dumps(
            {
                "position": {**START_SHORT, "points": [0] * 24, "off": {"white": 15, "black": 15}},
                "roll": [6, 5],
            }
        ),
    ]
    out = nardy("plays", "--batch", stdin="\n".join(lines) + "\n")
    assert out.returncode == 0
    results = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(results) == 6
    assert [p["play"] for p in results[0]["plays"]] == ["24/18(2)"]
    assert results[0]["plays"][0]["position"]["points"][17] == 2
    assert "not valid JSON" in results[1]["error"]
    assert "1 to 6, not 7" in results[2]["error"]
    assert "16 checkers" in results[3]["error"]
    assert len(results[4]["plays"]) == 7
    assert results[5] == {"plays": []}


def test_judge_one_and_batch() -> None:
    after = Position.initial("long").apply("24/18 24/19").to_json()
    out = nardy(
        "judge",
        "--variant",
        "long",
        "--before",
        json.dumps(START_LONG),
        "--after",
        json.dumps(after),
        "--roll",
        "6-5",
        "--first-turn",
    )
    assert out.returncode == 1 and "moved 2 checkers from the head" in out.stdout
    good = Position.initial("long").apply("24/13").to_json()
    lines = [
        json.dumps({"before": START_LONG, "after": good, "roll": [6, 5], "first_turn": True}),
        json.dumps({"before": START_LONG, "after": START_LONG, "roll": [6, 5], "first_turn": True}),
        json.dumps({"before": START_LONG, "roll": [6, 5]}),
    ]
    out = nardy("judge", "--batch", stdin="\n".join(lines))
    results = [json.loads(line) for line in out.stdout.splitlines()]
    assert results[0] == {"legal": True, "play": "24/13", "reason": None}
    assert results[1] == {"legal": False, "play": None, "reason": "nothing moved although 6-5 can be played"}
    assert "needs 'after'" in results[2]["error"]


def test_bad_single_input_is_one_clear_line() -> None:
    out = nardy("plays", "--variant", "long", "--position", "{", "--roll", "6-5")
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "not valid JSON" in out.stderr
    out = nardy("plays", "--variant", "short", "--position", json.dumps(START_SHORT), "--roll", "6-7")
    assert out.returncode == 2 and "not a roll" in out.stderr
