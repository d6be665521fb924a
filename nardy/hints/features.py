"""Network inputs for both games, from the side to move's view.

The evaluators see a position through the eyes of the side on roll (before it rolls): a *mover
board* of :mod:`nardy.rules.board` (27 ints, the mover's own numbering) plus how many checkers
the opponent has borne off, which the mover board does not carry.

Both encodings start with TD-Gammon's per-point units -- for each of the 24 points and each
side, ``n >= 1``, ``n >= 2``, ``n >= 3`` and a scaled count beyond three -- and add a few
whole-board numbers (pips, borne off, the bar, home counts, the longest run of held points;
in long nardy the head and the race to home) that a small network would otherwise have to
work out for itself.

Arrays: ``boards`` is ``(n, 27)`` integers; the result is ``(n, width)`` ``float32``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from nardy.rules.board import MoverBoard
from nardy.rules.position import CHECKERS, Position

FloatArray = NDArray[np.float32]
IntArray = NDArray[np.int16]

BOARD_LEN = 27
"""Length of a mover board: off, points 1..24, the mover's bar, the opponent's bar."""

# The opponent's own number of each mover point q (index q - 1).
_OPP_NUMBER = {
    "short": np.array([25 - q for q in range(1, 25)], dtype=np.int16),
    "long": np.array([(q - 13) % 24 + 1 for q in range(1, 25)], dtype=np.int16),
}
# The opponent's view of the mover board: FLIP[variant][q'] = mover point of opponent's point q'.
FLIP: dict[str, tuple[int, ...]] = {
    "short": (0, *(25 - q for q in range(1, 25))),
    "long": (0, *((q + 11) % 24 + 1 for q in range(1, 25))),
}
# Long nardy: the opponent's path in the mover's numbering (12 .. 1, 24 .. 13) and the mover's own.
_OPP_PATH = np.array([*range(12, 0, -1), *range(24, 12, -1)], dtype=np.intp) - 1
_OWN_PATH = np.arange(23, -1, -1, dtype=np.intp)
_POINTS = np.arange(1, 25, dtype=np.int16)

SHORT_WIDTH = 4 * 24 * 2 + 12
LONG_WIDTH = 4 * 24 * 2 + 16


def width(variant: str) -> int:
    """Number of inputs for ``variant`` (``"short"`` or ``"long"``)."""
    return SHORT_WIDTH if variant == "short" else LONG_WIDTH


def flip(board: MoverBoard, variant: str, opp_off: int | None = None) -> MoverBoard:
    """The same board seen by the opponent (whose turn comes next).

    ``opp_off`` is the opponent's borne-off count; by default every checker not on the board
    or the bar is taken as borne off (a full set of 15).
    """
    table = FLIP[variant]
    if opp_off is None:
        opp_off = CHECKERS - board[26] + sum(n for n in board[1:25] if n < 0)
    return (opp_off, *(-board[table[q]] for q in range(1, 25)), board[26], board[25])


def opponent_off(boards: IntArray) -> IntArray:
    """The opponent's borne-off counts when each side has its full 15 checkers."""
    on = np.maximum(-boards[:, 1:25], 0).sum(axis=1) + boards[:, 26]
    out: IntArray = (CHECKERS - on).astype(np.int16)
    return out


def position_board(position: Position) -> tuple[MoverBoard, int]:
    """The side to move's mover board and the opponent's borne-off count."""
    from nardy.rules.board import to_mover

    return to_mover(position), position.off(position.turn.other)


def _point_units(counts: IntArray, scale: float) -> FloatArray:
    """TD-Gammon's four units per point for ``counts`` ``(n, 24)`` of one side."""
    n = counts.shape[0]
    out = np.empty((n, 4, 24), dtype=np.float32)
    out[:, 0] = counts >= 1
    out[:, 1] = counts >= 2
    out[:, 2] = counts >= 3
    out[:, 3] = np.maximum(counts - 3, 0) / scale
    return out.reshape(n, 96)


def _longest_run(held: NDArray[np.bool_], order: NDArray[np.intp], cap: int = 6) -> FloatArray:
    """The longest run of consecutive held points along ``order``, per row, counted up to ``cap``."""
    best = np.zeros(held.shape[0], dtype=np.float32)
    run = held[:, order]  # run[:, i]: the k + 1 points from order[i] on are all held
    for k in range(cap):
        if k:
            run = run[:, :-1] & held[:, order[k:]]
        best += run.any(axis=1)
    return best


