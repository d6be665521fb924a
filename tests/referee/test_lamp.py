"""A camera that comes to read worse in the middle of a game (a lamp switched on over white's
head) and a referee that learns so from the plays it records at the opponent's throws."""

from __future__ import annotations

import random
from collections.abc import Callable

from nardy.referee.events import CHECK
from nardy.referee.reading import BoardReading
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
