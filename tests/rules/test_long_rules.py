"""Long nardy, article 20, rule by rule, and each option."""

from __future__ import annotations

from nardy.rules import Color, Position, find_variant
from tests.rules.helpers import pos, texts

LONG = find_variant("long")


def test_start_and_single_checker_from_head() -> None:
    start = Position.initial("long")
    assert start.count(Color.WHITE, 24) == 15 and start.count(Color.BLACK, 12) == 15
    # 20.3: only one checker leaves the head per turn
    assert texts(LONG.legal_plays(start, "6-5", first_turn=True)) == {"24/13"}
    assert texts(LONG.legal_plays(start, "2-1", first_turn=True)) == {"24/21"}


def test_head_rule_in_the_middle_game() -> None:
    p = pos("long", {24: 13, 16: 1, 10: 1}, {12: 14, 1: 1})
    plays = texts(LONG.legal_plays(p, "5-3"))
    assert "24/19 24/21" not in plays and "24/21 24/19" not in plays
    assert "24/16" in plays and "24/19 16/13" in plays


def test_first_turn_doubles_6_4_3_take_two_from_the_head() -> None:
    start = Position.initial("long")
    assert texts(LONG.legal_plays(start, "6-6", first_turn=True)) == {"24/18(2)"}
    four = texts(LONG.legal_plays(start, "4-4", first_turn=True))
    assert "24/16(2)" in four and "24/20 24/12" not in four
    three = texts(LONG.legal_plays(start, "3-3", first_turn=True))
    assert "24/18(2)" in three
    # other doubles: one checker only, and the rule is for the first turn only
    assert texts(LONG.legal_plays(start, "5-5", first_turn=True)) == {"24/4"}
    assert texts(LONG.legal_plays(start, "6-6", first_turn=False)) == {"24/18"}


def test_option_any_double_on_first_turn() -> None:
    anyd = find_variant("long", head_doubles="any")
    start = Position.initial("long")
    assert "24/14(2)" in texts(anyd.legal_plays(start, "5-5", first_turn=True))
    assert "24/14(2)" not in texts(LONG.legal_plays(start, "5-5", first_turn=True))


def test_one_opposing_checker_closes_a_point() -> None:
    # 20.4 / 20.6: a point with any opposing checker is closed; no hitting
    p = pos("long", {24: 14, 5: 1}, {12: 14, 18: 1})
    plays = LONG.legal_plays(p, "6-1")
    assert all(s.dst != 18 for play in plays for s in play)
    assert "24/17" in texts(plays)  # 24/23/17 goes round the closed 18
    assert all(after.count(Color.BLACK, 18) == 1 for after in plays.positions())


def test_unlimited_stack() -> None:
    p = pos("long", {24: 1, 18: 13, 6: 1}, {12: 15})
    assert any(a.count(Color.WHITE, 18) == 14 for a in LONG.legal_plays(p, "6-1").positions())


def test_six_block_needs_an_opposing_checker_ahead() -> None:
    # white holds 19..23; 24/18 makes six in a row along black's path
    white = {24: 8, 23: 1, 22: 1, 21: 1, 20: 1, 19: 1, 7: 1}
    behind = pos("long", white, {12: 15})
    assert "24/18 7/6" not in texts(LONG.legal_plays(behind, "6-1"))
    verdict = LONG.judge(behind, behind.apply("24/18 7/6"), "6-1")
    assert not verdict.legal and verdict.reason == "a 6-block with no black checker ahead of it"
    assert set(verdict.points) == {18, 19, 20, 21, 22, 23, 24}
    ahead = pos("long", white, {12: 14, 15: 1})  # black's 15 is further along black's path
    assert "24/18 7/6" in texts(LONG.legal_plays(ahead, "6-1"))
    assert LONG.judge(ahead, ahead.apply("24/18 7/6"), "6-1").legal


