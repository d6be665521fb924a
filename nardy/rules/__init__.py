"""Pure game logic for short and long nardy. Standard library only; no I/O.

>>> from nardy.rules import Position, find_variant
>>> long = find_variant("long")
>>> start = Position.initial("long")
>>> plays = long.legal_plays(start, "6-5", first_turn=True)
>>> sorted(p.text() for p in plays)
['24/13']
"""

from nardy.rules.color import BLACK, WHITE, Color
from nardy.rules.dice import Roll
from nardy.rules.errors import (
    IllegalPlayError,
    NotationError,
    PlayParseError,
    PositionError,
    RollError,
    RulesError,
    VariantError,
)
from nardy.rules.legal import LegalPlays
from nardy.rules.play import BAR, OFF, Play, Step
from nardy.rules.position import CHECKERS, Position
from nardy.rules.variants import (
    LongNardy,
    LongOptions,
    Options,
    ShortNardy,
    ShortOptions,
    Variant,
    find_variant,
)

__all__ = [
    "BAR",
    "BLACK",
    "CHECKERS",
    "OFF",
    "WHITE",
    "Color",
    "IllegalPlayError",
    "LegalPlays",
    "LongNardy",
    "LongOptions",
    "NotationError",
    "Options",
    "Play",
    "PlayParseError",
    "Position",
    "PositionError",
    "Roll",
    "RollError",
    "RulesError",
    "ShortNardy",
    "ShortOptions",
    "Step",
    "Variant",
    "VariantError",
    "find_variant",
]
