"""The Jellyfish .mat writer and reader: round trips, GNU Backgammon's own files, bad input."""

from __future__ import annotations

import pytest

from nardy.rules import Color, Play, Position, Roll, find_variant
from nardy.rules.matfile import MatFormatError, read_mat, split_cells, write_mat
from nardy.rules.record import CubeAction, GameRecord, MatchInfo, MatchRecord, TurnRecord
from tests.recording.conftest import DATA, assert_same_games
from tests.recording.helpers import random_match


@pytest.mark.parametrize(
    ("variant", "length", "seed"),
    [("short", 5, 1), ("short", 7, 2), ("short", 0, 3), ("long", 3, 4), ("long", 5, 5)],
)
def test_round_trip(variant: str, length: int, seed: int) -> None:
    match = random_match(variant, length, seed, max_games=4, illegal_rate=0.02)
    assert any(t.illegal for g in match.games for t in g.turns), (
        "the sample should hold an accepted illegal play"
    )
    text = write_mat(match)
    back = read_mat(text)
    assert back.info == match.info
    assert_same_games(match, back)
    assert write_mat(back) == text


def test_layout_is_gnubgs() -> None:
    match = random_match("short", 5, 1, max_games=3)
    lines = write_mat(match).splitlines()
    assert " 5 point match" in lines
    assert lines[lines.index(" Game 1") + 1] == " Anna Petrosyan : 0             Boris Aliyev : 0"
    moves = [line for line in lines if line[:5].strip().endswith(")")]
    for line in moves:
        right = line[33:]
        assert not right or right[0].isdigit() or right.startswith(" "), line
    assert any(" Doubles => 2" in line for line in lines) and any(" Takes" in line for line in lines)
    # bar is 25 and off is 0, one step per die, no (2) shorthand
    body = "\n".join(moves)
    assert "bar" not in body and "off" not in body and "(" not in body.replace(")", "")
    assert "/0" in body and "25/" in body


def test_reads_gnubgs_own_export() -> None:
    record = read_mat((DATA / "gnubg-selfplay-7pt.mat").read_text())
    assert (record.info.white, record.info.black, record.info.length) == ("gnubg", "root", 7)
    assert record.score == (2, 7) and record.winner is Color.BLACK
    assert [g.ending for g in record.games] == ["resign", "drop", "resign", "resign"]
    assert [g.result.points for g in record.games if g.result] == [4, 1, 2, 2]
    assert not any(t.illegal for g in record.games for t in g.turns)
    first = record.games[0].turns[0]
    assert (first.color, first.roll, first.play) == (Color.BLACK, Roll(5, 3), Play.from_text("8/3 6/3"))
    kinds = [(a.kind, a.color, a.cube) for a in record.games[1].cube_actions]
    assert kinds == [("double", Color.BLACK, 2), ("drop", Color.WHITE, 2)]


def test_split_cells_as_gnubg() -> None:
    assert split_cells("  2) 62: 24/18 18/16             55: 13/8 13/8 6/1* 6/1") == (
        "62: 24/18 18/16",
        "55: 13/8 13/8 6/1* 6/1",
    )
    assert split_cells("  1)                             53: 8/3 6/3") == ("", "53: 8/3 6/3")
    assert split_cells("  4) 11:                          Doubles => 2") == ("11:", "Doubles => 2")
    assert split_cells("  8)  Drops                       Wins 1 point") == ("Drops", "Wins 1 point")
    assert split_cells("      Wins 2 points") == ("Wins 2 points", "")
    assert split_cells("                                  Wins 4 points") == ("", "Wins 4 points")
    assert split_cells(" 17) 55: 25/20* 20/15 18/13 18/13 42: ") == ("55: 25/20* 20/15 18/13 18/13", "42:")


def _file(
    body: str, header: str = " 3 point match\n\n Game 1\n A : 0                          B : 0\n"
) -> str:
    return header + body


