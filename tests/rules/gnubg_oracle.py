"""GNU Backgammon's own move generator (PyPI ``gnubg-nn``) as an oracle for short nardy."""

from __future__ import annotations

from typing import Any

from nardy.rules import Position, Roll
from nardy.rules.board import to_mover
from nardy.rules.movegen import Board

GnubgBoard = tuple[tuple[int, ...], tuple[int, ...]]


def gnubg_board(board: Board) -> GnubgBoard:
    """A mover board as gnubg's ``[opponent, player on roll]``, each 25 counts in its own numbering."""
    mover = [0] * 25
    opp = [0] * 25
    for q in range(1, 25):
        n = board[q]
        if n > 0:
            mover[q - 1] = n
        elif n < 0:
            opp[24 - q] = -n
    mover[24] = board[25]
    opp[24] = board[26]
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
