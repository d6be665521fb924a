"""A camera that comes to read worse in the middle of a game (a lamp switched on over white's
head) and a referee that learns so from the plays it records at the opponent's throws; a lamp's
reflection over the very point a play is judged by."""

from __future__ import annotations

import math
import random
from collections.abc import Callable

from nardy.referee.events import CHECK, ILLEGAL_PLAY
from nardy.referee.reading import BoardReading, row_neighbourhood
from nardy.rules import Position, find_variant
from tests.referee.conftest import Table

Make = Callable[..., Table]


def _lamp_on_whites_head(position: Position) -> BoardReading:
    """The camera reads white's head (point 24) two checkers short, sure of it, and is unsure
    whether the point beside it (23) holds two checkers more than it does."""
    points = [{n: 0.98, n + 1: 0.01, n - 1: 0.01} for n in position.points]
    n, beside = position.points[23], position.points[22]
    if n >= 3:
        points[23] = {n - 2: 0.97, n - 1: 0.0299, n: 0.0001}
    if beside >= 0:
        points[22] = {beside: 0.93, beside + 1: 0.01, beside + 2: 0.06}
    return BoardReading.from_distributions(points, ({0: 1.0}, {0: 1.0}), None)


def test_a_camera_that_reads_worse_from_the_middle_of_a_game_is_learned_from_the_throws(
    table: Make,
) -> None:
    t = table("long")
    variant = find_variant("long")
    rng = random.Random(7)
    start = Position.initial("long")
    t.show(start)
    t.roll(5, 3)  # white opens
    played: list[str] = []
    checks: list[int] = []
    for turn in range(24):
        current = t.ref.turn
        assert current is not None
        legal = variant.legal_plays(current.before, current.roll, current.first_turn)
        play, after = next(iter(legal.items()))
        played.append(play.text())
        t.hand()
        lit = turn >= 4  # the lamp is switched on after four turns
        t.see(_lamp_on_whites_head(after) if lit else BoardReading.certain(after))
        checks.append(sum(1 for e in t.ref.bus.history if e.kind == "alert" and e.data["code"] == CHECK))
        a, b = rng.randint(1, 6), rng.randint(1, 6)
        t.roll(a, b)
    assert [m.play.text() for m in t.ref.moves] == played
    flagged = ["uncertain" in m.flags for m in t.ref.moves]
    # under the lamp the board never settles on white's play, so it is recorded at black's
    # throw with a request to check ...
    assert not any(flagged[:4]) and all(flagged[4:12:2])
    # ... and those records teach the referee the camera's new gap: it stops asking
    assert not any(flagged[-5:]) and checks[-1] == checks[-5]
    assert t.ref.bias > 3.0


def _under_glare(
    position: Position, point: int, named: bool, colour_at: dict[int, float] | None = None
) -> BoardReading:
    """``position`` read plainly, with a lamp's reflection on ``point`` -- and, when ``named``,
    that point called unsettled too, as the camera now and then calls a checker under glare."""
    plain = BoardReading.certain(position, 0.98)
    points = [{n: math.exp(v) for n, v in d.items()} for d in plain.points]
    if colour_at is not None:
        points[point - 1] = colour_at
    return BoardReading.from_distributions(
        points,
        ({0: 1.0}, {0: 1.0}),
        None,
        suspect=row_neighbourhood(point) if named else frozenset({point}),
        named=(("bottom[5]", point),) if named else (),
        lit=frozenset({point}),
    )


def test_an_illegal_play_onto_a_point_under_glare_is_still_called(table: Make) -> None:
    """White plays 24/19 with 3-1, a pip too far, onto the point a lamp's reflection lies on.
    Unread there, the board would be 24/20 (a checker on 20 the camera missed); but glare washes
    checkers out, it does not make them: the checker seen on 19 is there."""
    t = table("long")
    start = Position.initial("long")
    t.show(start)
    t.roll(3, 1)
    wrong = start.apply("24/19")
    for k in range(6):
        t.see(_under_glare(wrong, 19, named=k % 2 == 1), frames=2)
    assert ILLEGAL_PLAY in t.alerts()
    assert "5 pips" in t.last("illegal").data["reason"]


def test_a_checker_whose_colour_glare_turns_is_no_illegal_play(table: Make) -> None:
    """White plays 24/20 with 3-1 and the reflection on 20 makes the checker there look black."""
    t = table("long")
    start = Position.initial("long")
    t.show(start)
    t.roll(3, 1)
    right = start.apply("24/20")
    t.see(_under_glare(right, 20, named=False, colour_at={-1: 0.95, 0: 0.04, 1: 0.01}), frames=15)
    assert ILLEGAL_PLAY not in t.alerts() and "illegal" not in t.kinds()
    t.roll(4, 2)  # black throws: the play stands as the rest of the board says
    assert t.ref.moves[-1].play.text() == "24/20"
