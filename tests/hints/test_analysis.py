"""Post-match analysis: losses, marks and totals."""

from __future__ import annotations

import random

import pytest

from nardy.hints import AnalysisConfig, analyse, engine_for
from nardy.rules import Color, Play, Position, Roll, find_variant


def _game(variant: str, seed: int, turns: int, careless: Color) -> list[tuple[Position, Roll, bool, object]]:
    """A seeded game: white follows the engine, ``careless`` plays at random."""
    v = find_variant(variant)
    engine = engine_for(variant, prefer="own")
    rng = random.Random(seed)
    position = v.initial_position()
    played = {Color.WHITE: False, Color.BLACK: False}
    out: list[tuple[Position, Roll, bool, object]] = []
    for _ in range(turns):
        roll = Roll(rng.randint(1, 6), rng.randint(1, 6))
        first = not played[position.turn]
        played[position.turn] = True
        hint = engine.hint(position, roll, first)
        if not hint.plays:
            out.append((position, roll, first, None))
            position = position.with_turn(position.turn.other)
            continue
        entry = rng.choice(hint.plays) if position.turn is careless else hint.plays[0]
        out.append((position, roll, first, entry.play.text() if rng.random() < 0.5 else entry.position))
        position = entry.position
    return out


@pytest.mark.parametrize("variant", ["short", "long"])
def test_best_plays_lose_nothing_random_ones_do(variant: str) -> None:
    turns = _game(variant, seed=5, turns=40, careless=Color.BLACK)
    review = analyse(turns, engine=engine_for(variant, prefer="own"))
    assert len(review.plays) == 40
    summary = review.summary()
    white, black = summary[Color.WHITE], summary[Color.BLACK]
    for r in review.plays:
        assert r.mark != "illegal"
        if r.mover is Color.WHITE and r.loss is not None:
            assert r.loss == 0.0 and r.rank == 1
    assert white.total_loss == 0.0 and white.decisions > 5
    assert black.total_loss > 0.2 and black.mean_loss > 0.0
    assert sum(black.marks.values()) > 0
    data = review.to_json()
    assert data["summary"]["white"]["mean_loss"] == 0.0
    assert {p["mark"] for p in data["plays"]} <= {"", "doubtful", "error", "blunder", "forced", "no-play"}


def test_marks_illegal_forced_and_thresholds() -> None:
    long = Position.initial("long")
    engine = engine_for("long", prefer="own")
    turns = [
        (long, Roll(6, 5), True, "24/13"),  # the only play: forced
        (long, Roll(6, 5), True, "24/18 24/19"),  # two from the head: illegal
        (long, Roll(6, 5), True, Play.from_text("24/18 18/13")),  # the same play, written in steps
    ]
    review = analyse(turns, engine=engine)
    marks = [r.mark for r in review.plays]
    assert marks == ["forced", "illegal", "forced"]
    assert review.plays[1].loss is None and review.plays[1].rank is None
    assert review.summary()[Color.WHITE].decisions == 0
    config = AnalysisConfig()
    assert [config.mark(x) for x in (0.0, 0.05, 0.1, 0.2)] == ["", "doubtful", "error", "blunder"]


def test_accepts_objects_with_turn_attributes() -> None:
    class Turn:
        def __init__(self) -> None:
            self.position = Position.initial("short")
            self.roll = "3-1"
            self.first_turn = True
            self.play = "24/20"

    review = analyse([Turn()], engine=engine_for("short", prefer="own"))
    assert review.plays[0].played is not None and review.plays[0].played.text() == "24/20"
    assert review.plays[0].choices == 16


def test_a_recorded_match() -> None:
    from nardy.hints import analyse_match
    from nardy.rules.record import GameRecord, MatchInfo, MatchRecord, judge_turn

    variant = find_variant("long")
    turns = _game("long", seed=8, turns=12, careless=Color.BLACK)
    actions = []
    for position, roll, first, play in turns:
        played = Play.from_text(play) if isinstance(play, str) else None
        if isinstance(play, Position):
            played = variant.legal_plays(position, roll, first).find(play)
        actions.append(judge_turn(variant, position, roll, played or Play(), first))
    record = MatchRecord(MatchInfo("Ann", "Bob", variant), (GameRecord(1, tuple(actions)),))
    review = analyse_match(record, engine=engine_for("long", prefer="own"))
    assert [r.game for r in review.plays] == [1] * 12
    plain = analyse(turns, engine=engine_for("long", prefer="own"))
    assert [r.loss for r in review.plays] == [r.loss for r in plain.plays]
    assert review.to_json()["plays"][0]["game"] == 1
