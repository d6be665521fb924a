"""Whole games on raw mover boards, fast enough for self-play training and benchmarks.

A game here is a loop over :class:`nardy.rules.movegen.Generator` results: the side to move
sees its mover board (see :mod:`nardy.rules.board`), a player picks one of the legal results,
and the board is turned round for the opponent. No ``Position`` or ``Play`` objects are built.
Both sides always have their full 15 checkers, so the opponent's borne-off count follows
from the board.

A *player* is a callable ``choose(board, candidates, first_turn) -> index`` returning which of
the candidate result boards (the mover's view, after its play) it makes.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from nardy.hints.features import flip
from nardy.rules.movegen import Board, Generator
from nardy.rules.position import Position
from nardy.rules.variants import Variant, find_variant

Player = Callable[[Board, list[Board], bool], int]


@dataclass(frozen=True, slots=True)
class GameOutcome:
    """How a fast game ended."""

    winner: int | None
    """0 or 1 (the index of the player), or None when ``max_plies`` ran out."""
    multiplier: int
    """1 single game / oin, 2 gammon / mars, 3 backgammon / koks (0 when unfinished)."""
    plies: int
    """Turns played, passes included."""


def start_board(variant: str) -> Board:
    """The starting position as a mover board (the same for either side)."""
    from nardy.rules.board import to_mover

    return to_mover(Position.initial(variant))


def legal_results(variant: Variant, board: Board, high: int, low: int, first_turn: bool) -> list[Board]:
    """The distinct legal result boards of the roll ``high``-``low`` (mover's view)."""
    double = high if high == low else None
    gen = Generator(variant.gen_rules(), board, variant.head_limit(double, first_turn))
    return list(gen.generate(board, high, low))


def finished(board: Board) -> bool:
    """Whether the mover of ``board`` has no checker left on the board or the bar."""
    return board[25] == 0 and all(n <= 0 for n in board[1:25])


def loss_multiplier(variant: str, loser: Board) -> int:
    """What the game is worth when the side on roll in ``loser`` (its view) has just lost."""
    if loser[0] > 0:
        return 1
    # the winner's home is the loser's 19..24 in short nardy, its 13..18 in long nardy
    home = range(19, 25) if variant == "short" else range(13, 19)
    if any(loser[q] > 0 for q in home) or (variant == "short" and loser[25] > 0):
        return 3
    return 2


def roll_dice(rng: random.Random) -> tuple[int, int]:
    a = int(rng.random() * 6) + 1
    b = int(rng.random() * 6) + 1
    return (a, b) if a >= b else (b, a)


def play_game(
    variant: Variant | str,
    players: Sequence[Player],
    rng: random.Random,
    first: int = 0,
    max_plies: int = 1000,
) -> GameOutcome:
    """Play one game between ``players[0]`` and ``players[1]``; ``first`` moves first.

    The opening follows the sports rule: the first roll of the game is never a double.
    """
    v = find_variant(variant)
    name = v.name
    board = start_board(name)
    side = first
    played = [False, False]
    for ply in range(max_plies):
        high, low = roll_dice(rng)
        while ply == 0 and high == low:
            high, low = roll_dice(rng)
        first_turn = not played[side]
        played[side] = True
        results = legal_results(v, board, high, low, first_turn)
        if results:
            after = results[players[side](board, results, first_turn)] if len(results) > 1 else results[0]
            if finished(after):
                return GameOutcome(side, loss_multiplier(name, flip(after, name)), ply + 1)
            board = flip(after, name)
        else:
            board = flip(board, name)
        side = 1 - side
    return GameOutcome(None, 0, max_plies)
