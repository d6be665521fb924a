"""Simple opponents for measuring the engines: a random player and a pip-count heuristic.

Both are :data:`nardy.hints.fastgame.Player` callables over raw mover boards.
"""

from __future__ import annotations

import random

from nardy.hints.fastgame import Player
from nardy.rules.movegen import OPP_PATH, Board


def random_player(rng: random.Random) -> Player:
    """Plays a uniformly random legal play."""

    def choose(board: Board, candidates: list[Board], first_turn: bool) -> int:
        return int(rng.random() * len(candidates))

    return choose


def _pips(b: Board) -> int:
    return sum(q * n for q, n in enumerate(b[1:25], 1) if n > 0) + 25 * b[25]


def _longest_block(b: Board) -> int:
    best = run = 0
    for q in OPP_PATH:
        run = run + 1 if b[q] > 0 else 0
        best = max(best, run)
    return best


def pip_heuristic_player(rng: random.Random) -> Player:
    """Long nardy's pip-count heuristic: fewest pips left (bears off whenever it can), then the
    most points held, then the longest block in the opponent's way; random among equals."""

    def key(b: Board) -> tuple[int, int, int, float]:
        held = sum(1 for n in b[1:25] if n > 0)
        return (-_pips(b), held, _longest_block(b), rng.random())

    def choose(board: Board, candidates: list[Board], first_turn: bool) -> int:
        return max(range(len(candidates)), key=lambda i: key(candidates[i]))

    return choose
