"""``Observation``: what the recognizer read off one frame, with a probability for every alternative.

For each of the 24 points it gives a probability for every count 0..15 and the probability that the
checkers there are light; for the bar and the trays a count distribution per colour. The referee can
combine these with the rules (``log_probability(layout)``) to pick the most likely *legal* position
rather than the most likely one point by point.

``layout()`` knows one rule a board always keeps: each side has fifteen checkers. It is the most likely
layout with fifteen of each colour over the points, the bar and the trays (at most fifteen on the
board when the trays are out of view), so a head pile read four short or a single read in the wrong
colour is put right by what the rest of the board shows. ``point_layout()`` is the reading point by
point.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import NDArray

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
    a checker may be washed out of the reading, or lit up unlike both checker colours."""

    def row(self, row: Row) -> tuple[PointReading, ...]:
        return self.top if row == "top" else self.bottom

    def layout(self) -> BoardLayout:
        """The most likely layout with fifteen checkers of each colour on the points, the bar and the
        trays -- or at most fifteen on the points and the bar, the rest taken as borne off, when the
        trays were not read (readings taken as independent; see ``_decode``)."""
        return self._decoded[0]

    def point_layout(self) -> BoardLayout:
        """The most likely stack point by point, each read on its own; the trays, when read, together
        with what the board leaves (``off_given_board``)."""
        return BoardLayout(
            tuple(r.most_likely() for r in self.top),
            tuple(r.most_likely() for r in self.bottom),
            self.bar.most_likely(),
            self.off_given_board() if self.off.measured else self.off.most_likely(),
        )

    @cached_property
    def _decoded(self) -> tuple[BoardLayout, float]:
        points = [_point_options(r) for r in self.top + self.bottom]
        counts: list[tuple[CountReading, bool]] = [(self.bar, True), (self.off, self.off.measured)]
        extra = [
            _count_options(dist, colour)
            for reading, used in counts
            if used
            for dist, colour in ((reading.light, 0), (reading.dark, 1))
        ]
        found = _decode(points + extra, exact=self.off.measured)
        if found is None:
            return self.point_layout(), self.confidence_point_by_point
        choice, probability = found
        stacks = [EMPTY if n == 0 else Stack(("light", "dark")[c], n) for c, n in choice[:24]]
        bar = Counts(choice[24][1], choice[25][1])
        if self.off.measured:
            off = Counts(choice[26][1], choice[27][1])
        else:
            left = [CHECKERS_PER_SIDE - n for n in (bar.light, bar.dark)]
            for c, n in choice[:24]:
                left[c] -= n
            off = Counts(left[0], left[1])
        return BoardLayout(tuple(stacks[:12]), tuple(stacks[12:]), bar, off), probability

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
        """Probability that ``layout()`` is exactly right, among the layouts with fifteen a side."""
        return self._decoded[1]

    @property
    def confidence_point_by_point(self) -> float:
        """Probability that ``point_layout()`` is exactly right (points, bar and trays taken as
        independent, with no count of fifteen)."""
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


_SIZE = CHECKERS_PER_SIDE + 1
_WIDE = 2 * _SIZE - 1
_WINDOW = (np.arange(_SIZE)[:, None] + _SIZE - 1) * _WIDE + np.arange(_SIZE)[None, :] + _SIZE - 1
"""Flat indices of the (light, dark) table inside its padded copy (31 x 31, the table at the
bottom-right, -inf or 0 above and to the left): an option of k checkers reads the window k up or left."""
_POINT_MOVES = np.array([(0, 0)] + [(c, n) for n in range(1, _SIZE) for c in (0, 1)], dtype=np.intp)


@dataclass(frozen=True)
class _Options:
    """The ways one place can be: ``moves`` (K, 2) of (colour 0 light / 1 dark, checkers) and their
    probabilities ``p`` (K,), all above zero."""

    moves: NDArray[np.intp]
    p: NDArray[np.float64]

    @classmethod
    def of(cls, moves: NDArray[np.intp], p: NDArray[np.float64]) -> _Options:
        keep = p > 0.0
        return cls(moves[keep], p[keep])


def _point_options(reading: PointReading) -> _Options:
    counts = np.asarray(reading.counts[:_SIZE], dtype=np.float64)
    both = np.stack([counts[1:] * reading.p_light, counts[1:] * (1.0 - reading.p_light)], axis=1)
    return _Options.of(_POINT_MOVES[: 1 + 2 * (len(counts) - 1)], np.concatenate([counts[:1], both.ravel()]))


def _count_options(dist: Sequence[float], colour: int) -> _Options:
    p = np.asarray(dist[:_SIZE], dtype=np.float64)
    moves = np.stack([np.full(len(p), colour, dtype=np.intp), np.arange(len(p), dtype=np.intp)], axis=1)
    return _Options.of(moves, p)


def _decode(places: Sequence[_Options], exact: bool) -> tuple[list[tuple[int, int]], float] | None:
    """The most likely choice of one option per place whose light and dark checkers add up to fifteen
    each (``exact``) or to at most fifteen, as (colour, checkers) per place, and its probability among
    all such choices; None when no choice adds up.

    A dynamic programme over the (light, dark) checkers placed so far: a 16 x 16 table of the best
    log-probability (max-product, for the choice) and one of the probability of all choices so far
    (sum-product, kept scaled, for the probability of the best).
    """
    best = np.full((_SIZE, _SIZE), -np.inf)
    best[0, 0] = 0.0
    total = np.zeros((_SIZE, _SIZE))
    total[0, 0] = 1.0
    log_scale = 0.0
    back: list[NDArray[np.intp]] = []
    padded_best = np.full((_WIDE, _WIDE), -np.inf)
    padded_total = np.zeros((_WIDE, _WIDE))
    for options in places:
        if len(options.p) == 0:  # a place that can be nothing at all: no layout adds up
            return None
        colour, n = options.moves[:, 0], options.moves[:, 1]
        # a light option reads the table k rows up, a dark one k columns left
        at = _WINDOW[None] - np.where(colour == 0, n * _WIDE, n)[:, None, None]
        padded_best[_SIZE - 1 :, _SIZE - 1 :] = best
        cand = padded_best.ravel()[at] + np.log(options.p)[:, None, None]
        pick = np.argmax(cand, axis=0)
        best = cand.max(axis=0)
        back.append(pick)
        padded_total[_SIZE - 1 :, _SIZE - 1 :] = total
        total = np.tensordot(options.p, padded_total.ravel()[at], axes=1)
        peak = float(total.max())
        if peak <= 0.0:
            return None
        total /= peak
        log_scale += math.log(peak)
    if exact:
        end = (CHECKERS_PER_SIDE, CHECKERS_PER_SIDE)
        mass = float(total[end])
    else:
        flat = int(np.argmax(best))
        end = (flat // _SIZE, flat % _SIZE)
        mass = float(total.sum())
    if not np.isfinite(best[end]) or mass <= 0.0:
        return None
    light_left, dark_left = end
    choice: list[tuple[int, int]] = []
    for options, pick in zip(reversed(places), reversed(back), strict=True):
        c, k = (int(v) for v in options.moves[pick[light_left, dark_left]])
        choice.append((c, k))
        if c == 0:
            light_left -= k
        else:
            dark_left -= k
    choice.reverse()
    return choice, float(math.exp(float(best[end]) - log_scale - math.log(mass)))
