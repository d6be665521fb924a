"""Post-match analysis: how much equity each play gave up against the best one.

Feed :func:`analyse` the turns of a game in order -- anything shaped like
``(position, roll, first_turn, play)``, as tuples or as objects with those attributes -- or
:func:`analyse_match` a recorded :class:`~nardy.rules.record.MatchRecord`; each roll's plays are
ranked with a hint engine and each play is marked by its loss, with GNU Backgammon's thresholds
by default:

==========  =====================
mark        equity given up
==========  =====================
doubtful    0.04 or more
error       0.08 or more
blunder     0.16 or more
==========  =====================

``play`` may be a :class:`~nardy.rules.Play`, its text, the position it led to, or None when
the roll could not be played. Plays the rules do not allow are marked ``illegal`` and have no
loss; turns with a single legal play are ``forced`` and are not counted as decisions.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from nardy.hints.engine import HintEngine, RankedPlay, engine_for
from nardy.rules import Color, Play, Position, Roll

if TYPE_CHECKING:
    from nardy.rules.record import MatchRecord

MARKS = ("", "doubtful", "error", "blunder")


@dataclass(frozen=True, slots=True)
class AnalysisConfig:
    """Equity losses at which a play is marked (cubeless points per game)."""

    doubtful: float = 0.04
    error: float = 0.08
    blunder: float = 0.16

    def mark(self, loss: float) -> str:
        if loss >= self.blunder:
            return "blunder"
        if loss >= self.error:
            return "error"
        if loss >= self.doubtful:
            return "doubtful"
        return ""


@dataclass(frozen=True, slots=True)
class PlayReview:
    """The verdict on one turn."""

    index: int
    """The turn's place in the sequence (0-based)."""
    position: Position
    roll: Roll
    played: Play | None
    """What was played (None: nothing, or a result no legal play leads to)."""
    best: RankedPlay | None
    """The engine's first choice (None when the roll could not be played)."""
    loss: float | None
    """Equity given up against the best play; None for an illegal play."""
    mark: str
    """``""``, ``doubtful``, ``error``, ``blunder``, ``forced``, ``no-play`` or ``illegal``."""
    rank: int | None
    """1 for the best play; None for an illegal one."""
    choices: int
    """How many legal plays the roll had."""
    engine: str
    game: int | None = None
    """The game's number in a match (:func:`analyse_match`), else None."""

    @property
    def mover(self) -> Color:
        return self.position.turn

    @property
    def decision(self) -> bool:
        """Whether there was a real choice (two or more legal plays) and the play was legal."""
        return self.choices > 1 and self.loss is not None

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "game": self.game,
            "mover": self.mover.value,
            "roll": [self.roll.high, self.roll.low],
            "played": None if self.played is None else self.played.text(),
            "best": None if self.best is None else self.best.play.text(),
            "best_equity": None if self.best is None else round(self.best.equity, 4),
            "loss": None if self.loss is None else round(self.loss, 4),
            "mark": self.mark,
            "rank": self.rank,
            "choices": self.choices,
            "engine": self.engine,
        }


@dataclass(frozen=True, slots=True)
class SideSummary:
    """One side's totals."""

    decisions: int = 0
    total_loss: float = 0.0
    marks: dict[str, int] = field(default_factory=dict)

    @property
    def mean_loss(self) -> float:
        """Average equity given up per decision."""
        return self.total_loss / self.decisions if self.decisions else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "decisions": self.decisions,
            "total_loss": round(self.total_loss, 4),
            "mean_loss": round(self.mean_loss, 4),
            "marks": dict(sorted(self.marks.items())),
        }


