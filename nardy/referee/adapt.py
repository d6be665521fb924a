"""From the camera's observation (image rows, light/dark) to the referee's reading (white's numbering)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from nardy.calibration.orientation import Orientation
from nardy.referee.reading import BoardReading, row_neighbourhood
from nardy.rules import CHECKERS
from nardy.vision.observation import CountReading, Observation, PointReading


@dataclass(frozen=True, slots=True)
class PileDoubt:
    """How far the referee trusts a camera's count of a tall stack.

    A camera sees the line of checkers along a point well, but not how many are piled on top of
    it. Whatever the reading says, a point that likely holds at least ``from_count`` checkers
    keeps a share ``share`` of that likelihood spread evenly over every taller count, so that the
    count of checkers (each side has fifteen) can say how tall the pile is.
    """

    from_count: int = 4
    share: float = 0.05


@dataclass(frozen=True, slots=True)
class ColourDoubt:
    """How far the referee trusts a camera's call of a stack's colour.

    However sure the camera is, the other colour keeps at least ``floor`` of the probability.
    On the vision accuracy set (seed 3, 150 boards) the stacks called with confidence 0.98 or
    more had the wrong colour 0.3% of the time, but 1.7% on gold and translucent checkers, and
    such errors come in runs (the same stack under the same glare, frame after frame): without a
    floor a stack read in the wrong colour costs a legal play so much that the play is called
    illegal ("white's checkers moved on black's turn").
    """

    floor: float = 0.02


def with_pile_doubt(dist: Mapping[int, float], doubt: PileDoubt = PileDoubt()) -> dict[int, float]:
    """``dist`` (signed count -> probability) with the pile's share spread over taller counts."""
    taller = CHECKERS - doubt.from_count
    if taller <= 0 or doubt.share <= 0:
        return dict(dist)
    # counts below a pile keep their probability; a pile gives up ``share`` of its own
    out = {n: p if abs(n) < doubt.from_count else p * (1.0 - doubt.share) for n, p in dist.items()}
    for sign in (1, -1):
        q = sum(p for n, p in dist.items() if n * sign >= doubt.from_count)
        if q <= 0:
            continue
        for n in range(doubt.from_count + 1, CHECKERS + 1):
            out[sign * n] = out.get(sign * n, 0.0) + doubt.share * q / taller
    return out


def _point_distribution(reading: PointReading, p_white: float) -> dict[int, float]:
    dist: dict[int, float] = {}
    for n, p in enumerate(reading.counts):
        if p <= 0:
            continue
        if n == 0:
            dist[0] = p
            continue
        if p_white > 0:
            dist[n] = p * p_white
        if p_white < 1:
            dist[-n] = p * (1 - p_white)
    return dist


def _counts(values: Sequence[float]) -> dict[int, float]:
    return {n: p for n, p in enumerate(values) if p > 0}


def _pair(reading: CountReading, orientation: Orientation) -> tuple[dict[int, float], dict[int, float]]:
    light, dark = _counts(reading.light), _counts(reading.dark)
    return (light, dark) if orientation.white == "light" else (dark, light)


def reading_from_observation(
    observation: Observation,
    orientation: Orientation,
    variant: str,
    pile: PileDoubt = PileDoubt(),
    colour: ColourDoubt = ColourDoubt(),
) -> BoardReading:
    """The referee's reading of one frame, mapped through the board's orientation.

    Long nardy has no bar, so the bar is not scored there; the trays count only when the camera
    saw them. Tall stacks get the ``pile`` doubt, every stack's colour the ``colour`` doubt. The
    points named unsettled (and their neighbours) or under glare are suspect: an alarm must hold
    without them.
    """
    points = orientation.to_white_points(observation.top, observation.bottom)
    distributions = []
    low = min(max(colour.floor, 0.0), 0.5)
    for reading in points:
        p_white = reading.p_light if orientation.white == "light" else 1.0 - reading.p_light
        p_white = min(max(p_white, low), 1.0 - low)
        distributions.append(with_pile_doubt(_point_distribution(reading, p_white), pile))
    # a reflection is measured where it lies, and the camera names every place it touches
    lit = frozenset(point for _, point in named_points(observation.glare, orientation))
    bar = _pair(observation.bar, orientation) if variant == "short" else None
    off = _pair(observation.off, orientation) if observation.off.measured else None
    return BoardReading.from_distributions(
        distributions,
        bar,
        off,
        settled=observation.settled,
        unsettled=observation.unsettled,
        suspect=suspect_points(observation.unsettled, orientation) | lit,
        named=named_points(observation.unsettled, orientation),
        lit=lit,
    )


_PLACE = re.compile(r"^(top|bottom)\[(\d+)\]$")


def named_points(places: Sequence[str], orientation: Orientation) -> tuple[tuple[str, int], ...]:
    """The places among ``places`` that are points (``top[i]``, ``bottom[i]``), each with white's
    number for it."""
    out = []
    for place in places:
        m = _PLACE.match(place)
        if m is not None:
            out.append((place, orientation.point(m.group(1), int(m.group(2)))))  # type: ignore[arg-type]
    return tuple(out)


def suspect_points(places: Sequence[str], orientation: Orientation) -> frozenset[int]:
    """White's points named unsettled (``top[i]``, ``bottom[i]``) and their neighbours in the row:
    a hand or a die is seldom placed exactly, and what covers one point often covers the next."""
    return frozenset(p for _, point in named_points(places, orientation) for p in row_neighbourhood(point))
