"""What the referee needs of a camera reading, in white's numbering.

A :class:`BoardReading` gives, for each of the 24 points, a probability for every signed count
(positive white, negative black, as in the position JSON), and count distributions for the bar
and the trays. The referee scores candidate positions by :meth:`BoardReading.log_likelihood`;
the vision package's observations are turned into readings by :mod:`nardy.referee.adapt`.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from nardy.rules import CHECKERS, Color, Position

FLOOR = 1e-6
"""Probability given to a value a reading did not list (a reading is never absolutely sure)."""
_LOG_FLOOR = math.log(FLOOR)
_TIE = 1e-4
"""Log-likelihood by which a place that keeps its count breaks a tie (far below any evidence)."""


def _logs(dist: Mapping[int, float]) -> dict[int, float]:
    total = sum(p for p in dist.values() if p > 0)
    if total <= 0:
        raise ValueError("a reading's distribution has no mass")
    return {k: math.log(max(p / total, FLOOR)) for k, p in dist.items() if p > 0}


_UNREAD = {n: -math.log(2 * CHECKERS + 1) for n in range(-CHECKERS, CHECKERS + 1)}
"""A point's reading when it is not read: every signed count equally likely."""


def at_least_seen(dist: Mapping[int, float]) -> dict[int, float]:
    """A point's reading ``dist`` (signed count -> log-probability) as it stands under glare.

    A reflection washes checkers out, or lightens a dark one into the other colour; it does not
    make checkers where there are none. So the count the camera read there is a floor on the
    count, not the count: ``n`` checkers of either colour are as likely as the camera reading at
    most ``|n|`` of either colour there (a pile read 3 may be 5; a point read empty may hold
    anything; a checker read there is not nothing).
    """
    out = {}
    total = 0.0
    for height in range(CHECKERS + 1):
        total += sum(math.exp(dist[n]) for n in {height, -height} if n in dist)
        out[height] = out[-height] = math.log(max(total, FLOOR))
    return out