@dataclass(frozen=True, slots=True)
class MatchReview:
    """Every turn's verdict, and each side's totals."""

    plays: tuple[PlayReview, ...]
    config: AnalysisConfig

    def summary(self) -> dict[Color, SideSummary]:
        out: dict[Color, SideSummary] = {}
        for color in Color:
            mine = [p for p in self.plays if p.mover is color]
            marks: dict[str, int] = {}
            for p in mine:
                if p.mark:
                    marks[p.mark] = marks.get(p.mark, 0) + 1
            decisions = [p for p in mine if p.decision]
            out[color] = SideSummary(len(decisions), sum(p.loss or 0.0 for p in decisions), marks)
        return out

    @property
    def blunders(self) -> tuple[PlayReview, ...]:
        return tuple(p for p in self.plays if p.mark == "blunder")

    def to_json(self) -> dict[str, Any]:
        return {
            "thresholds": {
                "doubtful": self.config.doubtful,
                "error": self.config.error,
                "blunder": self.config.blunder,
            },
            "summary": {c.value: s.to_json() for c, s in self.summary().items()},
            "plays": [p.to_json() for p in self.plays],
        }


def _fields(turn: Any) -> tuple[Position, Roll, bool, Any]:
    if isinstance(turn, tuple | list):
        if len(turn) != 4:
            raise ValueError(f"a turn is (position, roll, first_turn, play), not {len(turn)} values")
        position, roll, first_turn, play = turn
    else:
        position, roll, first_turn, play = turn.position, turn.roll, turn.first_turn, turn.play
    if not isinstance(position, Position):
        raise TypeError(f"a turn's position must be a Position, not {type(position).__name__}")
    return position, Roll.from_any(roll), bool(first_turn), play


def review_turn(
    index: int, turn: Any, engine: HintEngine, config: AnalysisConfig = AnalysisConfig()
) -> PlayReview:
    """The verdict on one ``(position, roll, first_turn, play)``."""
    position, roll, first_turn, played = _fields(turn)
    hint = engine.hint(position, roll, first_turn)
    entry: RankedPlay | None = None
    play: Play | None = None
    if isinstance(played, Position):
        entry = hint.rank_of(played)
    elif isinstance(played, Play | str):
        play = Play.from_text(played) if isinstance(played, str) else played
        entry = hint.rank_of(play)
        if entry is None:  # the same result by another route is the same play
            try:
                entry = hint.rank_of(position.apply(play))
            except ValueError:
                entry = None
    elif played is not None:
        raise TypeError(f"a play is a Play, its text or the resulting Position, not {type(played).__name__}")
    best = hint.best
    choices = len(hint.plays)
    if best is None:
        legal = (
            played is None
            or (play is not None and not play.steps)
            or (isinstance(played, Position) and played.same_board(position))
        )
        mark = "no-play" if legal else "illegal"
        return PlayReview(
            index,
            position,
            roll,
            None,
            None,
            0.0 if legal else None,
            mark,
            1 if legal else None,
            0,
            hint.engine,
        )
    if entry is None:
        return PlayReview(index, position, roll, play, best, None, "illegal", None, choices, hint.engine)
    rank = hint.plays.index(entry) + 1
    loss = entry.loss
    mark = "forced" if choices == 1 else config.mark(loss)
    return PlayReview(index, position, roll, entry.play, best, loss, mark, rank, choices, hint.engine)


def analyse(
    turns: Iterable[Any],
    engine: HintEngine | None = None,
    config: AnalysisConfig = AnalysisConfig(),
) -> MatchReview:
    """Review every turn of a game or match, in order (see the module docstring)."""
    engines: dict[str, HintEngine] = {}
    out = []
    for index, turn in enumerate(turns):
        position = _fields(turn)[0]
        use = engine
        if use is None:
            use = engines.get(position.variant)
            if use is None:
                use = engines[position.variant] = engine_for(position.variant)
        out.append(review_turn(index, turn, use, config))
    return MatchReview(tuple(out), config)


def analyse_match(
    record: MatchRecord, engine: HintEngine | None = None, config: AnalysisConfig = AnalysisConfig()
) -> MatchReview:
    """Review every turn of a recorded match (:class:`nardy.rules.record.MatchRecord`), game by game.

    The engine defaults to :func:`engine_for` the match's variant with its rule options.
    """
    use = engine if engine is not None else engine_for(record.variant)
    out: list[PlayReview] = []
    for game in record.games:
        for turn in game.turns:
            played = turn.play if turn.play else None
            review = review_turn(
                len(out), (turn.before, turn.roll, game.first_turn(turn), played), use, config
            )
            out.append(replace(review, game=game.number))
    return MatchReview(tuple(out), config)
