"""The generator's shortcuts find exactly what the plain search of every step order finds."""

from __future__ import annotations

import pytest

from nardy.rules import find_variant
from nardy.rules.board import to_mover
from nardy.rules.movegen import Generator
from nardy.rules.sample import sample


@pytest.mark.parametrize(
    ("variant", "options"),
    [("short", {}), ("long", {}), ("long", {"block_rule": "final"}), ("short", {"max_per_point": 6})],
)
def test_shortcuts_match_the_plain_search(variant: str, options: dict[str, object]) -> None:
    v = find_variant(variant, **options)
    checked = 0
    for position, roll, first in sample(variant, 1500, seed=99, scatter_share=0.3):
        start = to_mover(position)
        limit = v.head_limit(roll.high if roll.is_double else None, first)
        fast = Generator(v.gen_rules(), start, limit).generate(start, roll.high, roll.low)
        plain = Generator(v.gen_rules(), start, limit, exhaustive=True).generate(start, roll.high, roll.low)
        assert set(fast) == set(plain), (position.json_text(), roll)
        checked += 1
    assert checked == 1500