def row_neighbourhood(point: int) -> frozenset[int]:
    """``point`` (1..24) and the points beside it in its row of twelve (across the bar too)."""
    first = 1 if point <= 12 else 13
    return frozenset(p for p in (point - 1, point, point + 1) if first <= p < first + 12)


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
    suspect: frozenset[int] = frozenset()
    """Points (1..24) the camera may have misread because something lay over them or near them
    (the places it called unsettled and their neighbours, the points under glare); an alarm must
    hold without them."""
    named: tuple[tuple[str, int], ...] = ()
    """The places called unsettled that are points, each with its point (1..24)."""
    lit: frozenset[int] = frozenset()
    """The points under a reflection (among ``suspect``, without their neighbours: the camera
    names every point a reflection lies on)."""
    _memo: dict[object, object] = field(default_factory=dict, compare=False, repr=False)
    """Results of :meth:`best_keeping_count`, which every candidate of a frame asks for."""

    @classmethod
    def from_distributions(
        cls,
        points: Sequence[Mapping[int, float]],
        bar: tuple[Mapping[int, float], Mapping[int, float]] | None = None,
        off: tuple[Mapping[int, float], Mapping[int, float]] | None = None,
        settled: bool = True,
        unsettled: tuple[str, ...] = (),
        suspect: frozenset[int] = frozenset(),
        named: tuple[tuple[str, int], ...] = (),
        lit: frozenset[int] = frozenset(),
    ) -> BoardReading:
        if len(points) != 24:
            raise ValueError(f"a reading has 24 points, not {len(points)}")
        return cls(
            tuple(_logs(d) for d in points),
            None if bar is None else (_logs(bar[0]), _logs(bar[1])),
            None if off is None else (_logs(off[0]), _logs(off[1])),
            settled,
            unsettled,
            suspect,
            named,
            lit,
        )

    def _copy(self, **changes: Any) -> BoardReading:
        """This reading with ``changes`` (and a memo of its own)."""
        return replace(self, _memo={}, **changes)

    def without_suspects(self) -> BoardReading:
        """This reading with its suspect points unread: every count there equally likely -- but
        a point suspect only for the glare on it holds at least the checkers seen there (see
        :func:`at_least_seen`)."""
        if not self.suspect:
            return self
        # a place called unsettled under the glare is the reflection on a checker, not a hand
        # (a hand over the lamp's reflection would hide it), and its neighbours are not suspect
        hand = frozenset(
            p for _, point in self.named if point not in self.lit for p in row_neighbourhood(point)
        )
        glare = (self.lit & self.suspect) - hand
        beside = frozenset(p for _, point in self.named if point in glare for p in row_neighbourhood(point))
        unread = self.suspect - glare - (beside - hand)
        points = tuple(
            at_least_seen(d) if i + 1 in glare else _UNREAD if i + 1 in unread else d
            for i, d in enumerate(self.points)
        )
        return self._copy(points=points, suspect=frozenset(), named=(), lit=frozenset())

    def narrowed(self, standing: Collection[str]) -> BoardReading:
        """This reading with the places in ``standing`` (called unsettled, and lying still for a
        while: a pile the camera cannot make out, a reflection over checkers) suspect only
        themselves, not their neighbours too: something that stays is not a hand reaching over."""
        if not any(name in standing for name, _ in self.named):
            return self
        suspect = set(self.lit)
        for name, point in self.named:
            suspect |= {point} if name in standing else row_neighbourhood(point)
        return self._copy(suspect=frozenset(suspect))

    def without_trays(self) -> BoardReading:
        """This reading with the trays unread (as when they are out of view)."""
        if self.off is None:
            return self
        return self._copy(off=None)

    def unread(self, points: frozenset[int], keep_suspect: bool = True) -> BoardReading:
        """This reading with ``points`` (1..24) unread: every count there equally likely, so
        only the checkers' count and the other places say what stands there."""
        if not points:
            return self
        dists = tuple(_UNREAD if i + 1 in points else d for i, d in enumerate(self.points))
        if keep_suspect:
            return self._copy(points=dists)
        return self._copy(points=dists, suspect=frozenset(), named=(), lit=frozenset())

    def pinned(self, points: frozenset[int], position: Position) -> BoardReading:
        """This reading with ``points`` (1..24) read as surely holding what ``position`` has
        there: what the other places show, if those had not changed."""
        if not points:
            return self
        dists = tuple(
            {n: 0.0} if i + 1 in points else d
            for i, (d, n) in enumerate(zip(self.points, position.points, strict=True))
        )
        return self._copy(points=dists)

    def deficits(self, position: Position) -> tuple[float, ...]:
        """For each point, how much less likely (log) ``position``'s count there is than the
        count this reading finds likeliest (0 where the reading agrees)."""
        return tuple(
            max(d.values()) - d.get(n, _LOG_FLOOR) for d, n in zip(self.points, position.points, strict=True)
        )

    def place_gaps(self, position: Position, other: Position) -> tuple[float, ...]:
        """For each place -- the 24 points, then the bar and the trays (white, then black) -- how
        much less likely (log) ``position``'s count there is than ``other``'s (negative where it
        is likelier; 0 at places not read)."""

        def gap(d: dict[int, float], mine: int, theirs: int) -> float:
            return d.get(theirs, _LOG_FLOOR) - d.get(mine, _LOG_FLOOR)

        gaps = [gap(d, n, o) for d, n, o in zip(self.points, position.points, other.points, strict=True)]
        for read, mine, theirs in (
            (self.bar, (position.bar_white, position.bar_black), (other.bar_white, other.bar_black)),
            (self.off, (position.off_white, position.off_black), (other.off_white, other.off_black)),
        ):
            gaps.extend(0.0 if read is None else gap(read[k], mine[k], theirs[k]) for k in range(2))
        return tuple(gaps)

    def vague_places(self, position: Position, floor: float) -> frozenset[object]:
        """Where this reading gives ``position``'s count a log-probability under ``floor``, or
        does not read it at all: the points (1..24), "bar" and "off" (for either colour)."""
        pairs = zip(self.points, position.points, strict=True)
        places: set[object] = {i + 1 for i, (d, n) in enumerate(pairs) if d.get(n, _LOG_FLOOR) < floor}
        for name, read, counts in (
            ("bar", self.bar, (position.bar_white, position.bar_black)),
            ("off", self.off, (position.off_white, position.off_black)),
        ):
            if read is None or any(read[k].get(counts[k], _LOG_FLOOR) < floor for k in range(2)):
                places.add(name)
        return frozenset(places)

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

    def best_keeping_count(
        self, template: Position, bearing: Color | None = None, most_borne: int = 4
    ) -> tuple[float, Position | None]:
        """The most likely board that holds ``template``'s checkers, and its log-likelihood.

        Every checker ``template`` has is on a point, on the bar or in a tray: none appear or
        vanish. The trays hold what they held in ``template``, except that ``bearing`` may have
        borne off up to ``most_borne`` more. This is the free reading the referee measures legal
        candidates against: where the camera cannot count a pile, the count of checkers says how
        tall it must be. Places the reading does not see (bar, trays) cost nothing.

        Among boards within 0.003 (log) of the best, the one closest to ``template`` is chosen.
        Returns ``(-inf, None)`` when no such board exists.
        """
        memo_key = (template.with_turn(Color.WHITE), bearing, most_borne)
        if memo_key not in self._memo:
            self._memo[memo_key] = self._keep_count(template, bearing, most_borne)
        found: tuple[float, Position | None] = self._memo[memo_key]  # type: ignore[assignment]
        ll, position = found
        return ll, None if position is None else position.with_turn(template.turn)

    def _keep_count(
        self, template: Position, bearing: Color | None, most_borne: int
    ) -> tuple[float, Position | None]:
        tw, tb = template.total(Color.WHITE), template.total(Color.BLACK)
        n = CHECKERS + 1
        neg = -np.inf
        # best[w, b]: best log-likelihood of the places so far holding w white and b black checkers
        best = np.full((n, n), neg)
        best[0, 0] = 0.0
        choices: list[np.ndarray] = []

        k_idx = np.arange(n)
        # shift[c, k] = c - k: the count before a place that takes k checkers (invalid below 0)
        shift = k_idx[:, None] - k_idx[None, :]
        valid = shift >= 0
        shift = np.where(valid, shift, 0)
        nothing = np.full(n, neg)

        def step(white: np.ndarray, black: np.ndarray) -> None:
            """One more place: k white checkers there cost ``white[k]`` (``white[0]``: the place
            empty), k black ``black[k]`` (k >= 1)."""
            nonlocal best
            via_w = np.where(valid[:, :, None], best[shift, :] + white[None, :, None], neg)  # [w, k, b]
            kw = np.argmax(via_w, axis=1)
            from_w = np.take_along_axis(via_w, kw[:, None, :], axis=1)[:, 0, :]
            b_cost = black.copy()
            b_cost[0] = neg
            via_b = np.where(valid[None, :, :], best[:, shift] + b_cost[None, None, :], neg)  # [w, b, k]
            kb = np.argmax(via_b, axis=2)
            from_b = np.take_along_axis(via_b, kb[:, :, None], axis=2)[:, :, 0]
            take_b = from_b > from_w
            best = np.where(take_b, from_b, from_w)
            choices.append(np.where(take_b, -kb, kw).astype(np.int16))

        def costs(dist: dict[int, float], sign: int) -> np.ndarray:
            return np.array([dist.get(sign * k, _LOG_FLOOR) for k in range(n)])

        for dist, was in zip(self.points, template.points, strict=True):
            # among boards the reading cannot tell apart (a pile's height, say), prefer the one
            # closest to the template, so that a reason names what really moved
            white, black = costs(dist, 1), costs(dist, -1)
            if was >= 0:
                white[was] += _TIE
            else:
                black[-was] += _TIE
            step(white, black)
        if template.variant == "short":
            # the bar holds both colours: one place for each
            if self.bar is None:
                on_bar_w, on_bar_b = np.zeros(n), np.zeros(n)
            else:
                on_bar_w, on_bar_b = costs(self.bar[0], 1), costs(self.bar[1], 1)
            step(on_bar_w, nothing)
            empty = nothing.copy()
            empty[0] = on_bar_b[0]
            step(empty, on_bar_b)
        elif self.bar is not None:  # long nardy: the bar, if read at all, is empty
            best = best + self.bar[0].get(0, _LOG_FLOOR) + self.bar[1].get(0, _LOG_FLOOR)
        # the trays: what is not on the board or the bar
        total = neg
        end = (0, 0)
        for w in range(min(tw, CHECKERS) + 1):
            for b in range(min(tb, CHECKERS) + 1):
                if best[w, b] == neg:
                    continue
                ow, ob = tw - w, tb - b
                allowed_w = ow == template.off_white or (
                    bearing is Color.WHITE and 0 < ow - template.off_white <= most_borne
                )
                allowed_b = ob == template.off_black or (
                    bearing is Color.BLACK and 0 < ob - template.off_black <= most_borne
                )
                if not (allowed_w and allowed_b):
                    continue
                ll = float(best[w, b])
                if self.off is not None:
                    ll += self.off[0].get(ow, _LOG_FLOOR) + self.off[1].get(ob, _LOG_FLOOR)
                if ll > total:
                    total, end = ll, (w, b)
        if total == neg:
            return neg, None
        # walk back through the places' choices
        w, b = end
        signed: list[int] = []
        for pick in reversed(choices):
            k = int(pick[w, b])
            signed.append(k)
            if k > 0:
                w -= k
            else:
                b += k
        signed.reverse()
        if template.variant == "short":
            points, bar_w, bar_b = signed[:24], signed[24], -signed[25]
        else:
            points, bar_w, bar_b = signed, 0, 0
        on_w = sum(k for k in points if k > 0) + bar_w
        on_b = -sum(k for k in points if k < 0) + bar_b
        position = Position(
            template.variant,
            tuple(points),
            bar_w,
            bar_b,
            tw - on_w,
            tb - on_b,
            template.turn,
        )
        return self.log_likelihood(position), position

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
