"""XGID and GNU Backgammon IDs agree with the real GNU Backgammon program and with gnubg-nn."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from nardy.rules import Color, Position
from nardy.rules.board import to_mover
from nardy.rules.notation import XgidInfo, from_gnubg_id, from_xgid, parse_position, to_gnubg_id, to_xgid
from nardy.rules.sample import sample
from tests.rules.gnubg_oracle import gnubg_board

GNUBG = shutil.which("gnubg") or shutil.which("/usr/games/gnubg")


def test_position_id_equals_gnubg_nn() -> None:
    gnubg = pytest.importorskip("gnubg_nn")
    for position, _, _ in sample("short", 400, seed=21):
        board = gnubg_board(to_mover(position))
        assert to_gnubg_id(position) == gnubg.position_id([list(board[0]), list(board[1])])
        assert from_gnubg_id(to_gnubg_id(position), position.turn) == position


def test_round_trips() -> None:
    for position, roll, _ in sample("short", 300, seed=22):
        xgid = to_xgid(position, XgidInfo(roll=roll, cube=4, cube_owner=Color.BLACK, match_length=7))
        back, info = from_xgid(xgid)
        assert back == position
        assert info.roll == roll and info.cube == 4 and info.cube_owner is Color.BLACK
        assert info.match_length == 7
        assert parse_position(xgid) == position
        assert parse_position(position.json_text()) == position


def test_known_ids() -> None:
    start = Position.initial("short")
    assert to_gnubg_id(start) == "4HPwATDgc/ABMA"
    assert to_xgid(start) == "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
    assert from_gnubg_id("4HPwATDgc/ABMA") == start


@pytest.mark.gnubg
@pytest.mark.skipif(GNUBG is None, reason="GNU Backgammon is not installed")
def test_gnubg_program_reads_our_xgid_as_our_position_id() -> None:
    cases = sample("short", 60, seed=23)
    commands = []
    for position, roll, _ in cases:
        commands.append("set xgid " + to_xgid(position, XgidInfo(roll=roll)))
        commands.append("show board")
        commands.append("nardy-case-end")  # an unknown command: gnubg echoes it, marking the case's end
    assert GNUBG is not None
    out = subprocess.run(
        [GNUBG, "-t", "-q"],
        input="\n".join(commands) + "\n",
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=300,
    ).stdout
    segments = out.split("nardy-case-end")[: len(cases)]
    ids = [re.findall(r"Position ID: (\S+)\s+Match ID\s*: (\S+)", seg)[-1] for seg in segments]
    assert len(ids) == len(cases)
    for (position, _, _), (pid, mid) in zip(cases, ids, strict=True):
        assert pid == to_gnubg_id(position)
        assert from_gnubg_id(f"{pid}:{mid}", position.turn) == position
