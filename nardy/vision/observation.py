"""``Observation``: what the recognizer read off one frame, with a probability for every alternative.

For each of the 24 points it gives a probability for every count 0..15 and the probability that the
checkers there are light; for the bar and the trays a count distribution per colour. The referee can
combine these with the rules (``log_probability(layout)``) to pick the most likely *legal* position
rather than the most likely one point by point.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nardy.vision.geometry import ROWS, Row
from nardy.vision.layout import CHECKERS_PER_SIDE, EMPTY, BoardLayout, Colour, Counts, Stack


@dataclass(frozen=True)
class PointReading:
    """One point: ``counts[n]`` = P(n checkers), ``p_light`` = P(they are light | any)."""

    counts: tuple[float, ...]
    p_light: float

    def probability(self, colour: Colour | None, count: int) -> float:
        """P(this point holds ``count`` checkers of ``colour``) (colour None with count 0)."""
        if count < 0 or count >= len(self.counts):
            return 0.0
        if count == 0:
            return self.counts[0] if colour is None else 0.0
        if colour is None:
            return 0.0
        return self.counts[count] * (self.p_light if colour == "light" else 1.0 - self.p_light)

    def most_likely(self) -> Stack:
        n = int(np.argmax(self.counts))
        if n == 0:
            return EMPTY
        return Stack("light" if self.p_light >= 0.5 else "dark", n)

    @property
    def confidence(self) -> float:
        """Probability of ``most_likely()``."""
        s = self.most_likely()
        return self.probability(s.colour, s.count)


@dataclass(frozen=True)
class CountReading:
    """Per-colour count distributions (the bar, the trays): ``light[n]`` = P(n light checkers)."""

    light: tuple[float, ...]
    dark: tuple[float, ...]
    measured: bool = True
    """False when nothing was seen and the counts are inferred (trays out of view)."""

    def most_likely(self) -> Counts:
        return Counts(int(np.argmax(self.light)), int(np.argmax(self.dark)))

    @property
    def confidence(self) -> float:
        c = self.most_likely()
        return float(self.light[c.light] * self.dark[c.dark])


@dataclass(frozen=True)
class Observation:
    """One frame's reading."""

    top: tuple[PointReading, ...]
    """12 points of the top row, from the top-left."""
    bottom: tuple[PointReading, ...]
    """12 points of the bottom row, from the bottom-left."""
    bar: CountReading
    off: CountReading
    settled: bool
    """False when something that is not a resting checker is over the board (a hand, a checker in
    motion); ``unsettled`` then says where."""
    unsettled: tuple[str, ...] = ()
    """Places that are not settled: ``top[3]``, ``bottom[11]``, ``bar``, ``board``."""
    timings_ms: dict[str, float] = field(default_factory=dict)
    """Time spent in each stage for this frame."""
    debug: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    """Intermediate results for drawing (disc centres in the frame, ...)."""
    glare: tuple[str, ...] = ()
    """Places a lamp's reflection lies on (named like ``unsettled``): the board is settled there, but
    a checker may be washed out of the reading."""

    def row(self, row: Row) -> tuple[PointReading, ...]:
        return self.top if row == "top" else self.bottom

    def layout(self) -> BoardLayout:
        """The most likely layout, point by point; the trays, when read, together with what the board
        leaves (``off_given_board``)."""
        return BoardLayout(
            tuple(r.most_likely() for r in self.top),
            tuple(r.most_likely() for r in self.bottom),
            self.bar.most_likely(),
            self.off_given_board() if self.off.measured else self.off.most_likely(),
        )

    def off_given_board(self) -> Counts:
        """The most likely borne-off counts given the trays' reading *and* the board's: each side has
        15, so P(n off) is weighed by P(15 - n on the points and the bar) (readings taken as
        independent). The trays alone are ``off.most_likely()``."""
        best = []
        for colour in ("light", "dark"):
            on = np.ones(1)
            for r in self.top + self.bottom:
                share = r.p_light if colour == "light" else 1.0 - r.p_light
                q = np.asarray(r.counts, dtype=np.float64) * share
                q[0] = max(0.0, 1.0 - float(q[1:].sum()))
                on = np.convolve(on, q)[: CHECKERS_PER_SIDE + 1]
            on = np.convolve(on, np.asarray(self.bar.light if colour == "light" else self.bar.dark))
            on = np.pad(on, (0, max(0, CHECKERS_PER_SIDE + 1 - len(on))))[: CHECKERS_PER_SIDE + 1]
            tray = np.asarray(self.off.light if colour == "light" else self.off.dark, dtype=np.float64)
            k = min(len(tray), CHECKERS_PER_SIDE + 1)
            joint = tray[:k] * on[::-1][:k]
            best.append(int(np.argmax(joint)) if joint.max() > 0 else int(np.argmax(tray)))
        return Counts(best[0], best[1])

    @property
    def confidence(self) -> float:
        """Probability that ``layout()`` is exactly right (points, bar and trays taken as independent)."""
        p = math.prod(r.confidence for r in self.top + self.bottom)
        p *= self.bar.confidence * (self.off.confidence if self.off.measured else 1.0)
        return float(p)

    def log_probability(self, layout: BoardLayout) -> float:
        """log P(``layout``) under this reading (-inf if impossible): how a referee ranks candidate
        positions."""
        total = 0.0
        for row in ROWS:
            for reading, stack in zip(self.row(row), layout.row(row), strict=True):
                p = reading.probability(stack.colour, stack.count)
                if p <= 0:
                    return -math.inf
                total += math.log(p)
        pairs: tuple[tuple[CountReading, Counts], ...] = ((self.bar, layout.bar), (self.off, layout.off))
        for count_reading, counts in pairs:
            if count_reading is self.off and not count_reading.measured:
                continue
            for dist, n in ((count_reading.light, counts.light), (count_reading.dark, counts.dark)):
                p = dist[n] if n < len(dist) else 0.0
                if p <= 0:
                    return -math.inf
                total += math.log(p)
        return total

    def json(self) -> dict[str, Any]:
        """The ``nardy recognize --json`` record."""
        out = self.layout().json()
        out["settled"] = self.settled
        out["unsettled"] = list(self.unsettled)
        out["confidence"] = round(self.confidence, 4)
        out["timings_ms"] = {k: round(v, 3) for k, v in self.timings_ms.items()}
        return out
