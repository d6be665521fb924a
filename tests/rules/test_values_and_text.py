"""Value types, text forms, JSON, errors and game values."""

from __future__ import annotations

import pytest

from nardy.rules import (
    Color,
    NotationError,
    Play,
    PlayParseError,
    Position,
    PositionError,
    Roll,
    RollError,
    VariantError,
    find_variant,
)
from nardy.rules.scoring import game_result
from tests.rules.helpers import pos


@pytest.mark.parametrize(
    "text",
    ["24/18 13/8", "bar/22*", "6/off", "13/7(2)", "24/18*/13", "bar/20 13/11", "6/off(4)", "24/12(2)", ""],
)
def test_play_text_round_trips(text: str) -> None:
    play = Play.from_text(text)
    assert play.text() == text
    assert Play.from_text(play.text()) == play
    assert eval(repr(play)) == play  # noqa: S307 - repr reads back as code


def test_plays_differing_in_step_order_are_equal() -> None:
    assert Play.from_text("13/8 24/18") == Play.from_text("24/18 13/8")
    assert Play.from_text("24/18 18/13") == Play.from_text("24/13")
    assert hash(Play.from_text("8/5 6/5")) == hash(Play.from_text("6/5 8/5"))
    assert Play.from_text("24/18*/13") != Play.from_text("24/13")
    # two checkers to 5, one of them hitting and one going on to 4: one text whatever the order
    texts = {Play.from_text(t).text() for t in ("6/5* 6/5 5/4", "6/5 6/5* 5/4", "5/4 6/5 6/5*")}
    assert texts == {"6/5* 6/4"} and Play.from_text("6/5* 6/4").text() == "6/5* 6/4"


@pytest.mark.parametrize("bad", ["24-18", "18/24", "bar", "26/20", "24/18(5)", "x/1", "6/off*"])
def test_bad_play_text(bad: str) -> None:
    with pytest.raises(PlayParseError):
        Play.from_text(bad)


def test_roll() -> None:
    assert Roll(3, 5) == Roll(5, 3) == Roll.from_text("5-3") == Roll.from_any([3, 5])
    assert Roll(5, 3).text() == "5-3" and Roll(4, 4).steps == (4, 4, 4, 4) and Roll(6, 5).pips == 11
    for bad in ([7, 1], [0, 3], "6-7", "65x", [True, 2], [1]):
        with pytest.raises(RollError):
            Roll.from_any(bad)


def test_position_json_round_trip_and_errors() -> None:
    p = pos("short", {6: 5, 8: 3, 13: 4}, {19: 5, 1: 2}, turn=Color.BLACK, bar=(1, 0), off=(2, 8))
    assert Position.from_json(p.json_text()) == p and Position.from_json(p.to_json()) == p
    assert hash(p) == hash(Position.from_json(p.to_json()))
    start = Position.initial("long").to_json()
    with pytest.raises(PositionError, match="white has 16 checkers"):
        Position.from_json({**start, "points": [1] + start["points"][1:]})
    with pytest.raises(NotationError, match="not valid JSON"):
        Position.from_json("{broken")
    with pytest.raises(NotationError, match="24 whole numbers"):
        Position.from_json({"variant": "long"})
    with pytest.raises(PositionError, match="24 points"):
        Position.from_json({**start, "points": [0] * 23})
    with pytest.raises(PositionError, match="no bar"):
        Position.from_json({**start, "points": [0] * 23 + [14], "bar": {"white": 1, "black": 0}})
    with pytest.raises(NotationError, match="turn"):
        Position.from_json({**start, "turn": "red"})
    with pytest.raises(NotationError, match="unknown variant"):
        Position.from_json({**start, "variant": "chess"})


def test_variants_by_name_and_options() -> None:
    assert find_variant("backgammon") == find_variant("short")
    assert find_variant("narde").name == "long"
    assert find_variant("long", block_rule="final") != find_variant("long")
    with pytest.raises(VariantError, match="unknown variant"):
        find_variant("go")
    with pytest.raises(VariantError, match="unknown option"):
        find_variant("short", head_doubles="any")
    with pytest.raises(VariantError, match="block_rule"):
        find_variant("long", block_rule="sometimes")


def test_apply_checks_physics() -> None:
    start = Position.initial("short")
    after = start.apply("24/18 13/8")
    assert after.turn is Color.BLACK and after.count(Color.WHITE, 18) == 1
    with pytest.raises(ValueError, match="no checker on point 20"):
        start.apply("20/18")
    with pytest.raises(ValueError, match="point 19 is closed"):
        start.apply("24/19")


def test_game_values_short() -> None:
    short = find_variant("short")
    single = pos("short", {}, {24: 5}, off=(15, 10))
    assert game_result(short, single) is not None
    assert game_result(short, single).points == 1  # type: ignore[union-attr]
    gammon = pos("short", {}, {13: 15}, off=(15, 0))
    assert game_result(short, gammon, cube=2).points == 4  # type: ignore[union-attr]
    backgammon = pos("short", {}, {13: 14, 3: 1}, off=(15, 0))  # black in white's home
    result = game_result(short, backgammon)
    assert result is not None and result.multiplier == 3 and result.winner is Color.WHITE
    on_bar = pos("short", {}, {13: 14}, bar=(0, 1), off=(15, 0))
    assert game_result(short, on_bar).multiplier == 3  # type: ignore[union-attr]
    assert game_result(short, Position.initial("short")) is None


def test_game_values_long_with_koks_option() -> None:
    long = find_variant("long")
    oin = pos("long", {}, {13: 3}, off=(15, 12))
    assert game_result(long, oin).name == "oin"  # type: ignore[union-attr]
    mars = pos("long", {}, {3: 15}, off=(15, 0))  # black still in white's home
    assert game_result(long, mars).multiplier == 2  # type: ignore[union-attr]
    koks = find_variant("long", koks=True)
    assert game_result(koks, mars).multiplier == 3  # type: ignore[union-attr]
    assert game_result(koks, pos("long", {}, {14: 15}, off=(15, 0))).multiplier == 2  # type: ignore[union-attr]
    with pytest.raises(ValueError):
        game_result(long, mars, cube=3)


def test_apply_finds_the_order_notation_hides() -> None:
    # the hit on 5 must come before 13/5 lands there, though notation writes 13/5 first
    p = pos("short", {13: 3, 6: 12}, {5: 1, 24: 14})
    after = p.apply("13/5 6/5*")
    assert after.count(Color.WHITE, 5) == 2 and after.bar_black == 1
    assert Play.from_text("6/5* 13/5").text() == "13/5 6/5*"
