"""GNU Backgammon's own move generator (PyPI ``gnubg-nn``) as an oracle for short nardy."""

from __future__ import annotations

from typing import Any

from nardy.rules import Position, Roll, notation
from nardy.rules.board import to_mover
from nardy.rules.movegen import Board

GnubgBoard = tuple[tuple[int, ...], tuple[int, ...]]


def gnubg_board(board: Board) -> GnubgBoard:
    """A mover board as gnubg's ``(opponent, player on roll)``, as hashable tuples."""
    opp, mover = notation.gnubg_board(board)
    return tuple(opp), tuple(mover)


def gnubg_results(gnubg: Any, position: Position, roll: Roll) -> set[GnubgBoard]:
    """The distinct results gnubg finds, as gnubg boards."""
    board = gnubg_board(to_mover(position))
    keys = gnubg.moves([list(board[0]), list(board[1])], roll.high, roll.low)
    out: set[GnubgBoard] = set()
    for key in keys:
        opp, mover = gnubg.boardfromkey(key)
        out.add((tuple(opp), tuple(mover)))
    return out
