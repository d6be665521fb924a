"""What the referee needs of a camera reading, in white's numbering.

A :class:`BoardReading` gives, for each of the 24 points, a probability for every signed count
(positive white, negative black, as in the position JSON), and count distributions for the bar
and the trays. The referee scores candidate positions by :meth:`BoardReading.log_likelihood`;
the vision package's observations are turned into readings by :mod:`nardy.referee.adapt`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from nardy.rules import CHECKERS, Color, Position

FLOOR = 1e-6
"""Probability given to a value a reading did not list (a reading is never absolutely sure)."""
_LOG_FLOOR = math.log(FLOOR)


def _logs(dist: Mapping[int, float]) -> dict[int, float]:
    total = sum(p for p in dist.values() if p > 0)
    if total <= 0:
        raise ValueError("a reading's distribution has no mass")
    return {k: math.log(max(p / total, FLOOR)) for k, p in dist.items() if p > 0}


@dataclass(frozen=True, slots=True)
class BoardReading:
    """Per-place log-probabilities of one settled camera reading, in white's numbering."""

    points: tuple[dict[int, float], ...]
    """24 maps from signed count to log-probability (point i+1)."""
    bar: tuple[dict[int, float], dict[int, float]] | None
    """(white, black) count log-probabilities on the bar; None when the bar is not read."""
    off: tuple[dict[int, float], dict[int, float]] | None
    """(white, black) count log-probabilities in the trays; None when the trays are out of view."""
    settled: bool = True
    """False while a hand or a sliding checker is over the board."""
    unsettled: tuple[str, ...] = ()
    """Where it is not settled (for the alert)."""

    @classmethod
    def from_distributions(
        cls,
        points: Sequence[Mapping[int, float]],
        bar: tuple[Mapping[int, float], Mapping[int, float]] | None = None,
        off: tuple[Mapping[int, float], Mapping[int, float]] | None = None,
        settled: bool = True,
        unsettled: tuple[str, ...] = (),
    ) -> BoardReading:
        if len(points) != 24:
            raise ValueError(f"a reading has 24 points, not {len(points)}")
        return cls(
            tuple(_logs(d) for d in points),
            None if bar is None else (_logs(bar[0]), _logs(bar[1])),
            None if off is None else (_logs(off[0]), _logs(off[1])),
            settled,
            unsettled,
        )

    @classmethod
    def certain(cls, position: Position, confidence: float = 0.98, settled: bool = True) -> BoardReading:
        """A reading that sees ``position`` with probability ``confidence`` at each place.

        The rest of each place's mass goes to the neighbouring counts, as a camera errs.
        """

        def around(n: int, low: int, high: int) -> dict[int, float]:
            near = [m for m in (n - 1, n + 1) if low <= m <= high]
            dist = {n: confidence}
            for m in near:
                dist[m] = (1 - confidence) / len(near)
            return dist

        points = [around(n, -CHECKERS, CHECKERS) for n in position.points]
        bar = (around(position.bar_white, 0, CHECKERS), around(position.bar_black, 0, CHECKERS))
        off = (around(position.off_white, 0, CHECKERS), around(position.off_black, 0, CHECKERS))
        return cls.from_distributions(points, bar, off, settled)

    # ------------------------------------------------------------------ scoring
    def log_likelihood(self, position: Position) -> float:
        """log P(the board is ``position``) under this reading (places taken as independent)."""
        total = 0.0
        for dist, n in zip(self.points, position.points, strict=True):
            total += dist.get(n, _LOG_FLOOR)
        if self.bar is not None:
            total += self.bar[0].get(position.bar_white, _LOG_FLOOR)
            total += self.bar[1].get(position.bar_black, _LOG_FLOOR)
        if self.off is not None:
            total += self.off[0].get(position.off_white, _LOG_FLOOR)
            total += self.off[1].get(position.off_black, _LOG_FLOOR)
        return total

    def most_likely(self) -> tuple[tuple[int, ...], tuple[int, int] | None, tuple[int, int] | None]:
        """The best value at each place independently: (points, bar, off)."""

        def best(d: dict[int, float]) -> int:
            return max(d.items(), key=lambda kv: kv[1])[0]

        points = tuple(best(d) for d in self.points)
        bar = None if self.bar is None else (best(self.bar[0]), best(self.bar[1]))
        off = None if self.off is None else (best(self.off[0]), best(self.off[1]))
        return points, bar, off

    def best_log_likelihood(self) -> float:
        """log P of :meth:`most_likely`: the upper bound of :meth:`log_likelihood`."""
        total = sum(max(d.values()) for d in self.points)
        for pair in (self.bar, self.off):
            if pair is not None:
                total += max(pair[0].values()) + max(pair[1].values())
        return total

    def key(self) -> tuple[object, ...]:
        """Identifies the most likely reading: two readings with the same key look the same."""
        return self.most_likely()

    def as_position(self, variant: str, turn: Color, template: Position | None = None) -> Position | None:
        """The most likely reading as a position, or None when it is not one (16 checkers, ...).

        Places the reading does not see (bar, trays) are filled so that each side keeps the
        count of ``template`` where possible.
        """
        points, bar, off = self.most_likely()
        tw = template.total(Color.WHITE) if template else CHECKERS
        tb = template.total(Color.BLACK) if template else CHECKERS
        on_w = sum(n for n in points if n > 0)
        on_b = -sum(n for n in points if n < 0)
        tries = []
        if bar is not None or off is not None:
            bw, bb = bar if bar is not None else (0, 0)
            ow, ob = off if off is not None else (max(tw - on_w - bw, 0), max(tb - on_b - bb, 0))
            tries.append((bw, bb, ow, ob))
        # the points are what a camera reads best: fall back on them, with the bar and the trays
        # filled in from the checker counts
        if variant == "long" or bar is None:
            tries.append((0, 0, max(tw - on_w, 0), max(tb - on_b, 0)))
        else:
            bw, bb = bar
            tries.append((bw, bb, max(tw - on_w - bw, 0), max(tb - on_b - bb, 0)))
            tries.append((0, 0, max(tw - on_w, 0), max(tb - on_b, 0)))
        for bw, bb, ow, ob in tries:
            try:
                return Position(variant, points, bw, bb, ow, ob, turn)
            except ValueError:
                continue
        return None
