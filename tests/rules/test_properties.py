"""Property tests: checkers are conserved, every generated play is judged legal, texts round-trip."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from nardy.rules import Color, Play, Position, find_variant
from nardy.rules.notation import from_gnubg_id, from_xgid, to_gnubg_id, to_xgid
from nardy.rules.sample import playout, random_roll, scatter

VARIANTS = st.sampled_from(["short", "long"])


def _case(variant: str, seed: int) -> tuple[Position, object, bool]:
    rng = random.Random(seed)
    if rng.random() < 0.4:
        return scatter(variant, rng), random_roll(rng), False
    game = list(playout(variant, rng))
    return rng.choice(game)


@settings(max_examples=150)
@given(VARIANTS, st.integers(0, 10**9))
def test_checkers_conserved_and_generated_plays_are_legal(variant_name: str, seed: int) -> None:
    variant = find_variant(variant_name)
    position, roll, first = _case(variant_name, seed)
    legal = variant.legal_plays(position, roll, first)
    seen = set()
    for play, after in legal.items():
        for color in Color:
            assert after.total(color) == position.total(color)
        assert after.turn is position.turn.other
        # the play's own text, applied to the position, gives the same result
        assert position.apply(Play.from_text(play.text())).same_board(after)
        # the text does not depend on the order of the steps, and reads back as itself
        shuffled = list(play.steps)
        random.Random(seed).shuffle(shuffled)
        assert Play(shuffled).text() == play.text()
        assert Play.from_text(play.text()).text() == play.text()
        verdict = variant.judge(position, after, roll, first)
        assert verdict.legal, (position.json_text(), roll, play.text(), verdict.reason)
        assert verdict.play is not None and position.apply(verdict.play).same_board(after)
        key = (after.points, after.bar_white, after.bar_black, after.off_white, after.off_black)
        assert key not in seen  # one entry per distinct result
        seen.add(key)
    assert len(legal) == len(seen)
    assert bool(legal) == (len(seen) > 0)


@settings(max_examples=150)
@given(VARIANTS, st.integers(0, 10**9))
def test_text_forms_round_trip(variant_name: str, seed: int) -> None:
    position, _, _ = _case(variant_name, seed)
    assert Position.from_json(position.json_text()) == position
    if variant_name == "short":
        assert from_xgid(to_xgid(position))[0] == position
        assert from_gnubg_id(to_gnubg_id(position), position.turn) == position


@settings(max_examples=80)
@given(VARIANTS, st.integers(0, 10**9), st.integers(0, 10**9))
def test_a_random_other_position_is_judged_consistently(variant_name: str, seed: int, seed2: int) -> None:
    """Judging any observed position never crashes; 'legal' holds exactly for the generated results."""
    variant = find_variant(variant_name)
    position, roll, first = _case(variant_name, seed)
    other = scatter(variant_name, random.Random(seed2), turn=position.turn.other)
    legal = variant.legal_plays(position, roll, first)
    verdict = variant.judge(position, other, roll, first)
    assert verdict.legal == (legal.find(other) is not None)
    if not verdict.legal:
        assert verdict.reason and verdict.codes
