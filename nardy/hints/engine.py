"""The hint engine interface: a position and a roll in, the legal plays ranked best-first out.

>>> from nardy.hints import engine_for
>>> from nardy.rules import Position
>>> engine = engine_for("long", prefer="own")
>>> hint = engine.hint(Position.initial("long"), "6-5", first_turn=True)
>>> hint.best.play.text()
'24/13'

Equities are cubeless, in points per game for the side that plays, after its play: +1 a sure
single win, -2 a sure gammon (mars) loss. Chances are that side's, after its play; each
"gammon" chance counts the backgammons (koks) too.

``engine_for("short")`` is GNU Backgammon when it is installed and our own network otherwise;
if gnubg cannot take a position (it knows only standard backgammon with 15 checkers a side) or
fails, the engine answers with its own evaluator and says so in :attr:`Hint.engine` and
:attr:`Hint.note`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from nardy.rules import Play, Position, Roll, Variant, find_variant

log = logging.getLogger(__name__)

Preference = Literal["gnubg", "own"]


@dataclass(frozen=True, slots=True)
class Chances:
    """The playing side's chances after its play (each gammon chance includes backgammons)."""

    win: float
    win_gammon: float
    win_backgammon: float
    lose_gammon: float
    lose_backgammon: float

    @classmethod
    def from_sequence(cls, values: Sequence[float]) -> Chances:
        w, wg, wbg, lg, lbg = (float(v) for v in values)
        return cls(w, wg, wbg, lg, lbg)

    def to_json(self) -> dict[str, float]:
        return {
            "win": round(self.win, 4),
            "win_gammon": round(self.win_gammon, 4),
            "win_backgammon": round(self.win_backgammon, 4),
            "lose_gammon": round(self.lose_gammon, 4),
            "lose_backgammon": round(self.lose_backgammon, 4),
        }


@dataclass(frozen=True, slots=True)
class RankedPlay:
    """One legal play with its evaluation."""

    play: Play
    """The play, in the mover's numbering."""
    position: Position
    """The position it leads to (the opponent to move)."""
    equity: float
    """Cubeless equity of the side that plays, after this play (points per game)."""
    loss: float
    """How much equity this play gives up against the best one (0 for the best)."""
    chances: Chances | None = None
    """Win and gammon chances after the play, where the engine knows them."""
    plies: int = 1
    """How deep this play was searched: 1 = the resulting position evaluated as it stands
    (GNU Backgammon calls that 0-ply), 2 = averaged over the opponent's replies to each roll."""

    def to_json(self) -> dict[str, Any]:
        return {
            "play": self.play.text(),
            "position": self.position.to_json(),
            "equity": round(self.equity, 4),
            "loss": round(self.loss, 4),
            "chances": None if self.chances is None else self.chances.to_json(),
            "plies": self.plies,
        }


@dataclass(frozen=True, slots=True)
class Hint:
    """The ranked legal plays of one roll (empty when the roll cannot be played)."""

    position: Position
    roll: Roll
    first_turn: bool
    plays: tuple[RankedPlay, ...]
    """Every legal play exactly once, best first."""
    engine: str
    """Who ranked them, e.g. ``"gnubg 2-ply"`` or ``"own long 1-ply"``."""
    note: str | None = None
    """Why the engine asked for was not the one used, if it was not."""
    seconds: float = 0.0
    """Time taken."""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def best(self) -> RankedPlay | None:
        return self.plays[0] if self.plays else None

    def rank_of(self, play: Play | Position) -> RankedPlay | None:
        """The entry for ``play`` (or for the position a play leads to), if it is legal."""
        for entry in self.plays:
            if (isinstance(play, Play) and entry.play == play) or (
                isinstance(play, Position) and entry.position.same_board(play)
            ):
                return entry
        return None

    def to_json(self) -> dict[str, Any]:
        return {
            "position": self.position.to_json(),
            "roll": [self.roll.high, self.roll.low],
            "first_turn": self.first_turn,
            "engine": self.engine,
            "note": self.note,
            "seconds": round(self.seconds, 4),
            "plays": [p.to_json() for p in self.plays],
        }


@runtime_checkable
class HintEngine(Protocol):
    """Anything that ranks the legal plays of a roll."""

    @property
    def name(self) -> str:
        """A short description such as ``"own long 2-ply"``."""
        ...

    def hint(self, position: Position, roll: Roll | str, first_turn: bool = False) -> Hint:
        """Every legal play of ``roll`` for the side to move, ranked best-first."""
        ...


