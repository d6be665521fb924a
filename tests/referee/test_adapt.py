"""From the camera's observation to the referee's reading: how far each part of it is trusted."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

from nardy.calibration.orientation import Orientation
from nardy.referee.adapt import ColourDoubt, reading_from_observation
from nardy.referee.events import ILLEGAL_PLAY
from nardy.referee.reading import BoardReading, row_neighbourhood
from nardy.rules import Position
from nardy.vision.observation import CountReading, Observation, PointReading
from tests.referee.conftest import Table
from tests.vision.bar_scene import BEFORE, two_on_the_bar
from tests.vision.bar_scene import ORIENTATION as BAR_ORIENTATION

Make = Callable[..., Table]

ORIENTATION = Orientation(home="bottom-right", white="light")
N = 16


def _observation(position: Position, wrong: frozenset[int] = frozenset(), sure: float = 0.999) -> Observation:
    """A camera's observation of ``position``: every count sure, every colour called with
    confidence ``sure`` -- the right colour, except on the points in ``wrong``."""
    readings = []
    for number, n in enumerate(position.points, start=1):
        counts = tuple(0.97 if k == abs(n) else 0.03 / (N - 1) for k in range(N))
        light = n > 0  # white is the light colour here
        if number in wrong:
            light = not light
        readings.append(PointReading(counts, sure if light else 1.0 - sure))
    top, bottom = ORIENTATION.from_white_points(readings)
    empty = CountReading(
        tuple(1.0 if k == 0 else 0.0 for k in range(N)), tuple(1.0 if k == 0 else 0.0 for k in range(N))
    )
    return Observation(tuple(top), tuple(bottom), empty, CountReading(empty.light, empty.dark, False), True)


def _reading(position: Position, wrong: frozenset[int], colour: ColourDoubt | None = None) -> BoardReading:
    observation = _observation(position, wrong)
    return reading_from_observation(observation, ORIENTATION, "short", colour=colour or ColourDoubt())


def test_a_stack_the_camera_is_sure_of_keeps_a_share_for_the_other_colour() -> None:
    start = Position.initial("short")
    reading = _reading(start, frozenset({17}))  # black's three on point 17 read white, surely
    floor = ColourDoubt().floor
    assert math.isclose(math.exp(reading.points[16][3]), 0.97 * (1 - floor), rel_tol=1e-9)
    assert math.isclose(math.exp(reading.points[16][-3]), 0.97 * floor, rel_tol=1e-9)
    plain = _reading(start, frozenset({17}), ColourDoubt(floor=0.0))
    assert math.isclose(math.exp(plain.points[16][-3]), 0.97 * 0.001, rel_tol=1e-9)


def _two_stacks_misread(table: Make, colour: ColourDoubt) -> Table:
    t = table("short")
    start = Position.initial("short")
    t.show(start)
    t.roll(3, 1)
    after = start.apply("8/5 6/5")
    # two stacks nobody touched, white's two on 24 and black's two on 1, each read in the other's
    # colour in every frame (each colour's count stays right: the camera took one for the other)
    seen = _observation(after, frozenset({24, 1}))
    t.see(reading_from_observation(seen, ORIENTATION, "short", colour=colour))
    return t


def test_two_stacks_read_in_the_wrong_colour_are_not_an_illegal_play(table: Make) -> None:
    t = _two_stacks_misread(table, ColourDoubt())
    assert ILLEGAL_PLAY not in t.alerts()
    assert "illegal" not in t.kinds()


def test_without_the_floor_the_same_misread_is_called_illegal(table: Make) -> None:
    t = _two_stacks_misread(table, ColourDoubt(floor=0.0))
    assert ILLEGAL_PLAY in t.alerts()


def test_points_under_glare_are_suspect_but_the_board_is_settled() -> None:
    start = Position.initial("short")
    seen = dataclasses.replace(_observation(start), glare=("top[3]",))
    reading = reading_from_observation(seen, ORIENTATION, "short")
    top, _ = ORIENTATION.from_white_points(list(range(1, 25)))
    lit = top[3]
    # the camera names every point a reflection lies on: its neighbours are read as usual
    assert reading.settled and reading.suspect == {lit}
    hand = dataclasses.replace(seen, glare=(), unsettled=("top[3]",))
    covered = reading_from_observation(hand, ORIENTATION, "short")
    assert covered.suspect == {lit - 1, lit, lit + 1}  # a hand or a die: its neighbours too
    assert not reading_from_observation(_observation(start), ORIENTATION, "short").suspect


def _double_hit_seen(table: Make, miss: float | None) -> Table:
    """White hits two blots with 5-5; the camera sees one of black's two checkers on the bar."""
    t = table("short", options={"opening": "rethrow"})
    t.show(Position.initial("short"))
    t.roll(5, 2)  # white wins the opening and throws anew
    t.ref.command("correct", position=BEFORE.to_json())
    t.show(BEFORE)
    t.roll(5, 5)
    seen = two_on_the_bar(miss)
    t.see(reading_from_observation(seen, BAR_ORIENTATION, "short"), frames=15)
    return t


def test_a_checker_on_the_bar_the_camera_missed_is_not_an_illegal_play(table: Make) -> None:
    t = _double_hit_seen(table, None)
    assert ILLEGAL_PLAY not in t.alerts() and "illegal" not in t.kinds()
    t.roll(6, 1)  # black throws: the play stands as the camera and the count of fifteen say
    assert t.ref.moves[-1].play.text() == "22/17* 18/8*/3"


def test_with_no_room_for_a_missed_bar_checker_the_same_board_is_called_illegal(table: Make) -> None:
    t = _double_hit_seen(table, 0.0)
    assert ILLEGAL_PLAY in t.alerts()


def test_a_place_that_stands_is_suspect_without_its_neighbours() -> None:
    start = Position.initial("short")
    seen = dataclasses.replace(_observation(start), unsettled=("top[3]", "bottom[8]"), glare=("top[10]",))
    reading = reading_from_observation(seen, ORIENTATION, "short")
    (pile, hand), lit = (p for _, p in reading.named), reading.lit
    assert reading.suspect == row_neighbourhood(pile) | row_neighbourhood(hand) | lit
    narrowed = reading.narrowed({"top[3]"})
    assert narrowed.suspect == {pile} | row_neighbourhood(hand) | lit
    assert narrowed.without_suspects().suspect == frozenset()
    assert reading.narrowed({"top[5]"}) is reading  # a place it does not call unsettled
