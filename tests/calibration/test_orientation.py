from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from nardy.calibration.orientation import (
    CORNERS,
    ORIENTATIONS,
    Orientation,
    OrientationError,
    infer_orientation,
)
from nardy.rules import Color, Position
from nardy.vision.layout import BoardLayout, Counts


def test_the_usual_picture_matches_the_vision_start_layouts() -> None:
    o = Orientation("bottom-right", "light")
    assert o.place(1) == ("bottom", 11)
    assert o.place(12) == ("bottom", 0)
    assert o.place(13) == ("top", 0)
    assert o.place(24) == ("top", 11)
    assert o.from_position(Position.initial("short")) == BoardLayout.short_start()
    assert o.from_position(Position.initial("long")) == BoardLayout.long_start()
    assert o.to_position(BoardLayout.short_start(), "short") == Position.initial("short")


@pytest.mark.parametrize("home", CORNERS)
def test_point_one_is_at_the_home_corner_and_faces_24(home: str) -> None:
    o = Orientation(home)  # type: ignore[arg-type]
    row, index = o.place(1)
    assert row == home.split("-")[0]
    assert index == (11 if home.endswith("right") else 0)
    for p in range(1, 13):  # 12 faces 13, 1 faces 24: the same column in the other row
        (r1, i1), (r2, i2) = o.place(p), o.place(25 - p)
        assert i1 == i2 and r1 != r2
    for p in range(1, 12):  # neighbours along the path are neighbours on the board
        (r1, i1), (r2, i2) = o.place(p), o.place(p + 1)
        assert r1 == r2 and abs(i1 - i2) == 1


@pytest.mark.parametrize("o", ORIENTATIONS, ids=lambda o: f"{o.home}-{o.white}")
def test_place_and_point_are_inverse_and_cover_the_board(o: Orientation) -> None:
    places = {o.place(p) for p in range(1, 25)}
    assert len(places) == 24
    for p in range(1, 25):
        assert o.point(*o.place(p)) == p
    top, bottom = o.from_white_points(list(range(1, 25)))
    assert o.to_white_points(top, bottom) == tuple(range(1, 25))


@given(st.integers(0, 7), st.integers(0, 2**31 - 1))
def test_positions_round_trip_through_every_orientation(k: int, seed: int) -> None:
    o = ORIENTATIONS[k]
    layout = BoardLayout.random(np.random.default_rng(seed))
    position = o.to_position(layout, "short", Color.BLACK)
    assert position.total(Color.WHITE) == layout.total(o.white)
    assert o.from_position(position) == layout


def test_colours_swap_sides() -> None:
    o = Orientation("top-left", "dark")
    assert o.colour_of(Color.WHITE) == "dark" and o.colour_of(Color.BLACK) == "light"
    assert o.color_of("light") is Color.BLACK
    layout = BoardLayout.from_points({("top", 0): ("dark", 2)}, bar=Counts(1, 0), off=Counts(0, 3))
    pos = o.to_position(layout, "short")
    assert pos.points[0] == 2 and pos.bar_black == 1 and pos.off_white == 3


def test_bad_orientations_are_refused_with_the_reason() -> None:
    with pytest.raises(OrientationError, match="unknown corner 'middle'"):
        Orientation("middle")  # type: ignore[arg-type]
    with pytest.raises(OrientationError, match="white must be"):
        Orientation("top-left", "white")  # type: ignore[arg-type]
    with pytest.raises(OrientationError, match="point 25"):
        Orientation().place(25)
    with pytest.raises(OrientationError, match="orientation must be"):
        Orientation.from_json({"home": "top-left"})
    o = Orientation("top-right", "dark")
    assert Orientation.from_json(o.to_json()) == o


@pytest.mark.parametrize("variant", ["short", "long"])
@pytest.mark.parametrize("o", ORIENTATIONS, ids=lambda o: f"{o.home}-{o.white}")
def test_the_start_position_gives_the_orientation(variant: str, o: Orientation) -> None:
    seen = o.from_position(Position.initial(variant))
    guess = infer_orientation(seen, variant, white=o.white)
    assert guess.orientation == o
    assert guess.matches and guess.margin >= 2


@pytest.mark.parametrize("variant", ["short", "long"])
def test_the_start_cannot_tell_which_colour_is_white(variant: str) -> None:
    seen = Orientation("bottom-left", "dark").from_position(Position.initial(variant))
    guess = infer_orientation(seen, variant, white=None)
    assert guess.margin == 0  # the colour-swapped, turned-round board looks the same
    assert guess.orientation.white == "light"  # so the convention decides
    assert infer_orientation(seen, variant, white="dark").orientation == Orientation("bottom-left", "dark")


def test_a_misread_start_still_gives_a_best_guess_flagged_as_such() -> None:
    seen = BoardLayout.short_start()
    top = list(seen.top)
    top[0] = top[0]._replace(count=4)  # one stack misread
    guess = infer_orientation(BoardLayout(tuple(top), seen.bottom), "short")
    assert guess.orientation == Orientation() and not guess.matches and guess.score == -1


class _Reading:
    """A stand-in observation: probability mass on one layout."""

    def __init__(self, layout: BoardLayout) -> None:
        self.layout = layout

    def log_probability(self, layout: BoardLayout) -> float:
        return -0.1 if layout == self.layout else -5.0 * 24


def test_observations_are_scored_by_their_probabilities() -> None:
    o = Orientation("top-left", "light")
    guess = infer_orientation(_Reading(o.from_position(Position.initial("long"))), "long")
    assert guess.orientation == o and guess.matches and math.isclose(guess.score, -0.1)
