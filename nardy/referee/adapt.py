"""From the camera's observation (image rows, light/dark) to the referee's reading (white's numbering)."""

from __future__ import annotations

from collections.abc import Sequence

from nardy.calibration.orientation import Orientation
from nardy.referee.reading import BoardReading
from nardy.vision.observation import CountReading, Observation, PointReading


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
    observation: Observation, orientation: Orientation, variant: str
) -> BoardReading:
    """The referee's reading of one frame, mapped through the board's orientation.

    Long nardy has no bar, so the bar is not scored there; the trays count only when the camera
    saw them.
    """
    points = orientation.to_white_points(observation.top, observation.bottom)
    distributions = []
    for reading in points:
        p_white = reading.p_light if orientation.white == "light" else 1.0 - reading.p_light
        distributions.append(_point_distribution(reading, p_white))
    bar = _pair(observation.bar, orientation) if variant == "short" else None
    off = _pair(observation.off, orientation) if observation.off.measured else None
    return BoardReading.from_distributions(
        distributions, bar, off, settled=observation.settled, unsettled=observation.unsettled
    )
