"""``Observation.layout()``: the most likely layout with fifteen checkers a side."""

from __future__ import annotations

import itertools
import math

import pytest

from nardy.vision.layout import EMPTY, BoardLayout, Counts, Stack
from nardy.vision.observation import CountReading, Observation, PointReading


def _counts(peaks: dict[int, float]) -> tuple[float, ...]:
    rest = 1.0 - sum(peaks.values())
    others = 16 - len(peaks)
    return tuple(peaks.get(n, rest / others) for n in range(16))


def _point(count: int, p_light: float, sure: float = 0.98) -> PointReading:
    return PointReading(_counts({count: sure}), p_light)


def _exact(n: int) -> tuple[float, ...]:
    return tuple(1.0 if k == n else 0.0 for k in range(16))


def _tray(light: int, dark: int, *, measured: bool = True) -> CountReading:
    return CountReading(_exact(light), _exact(dark), measured)


def _observation(
    top: list[PointReading], bottom: list[PointReading], off: CountReading | None = None
) -> Observation:
    return Observation(tuple(top), tuple(bottom), _tray(0, 0), off or _tray(0, 0), True)


def _empty() -> list[PointReading]:
    return [_point(0, 0.5) for _ in range(12)]


def test_a_head_read_short_is_made_up_to_fifteen_from_the_rest_of_the_board() -> None:
    top, bottom = _empty(), _empty()
    # a light head of fifteen whose top layers were missed: 11 looks likeliest, 15 is possible
    top[0] = PointReading(_counts({11: 0.6, 12: 0.2, 15: 0.01}), 0.99)
    bottom[11] = _point(15, 0.01)
    obs = _observation(top, bottom)
    assert obs.point_layout().top[0] == Stack("light", 11)
    assert obs.layout().top[0] == Stack("light", 15)
    assert obs.layout().bottom[11] == Stack("dark", 15)
    assert obs.layout().total("light") == 15


def test_a_single_read_in_the_wrong_colour_is_put_right_by_the_count() -> None:
    top, bottom = _empty(), _empty()
    top[0] = _point(14, 0.99)  # fourteen light
    bottom[0] = _point(15, 0.01)  # fifteen dark
    bottom[5] = _point(1, 0.4)  # one checker, a little likelier dark than light
    obs = _observation(top, bottom)
    assert obs.point_layout().bottom[5] == Stack("dark", 1)
    assert obs.layout().bottom[5] == Stack("light", 1)


def test_the_trays_take_part_in_the_count() -> None:
    top, bottom = _empty(), _empty()
    top[0] = _point(12, 0.99)
    bottom[0] = _point(15, 0.01)
    obs = _observation(top, bottom, _tray(3, 0))
    assert obs.layout().top[0] == Stack("light", 12)
    assert obs.layout().off == Counts(3, 0)


def test_with_the_trays_out_of_view_the_board_holds_at_most_fifteen_and_the_rest_are_off() -> None:
    top, bottom = _empty(), _empty()
    top[0] = PointReading(_counts({15: 0.3, 14: 0.2, 13: 0.15}), 0.99)  # a pile of 13 to 15
    top[3] = _point(2, 0.99)  # and two more light: 17 cannot be
    bottom[0] = _point(10, 0.01)
    obs = _observation(top, bottom, _tray(0, 0, measured=False))
    assert obs.point_layout().total("light") == 17
    seen = obs.layout()
    assert seen.top[3] == Stack("light", 2)
    assert seen.top[0] == Stack("light", 13)
    assert seen.off == Counts(0, 5)


def test_the_confidence_is_the_best_layouts_share_of_all_with_fifteen_a_side() -> None:
    # two doubtful points; every other place is read with no doubt at all
    top = [PointReading(_exact(0), 0.5) for _ in range(12)]
    bottom = list(top)
    top[0] = PointReading(_counts({14: 0.6, 15: 0.3}), 0.9)
    top[1] = PointReading(_counts({0: 0.7, 1: 0.25}), 0.8)
    bottom[0] = PointReading(_exact(15), 0.0)
    obs = _observation(top, bottom)
    places = [*obs.top, *obs.bottom]

    def p(layout: BoardLayout) -> float:
        return math.exp(obs.log_probability(layout))

    # every layout with fifteen a side, by brute force over the two doubtful points' stacks
    fixed = [r.most_likely() for r in places]
    stacks = [EMPTY] + [Stack(c, n) for n in range(1, 16) for c in ("light", "dark")]
    total = 0.0
    for a, b in itertools.product(stacks, stacks):
        row = [a, b, *fixed[2:12]]
        layout = BoardLayout(tuple(row), tuple(fixed[12:]))
        if layout.total("light") == 15 and layout.total("dark") == 15:
            total += p(layout)
    # fifteen on the first point and none beside it (0.27 x 0.7) beats fourteen and one (0.54 x 0.2)
    best = BoardLayout(tuple([Stack("light", 15), EMPTY, *fixed[2:12]]), tuple(fixed[12:]))
    assert obs.layout() == best
    assert obs.confidence == pytest.approx(p(best) / total, rel=1e-9)
    assert obs.confidence_point_by_point < obs.confidence


def test_a_board_that_cannot_hold_fifteen_a_side_is_read_point_by_point() -> None:
    certain = [PointReading(_exact(0), 0.5) for _ in range(12)]
    bottom = list(certain)
    bottom[0] = PointReading(_exact(14), 1.0)  # no doubt left anywhere: fourteen light, no dark
    obs = _observation(list(certain), bottom)
    assert obs.layout() == obs.point_layout()
    assert obs.layout().bottom[0] == Stack("light", 14)


def test_a_place_that_allows_nothing_leaves_the_reading_point_by_point() -> None:
    top, bottom = _empty(), _empty()
    top[0] = _point(15, 0.99)
    bottom[0] = _point(15, 0.01)
    top[5] = PointReading((0.0,) * 16, 0.5)  # a broken reading: no count at all
    obs = _observation(top, bottom)
    assert obs.layout() == obs.point_layout()
    assert obs.confidence == obs.confidence_point_by_point
