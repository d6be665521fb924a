"""A network put to work on mover boards: chances before a roll, and after each candidate play.

``Evaluator.after_play`` is the heart of a 1-ply search: each candidate result (the mover's
view, just after its play) is turned round to the opponent, who is then on roll, evaluated
there, and the chances are turned back to the mover's side.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

import numpy as np
from numpy.typing import NDArray

from nardy.hints.features import FLIP, encode
from nardy.hints.network import FloatArray, Network, equity, swap_sides
from nardy.rules.movegen import Board

IntArray = NDArray[np.int16]

_FLIP_INDEX = {name: np.array(table[1:], dtype=np.intp) for name, table in FLIP.items()}


def turn_round(variant: str, boards: IntArray, opp_off: IntArray | int | None = None) -> IntArray:
    """The opponent's view of mover ``boards`` ``(n, 27)``; ``opp_off`` defaults to a full 15."""
    out = np.empty_like(boards)
    out[:, 1:25] = -boards[:, _FLIP_INDEX[variant]]
    out[:, 25] = boards[:, 26]
    out[:, 26] = boards[:, 25]
    if opp_off is None:
        out[:, 0] = 15 - np.maximum(-boards[:, 1:25], 0).sum(axis=1) - boards[:, 26]
    else:
        out[:, 0] = opp_off
    return out


class Evaluator:
    """Chances and equities from one network, for boards of its variant."""

    __slots__ = ("network", "variant", "backgammons")

    def __init__(self, network: Network, backgammons: bool | None = None) -> None:
        self.network = network
        self.variant = network.variant
        self.backgammons = self.variant == "short" if backgammons is None else backgammons
        """Score backgammons (short nardy; long nardy only with the koks option)."""

    def on_roll(self, boards: IntArray, opp_off: IntArray | None = None) -> FloatArray:
        """Chances of the side on roll for mover ``boards`` ``(n, 27)``: ``(n, 5)``."""
        return self.network.forward(encode(self.variant, boards, opp_off))

    def after_play(self, boards: IntArray, opp_off: IntArray | int | None = None) -> FloatArray:
        """Chances of the side that just played, for its result ``boards`` ``(n, 27)``.

        ``opp_off`` is the opponent's borne-off count (default: a full set of 15 checkers).
        """
        theirs = turn_round(self.variant, boards, opp_off)
        return swap_sides(self.on_roll(theirs, boards[:, 0]))

    def equity(self, probs: FloatArray) -> NDArray[np.float64]:
        return equity(probs, self.backgammons)

    def best(self, candidates: list[Board]) -> int:
        """Index of the candidate result with the highest 1-ply equity (full sets of checkers)."""
        arr = np.array(candidates, dtype=np.int16)
        return int(np.argmax(self.equity(self.after_play(arr))))


@lru_cache(maxsize=4)
def shipped_network(variant: str) -> Network:
    """The trained weights shipped with the package for ``variant`` (``short`` or ``long``)."""
    ref = resources.files("nardy.hints") / "data" / f"{variant}.npz"
    with resources.as_file(ref) as path:
        if not path.exists():
            raise FileNotFoundError(f"no trained weights for {variant} nardy at {path}")
        return Network.load(path)
