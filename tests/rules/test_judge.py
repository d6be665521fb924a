"""The diff: which play was made, and why an illegal result is illegal, in words."""

from __future__ import annotations

import pytest

from nardy.rules import Color, Position, RulesError, find_variant
from tests.rules.helpers import pos

SHORT = find_variant("short")
LONG = find_variant("long")


def test_legal_play_is_named_whatever_the_step_order() -> None:
    start = Position.initial("short")
    for text, name in (("24/18 18/13", "24/13"), ("24/13", "24/13"), ("13/8 24/18", "24/18 13/8")):
        verdict = SHORT.judge(start, start.apply(text), "6-5")
        assert verdict.legal and verdict.play is not None and verdict.play.text() == name
        assert verdict.reason is None


def test_turn_written_in_after_does_not_matter() -> None:
    start = Position.initial("short")
    after = start.apply("13/8 13/7")
    assert SHORT.judge(start, after.with_turn(Color.WHITE), "6-5").legal
    assert SHORT.judge(start, after.with_turn(Color.BLACK), "6-5").legal


def test_head_reason() -> None:
    start = Position.initial("long")
    verdict = LONG.judge(start, start.apply("24/18 24/19"), "6-5", first_turn=True)
    assert not verdict.legal and verdict.reason == "moved 2 checkers from the head"
    assert verdict.codes == ("head",) and verdict.points == (24,)


def test_closed_point_reason() -> None:
    # 24/13 with 6-5 needs 18 or 19 open
    p = pos("short", {24: 1, 6: 14}, {18: 2, 19: 2, 1: 11})
    after = p.apply("24/13")
    verdict = SHORT.judge(p, after, "6-5")
    assert not verdict.legal and verdict.codes == ("closed",)
    assert verdict.reason in ("point 18 is closed", "point 19 is closed")


def test_long_reasons_name_points_in_the_movers_numbering() -> None:
    # black's head is white's 12 (black's 24); white sits on white's 6 = black's 18 and white's 7
    p = pos("long", {6: 1, 7: 1, 24: 13}, {12: 15}, turn=Color.BLACK)
    # black 24/13 (white's 12 -> 1) with 6-5 through 18 or 19 (white's 6 and 7): both closed
    moved = list(p.points)
    moved[11] += 1  # one black checker leaves white's 12
    moved[0] -= 1  # and lands on white's 1 (black's 13)
    v = LONG.judge(p, Position("long", tuple(moved), turn=Color.BLACK), "6-5", first_turn=True)
    assert not v.legal and v.codes == ("closed",)
    assert v.reason in ("point 18 is closed", "point 19 is closed")
    assert set(v.points) <= {6, 7}


def test_larger_die_and_max_dice_reasons() -> None:
    p = pos("short", {24: 1, 1: 14}, {13: 2, 12: 13})
    v = SHORT.judge(p, p.apply("24/19"), "6-5")
    assert v.codes == ("larger-die",)
    assert v.reason is not None and v.reason.startswith("used the 5 but the 6 could be played")
    q = pos("short", {24: 1, 1: 14}, {12: 15})
    assert SHORT.judge(q, q.apply("24/19"), "6-5").reason == "used the 5 but the 6 could also be played"
    r = Position.initial("short")
    v = SHORT.judge(r, r.apply("13/8(3)"), "5-5")
    assert v.codes == ("max-dice",) and v.reason == "played 3 of the fives although 4 can be played"


def test_bear_off_reasons() -> None:
    p = pos("short", {9: 1, 3: 2}, {24: 15}, off=(12, 0))
    v = SHORT.judge(p, p.apply("3/off 9/7"), "3-2")
    assert not v.legal and "bore off while a checker is outside home" in (v.reason or "")
    q = pos("short", {6: 1, 3: 2}, {24: 15}, off=(12, 0))
    v = SHORT.judge(q, q.apply("3/off 3/off"), "5-4")
    assert not v.legal and v.codes[0] == "bear-off-order"
    assert v.reason is not None and "while a checker stands on 6" in v.reason


