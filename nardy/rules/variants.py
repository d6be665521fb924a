"""The two games, found by name, with their rule options.

``find_variant("long")`` / ``find_variant("narde")`` gives :class:`LongNardy`,
``find_variant("short")`` / ``find_variant("backgammon")`` gives :class:`ShortNardy`.
Options follow ``docs/rules.md``: the defaults are the federation's rules, each alternative
is a named house rule.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any, ClassVar, Literal

from nardy.rules.color import Color
from nardy.rules.errors import VariantError
from nardy.rules.movegen import NO_LIMIT, GenRules
from nardy.rules.position import Position

Opening = Literal["sports", "rethrow"]
IllegalPolicy = Literal["enforce", "accept"]


@dataclass(frozen=True, slots=True)
class Options:
    """Rule options shared by both games."""

    opening: Opening = "sports"
    """``"sports"``: each throws one die, the higher moves first with those two numbers.
    ``"rethrow"``: the winner of the opening throw throws both dice anew."""
    illegal_play: IllegalPolicy = "enforce"
    """``"enforce"``: an illegal play must be taken back and the same dice replayed.
    ``"accept"``: the opponent may let it stand before rolling (it stays flagged)."""
    crawford: bool = True
    """Matches: no doubling in the game after a player first comes within one point of winning."""
    cube: bool = True
    """The doubling cube is in use."""


@dataclass(frozen=True, slots=True)
class ShortOptions(Options):
    """Options of short nardy (backgammon)."""

    max_per_point: int | None = None
    """Folk rule (players' summary): at most this many checkers on one point (6); off by default."""


@dataclass(frozen=True, slots=True)
class LongOptions(Options):
    """Options of long nardy."""

    head_doubles: Literal["sports", "any"] = "sports"
    """First turn: ``"sports"`` lets two checkers leave the head on 6-6, 4-4 or 3-3 (article 20.3);
    ``"any"`` on any double."""
    block_rule: Literal["strict", "final"] = "strict"
    """6-block with no opposing checker ahead: ``"strict"`` forbids it even in passing
    (article 20.5); ``"final"`` looks only at the position at the end of the turn."""
    koks: bool = False
    """Score koks (3 points) when the loser bore off none and still has a checker in the
    winner's home."""


_OPTION_CHOICES: dict[str, tuple[object, ...]] = {
    "opening": ("sports", "rethrow"),
    "illegal_play": ("enforce", "accept"),
    "head_doubles": ("sports", "any"),
    "block_rule": ("strict", "final"),
}


def _check_options(options: Options) -> None:
    for f in fields(options):
        value = getattr(options, f.name)
        choices = _OPTION_CHOICES.get(f.name)
        if choices is not None and value not in choices:
            raise VariantError(
                f"option {f.name} must be one of {', '.join(map(str, choices))}, not {value!r}"
            )
        if f.name in ("crawford", "cube", "koks") and not isinstance(value, bool):
            raise VariantError(f"option {f.name} must be true or false, not {value!r}")
    if isinstance(options, ShortOptions) and options.max_per_point is not None:
        mpp = options.max_per_point
        if isinstance(mpp, bool) or not isinstance(mpp, int) or not 2 <= mpp <= 15:
            raise VariantError(f"option max_per_point must be 2..15 or None, not {mpp!r}")


class Variant:
    """A game of nardy with its options. Immutable; compare by name and options."""

    name: ClassVar[str]
    aliases: ClassVar[tuple[str, ...]]
    title: ClassVar[str]
    options_type: ClassVar[type[Options]]

    def __init__(self, options: Options | None = None, **changes: Any) -> None:
        opts = options if options is not None else self.options_type()
        if not isinstance(opts, self.options_type):
            raise VariantError(f"{self.title} takes {self.options_type.__name__}, not {type(opts).__name__}")
        if changes:
            known = {f.name for f in fields(opts)}
            unknown = set(changes) - known
            if unknown:
                raise VariantError(
                    f"unknown option(s) for {self.title}: {', '.join(sorted(unknown))} "
                    f"(known: {', '.join(sorted(known))})"
                )
            opts = replace(opts, **changes)
        _check_options(opts)
        self.options: Options = opts

    # ------------------------------------------------------------ rules hooks
    def gen_rules(self) -> GenRules:
        raise NotImplementedError

    def head_limit(self, roll_double: int | None, first_turn: bool) -> int:
        """How many checkers may leave the head this turn (no limit in short nardy)."""
        return NO_LIMIT

    def initial_position(self, turn: Color = Color.WHITE) -> Position:
        return Position.initial(self.name, turn)

    # ------------------------------------------------------------ API
    def legal_plays(self, position: Position, roll: object, first_turn: bool = False) -> Any:
        """The legal plays of ``roll`` (a :class:`Roll`, ``"6-5"`` or ``[6, 5]``) as a lazy view."""
        from nardy.rules.legal import LegalPlays

        return LegalPlays(self, position, roll, first_turn)

    def judge(self, before: Position, after: Position, roll: object, first_turn: bool = False) -> Any:
        """The verdict on ``after`` as the result of the side to move's play of ``roll``."""
        from nardy.rules.judge import judge

        return judge(self, before, after, roll, first_turn)

    def result(self, position: Position, cube: int = 1) -> Any:
        """The game's result if it is over (someone bore off all 15), else None."""
        from nardy.rules.scoring import game_result

        return game_result(self, position, cube)

    def options_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self.options, f.name) for f in fields(self.options)}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Variant) and other.name == self.name and other.options == self.options

    def __hash__(self) -> int:
        return hash((self.name, self.options))

    def __repr__(self) -> str:
        default = self.options_type()
        changed = {
            f.name: getattr(self.options, f.name)
            for f in fields(self.options)
            if getattr(self.options, f.name) != getattr(default, f.name)
        }
        args = ", ".join(f"{k}={v!r}" for k, v in changed.items())
        return f"{type(self).__name__}({args})"


