"""Random positions for tests, benchmarks and training, from an explicit ``random.Random``.

Two kinds: *playouts* (random legal games from the start, stopped at a random turn: positions
that occur in play) and *scatters* (checkers dropped anywhere the rules allow: the corners
playouts rarely reach -- many on the bar, bear-offs with checkers back).
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from nardy.rules.color import Color
from nardy.rules.dice import Roll
from nardy.rules.position import CHECKERS, Position
from nardy.rules.variants import Variant, find_variant


def random_roll(rng: random.Random) -> Roll:
    return Roll(rng.randint(1, 6), rng.randint(1, 6))


def playout(
    variant: Variant | str, rng: random.Random, max_turns: int = 400
) -> Iterator[tuple[Position, Roll, bool]]:
    """Play random legal games from the start; yield ``(position, roll, first_turn)`` before each play.

    Stops when a game ends or after ``max_turns`` plays.
    """
    v = find_variant(variant)
    first = Color.WHITE if rng.random() < 0.5 else Color.BLACK
    pos = Position.initial(v.name, first)
    played = {Color.WHITE: False, Color.BLACK: False}
    for _ in range(max_turns):
        roll = random_roll(rng)
        first_turn = not played[pos.turn]
        if first_turn and v.options.opening == "sports" and roll.is_double and not played[pos.turn.other]:
            continue  # the first mover never opens with a double under the sports opening
        yield pos, roll, first_turn
        results = list(v.legal_plays(pos, roll, first_turn).positions())
        played[pos.turn] = True
        pos = rng.choice(results) if results else pos.with_turn(pos.turn.other)
        if pos.off_white == CHECKERS or pos.off_black == CHECKERS:
            return


def scatter(variant: Variant | str, rng: random.Random, turn: Color | None = None) -> Position:
    """A random position with every checker placed somewhere legal for ``variant``."""
    v = find_variant(variant)
    long = v.name == "long"
    for _ in range(1000):
        points = [0] * 24
        bar = {Color.WHITE: 0, Color.BLACK: 0}
        off = {Color.WHITE: 0, Color.BLACK: 0}
        style = rng.random()
        ok = True
        for color in (Color.WHITE, Color.BLACK):
            sign = 1 if color is Color.WHITE else -1
            home = range(1, 7) if color is Color.WHITE else (range(19, 25) if not long else range(13, 19))
            for _ in range(CHECKERS):
                r = rng.random()
                if r < 0.1 and not long and style < 0.5:
                    bar[color] += 1
                    continue
                if r < 0.2 and style > 0.4:
                    off[color] += 1
                    continue
                choices = list(home) if style > 0.7 and r < 0.9 else list(range(1, 25))
                rng.shuffle(choices)
                for p in choices:
                    if points[p - 1] * sign >= 0:
                        points[p - 1] += sign
                        break
                else:
                    ok = False
        if not ok or (off[Color.WHITE] == CHECKERS or off[Color.BLACK] == CHECKERS):
            continue
        side = turn if turn is not None else (Color.WHITE if rng.random() < 0.5 else Color.BLACK)
        pos = Position(
            v.name,
            tuple(points),
            bar[Color.WHITE],
            bar[Color.BLACK],
            off[Color.WHITE],
            off[Color.BLACK],
            side,
        )
        if long and _has_illegal_block(v, pos):
            continue
        return pos
    raise RuntimeError("could not scatter a legal position")  # pragma: no cover - vanishingly unlikely


def _has_illegal_block(v: Variant, pos: Position) -> bool:
    from nardy.rules.board import to_mover
    from nardy.rules.movegen import illegal_block

    return any(illegal_block(to_mover(pos, c)) is not None for c in Color)


def sample(
    variant: Variant | str, n: int, seed: int, scatter_share: float = 0.3
) -> list[tuple[Position, Roll, bool]]:
    """``n`` seeded ``(position, roll, first_turn)`` cases: playout positions and a share of scatters."""
    rng = random.Random(seed)
    out: list[tuple[Position, Roll, bool]] = []
    while len(out) < n:
        if rng.random() < scatter_share:
            out.append((scatter(variant, rng), random_roll(rng), False))
            continue
        game = list(playout(variant, rng))
        take = rng.sample(game, min(len(game), 8, n - len(out)))
        out.extend(take)
    return out
