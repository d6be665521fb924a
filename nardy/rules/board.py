"""The mover's view of a position, used by move generation and the diff.

A *mover board* is a tuple of 27 ints, in the numbering of the side to move (its path runs
24 -> 1, home 1..6):

- ``b[0]``: the mover's checkers borne off;
- ``b[1..24]``: points in the mover's numbering, positive for the mover, negative for the opponent;
- ``b[25]``: the mover's checkers on the bar;
- ``b[26]``: the opponent's checkers on the bar (short nardy: hits send them there).

For white, the mover's numbering is white's. For black it is ``25 - p`` in short nardy and
a half-turn shift in long nardy (black's head, white's point 12, is black's 24).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable

from nardy.rules.color import Color
from nardy.rules.errors import IllegalPlayError
from nardy.rules.play import BAR, OFF, Step
from nardy.rules.position import Position

MoverBoard = tuple[int, ...]


def _long_black(q: int) -> int:
    return (q + 11) % 24 + 1


# WHITE_POINT[variant][color][q] = white's number of the mover's point q (index 0 unused).
WHITE_POINT: dict[str, dict[Color, tuple[int, ...]]] = {
    "short": {
        Color.WHITE: tuple(range(25)),
        Color.BLACK: (0, *(25 - q for q in range(1, 25))),
    },
    "long": {
        Color.WHITE: tuple(range(25)),
        Color.BLACK: (0, *(_long_black(q) for q in range(1, 25))),
    },
}


def mover_point(variant: str, color: Color, white_point: int) -> int:
    """The number that ``color`` gives to white's point ``white_point``."""
    return WHITE_POINT[variant][color].index(white_point)


def white_point(variant: str, color: Color, point: int) -> int:
    """White's number of ``color``'s point ``point``."""
    return WHITE_POINT[variant][color][point]


def to_mover(position: Position, color: Color | None = None) -> MoverBoard:
    """The board as seen by ``color`` (default: the side to move)."""
    color = position.turn if color is None else color
    pts = position.points
    table = WHITE_POINT[position.variant][color]
    if color is Color.WHITE:
        return (position.off_white, *pts, position.bar_white, position.bar_black)
    return (
        position.off_black,
        *(-pts[table[q] - 1] for q in range(1, 25)),
        position.bar_black,
        position.bar_white,
    )


def from_mover(
    board: MoverBoard, template: Position, color: Color | None = None, trusted: bool = False
) -> Position:
    """Turn a mover board of ``color`` (default: ``template``'s side to move) back into a Position.

    The opponent's borne-off count and the turn come from ``template``. ``trusted`` skips the
    checks, for boards the move generator made from a valid position.
    """
    color = template.turn if color is None else color
    make = Position._trusted if trusted else Position
    if color is Color.WHITE:
        return make(
            template.variant,
            board[1:25],
            board[25],
            board[26],
            board[0],
            template.off_black,
            template.turn,
        )
    table = WHITE_POINT[template.variant][color]
    points = [0] * 24
    for q in range(1, 25):
        points[table[q] - 1] = -board[q]
    return make(
        template.variant,
        tuple(points),
        board[26],
        board[25],
        template.off_white,
        board[0],
        template.turn,
    )


def apply_steps(position: Position, steps: Iterable[Step]) -> Position:
    """Move the side to move's checkers along ``steps`` (mover's numbering), checking only physics.

    Notation sorts a play's paths from the highest point, which is not always the order they can
    be made in (``13/5 6/5*``: the hit on 5 came first). When the written order fails, the other
    orders are tried. Raises :class:`IllegalPlayError` naming the step when none works: no checker
    to move, or a closed destination.
    """
    steps = tuple(steps)
    try:
        return _apply_in_order(position, steps)
    except IllegalPlayError as first_error:
        if len(steps) > 5:
            raise
        for order in itertools.permutations(steps):
            if order == steps:
                continue
            try:
                return _apply_in_order(position, order)
            except IllegalPlayError:
                continue
        raise first_error from None


def _apply_in_order(position: Position, steps: tuple[Step, ...]) -> Position:
    b = list(to_mover(position))
    long = position.variant == "long"
    color = position.turn
    for step in steps:
        src, dst = step.src, step.dst
        name = f"{'bar' if src == BAR else src}/{'off' if dst == OFF else dst}"
        if src == BAR:
            if long:
                raise IllegalPlayError(f"{name}: long nardy has no bar")
            if b[BAR] <= 0:
                raise IllegalPlayError(f"{name}: {color} has no checker on the bar")
        elif b[src] <= 0:
            raise IllegalPlayError(f"{name}: {color} has no checker on point {src}")
        b[src] -= 1
        if dst == OFF:
            b[OFF] += 1
            continue
        v = b[dst]
        if v < 0 and (long or v < -1):
            raise IllegalPlayError(f"{name}: point {dst} is closed")
        if v == -1 and not long:
            b[dst] = 1
            b[26] += 1
        else:
            if step.hit:
                raise IllegalPlayError(f"{name}*: there is no single opposing checker on {dst} to hit")
            b[dst] = v + 1
    return from_mover(tuple(b), position)