class ShortNardy(Variant):
    """Short nardy: backgammon, article 21 of the sports rules."""

    name = "short"
    aliases = ("short", "backgammon", "bg", "short-nardy", "shortnardy", "tavla")
    title = "short nardy"
    options_type = ShortOptions

    def gen_rules(self) -> GenRules:
        assert isinstance(self.options, ShortOptions)
        mpp = self.options.max_per_point
        return GenRules(long=False, max_per_point=NO_LIMIT if mpp is None else mpp)


class LongNardy(Variant):
    """Long nardy, article 20 of the sports rules."""

    name = "long"
    aliases = ("long", "narde", "nard", "long-nardy", "longnardy", "long nardy")
    title = "long nardy"
    options_type = LongOptions

    def gen_rules(self) -> GenRules:
        assert isinstance(self.options, LongOptions)
        return GenRules(long=True, block_strict=self.options.block_rule == "strict")

    def head_limit(self, roll_double: int | None, first_turn: bool) -> int:
        assert isinstance(self.options, LongOptions)
        if first_turn and roll_double is not None:
            if self.options.head_doubles == "any" or roll_double in (3, 4, 6):
                return 2
        return 1


VARIANTS: tuple[type[Variant], ...] = (ShortNardy, LongNardy)


def find_variant(name: str | Variant, **options: Any) -> Variant:
    """The variant called ``name`` (``short``, ``backgammon``, ``long``, ``narde``, ...), with options."""
    if isinstance(name, Variant):
        return type(name)(name.options, **options) if options else name
    key = name.strip().lower().replace("_", "-")
    for cls in VARIANTS:
        if key in cls.aliases:
            return cls(**options)
    known = ", ".join(a for cls in VARIANTS for a in cls.aliases[:2])
    raise VariantError(f"unknown variant {name!r} (known: {known})")