def test_six_block_in_passing_strict_and_final_option() -> None:
    p = pos("long", {24: 4, 22: 1, 19: 2, 18: 2, 17: 2, 15: 2, 14: 2}, {21: 1, 12: 14})
    # 22/16 would make 14..19 a 6-block with no black checker ahead; 16/15 breaks it again
    assert "22/15" not in texts(LONG.legal_plays(p, "6-1"))
    final = find_variant("long", block_rule="final")
    assert "22/15" in texts(final.legal_plays(p, "6-1"))
    # a final position with the block stays illegal under both readings
    assert all(
        not (a.count(Color.WHITE, 16) and a.count(Color.WHITE, 14))
        or a.count(Color.WHITE, 15) == 0
        or a.count(Color.WHITE, 17) == 0
        for a in final.legal_plays(p, "6-1").positions()
        if all(a.count(Color.WHITE, q) for q in range(14, 20))
    )


def test_block_wraps_across_the_seam_along_the_opponents_path() -> None:
    # black's path runs 12..1 then 24..13, so white's points 3,2,1,24,23,22 are consecutive for black
    p = pos("long", {3: 1, 2: 1, 1: 1, 23: 1, 22: 1, 20: 10}, {12: 15}, turn=Color.WHITE)
    results = list(LONG.legal_plays(p, "1-1").positions())
    assert results
    assert not any(a.count(Color.WHITE, 24) for a in results)  # 24 would close the wrapped block
    # a white run across 12/13 (white's own path seam, black's start/end) is no block for black
    q = pos("long", {15: 1, 14: 1, 13: 1, 11: 1, 10: 1, 24: 10}, {18: 1, 16: 14}, turn=Color.WHITE)
    assert any(a.count(Color.WHITE, 12) for a in LONG.legal_plays(q, "1-1").positions())


def test_must_play_both_and_larger_die() -> None:
    # 20.6: if only one die can be played, the larger
    # only the checker on 24 can move (the rest wait for it to come home)
    p = pos("long", {24: 1, 1: 14}, {12: 14, 13: 1})
    # 24/18 and 24/19 are open, but 18/13 and 19/13 are not: one die only, the 6
    assert texts(LONG.legal_plays(p, "6-5")) == {"24/18"}
    verdict = LONG.judge(p, p.apply("24/19"), "6-5")
    assert not verdict.legal and "larger" in (verdict.reason or "")
    # both dice can be played: both must be
    q = pos("long", {24: 1, 1: 14}, {12: 15})
    assert texts(LONG.legal_plays(q, "6-5")) == {"24/13"}
    assert LONG.judge(q, q.apply("24/18"), "6-5").reason == "used the 6 but the 5 could also be played"


def test_bearing_off() -> None:
    p = pos("long", {5: 2, 3: 3}, {13: 15}, off=(10, 0))
    plays = texts(LONG.legal_plays(p, "6-1"))
    # the 6 takes the rearmost checker (5) since none stands farther back
    assert plays == {"5/off 3/2", "5/4 5/off"}
    out = pos("long", {7: 1, 5: 2, 3: 2}, {13: 15}, off=(10, 0))
    assert all(s.dst != 0 for play in LONG.legal_plays(out, "2-1") for s in play)
    assert {"7/1 5/off", "7/2 5/off"} <= texts(LONG.legal_plays(out, "6-5"))
    verdict = LONG.judge(out, out.apply("5/off 3/1"), "5-2")
    assert not verdict.legal and verdict.reason == "bore off while a checker is outside home"


def test_no_play_turn() -> None:
    p = pos("long", {24: 1, 1: 14}, {18: 1, 17: 1, 12: 13})
    plays = LONG.legal_plays(p, "6-6")
    assert not plays and len(plays) == 0 and list(plays) == []
    verdict = LONG.judge(p, p, "6-6")
    assert verdict.legal and verdict.play is not None and not verdict.play


def test_black_moves_along_its_own_path() -> None:
    start = Position.initial("long", Color.BLACK)
    [after] = list(LONG.legal_plays(start, "6-5", first_turn=True).positions())
    assert after.count(Color.BLACK, 1) == 1 and after.count(Color.BLACK, 12) == 14  # 12 -> 1 is 11 pips
    assert after.turn is Color.WHITE
