"""Our own hint engine: the shipped network, searched one or two plies deep.

1 ply: each legal result is evaluated as it stands, the opponent on roll (gnubg's "0-ply").
2 ply: for the best ``width`` plays at 1 ply, each of the opponent's 21 rolls is answered by
its best reply (by the network) and the results are averaged, weighted by how often the roll
comes (gnubg's "1-ply"). Plays not searched deeper keep their 1-ply value and rank after.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from nardy.hints.engine import Chances, Hint, rank
from nardy.hints.evaluator import Evaluator, shipped_network
from nardy.hints.fastgame import finished, legal_results, loss_multiplier
from nardy.hints.features import flip
from nardy.hints.network import FloatArray, Network, swap_sides
from nardy.hints.td import result_probs
from nardy.rules import Play, Position, Roll, Step, Variant, find_variant
from nardy.rules.board import from_mover, to_mover
from nardy.rules.movegen import Board
from nardy.rules.position import CHECKERS
from nardy.rules.variants import LongOptions

ROLLS: tuple[tuple[int, int, float], ...] = tuple(
    (a, b, (1.0 if a == b else 2.0) / 36.0) for a in range(6, 0, -1) for b in range(a, 0, -1)
)
"""The 21 distinct rolls with their chances."""


@dataclass(frozen=True, slots=True)
class SearchConfig:
    """How deep and how wide our own engine searches."""

    plies: int = 1
    """1 or 2 (see the module docstring)."""
    width: int = 8
    """At 2 plies: how many of the best 1-ply plays are searched deeper."""


class OwnEngine:
    """Ranks legal plays with our network (``nardy/hints/data/<variant>.npz`` by default)."""

    def __init__(
        self, variant: Variant | str, network: Network | None = None, plies: int = 1, width: int = 8
    ):
        self.variant = find_variant(variant)
        if plies not in (1, 2):
            raise ValueError(f"plies must be 1 or 2, not {plies!r}")
        self.config = SearchConfig(plies, width)
        self._network = network
        koks = isinstance(self.variant.options, LongOptions) and self.variant.options.koks
        self._backgammons = self.variant.name == "short" or koks

    @property
    def evaluator(self) -> Evaluator:
        net = self._network if self._network is not None else shipped_network(self.variant.name)
        return Evaluator(net, backgammons=self._backgammons)

    @property
    def name(self) -> str:
        return f"own {self.variant.name} {self.config.plies}-ply"

    def hint(self, position: Position, roll: Roll | str, first_turn: bool = False) -> Hint:
        start = time.perf_counter()
        roll = Roll.from_any(roll)
        legal = self.variant.legal_plays(position, roll, first_turn)
        results = legal.boards()
        if not results:
            return Hint(position, roll, first_turn, (), self.name, seconds=time.perf_counter() - start)
        ev = self.evaluator
        boards = list(results)
        opp_off = position.off(position.turn.other)
        arr = np.array(boards, dtype=np.int16)
        probs = _settle_finished(self.variant.name, arr, opp_off, ev.after_play(arr, opp_off))
        equities = ev.equity(probs)
        plies = np.ones(len(boards), dtype=int)
        if self.config.plies == 2 and len(boards) > 1:
            order = [int(i) for i in np.argsort(-equities)[: self.config.width]]
            probs[order] = self._two_ply(ev, [boards[i] for i in order], opp_off)
            plies[order] = 2
            equities = ev.equity(probs)
        template = position
        entries = []
        for i, board in enumerate(boards):
            play = Play(Step(*s) for s in results[board])
            after = from_mover(board, template).with_turn(position.turn.other)
            entries.append((play, after, float(equities[i]), Chances.from_sequence(probs[i]), int(plies[i])))
        return Hint(position, roll, first_turn, rank(entries), self.name, seconds=time.perf_counter() - start)

    def evaluate(self, position: Position) -> Chances:
        """The side to move's chances before it rolls."""
        board, opp_off = to_mover(position), position.off(position.turn.other)
        return Chances.from_sequence(
            self.evaluator.on_roll(np.array([board], dtype=np.int16), np.array([opp_off]))[0]
        )

    def _two_ply(self, ev: Evaluator, candidates: list[Board], opp_off: int) -> FloatArray:
        """The mover's chances after each of ``candidates``, averaged over the opponent's 21 rolls,
        each answered by the opponent's best reply at 1 ply. One network call for all of them."""
        name = self.variant.name
        out = np.zeros((len(candidates), 5), dtype=np.float64)
        replies: list[Board] = []
        owner: list[int] = []  # (candidate, roll) group of each reply
        groups: list[tuple[int, float]] = []
        for c, mine in enumerate(candidates):
            if finished(mine):
                out[c] = result_probs(loss_multiplier(name, flip(mine, name, opp_off)))
                continue
            theirs = flip(mine, name, opp_off)
            # the opponent's first turn in long nardy: all its checkers still on its head
            their_first = name == "long" and theirs[24] == CHECKERS
            for high, low, weight in ROLLS:
                found = legal_results(self.variant, theirs, high, low, their_first)
                if not found:  # the opponent cannot play: the same board, us on roll
                    found = [theirs]
                groups.append((c, weight))
                replies.extend(found)
                owner.extend([len(groups) - 1] * len(found))
        if not replies:
            return out.astype(np.float32)
        arr = np.array(replies, dtype=np.int16)
        my_off = np.array([candidates[groups[g][0]][0] for g in owner], dtype=np.int16)
        probs = ev.after_play(arr, my_off)  # the opponent's chances after each reply
        probs = _settle_finished(name, arr, my_off, probs)
        eq = ev.equity(probs)
        starts = np.flatnonzero(np.r_[True, np.diff(np.array(owner)) != 0])
        best = np.maximum.reduceat(eq, starts)
        for g, s in enumerate(starts):
            seg = slice(s, starts[g + 1] if g + 1 < len(starts) else len(eq))
            i = s + int(np.argmax(eq[seg] >= best[g]))
            c, weight = groups[g]
            out[c] += weight * swap_sides(probs[i : i + 1])[0]
        result: FloatArray = out.astype(np.float32)
        return result


def _settle_finished(
    variant: str, boards: NDArray[np.int16], opp_off: NDArray[np.int16] | int, probs: FloatArray
) -> FloatArray:
    """Replace the network's guess by the result where the mover has borne off all its checkers."""
    done = np.flatnonzero((boards[:, 25] == 0) & (boards[:, 1:25] <= 0).all(axis=1))
    offs = np.broadcast_to(np.asarray(opp_off), (boards.shape[0],))
    for i in done:
        board = tuple(int(n) for n in boards[i])
        probs[i] = result_probs(loss_multiplier(variant, flip(board, variant, int(offs[i]))))
    return probs