def test_accepts_other_programs_spellings() -> None:
    text = _file("  1) 31: 8/5 6/5                 42: Cannot Move\n")
    turn = read_mat(text).games[0].turns[1]
    assert turn.play == Play() and turn.illegal and "nothing moved" in turn.reason  # 4-2 could be played
    with pytest.raises(
        MatFormatError, match="line 6: white: '42: bar/22 6/off': bar/22: white has no checker on the bar"
    ):  # nothing on the bar
        read_mat(text + "  2) 42: bar/22 6/off\n")
    text = _file("  1) 31: 8/5 6/5                 42: 8/4 6/4\n  2) 65: 24/13\n")
    record = read_mat(text)
    turns = record.games[0].turns
    assert turns[2].play == Play.from_text("24/13") and not turns[2].illegal


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("hello\n", 'no "N point match" line'),
        (_file("  1) 31: 8/5 6/5  Takes\n"), "line 5: .*no double was offered"),
        (_file("  1) 31: 8/5 6/5                 42: 24/20 24/22 13/9\n"), "line 5"),
        (_file("  1) 31: 8/5 6/5                 frobnicate\n"), "line 5: cannot read 'frobnicate'"),
        (_file("  1) 31: 8/5 6/5                  Beavers\n"), "beavers"),
        (_file("  1)  Doubles => 4\n"), "doubles to 4, but the cube is at 1"),
        (_file("  1) 31: ???\n"), "not recorded"),
        (_file("      Wins 3 points\n", " 3 point match\n\n Game 1\n A : 0     B : 1\n"), "add up to 0-0"),
        (" 3 point match\n\n Game 1\n A : 0  B : 0\n      Wins 5 points\n", "not 1, 2 or 3 times the cube"),
        ('; [Variation "Hypergammon"]\n 3 point match\n', "not short or long nardy"),
    ],
)
def test_bad_files_give_clear_errors(text: str, message: str) -> None:
    with pytest.raises(MatFormatError, match=message):
        read_mat(text)


def test_illegal_play_is_flagged_with_the_judges_reason() -> None:
    # 6-5 played as 24/18 13/9: the 5 is not used as a 5
    record = read_mat(_file("  1) 65: 24/18 13/9\n"))
    turn = record.games[0].turns[0]
    assert turn.illegal and turn.reason
    assert turn.after == Position.initial("short").apply("24/18 13/9")


def test_variant_header_and_options_round_trip() -> None:
    variant = find_variant("long", block_rule="final", koks=True, crawford=False)
    info = MatchInfo("Ilham", "Tigran", variant, 0, venue="Baku", event="Friendly")
    start = Position.initial("long")
    legal = variant.legal_plays(start, Roll(6, 5), True)
    play, after = next(iter(legal.items()))
    game = GameRecord(1, (TurnRecord(Roll(6, 5), play, start, after),))
    text = write_mat(MatchRecord(info, (game,)))
    assert '[Variation "Long Nardy"]' in text and '[Crawford "Off"]' in text
    back = read_mat(text)
    assert back.info.variant == variant and back.info.venue == "Baku" and back.info.event == "Friendly"
    with pytest.raises(MatFormatError, match="not short nardy"):
        read_mat(text, variant="short")


def test_player_names_with_colons_stay_readable() -> None:
    match = random_match("short", 1, 8, white="Dr: Who", black="R2:D2", max_games=1)
    back = read_mat(write_mat(match))
    assert (back.info.white, back.info.black) == ("Dr: Who", "R2:D2")
    assert_same_games(match, back)


def test_cube_actions_in_the_record() -> None:
    match = random_match("short", 9, 21, cube_rate=0.2, max_games=6)
    actions = [a for g in match.games for a in g.cube_actions]
    assert {a.kind for a in actions} == {"double", "take", "drop"}
    back = read_mat(write_mat(match))
    assert [a for g in back.games for a in g.cube_actions] == [
        CubeAction(a.kind, a.color, a.cube) for a in actions
    ]