def encode(
    variant: str, boards: NDArray[np.integer], opp_off: NDArray[np.integer] | None = None
) -> FloatArray:
    """Inputs for mover ``boards`` ``(n, 27)``; ``opp_off`` ``(n,)`` defaults to a full set of 15."""
    b = np.asarray(boards, dtype=np.int16)
    if b.ndim != 2 or b.shape[1] != BOARD_LEN:
        raise ValueError(f"boards must have shape (n, {BOARD_LEN}), not {b.shape}")
    off_opp = opponent_off(b) if opp_off is None else np.asarray(opp_off, dtype=np.int16)
    pts = b[:, 1:25]
    mine = np.maximum(pts, 0)
    theirs = np.maximum(-pts, 0)
    if variant == "short":
        return _encode_short(b, mine, theirs, off_opp)
    if variant == "long":
        return _encode_long(b, mine, theirs, off_opp)
    raise ValueError(f"unknown variant {variant!r}")


def _encode_short(b: IntArray, mine: IntArray, theirs: IntArray, off_opp: IntArray) -> FloatArray:
    n = b.shape[0]
    bar_me, bar_opp = b[:, 25], b[:, 26]
    opp_num = _OPP_NUMBER["short"]
    pips_me = (mine * _POINTS).sum(axis=1) + 25 * bar_me
    pips_opp = (theirs * opp_num).sum(axis=1) + 25 * bar_opp
    # contact: some mover checker still has an opposing checker ahead of it
    my_back = np.where(bar_me > 0, 25, np.max(np.where(mine > 0, _POINTS, 0), axis=1))
    opp_back = np.where(bar_opp > 0, 0, np.min(np.where(theirs > 0, _POINTS, 25), axis=1))
    contact = my_back > opp_back
    extra = np.empty((n, 12), dtype=np.float32)
    extra[:, 0] = bar_me / 2.0
    extra[:, 1] = bar_opp / 2.0
    extra[:, 2] = b[:, 0] / 15.0
    extra[:, 3] = off_opp / 15.0
    extra[:, 4] = pips_me / 167.0
    extra[:, 5] = pips_opp / 167.0
    extra[:, 6] = np.tanh((pips_opp - pips_me) / 40.0)
    extra[:, 7] = contact
    extra[:, 8] = (mine[:, 0:6] >= 2).sum(axis=1) / 6.0
    extra[:, 9] = (theirs[:, 18:24] >= 2).sum(axis=1) / 6.0
    extra[:, 10] = (mine == 1).sum(axis=1) / 5.0
    extra[:, 11] = (theirs == 1).sum(axis=1) / 5.0
    return np.concatenate([_point_units(mine, 2.0), _point_units(theirs, 2.0), extra], axis=1)


def _encode_long(b: IntArray, mine: IntArray, theirs: IntArray, off_opp: IntArray) -> FloatArray:
    n = b.shape[0]
    opp_num = _OPP_NUMBER["long"]
    pips_me = (mine * _POINTS).sum(axis=1)
    pips_opp = (theirs * opp_num).sum(axis=1)
    home_me = mine[:, 0:6].sum(axis=1)
    home_opp = theirs[:, 12:18].sum(axis=1)  # the opponent's 1..6 are the mover's 13..18
    extra = np.empty((n, 16), dtype=np.float32)
    extra[:, 0] = b[:, 0] / 15.0
    extra[:, 1] = off_opp / 15.0
    extra[:, 2] = pips_me / 360.0
    extra[:, 3] = pips_opp / 360.0
    extra[:, 4] = np.tanh((pips_opp - pips_me) / 40.0)
    extra[:, 5] = mine[:, 23] / 15.0
    extra[:, 6] = theirs[:, 11] / 15.0
    extra[:, 7] = mine[:, 6:].sum(axis=1) == 0  # the mover may bear off
    extra[:, 8] = home_opp == theirs.sum(axis=1)  # so may the opponent
    extra[:, 9] = home_me / 15.0
    extra[:, 10] = home_opp / 15.0
    extra[:, 11] = _longest_run(mine > 0, _OPP_PATH) / 6.0
    extra[:, 12] = _longest_run(theirs > 0, _OWN_PATH) / 6.0
    extra[:, 13] = mine[:, 12:24].sum(axis=1) / 15.0  # still in the mover's first half
    extra[:, 14] = theirs[:, 0:12].sum(axis=1) / 15.0  # still in the opponent's first half
    extra[:, 15] = (mine > 0).sum(axis=1) / 12.0
    return np.concatenate([_point_units(mine, 4.0), _point_units(theirs, 4.0), extra], axis=1)
