"""Temporal-difference self-play, TD-Gammon style, on raw mover boards.

The network plays both sides greedily at 1 ply. Each game records the board before every roll
(the side on roll's view) and the network's chances for the board that followed; when the game
ends, every recorded board gets the lambda-return target

    G_t = (1 - lambda) * V(s_t+1) + lambda * G_t+1      (turned to s_t's side; G_last = the result)

and the network takes one Adam step on the game's boards towards those targets (the
"forward view" of TD(lambda), applied after each game rather than after each move).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from nardy.hints.evaluator import Evaluator
from nardy.hints.fastgame import finished, legal_results, loss_multiplier, roll_dice, start_board
from nardy.hints.features import encode, flip
from nardy.hints.network import OUTPUTS, Adam, FloatArray, swap_sides
from nardy.rules.movegen import Board
from nardy.rules.variants import Variant


@dataclass(frozen=True, slots=True)
class SelfPlayGame:
    """One recorded self-play game."""

    boards: list[Board]
    """The board before each roll, seen by the side on roll."""
    targets: FloatArray
    """``(len(boards), 5)`` lambda-return targets for those boards."""
    multiplier: int
    """What the game was worth (1, 2 or 3); 0 if it hit the ply limit."""


def result_probs(multiplier: int) -> FloatArray:
    """The winner's chances once it has won a game worth ``multiplier``."""
    out = np.zeros(OUTPUTS, dtype=np.float32)
    out[0] = 1.0
    out[1] = 1.0 if multiplier >= 2 else 0.0
    out[2] = 1.0 if multiplier >= 3 else 0.0
    return out


def self_play(
    evaluator: Evaluator,
    variant: Variant,
    rng: random.Random,
    lam: float = 0.7,
    epsilon: float = 0.0,
    max_plies: int = 1000,
) -> SelfPlayGame:
    """Play one game against itself and compute the TD(lambda) targets of its boards."""
    name = variant.name
    board = start_board(name)
    played = [False, False]
    side = 0
    boards: list[Board] = []
    nexts: list[FloatArray] = []  # chances of the side that just played, for the board it made
    multiplier = 0
    for ply in range(max_plies):
        boards.append(board)
        high, low = roll_dice(rng)
        while ply == 0 and high == low:
            high, low = roll_dice(rng)
        first_turn = not played[side]
        played[side] = True
        results = legal_results(variant, board, high, low, first_turn)
        if not results:
            # the turn passes: the next board is the same one, seen by the opponent
            board = flip(board, name)
            nexts.append(swap_sides(evaluator.on_roll(np.array([board], dtype=np.int16)))[0])
            side = 1 - side
            continue
        probs = evaluator.after_play(np.array(results, dtype=np.int16))
        if epsilon and rng.random() < epsilon:
            i = int(rng.random() * len(results))
        else:
            i = int(np.argmax(evaluator.equity(probs)))
        after = results[i]
        if finished(after):
            multiplier = loss_multiplier(name, flip(after, name))
            nexts.append(result_probs(multiplier))
            break
        nexts.append(probs[i])
        board = flip(after, name)
        side = 1 - side
    # nexts[t] is already on s_t's side; the last one is the result (or, unfinished, a guess)
    targets = np.empty((len(boards), OUTPUTS), dtype=np.float32)
    targets[-1] = nexts[-1]
    for t in range(len(boards) - 2, -1, -1):
        targets[t] = (1.0 - lam) * nexts[t] + lam * swap_sides(targets[t + 1 : t + 2])[0]
    return SelfPlayGame(boards, targets, multiplier)


def td_step(evaluator: Evaluator, optimizer: Adam, game: SelfPlayGame) -> float:
    """One Adam step of the network towards ``game``'s targets; returns the loss before it."""
    x = encode(evaluator.variant, np.array(game.boards, dtype=np.int16))
    loss, grads = evaluator.network.gradients(x, game.targets)
    optimizer.step(grads)
    return loss
