"""The legal plays of a roll: a lazy view, like python-chess's ``board.legal_moves``.

Nothing is generated until it is asked for; ``bool(view)`` is answered from the first steps
alone when it can be. Each entry is one *distinct resulting position*: plays that reach the
same position by other step orders are the same play.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from nardy.rules.board import from_mover, to_mover
from nardy.rules.dice import Roll
from nardy.rules.errors import RulesError
from nardy.rules.movegen import Board, Generator, Results
from nardy.rules.play import Play, Step
from nardy.rules.position import Position

if TYPE_CHECKING:
    from nardy.rules.variants import Variant


class LegalPlays:
    """The legal plays of ``roll`` for the side to move in ``position``.

    Supports ``len()``, iteration (``Play`` objects), ``in`` (a ``Play``, its text, or a
    resulting ``Position``), ``bool()``; :meth:`items` pairs each play with its result.
    An empty view means the roll cannot be played at all (the turn passes).
    """

    __slots__ = ("variant", "position", "roll", "first_turn", "_start", "_gen", "_results")

    def __init__(self, variant: Variant, position: Position, roll: object, first_turn: bool = False) -> None:
        if position.variant != variant.name:
            raise RulesError(f"a {position.variant} nardy position given to {variant.title}")
        self.variant = variant
        self.position = position
        self.roll = Roll.from_any(roll)
        self.first_turn = first_turn
        self._start: Board = to_mover(position)
        double = self.roll.high if self.roll.is_double else None
        self._gen = Generator(variant.gen_rules(), self._start, variant.head_limit(double, first_turn))
        self._results: Results | None = None

    def _all(self) -> Results:
        if self._results is None:
            self._results = self._gen.generate(self._start, self.roll.high, self.roll.low)
        return self._results

    def _result_position(self, board: Board) -> Position:
        return from_mover(board, self.position, trusted=True).with_turn(self.position.turn.other)

    # ------------------------------------------------------------ container protocol
    def __len__(self) -> int:
        return len(self._all())

    def __bool__(self) -> bool:
        if self._results is not None:
            return bool(self._results)
        return self._gen.any_step(self._start, self.roll.high, self.roll.low)

    def __iter__(self) -> Iterator[Play]:
        for steps in self._all().values():
            yield Play(Step(*s) for s in steps)

    def __contains__(self, item: object) -> bool:
        if isinstance(item, str):
            try:
                item = Play.from_text(item)
            except ValueError:
                return False
        if isinstance(item, Position):
            return self.find(item) is not None
        if isinstance(item, Play):
            return self.result_of(item) is not None
        return False

    def __repr__(self) -> str:
        return f"<LegalPlays {self.variant.name} {self.roll} ({len(self)} plays)>"

    # ------------------------------------------------------------ queries
    def items(self) -> Iterator[tuple[Play, Position]]:
        """Each legal play with the position it leads to (the opponent then to move)."""
        for board, steps in self._all().items():
            yield Play(Step(*s) for s in steps), self._result_position(board)

    def positions(self) -> Iterator[Position]:
        """Each distinct resulting position (the opponent then to move)."""
        for board in self._all():
            yield self._result_position(board)

    def boards(self) -> Results:
        """The raw results: mover boards (see :mod:`nardy.rules.board`) with one step sequence each."""
        return self._all()

    def depth(self) -> int:
        """How many steps each legal play has (0 when the roll cannot be played)."""
        for steps in self._all().values():
            return len(steps)
        return 0

    def partial_positions(self) -> Iterator[Position]:
        """Positions on the way to a legal play, one checker moved at a time (the mover still to move)."""
        for board in self._gen.partials(self._start, self.roll.high, self.roll.low, self.depth()):
            yield from_mover(board, self.position, trusted=True)

    def find(self, after: Position) -> Play | None:
        """The legal play that turns the position into ``after`` (whoever ``after`` says is to move)."""
        if after.variant != self.position.variant:
            return None
        board = to_mover(after, self.position.turn)
        mine = self._all()
        steps = mine.get(board)
        if steps is None:
            return None
        if self.position.off(self.position.turn.other) != after.off(self.position.turn.other):
            return None
        return Play(Step(*s) for s in steps)

    def result_of(self, play: Play) -> Position | None:
        """The position a legal ``play`` leads to, or None if it is not one of the legal plays."""
        try:
            after = self.position.apply(play)
        except ValueError:
            return None
        return after if self.find(after) is not None else None
