"""The demo and the replay, end to end: a recorded game through the real pipeline.

A small recording is made once (the same code makes the demo's), then run through
``nardy replay`` and through ``nardy demo`` headless at full speed -- the camera loop on the video
file, the dice replay source, vision, the referee, the recorder and the dashboard -- and the match
they record must be the scripted one, with the one illegal play caught exactly once.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from nardy.referee.recording import Recording, RecordingSpec, cached_recording
from nardy.referee.store import MatchStore

SIZE = (640, 360)


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Recording]:
    cache = tmp_path_factory.mktemp("cache")
    return cache, cached_recording(RecordingSpec(variant="short", size=SIZE), cache)


def nardy(*args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nardy", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_replay_prints_the_scripted_game(recording: tuple[Path, Recording]) -> None:
    _, rec = recording
    truth = rec.load_truth()
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
    assert out.returncode == 0, out.stderr
    record = json.loads(out.stdout)
    plays = [t["play"] for g in record["games"] for t in g["turns"]]
    assert plays == [t["play"] for t in truth["turns"]]
    assert sum(1 for a in record["alerts"] if a["kind"] == "illegal") == len(truth["illegal"]) == 1
    assert record["games"][0]["result"] is not None


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_demo_headless_records_the_scripted_game(recording: tuple[Path, Recording], tmp_path: Path) -> None:
    cache, rec = recording
    truth = rec.load_truth()
    db = tmp_path / "demo.db"
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
    assert out.returncode == 0, out.stderr[-3000:]
    with MatchStore.open(db, create=False) as store:
        [summary] = store.list_matches()
        record = store.load_match(summary.id)
        plays = [turn.play.text() for game in record.games for turn in game.turns]
        assert plays == [t["play"] for t in truth["turns"]]
        illegal = [a for a in store.alerts(summary.id) if a.code == "illegal-play"]
        assert len(illegal) == 1
        assert record.games[0].result is not None
