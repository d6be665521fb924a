"""The demo and the replay, end to end: a recorded game through the real pipeline.

A small recording is made once (the same code makes the demo's), then run through
``nardy replay`` and through ``nardy demo`` headless at full speed -- the camera loop on the video
file, the dice replay source, vision, the referee, the recorder and the dashboard. Both must
record the whole scripted game exactly, with its one illegal play caught once, and the demo's
database must hold the match it printed.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from nardy.referee.recording import Recording, RecordingSpec, cached_recording
from nardy.referee.store import MatchStore

SIZE = (640, 360)


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Recording]:
    cache = tmp_path_factory.mktemp("cache")
    return cache, cached_recording(RecordingSpec(variant="short", size=SIZE), cache)


def nardy(*args: str, timeout: float = 1500) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nardy", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def replay(rec: Recording) -> dict[str, Any]:
    """``nardy replay --json`` on a recording: the game record it prints."""
    out = nardy(
        "replay",
        "--video",
        str(rec.video),
        "--dice-log",
        str(rec.dice_log),
        "--profile",
        str(rec.profile),
        "--json",
    )
    assert out.returncode == 0, out.stderr[-3000:]
    record: dict[str, Any] = json.loads(out.stdout)
    return record


@pytest.fixture(scope="module")
def replayed(recording: tuple[Path, Recording]) -> dict[str, Any]:
    return replay(recording[1])


@pytest.fixture(scope="module")
def demo(recording: tuple[Path, Recording], tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    cache, _ = recording
    db = tmp_path_factory.mktemp("db") / "demo.db"
    out = nardy(
        "demo",
        "--no-browser",
        "--speed",
        "0",
        "--exit-at-end",
        "--port",
        "0",
        "--db",
        str(db),
        "--cache",
        str(cache),
        "--size",
        f"{SIZE[0]}x{SIZE[1]}",
    )
    # 0: the game was recorded as scripted; 1: it ran to the end but differs
    assert out.returncode in (0, 1), out.stderr[-3000:]
    assert "referee recorded" in out.stderr and "the match is in" in out.stderr
    return db, out.stdout


def _plays(record: dict[str, Any]) -> list[str]:
    return [t["play"] or "(no play)" for g in record["games"] for t in g["turns"]]


def _assert_recorded_as_scripted(rec: Recording, replayed: dict[str, Any]) -> None:
    """Every scripted turn recorded as played, and the one illegal play caught once."""
    assert _plays(replayed) == _truth(rec)
    assert (
        sum(1 for a in replayed["alerts"] if a["kind"] == "illegal") == len(rec.load_truth()["illegal"]) == 1
    )


def _truth(rec: Recording) -> list[str]:
    return [t["play"] or "(no play)" for t in rec.load_truth()["turns"]]


@pytest.mark.slow
@pytest.mark.timeout(2400)
def test_demo_records_in_the_database_what_it_decided(demo: tuple[Path, str]) -> None:
    db, printed = demo
    with MatchStore.open(db, create=False) as store:
        [summary] = store.list_matches()
        record = store.load_match(summary.id)
    stored = [turn.play.text() or "(no play)" for game in record.games for turn in game.turns]
    turn_line = re.compile(r"^\s*\d+\. \w+\s+\d-\d: (.*?)(?:  \[.*\])?$")
    shown = [m.group(1) for m in map(turn_line.match, printed.splitlines()) if m]
    assert stored and stored == shown


@pytest.mark.slow
@pytest.mark.timeout(2400)
def test_replay_records_the_whole_scripted_game(
    recording: tuple[Path, Recording], replayed: dict[str, Any]
) -> None:
    _, rec = recording
    _assert_recorded_as_scripted(rec, replayed)


@pytest.mark.slow
@pytest.mark.timeout(2400)
def test_demo_records_the_whole_scripted_game(
    recording: tuple[Path, Recording], demo: tuple[Path, str]
) -> None:
    db, _ = demo
    with MatchStore.open(db, create=False) as store:
        [summary] = store.list_matches()
        record = store.load_match(summary.id)
        plays = [turn.play.text() or "(no play)" for game in record.games for turn in game.turns]
        illegal = [a for a in store.alerts(summary.id) if a.code == "illegal-play"]
    assert plays == _truth(recording[1]) and len(illegal) == 1


@pytest.fixture(scope="module")
def long_replayed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Recording, dict[str, Any]]:
    rec = cached_recording(RecordingSpec(variant="long", size=SIZE), tmp_path_factory.mktemp("cache-long"))
    return rec, replay(rec)


@pytest.mark.slow
@pytest.mark.timeout(2400)
def test_replay_records_the_whole_scripted_long_game(long_replayed: tuple[Recording, dict[str, Any]]) -> None:
    """The long-nardy demo: heads of fifteen the camera cannot count, two checkers taken from the
    head at once (illegal), put right, and the game played out."""
    rec, replayed = long_replayed
    assert replayed["variant"] == "long"
    _assert_recorded_as_scripted(rec, replayed)
