"""Seeded random matches for the recording tests: real legal games with cube actions and resignations."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

from nardy.rules import Color, Play, Position, Roll, Variant, find_variant
from nardy.rules.record import (
    Action,
    CubeAction,
    CubeState,
    GameRecord,
    MatchInfo,
    MatchRecord,
    TurnRecord,
    judge_turn,
    next_cube_state,
)
from nardy.rules.scoring import NAMES, GameResult

START = datetime(2025, 3, 14, 18, 30, tzinfo=UTC)


def random_roll(rng: random.Random) -> Roll:
    return Roll(rng.randint(1, 6), rng.randint(1, 6))


def random_game(
    variant: Variant,
    number: int,
    rng: random.Random,
    clock: list[datetime],
    *,
    doubling: bool = True,
    cube_rate: float = 0.04,
    resign_rate: float = 0.004,
    illegal_rate: float = 0.0,
    max_turns: int = 600,
) -> GameRecord:
    """A random legal game; ``clock[0]`` advances a few seconds per action."""

    def tick() -> datetime:
        clock[0] += timedelta(seconds=rng.randint(3, 40))
        return clock[0]

    started = tick()
    first = Color.WHITE if rng.random() < 0.5 else Color.BLACK
    position = Position.initial(variant.name, first)
    cube = CubeState()
    actions: list[Action] = []
    played = {Color.WHITE: False, Color.BLACK: False}
    for _ in range(max_turns):
        mover = position.turn
        may_double = doubling and variant.options.cube and played[mover] and cube.owner in (None, mover)
        if may_double and cube.value < 64 and rng.random() < cube_rate:
            offer = CubeAction("double", mover, cube.value * 2, tick())
            actions.append(offer)
            cube = next_cube_state(cube, offer)
            answer = CubeAction("take" if rng.random() < 0.75 else "drop", mover.other, offer.cube, tick())
            actions.append(answer)
            cube = next_cube_state(cube, answer)
            if answer.kind == "drop":
                result = GameResult(mover, 1, cube.value, NAMES[variant.name][1])
                return GameRecord(number, tuple(actions), result, "drop", started, tick())
        if played[mover] and rng.random() < resign_rate:
            multiplier = rng.choice((1, 1, 2))
            result = GameResult(mover, multiplier, cube.value, NAMES[variant.name][multiplier])
            return GameRecord(number, tuple(actions), result, "resign", started, tick())
        roll = random_roll(rng)
        first_turn = not played[mover]
        while first_turn and not played[mover.other] and roll.is_double:
            roll = random_roll(rng)  # the sports opening: the first mover never opens with a double
        rolled = tick()
        legal = variant.legal_plays(position, roll, first_turn)
        items = list(legal.items())
        turn: TurnRecord
        if items and illegal_rate and rng.random() < illegal_rate:
            turn = _illegal_turn(variant, position, roll, first_turn, rng, rolled, tick())
        elif items:
            play, after = rng.choice(items)
            turn = TurnRecord(roll, play, position, after, rolled_at=rolled, decided_at=tick())
        else:
            turn = TurnRecord(roll, Play(), position, position.with_turn(mover.other), rolled, tick())
        actions.append(turn)
        played[mover] = True
        position = turn.after
        result = variant.result(position, cube.value)
        if result is not None:
            return GameRecord(number, tuple(actions), result, "bear-off", started, tick())
    raise AssertionError("a random game ran past max_turns")


def _illegal_turn(
    variant: Variant,
    position: Position,
    roll: Roll,
    first_turn: bool,
    rng: random.Random,
    rolled: datetime,
    decided: datetime,
) -> TurnRecord:
    """A play of another roll that the judge finds illegal for this one, let stand by the opponent."""
    for _ in range(30):
        other = random_roll(rng)
        plays = list(variant.legal_plays(position, other, first_turn))
        if not plays:
            continue
        turn = judge_turn(
            variant, position, roll, rng.choice(plays), first_turn, rolled_at=rolled, decided_at=decided
        )
        if turn.illegal:
            return TurnRecord(
                turn.roll,
                turn.play,
                turn.before,
                turn.after,
                rolled,
                decided,
                illegal=True,
                accepted=True,
                reason=turn.reason,
            )
    items = list(variant.legal_plays(position, roll, first_turn).items())
    play, after = rng.choice(items)
    return TurnRecord(roll, play, position, after, rolled, decided)


def random_match(
    variant: Variant | str,
    length: int,
    seed: int,
    *,
    white: str = "Anna Petrosyan",
    black: str = "Boris Aliyev",
    max_games: int = 25,
    **game_options: Any,
) -> MatchRecord:
    """A whole random match to ``length`` points (or ``max_games`` games of a session)."""
    v = find_variant(variant) if isinstance(variant, str) else variant
    rng = random.Random(seed)
    clock = [START]
    info = MatchInfo(
        white, black, v, length, venue="Club Nardy, table 3", event="Spring open, round 2", started_at=START
    )
    games: list[GameRecord] = []
    score = [0, 0]
    crawford_done = False
    for number in range(1, max_games + 1):
        crawford = False
        if (
            length
            and v.options.crawford
            and not crawford_done
            and (score[0] == length - 1) != (score[1] == length - 1)
        ):
            crawford = crawford_done = True
        game = random_game(v, number, rng, clock, doubling=not crawford, **game_options)
        games.append(game)
        assert game.result is not None
        score[0 if game.result.winner is Color.WHITE else 1] += game.result.points
        if length and max(score) >= length:
            break
    return MatchRecord(info, tuple(games), ended_at=clock[0] + timedelta(seconds=5))
