"""Short nardy (article 21), rule by rule, and its folk option."""

from __future__ import annotations

from nardy.rules import Color, Position, find_variant
from tests.rules.helpers import pos, texts

SHORT = find_variant("backgammon")


def test_start_and_opening_roll() -> None:
    start = Position.initial("short")
    assert start.complete
    plays = texts(SHORT.legal_plays(start, "3-1"))
    assert len(plays) == 16 and {"8/5 6/5", "24/23 13/10", "24/23 24/21", "24/20"} <= plays


def test_entering_from_the_bar_comes_first_article_21_10() -> None:
    # 21.10: white on the bar with 6-4 and black holding 19 must enter on 21 with the 4
    start = Position.initial("short")
    p = Position("short", start.points[:23] + (1,), bar_white=1)
    plays = SHORT.legal_plays(p, "6-4")
    assert plays
    for play in plays:
        assert play.steps[0].src == 25 and play.steps[0].dst == 21


def test_closed_entry_points_pass_the_turn() -> None:
    # 21.11: both entry points closed: no play
    p = pos("short", {6: 14}, {19: 2, 20: 2, 1: 11}, bar=(1, 0))
    assert not SHORT.legal_plays(p, "6-5")
    assert SHORT.judge(p, p, "6-5").legal


def test_enter_what_you_can_then_stop_article_21_12() -> None:
    p = pos("short", {6: 13}, {19: 2, 1: 13}, bar=(2, 0))
    assert texts(SHORT.legal_plays(p, "6-4")) == {"bar/21"}


def test_hitting_a_blot_and_going_on() -> None:
    # 21.6: a hit checker goes to the bar; the same checker may hit again with the other die
    p = pos("short", {13: 1, 6: 14}, {10: 1, 7: 1, 24: 13})
    plays = SHORT.legal_plays(p, "3-3")
    [after] = [a for play, a in plays.items() if play.text() == "13/10*/7*/1"] or [None]
    assert after is not None and after.bar_black == 2


def test_must_use_both_dice_and_the_larger() -> None:
    # a lone white checker on 24 with 6-5: 18 and 19 open, 13 closed: only one die, the larger
    p = pos("short", {24: 1, 1: 14}, {13: 2, 12: 13})
    assert texts(SHORT.legal_plays(p, "6-5")) == {"24/18"}
    # both possible: both must be played
    q = pos("short", {24: 1, 1: 14}, {12: 15})
    assert texts(SHORT.legal_plays(q, "6-5")) == {"24/13"}


def test_bearing_off_rules() -> None:
    p = pos("short", {6: 1, 3: 2}, {24: 15}, off=(12, 0))
    plays = texts(SHORT.legal_plays(p, "5-4"))
    # after the 6 moves down, the other die bears off from the highest point, 3
    assert plays == {"6/1 3/off", "6/2 3/off"}
    # a 6 from the highest point; a 6 with nothing on 6 takes the highest (3)
    q = pos("short", {3: 2}, {24: 15}, off=(13, 0))
    assert texts(SHORT.legal_plays(q, "6-5")) == {"3/off(2)"}
    # no bearing off while a checker is on the bar or outside home
    r = pos("short", {7: 1, 3: 2}, {24: 15}, off=(12, 0))
    assert all(s.dst != 0 for play in SHORT.legal_plays(r, "2-1") for s in play)


def test_folk_rule_at_most_six_on_a_point() -> None:
    folk = find_variant("short", max_per_point=6)
    p = pos("short", {6: 6, 8: 9}, {24: 15})
    assert any(a.count(Color.WHITE, 6) > 6 for a in SHORT.legal_plays(p, "2-2").positions())
    assert all(a.count(Color.WHITE, 6) <= 6 for a in folk.legal_plays(p, "2-2").positions())
    verdict = folk.judge(p, p.apply("8/6 8/4"), "4-2")
    assert not verdict.legal and verdict.codes == ("per-point",)


def test_black_plays_in_its_own_numbering() -> None:
    start = Position.initial("short", Color.BLACK)
    plays = SHORT.legal_plays(start, "6-5")
    assert "24/13" in texts(plays)
    after = start.apply("24/13")
    assert after.count(Color.BLACK, 1) == 1 and after.count(Color.BLACK, 12) == 6
