"""Shared pieces of the recording tests: comparing records, and GNU Backgammon."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from nardy.rules import Play
from nardy.rules.record import CubeAction, MatchRecord, TurnRecord

DATA = Path(__file__).parent / "data"
GNUBG = shutil.which("gnubg") or shutil.which("/usr/games/gnubg")


def steps_multiset(play: Play) -> list[tuple[int, int, bool]]:
    """A play as the multiset of its steps: the same play whatever order they are written in."""
    return sorted((s.src, s.dst, s.hit) for s in play.steps)


def assert_same_games(ours: MatchRecord, theirs: MatchRecord) -> None:
    """Same games, throws, plays (step by step), positions, cube actions and results."""
    assert len(ours.games) == len(theirs.games)
    for a, b in zip(ours.games, theirs.games, strict=True):
        assert len(a.actions) == len(b.actions), f"game {a.number}"
        for i, (x, y) in enumerate(zip(a.actions, b.actions, strict=True), 1):
            where = f"game {a.number}, action {i}"
            assert type(x) is type(y), where
            if isinstance(x, TurnRecord):
                assert isinstance(y, TurnRecord)
                assert (x.color, x.roll, x.before, x.after) == (y.color, y.roll, y.before, y.after), where
                assert steps_multiset(x.play) == steps_multiset(y.play) or x.play == y.play, where
                assert x.illegal == y.illegal, where
            else:
                assert isinstance(x, CubeAction) and isinstance(y, CubeAction)
                assert (x.kind, x.color, x.cube) == (y.kind, y.color, y.cube), where
        assert a.result == b.result, f"game {a.number}"
        assert a.ending == b.ending or {a.ending, b.ending} == {"bear-off", "resign"}, f"game {a.number}"
    assert ours.score == theirs.score


def run_gnubg(commands: list[str], cwd: Path) -> str:
    """Run the real GNU Backgammon on ``commands``; skip (or, in CI, fail) when it is not installed."""
    if GNUBG is None:
        if os.environ.get("CI"):
            pytest.fail("GNU Backgammon (gnubg) must be installed in CI: scripts/test.sh installs it")
        pytest.skip("GNU Backgammon is not installed")
    return subprocess.run(
        [GNUBG, "-t", "-q"],
        input="\n".join([*commands, "quit"]) + "\n",
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=cwd,
        timeout=120,
        check=False,
    ).stdout
