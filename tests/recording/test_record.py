"""The in-memory match record: JSON round trip, scores, Crawford, cube rules, SGF text."""

from __future__ import annotations

import json
import re
from datetime import datetime

import pytest

from nardy.rules import Color, Play, Position, Roll, find_variant
from nardy.rules.record import (
    CubeAction,
    CubeState,
    GameRecord,
    MatchInfo,
    MatchRecord,
    RecordError,
    TurnRecord,
    cube_state,
    judge_turn,
)
from nardy.rules.sgf import write_sgf
from tests.recording.helpers import random_match


@pytest.mark.parametrize(("variant", "seed"), [("short", 3), ("long", 4)])
def test_json_round_trip_is_lossless(variant: str, seed: int) -> None:
    match = random_match(variant, 5, seed, max_games=3, illegal_rate=0.03)
    data = json.loads(json.dumps(match.to_json()))
    assert MatchRecord.from_json(data) == match
    turn = data["games"][0]["actions"][0]
    assert set(turn) >= {"roll", "play", "steps", "before", "after", "flags", "rolled_at", "decided_at"}
    assert Position.from_json(turn["before"]).variant == variant


def test_json_errors_name_the_action() -> None:
    data = random_match("short", 3, 5, max_games=1).to_json()
    data["games"][0]["actions"][2]["roll"] = [7, 1]
    with pytest.raises(RecordError, match="game 1, action 3: a die shows 1 to 6"):
        MatchRecord.from_json(data)
    with pytest.raises(RecordError, match="'format'"):
        MatchRecord.from_json({"format": "something else"})


def test_scores_and_crawford() -> None:
    match = random_match("short", 7, 1, cube_rate=0.03)
    scores = match.scores()
    assert scores[0] == (0, 0) and scores[-1] == match.score == (7, 6)
    assert match.winner is Color.WHITE
    (crawford,) = match.crawford_games()
    before = scores[crawford - 1]
    assert 6 in before and before != (6, 6)
    assert not match.games[crawford - 1].cube_actions
    off = MatchRecord(MatchInfo("a", "b", find_variant("short", crawford=False), 7), match.games)
    assert off.crawford_games() == set()


def test_cube_rules() -> None:
    white, black = Color.WHITE, Color.BLACK
    state = cube_state([CubeAction("double", white, 2), CubeAction("take", black, 2)], strict=True)
    assert state == CubeState(2, black, None)
    with pytest.raises(RecordError, match="white doubles but black owns the cube"):
        cube_state(
            [CubeAction("double", white, 2), CubeAction("take", black, 2), CubeAction("double", white, 4)],
            strict=True,
        )
    with pytest.raises(RecordError, match="no double was offered"):
        cube_state([CubeAction("take", black, 2)], strict=True)
    with pytest.raises(RecordError, match="2, 4, 8"):
        CubeAction("double", white, 3)


def test_values_refuse_nonsense() -> None:
    start = Position.initial("short")
    with pytest.raises(RecordError, match="timezone-aware"):
        TurnRecord(Roll(3, 1), Play.from_text("8/5 6/5"), start, start.apply("8/5 6/5"), datetime(2025, 1, 1))
    with pytest.raises(RecordError, match="after white's turn it is black's"):
        TurnRecord(Roll(3, 1), Play(), start, start)
    with pytest.raises(RecordError, match="needs a name"):
        MatchInfo(" ", "b", find_variant("short"))
    with pytest.raises(RecordError, match="0 .unlimited. to 99"):
        MatchInfo("a", "b", find_variant("short"), -1)
    with pytest.raises(RecordError, match="a result needs an ending"):
        GameRecord(1, (), None, "drop")


def test_judge_turn_flags_and_passes() -> None:
    short = find_variant("short")
    start = Position.initial("short")
    legal = judge_turn(short, start, Roll(3, 1), Play.from_text("8/5 6/5"), True)
    assert not legal.illegal and legal.after == start.apply("8/5 6/5")
    bad = judge_turn(short, start, Roll(3, 1), Play.from_text("24/21"), True)
    assert bad.illegal and "1" in bad.reason
    closed = Position("short", (0,) * 18 + (-2,) * 6, bar_white=1, off_white=14, off_black=3)
    dance = judge_turn(short, closed, Roll(6, 6), Play())
    assert not dance.illegal and dance.after == closed.with_turn(Color.BLACK)


def test_sgf_points_and_cube() -> None:
    match = random_match("short", 7, 1, cube_rate=0.03)
    text = write_sgf(match)
    assert text.count("(;FF[4]GM[6]") == len(match.games)
    assert "PW[Anna Petrosyan]PB[Boris Aliyev]" in text and "RU[Crawford:CrawfordGame]" in text
    first = match.games[0].turns[0]
    # black's 3-1 played 6/2, written a die at a time: its 6, 3, 2 are white's 19, 22, 23 (s, v, w)
    assert first.color is Color.BLACK and first.play == Play.from_text("6/2")
    assert "\n;B[31svvw]\n" in text
    assert ";B[double]\n;W[take]" in text and ";B[double]\n;W[drop])" in text
    assert re.findall(r"RE\[[^]]*\]", text) == ["RE[W+4]", "RE[B+2R]", "RE[B+4]", "RE[W+3]"]  # R: resigned
    with pytest.raises(RecordError, match="short nardy"):
        write_sgf(random_match("long", 1, 2, max_games=1))


def test_sgf_letters_are_whites_numbering() -> None:
    start = Position.initial("short", Color.BLACK)
    play = Play.from_text("24/18 13/8")  # black's 24, 18, 13, 8 are white's 1, 7, 12, 17: a, g, l, q
    game = GameRecord(1, (TurnRecord(Roll(6, 5), play, start, start.apply(play)),))
    info = MatchInfo("w", "b", find_variant("short"), 3)
    assert ";B[65aglq]" in write_sgf(MatchRecord(info, (game,)))
