"""The real GNU Backgammon imports our .mat and SGF exports and finds the same plays and score."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from nardy.rules.matfile import read_mat, write_mat
from nardy.rules.sgf import write_sgf
from tests.recording.conftest import assert_same_games, run_gnubg
from tests.recording.helpers import random_match

pytestmark = pytest.mark.gnubg

_SCORE = re.compile(r"The score \(after (\d+) games?\) is: (.+) (\d+), (.+) (\d+) \(match to (\d+) points")


def _check_gnubg_agrees(out: str, back_file: Path, match_length: int, expected: object) -> None:
    assert "WARNING" not in out and "Invalid" not in out and "rror" not in out, out[-2000:]
    found = _SCORE.findall(out)
    assert found, out[-2000:]
    games, white, w_score, black, b_score, length = found[-1]
    assert int(length) == match_length
    assert (white, black) == ("Anna Petrosyan", "Boris Aliyev")
    back = read_mat(back_file.read_text())
    assert (int(w_score), int(b_score)) == back.score
    assert_same_games(expected, back)  # type: ignore[arg-type]
    assert int(games) == len(back.games)


@pytest.mark.parametrize("seed", [1, 16])
def test_gnubg_imports_our_mat(tmp_path: Path, seed: int) -> None:
    match = random_match("short", 7, seed, cube_rate=0.03)
    # every way a game ends, a Crawford game, and dances (rolls with no play)
    assert {g.ending for g in match.games} == {"bear-off", "drop", "resign"} and match.crawford_games()
    assert any(not t.play for g in match.games for t in g.turns)
    (tmp_path / "ours.mat").write_text(write_mat(match))
    out = run_gnubg(
        ["import mat ours.mat", "export match mat back.mat", "show score"],
        tmp_path,
    )
    _check_gnubg_agrees(out, tmp_path / "back.mat", 7, match)
    assert read_mat((tmp_path / "back.mat").read_text()).score == match.score


def test_gnubg_loads_our_sgf(tmp_path: Path) -> None:
    match = random_match("short", 7, 40, cube_rate=0.03)
    (tmp_path / "ours.sgf").write_text(write_sgf(match))
    out = run_gnubg(["load match ours.sgf", "export match mat back.mat", "show score"], tmp_path)
    _check_gnubg_agrees(out, tmp_path / "back.mat", 7, match)