def rank(
    entries: Sequence[tuple[Play, Position, float, Chances | None, int]],
) -> tuple[RankedPlay, ...]:
    """Sort ``(play, position, equity, chances, plies)`` best first and fill in the losses.

    Plays searched deeper come first (as in gnubg's hint list: the deeper search decides among
    the candidates that survived the shallow one); ties keep a stable order by play text.
    """
    ordered = sorted(entries, key=lambda e: (-e[4], -e[2], e[0].text()))
    if not ordered:
        return ()
    top = ordered[0][2]
    return tuple(
        RankedPlay(play, pos, eq, max(0.0, top - eq), chances, plies)
        for play, pos, eq, chances, plies in ordered
    )


class FallbackEngine:
    """Asks ``primary`` first; when it cannot answer, ``fallback`` answers and the hint says why.

    A position the primary refuses (a ``ValueError``) goes to the fallback alone. When the
    primary itself fails (crashes, hangs: a ``RuntimeError`` or ``OSError``), it is left alone
    for ``rest`` seconds, so that a broken engine does not slow every hint down.
    """

    def __init__(self, primary: HintEngine, fallback: HintEngine, rest: float = 60.0) -> None:
        self.primary = primary
        self.fallback = fallback
        self.rest = rest
        self._down_until = 0.0
        self._down_reason = ""

    @property
    def name(self) -> str:
        return f"{self.primary.name}, else {self.fallback.name}"

    def hint(self, position: Position, roll: Roll | str, first_turn: bool = False) -> Hint:
        from nardy.rules import RulesError

        if time.monotonic() < self._down_until:
            return self._fall_back(position, roll, first_turn, self._down_reason)
        try:
            return self.primary.hint(position, roll, first_turn)
        except RulesError:
            raise  # a bad question, not a failing engine
        except ValueError as exc:
            reason = f"{self.primary.name} cannot take this position: {exc}"
            return self._fall_back(position, roll, first_turn, reason)
        except (RuntimeError, OSError) as exc:
            reason = f"{self.primary.name} unavailable: {exc}"
            log.warning("%s; using %s for %g s", reason, self.fallback.name, self.rest)
            self._down_until = time.monotonic() + self.rest
            self._down_reason = reason
            return self._fall_back(position, roll, first_turn, reason)

    def _fall_back(self, position: Position, roll: Roll | str, first_turn: bool, note: str) -> Hint:
        hint = self.fallback.hint(position, roll, first_turn)
        return Hint(hint.position, hint.roll, hint.first_turn, hint.plays, hint.engine, note, hint.seconds)


def engine_for(
    variant: Variant | str,
    prefer: Preference = "gnubg",
    plies: int = 1,
    gnubg_plies: int = 2,
) -> HintEngine:
    """The hint engine for ``variant``.

    ``prefer="gnubg"`` (short nardy only; long nardy has no public engine) uses GNU Backgammon
    when it is installed -- the PyPI ``gnubg`` bindings in a worker process, else Debian's
    ``gnubg`` program -- at ``gnubg_plies`` (gnubg's own count), falling back to our network.
    ``plies`` (1 or 2) is the depth of our own search.
    """
    from nardy.hints.own_engine import OwnEngine

    if prefer not in ("gnubg", "own"):
        raise ValueError(f"prefer must be 'gnubg' or 'own', not {prefer!r}")
    v = find_variant(variant)
    own = OwnEngine(v, plies=plies)
    if prefer == "own" or v.name != "short":
        return own
    from nardy.hints.gnubg_engine import GnubgEngine, GnubgUnavailable

    try:
        gnubg = GnubgEngine(v, plies=gnubg_plies)
    except GnubgUnavailable as exc:
        log.info("GNU Backgammon is not available (%s); hints come from our own evaluator", exc)
        return FallbackEngine(_Missing(str(exc)), own)
    return FallbackEngine(gnubg, own)


class _Missing:
    """Stands in for an engine that is not installed, so the hint can say so."""

    def __init__(self, reason: str) -> None:
        self.reason = reason

    @property
    def name(self) -> str:
        return "gnubg"

    def hint(self, position: Position, roll: Roll | str, first_turn: bool = False) -> Hint:
        raise RuntimeError(f"not installed ({self.reason})")
