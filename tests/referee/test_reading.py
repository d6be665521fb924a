"""The count-keeping reading: an exact search, checked against brute force and its own promises."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from nardy.referee.reading import FLOOR, BoardReading, at_least_seen, row_neighbourhood
from nardy.rules import CHECKERS, Color, Position
from nardy.rules.sample import scatter


def noisy(position: Position, rng: random.Random) -> BoardReading:
    """A reading near ``position`` that sometimes misreads a place outright."""
    points = []
    for n in position.points:
        seen = n if rng.random() < 0.8 else n + rng.choice((-2, -1, 1, 2))
        dist = {seen: 0.5 + 0.5 * rng.random()}
        for _ in range(rng.randint(0, 3)):
            dist[rng.randint(-CHECKERS, CHECKERS)] = rng.random() * 0.3
        points.append(dist)
    bar = ({position.bar_white: 0.9, 1: 0.1}, {position.bar_black: 0.8, 2: 0.2})
    return BoardReading.from_distributions(points, bar, None)


@pytest.mark.parametrize("variant", ["short", "long"])
def test_the_best_board_keeping_the_count_is_a_real_board_scored_as_it_says(variant: str) -> None:
    rng = random.Random(5)
    for _ in range(60):
        truth = scatter(variant, rng)
        reading = noisy(truth, rng)
        ll, best = reading.best_keeping_count(truth)
        assert best is not None
        assert best.total(Color.WHITE) == truth.total(Color.WHITE)
        assert best.total(Color.BLACK) == truth.total(Color.BLACK)
        assert (best.off_white, best.off_black) == (truth.off_white, truth.off_black)
        assert math.isclose(ll, reading.log_likelihood(best), abs_tol=1e-9)
        # no board with the same checkers does better, the true one included
        assert ll >= reading.log_likelihood(truth) - 1e-9
        assert ll <= reading.best_log_likelihood() + 1e-9


def test_it_is_the_maximum_over_every_board_on_a_small_case() -> None:
    """Brute force over every way to put three checkers a side on four points of a long board."""
    rng = random.Random(11)
    for _ in range(20):
        points: list[dict[int, float]] = [{0: 1.0} for _ in range(24)]
        places = (0, 5, 11, 23)
        for i in places:
            points[i] = {k: rng.random() for k in range(-3, 4)}
        reading = BoardReading.from_distributions(points, None, None)
        template = Position("long", (0,) * 11 + (-3,) + (0,) * 11 + (3,), 0, 0, 12, 12, Color.WHITE)
        ll, best = reading.best_keeping_count(template)
        brute = -math.inf
        for counts in itertools.product(range(-3, 4), repeat=4):
            if sum(c for c in counts if c > 0) != 3 or -sum(c for c in counts if c < 0) != 3:
                continue
            board = [0] * 24
            for i, c in zip(places, counts, strict=True):
                board[i] = c
            board_position = Position("long", tuple(board), 0, 0, 12, 12, Color.WHITE)
            brute = max(brute, reading.log_likelihood(board_position))
        assert best is not None and math.isclose(ll, brute, abs_tol=1e-9)


def test_the_mover_may_have_borne_off_but_nobody_else() -> None:
    before = Position("short", (3, 2) + (0,) * 21 + (-15,), 0, 0, 10, 0, Color.WHITE)
    after = Position("short", (2, 1) + (0,) * 21 + (-15,), 0, 0, 12, 0, Color.BLACK)
    reading = BoardReading.certain(after)
    # white's two borne off are allowed when white is bearing off, not when black is
    ll_white, seen = reading.best_keeping_count(before, bearing=Color.WHITE)
    assert seen is not None and seen.points == after.points and seen.off_white == 12
    ll_black, seen_black = reading.best_keeping_count(before, bearing=Color.BLACK)
    assert seen_black is not None and seen_black.off_white == 10 and ll_black < ll_white - 5


@pytest.mark.parametrize("variant", ["short", "long"])
def test_place_gaps_add_up_to_the_gap_between_two_boards(variant: str) -> None:
    rng = random.Random(11)
    for _ in range(30):
        one, other = scatter(variant, rng), scatter(variant, rng)
        reading = noisy(one, rng)
        gaps = reading.place_gaps(other, one)
        assert len(gaps) == 28 and gaps[26:] == (0.0, 0.0)  # 24 points, the bar, trays not read
        gap = reading.log_likelihood(one) - reading.log_likelihood(other)
        assert math.isclose(sum(gaps), gap, abs_tol=1e-9)


def test_a_usual_gap_is_forgiven_only_where_a_board_departs_and_never_more_than_its_total() -> None:
    from nardy.referee.decode import Bias

    start = Position.initial("short")
    reading = BoardReading.certain(start, confidence=0.9)
    moved = start.apply("13/11")  # departs from the reading at points 11 and 13
    gaps = reading.place_gaps(moved, start)
    assert {i + 1 for i, g in enumerate(gaps) if g > 0} == {11, 13}
    usual = [0.0] * 28
    usual[12], usual[5] = 1.5, 3.0  # the camera usually misreads points 13 and 6
    assert Bias(tuple(usual), 10.0).forgive(reading, moved, start) == pytest.approx(1.5)
    assert Bias(tuple(usual), 1.0).forgive(reading, moved, start) == pytest.approx(1.0)
    assert Bias(tuple(usual), 10.0).forgive(reading, start, start) == 0.0
    assert Bias().forgive(reading, moved, start) == 0.0


def test_a_board_gains_nothing_where_it_departs_toward_the_cameras_usual_misreading() -> None:
    """The camera reads white's 8-point (three checkers) as four: a board with a fourth checker
    there is likelier by 1.5 in this frame, and that is no evidence, for the camera said the same
    when there were three. Only a departure from what stood is charged, never more than the lean
    or what the board gains there."""
    from nardy.referee.decode import Bias

    start = Position.initial("short")
    points = [{n: 0.98, n + 1: 0.01, n - 1: 0.01} for n in start.points]
    points[7] = {4: 0.45, 3: 0.1, 5: 0.35, 2: 0.1}  # point 8 reads tall
    reading = BoardReading.from_distributions(points, None, None)
    onto = start.apply("13/8")  # a fourth checker on the 8-point
    lean = [0.0] * 24
    lean[7] = math.log(0.45 / 0.1)  # how much likelier four was than the three that stood
    bias = Bias(lean=tuple(lean), stood=start.points)
    gained = math.log(0.45 / 0.1)
    assert reading.place_gaps(onto, start)[7] == pytest.approx(-gained)
    assert bias.leaning(reading, onto, start) == pytest.approx(gained)
    free = (reading.log_likelihood(start), start)
    assert bias.gap(reading, onto, free) == pytest.approx(Bias().gap(reading, onto, free) + gained)
    # the board that stood is charged nothing; nor is a lean smaller than the gain exceeded
    assert bias.leaning(reading, start, onto) == 0.0
    lean[7] = 0.5
    assert Bias(lean=tuple(lean), stood=start.points).leaning(reading, onto, start) == pytest.approx(0.5)
    # a point the camera reads right is no excuse
    lean[7], lean[12] = 0.0, 3.0
    assert Bias(lean=tuple(lean), stood=start.points).leaning(reading, onto, start) == 0.0


def test_pinned_points_hold_what_the_position_has_there_and_unread_ones_soak_up_the_count() -> None:
    """Pinning points 7 and 12 to what the start has there keeps white's checkers on white's head;
    left unread, point 7 takes the three white checkers the reading of point 24 is unsure of."""
    start = Position.initial("long")
    points: list[dict[int, float]] = [{n: 1.0} for n in start.points]
    points[11] = {-4: 0.5, -15: 0.5}
    points[23] = {12: 0.4, 15: 0.3, 13: 0.3}
    reading = BoardReading.from_distributions(points, ({0: 1.0}, {0: 1.0}), ({0: 1.0}, {0: 1.0}))
    both = frozenset({7, 12})
    pinned = reading.pinned(both, start)
    assert pinned.points[6] == {0: 0.0} and pinned.points[11] == {-15: 0.0}
    assert all(pinned.points[i] is reading.points[i] for i in range(24) if i + 1 not in both)
    _, kept = pinned.best_keeping_count(start)
    assert kept is not None and kept.points[11] == -15 and kept.points[23] == 15
    _, soaked = reading.unread(both).best_keeping_count(start)
    assert soaked is not None and (soaked.points[6], soaked.points[11], soaked.points[23]) == (3, -15, 12)
    assert reading.pinned(frozenset(), start) is reading


def test_vague_places_are_those_read_under_the_floor_and_those_not_read() -> None:
    start = Position.initial("short")
    points: list[dict[int, float]] = [{n: 1.0} for n in start.points]
    points[5] = {5: 0.6, 4: 0.4}  # white's 6-point: likelier five than not
    points[18] = {-5: 0.4, -4: 0.6}  # black's 6-point: under one half on the start's five
    reading = BoardReading.from_distributions(points, ({0: 0.45, 1: 0.55}, {0: 1.0}), None)
    assert reading.vague_places(start, math.log(0.5)) == frozenset({19, "bar", "off"})
    assert reading.vague_places(start, math.log(0.3)) == frozenset({"off"})  # trays unread
    moved = start.apply("6/2")  # four on the 6-point (0.4) and a checker on 2 that is not seen
    assert reading.vague_places(moved, math.log(0.5)) == frozenset({2, 6, 19, "bar", "off"})


def test_under_glare_a_point_holds_at_least_the_checkers_seen_there_of_either_colour() -> None:
    one = at_least_seen({-1: math.log(0.98), 0: math.log(0.02)})
    assert set(one) == set(range(-CHECKERS, CHECKERS + 1))
    assert one[0] == pytest.approx(math.log(0.02))  # a checker seen there is not nothing
    assert all(one[n] == pytest.approx(0.0) for n in (1, -1, 3, -15))  # washed out, or lightened
    pile = at_least_seen({3: math.log(0.9), 2: math.log(0.1)})
    assert pile[0] == pile[1] == pytest.approx(math.log(FLOOR))
    assert (pile[2], pile[-2]) == pytest.approx((math.log(0.1), math.log(0.1)))
    assert (pile[3], pile[-3], pile[7]) == pytest.approx((0.0, 0.0, 0.0))
    empty = at_least_seen({0: 0.0})
    assert all(v == pytest.approx(0.0) for v in empty.values())  # may hold anything


def _suspect(named: dict[str, int], lit: set[int]) -> BoardReading:
    """The start of a short game read plainly, with ``named`` places (name -> point) called
    unsettled, ``lit`` points under glare, and the suspects the adapter would make of them."""
    start = Position.initial("short")
    reading = BoardReading.certain(start)
    suspect = frozenset(lit).union(*(row_neighbourhood(p) for p in named.values()))
    return BoardReading.from_distributions(
        [{n: math.exp(v) for n, v in d.items()} for d in reading.points],
        suspect=suspect,
        named=tuple(named.items()),
        lit=frozenset(lit),
    )


def test_without_suspects_unreads_what_a_hand_may_cover_and_floors_what_glare_lies_on() -> None:
    unread = {n: -math.log(2 * CHECKERS + 1) for n in range(-CHECKERS, CHECKERS + 1)}
    # a hand over point 10 (and so its neighbours), glare on point 6
    reading = _suspect({"bottom[9]": 10}, {6})
    clear = reading.without_suspects()
    assert [i + 1 for i, d in enumerate(clear.points) if d == unread] == [9, 10, 11]
    assert clear.points[5] == at_least_seen(reading.points[5])
    assert all(clear.points[i] is reading.points[i] for i in range(24) if i + 1 not in {6, 9, 10, 11})
    assert not (clear.suspect or clear.named or clear.lit)
    # a place called unsettled under the glare is the reflection on its checkers: not a hand, so
    # its neighbours are read as they are
    alone = _suspect({"bottom[5]": 6}, {6}).without_suspects()
    assert alone.points[5] == at_least_seen(reading.points[5])
    assert alone.points[4] == reading.points[4] and alone.points[6] == reading.points[6]
    # glare beside a hand may be the hand's doing: unread
    beside = _suspect({"bottom[6]": 7}, {6}).without_suspects()
    assert [i + 1 for i, d in enumerate(beside.points) if d == unread] == [6, 7, 8]
    # suspects with no cause given are unread, as they always were
    bare = BoardReading.certain(Position.initial("short"))
    bare = BoardReading.from_distributions(
        [{n: math.exp(v) for n, v in d.items()} for d in bare.points], suspect=frozenset({3})
    )
    assert [i + 1 for i, d in enumerate(bare.without_suspects().points) if d == unread] == [3]