def test_opponent_moved_and_the_movers_own_play_illegal_are_both_said() -> None:
    start = Position.initial("long")
    black_moved = start.with_turn(Color.BLACK).apply("24/23").with_turn(Color.WHITE)
    # white's own part: 8 pips with 5-2, legal, or only begun
    for own, extra in (
        ("24/16", "white's own play: checkers moved 8 pips, more than 5-2 allows (7)"),
        ("24/17", None),
        ("24/19", None),
    ):
        v = LONG.judge(start, black_moved.apply(own), "5-2")
        assert not v.legal and v.codes[0] == "opponent"
        if extra is None:
            assert v.reason == "black's checkers moved on white's turn" and v.points == (11, 12)
        else:
            assert v.reason == f"black's checkers moved on white's turn; {extra}"
            assert v.codes == ("opponent", "pips") and v.points == (11, 12, 16, 24)
    # short nardy: white hits black's blot on 1 with 13/1, 12 pips with 6-5, while a black
    # checker moves from 19 to 20: the blot sent to the bar is no move of black's
    p = pos("short", {24: 2, 13: 5, 8: 3, 6: 5}, {1: 1, 2: 1, 12: 5, 17: 3, 19: 5})
    after = pos("short", {24: 2, 13: 4, 8: 3, 6: 5, 1: 1}, {2: 1, 12: 5, 17: 3, 19: 4, 20: 1}, bar=(0, 1))
    v = SHORT.judge(p, after, "6-5")
    assert v.codes[0] == "opponent" and "; white's own play: " in (v.reason or ""), v.reason
    assert {1, 13, 19, 20} <= set(v.points)


def test_bar_first_reason() -> None:
    p = pos("short", {13: 5, 6: 9}, {1: 15}, bar=(1, 0))
    v = SHORT.judge(p, p.apply("13/7 13/8"), "6-5")
    assert not v.legal and "bar must enter first" in (v.reason or "")


def test_count_opponent_nothing_backwards_reasons() -> None:
    start = Position.initial("short")
    missing = Position("short", start.points[:23] + (1,))
    v = SHORT.judge(start, missing, "6-5")
    assert v.codes == ("count",) and v.reason == "checker count changed: white has 14 checkers, had 15"

    moved_black = start.with_turn(Color.BLACK).apply("24/18").with_turn(Color.WHITE).apply("24/13")
    v = SHORT.judge(start, moved_black, "6-5")
    assert v.codes == ("opponent",) and v.reason == "black's checkers moved on white's turn"

    v = SHORT.judge(start, start, "6-5")
    assert v.codes == ("no-move",) and v.reason == "nothing moved although 6-5 can be played"

    back = Position("short", (-2, 0, 0, 0, 0, 5, 0, 2, 1, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2))
    v = SHORT.judge(start, back, "2-1")
    assert v.codes == ("backwards",) and v.reason == "a checker moved backwards, to point 9"
    assert back.complete
    to_bar = Position("short", start.points[:23] + (1,), bar_white=1)
    v = SHORT.judge(start, to_bar, "2-1")
    assert v.codes == ("backwards",) and v.reason == "a white checker went back to the bar"


def test_wrong_distance_reasons() -> None:
    start = Position.initial("short")
    v = SHORT.judge(start, start.apply("24/14"), "6-5")
    assert v.codes == ("unreachable",) and "moved 10 pips" in (v.reason or "")
    v = SHORT.judge(start, start.apply("24/22 13/3"), "6-5")
    assert v.codes == ("pips",) and v.reason == "checkers moved 12 pips, more than 6-5 allows (11)"


def test_hits_are_not_opponent_moves() -> None:
    p = pos("short", {13: 2, 6: 13}, {8: 1, 1: 14})
    after = p.apply("13/8*/3")
    v = SHORT.judge(p, after, "5-5")
    assert not v.legal and v.codes == ("max-dice",)
    v2 = SHORT.judge(p, p.apply("13/8*/3 13/3"), "5-5")
    assert v2.legal and v2.play is not None and after.bar_black == 1


def test_wrong_variant_is_an_error() -> None:
    with pytest.raises(RulesError):
        SHORT.judge(Position.initial("long"), Position.initial("long"), "6-5")
