"""The record of a match: who played under which rules, and every turn, cube action and result.

Pure values: frozen dataclasses that hold :mod:`nardy.rules` types (positions, rolls, plays,
results). The match-file formats (:mod:`nardy.rules.matfile`, :mod:`nardy.rules.sgf`) and the
SQLite store of :mod:`nardy.referee.store` read and write these; :meth:`MatchRecord.to_json`
is their lossless text form.

Colours: white is the first player of a match file and black the second. Plays are in the
mover's own numbering; positions in white's (``docs/rules.md``).

A turn in a record is a turn that *stands*: an illegal play that was taken back is not a turn
(the referee keeps it as an alert) and the replayed turn carries ``corrected``; an illegal play
the opponent let stand is a turn with ``illegal`` and ``accepted``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from nardy.rules.color import Color
from nardy.rules.dice import Roll
from nardy.rules.errors import RulesError
from nardy.rules.play import Play, Step
from nardy.rules.position import Position
from nardy.rules.scoring import NAMES, GameResult
from nardy.rules.variants import Variant, find_variant

CubeKind = Literal["double", "take", "drop"]
Ending = Literal["bear-off", "drop", "resign"]
CUBE_KINDS: tuple[str, ...] = ("double", "take", "drop")
ENDINGS: tuple[str, ...] = ("bear-off", "drop", "resign")
JSON_FORMAT = "nardy-match"
JSON_VERSION = 1


class RecordError(RulesError):
    """A match record that does not hold together: a take with no double, a turn in a finished game..."""


# ----------------------------------------------------------------------------- values
@dataclass(frozen=True, slots=True)
class MatchInfo:
    """Who plays what: everything about a match that is known before its first roll."""

    white: str
    """The player of the white checkers (the first player in match files)."""
    black: str
    """The player of the black checkers (the second player in match files)."""
    variant: Variant
    """The game and its rule options (``find_variant("short", crawford=True)``)."""
    length: int = 0
    """Points needed to win the match; 0 for an unlimited session."""
    venue: str = ""
    """Where it is played (club, hall, table)."""
    event: str = ""
    """The tournament or event and round, as the director writes it."""
    started_at: datetime | None = None
    """When the match started (timezone-aware)."""

    def __post_init__(self) -> None:
        if not isinstance(self.variant, Variant):
            raise RecordError(f"a match needs a Variant, not {self.variant!r}")
        if isinstance(self.length, bool) or not isinstance(self.length, int) or not 0 <= self.length <= 99:
            raise RecordError(f"match length must be 0 (unlimited) to 99 points, not {self.length!r}")
        for name in ("white", "black"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value.strip():
                raise RecordError(f"the {name} player needs a name, not {value!r}")
            if "\n" in value or "\r" in value:
                raise RecordError(f"a player's name is one line, not {value!r}")
        _check_time(self.started_at, "started_at")

    def player(self, color: Color) -> str:
        return self.white if color is Color.WHITE else self.black


@dataclass(frozen=True, slots=True)
class TurnRecord:
    """One turn that stands: the throw, the play and the positions around it."""

    roll: Roll
    """The dice thrown."""
    play: Play
    """What was played, in the mover's own numbering (empty when nothing could be played)."""
    before: Position
    """The position before the play; its ``turn`` is the mover."""
    after: Position
    """The position after the play (the opponent to move)."""
    rolled_at: datetime | None = None
    """When the dice were reported."""
    decided_at: datetime | None = None
    """When the turn was decided (the board settled and the referee ruled)."""
    illegal: bool = False
    """The play broke a rule (see ``reason``)."""
    accepted: bool = False
    """The opponent let an illegal play stand (rule option ``illegal_play=accept``)."""
    corrected: bool = False
    """The turn was corrected: an illegal play taken back and replayed, or a misreading fixed."""
    manual: bool = False
    """Entered by hand rather than read from the board."""
    reason: str = ""
    """Why the play is illegal, in the judge's words; empty for a legal one."""
    note: str = ""
    """Anything else the referee or director wrote down."""

    def __post_init__(self) -> None:
        if not isinstance(self.roll, Roll) or not isinstance(self.play, Play):
            raise RecordError("a turn needs a Roll and a Play")
        if not isinstance(self.before, Position) or not isinstance(self.after, Position):
            raise RecordError("a turn needs the positions before and after it")
        if self.before.variant != self.after.variant:
            raise RecordError("a turn's positions are of different variants")
        if self.after.turn is not self.before.turn.other:
            raise RecordError(f"after {self.before.turn}'s turn it is {self.before.turn.other}'s turn")
        _check_time(self.rolled_at, "rolled_at")
        _check_time(self.decided_at, "decided_at")

    @property
    def color(self) -> Color:
        """The side that played."""
        return self.before.turn

    @property
    def flags(self) -> tuple[str, ...]:
        """The names of the flags that are set, e.g. ``("illegal", "accepted")``."""
        return tuple(f for f in ("illegal", "accepted", "corrected", "manual") if getattr(self, f))


@dataclass(frozen=True, slots=True)
class CubeAction:
    """A double, a take or a drop."""

    kind: CubeKind
    """``"double"``, ``"take"`` or ``"drop"``."""
    color: Color
    """Who acts: the doubler for a double, the doubled player for a take or a drop."""
    cube: int
    """The value offered: 2 for the first double ("Doubles => 2"), and the same for its answer."""
    at: datetime | None = None
    """When it happened."""

    def __post_init__(self) -> None:
        if self.kind not in CUBE_KINDS:
            raise RecordError(f"a cube action is double, take or drop, not {self.kind!r}")
        if not isinstance(self.color, Color):
            raise RecordError(f"a cube action needs a side, not {self.color!r}")
        if (
            isinstance(self.cube, bool)
            or not isinstance(self.cube, int)
            or self.cube < 2
            or self.cube & (self.cube - 1)
        ):
            raise RecordError(f"a double offers 2, 4, 8, ..., not {self.cube!r}")
        _check_time(self.at, "at")


Action = TurnRecord | CubeAction


@dataclass(frozen=True, slots=True)
class CubeState:
    """The doubling cube at some moment of a game."""

    value: int = 1
    owner: Color | None = None
    """Who may double next (None: the cube is in the middle)."""
    offered_by: Color | None = None
    """A double is on the table, waiting for take or drop."""


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One game: its actions in order and how it ended."""

    number: int
    """1 for the first game of the match."""
    actions: tuple[Action, ...] = ()
    """Turns and cube actions, in the order they happened."""
    result: GameResult | None = None
    """None while the game is being played."""
    ending: Ending | None = None
    """``"bear-off"``, ``"drop"`` or ``"resign"``; None while the game is being played."""
    started_at: datetime | None = None
    ended_at: datetime | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "actions", tuple(self.actions))
        if (self.result is None) != (self.ending is None):
            raise RecordError(f"game {self.number}: a result needs an ending and an ending a result")
        if self.ending is not None and self.ending not in ENDINGS:
            raise RecordError(
                f"game {self.number}: a game ends by bear-off, drop or resign, not {self.ending!r}"
            )
        _check_time(self.started_at, "started_at")
        _check_time(self.ended_at, "ended_at")

    @property
    def turns(self) -> tuple[TurnRecord, ...]:
        return tuple(a for a in self.actions if isinstance(a, TurnRecord))

    @property
    def cube_actions(self) -> tuple[CubeAction, ...]:
        return tuple(a for a in self.actions if isinstance(a, CubeAction))

    @property
    def finished(self) -> bool:
        return self.result is not None

    @property
    def first(self) -> Color | None:
        """The side that moved first (None before the first action)."""
        for action in self.actions:
            return action.color
        return None

    def position(self, variant: str) -> Position | None:
        """The position now: after the last turn, or the start if no turn was played yet."""
        turns = self.turns
        if turns:
            return turns[-1].after
        first = self.first
        return None if first is None else Position.initial(variant, first)

    def first_turn(self, turn: TurnRecord) -> bool:
        """Whether ``turn`` (one of this game's) was its mover's first of the game."""
        for action in self.actions:
            if action is turn:
                return True
            if isinstance(action, TurnRecord) and action.color is turn.color:
                return False
        raise RecordError(f"the turn is not one of game {self.number}'s")

    def cube(self) -> CubeState:
        """The cube after the last action."""
        return cube_state(self.actions)

    def last_activity(self) -> datetime | None:
        """The latest time stamp in the game."""
        times = [self.started_at, self.ended_at]
        for action in self.actions:
            if isinstance(action, TurnRecord):
                times += [action.rolled_at, action.decided_at]
            else:
                times.append(action.at)
        known = [t for t in times if t is not None]
        return max(known) if known else None


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """A whole match: its info and its games."""

    info: MatchInfo
    games: tuple[GameRecord, ...] = ()
    ended_at: datetime | None = None
    """When the match was closed (None while it is open)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "games", tuple(self.games))
        _check_time(self.ended_at, "ended_at")

    @property
    def variant(self) -> Variant:
        return self.info.variant

    def scores(self) -> list[tuple[int, int]]:
        """The score ``(white, black)`` before each game, then the score after the last one."""
        white = black = 0
        out = [(0, 0)]
        for game in self.games:
            if game.result is not None:
                if game.result.winner is Color.WHITE:
                    white += game.result.points
                else:
                    black += game.result.points
            out.append((white, black))
        return out

    @property
    def score(self) -> tuple[int, int]:
        """The score ``(white, black)`` after the finished games."""
        return self.scores()[-1]

    @property
    def winner(self) -> Color | None:
        """The side that reached the match length (None in a session or before the end)."""
        if self.info.length <= 0:
            return None
        white, black = self.score
        if white >= self.info.length:
            return Color.WHITE
        if black >= self.info.length:
            return Color.BLACK
        return None

    def crawford_games(self) -> set[int]:
        """The numbers of the games played under the Crawford rule (no doubling): at most one."""
        length = self.info.length
        if length <= 0 or not self.info.variant.options.crawford:
            return set()
        for game, (white, black) in zip(self.games, self.scores(), strict=False):
            if (white == length - 1) != (black == length - 1):
                return {game.number}
        return set()

    def to_json(self) -> dict[str, Any]:
        """The record as JSON: every turn with both positions in the position JSON of ``docs/rules.md``."""
        info = self.info
        scores = self.scores()
        crawford = self.crawford_games()
        return {
            "format": JSON_FORMAT,
            "version": JSON_VERSION,
            "white": info.white,
            "black": info.black,
            "variant": info.variant.name,
            "options": info.variant.options_dict(),
            "length": info.length,
            "venue": info.venue,
            "event": info.event,
            "started_at": _time_text(info.started_at),
            "ended_at": _time_text(self.ended_at),
            "score": {"white": scores[-1][0], "black": scores[-1][1]},
            "winner": None if self.winner is None else self.winner.value,
            "games": [
                _game_json(game, scores[i], game.number in crawford) for i, game in enumerate(self.games)
            ],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> MatchRecord:
        """Read :meth:`to_json`'s form back; errors name the game and action that is wrong."""
        try:
            return _record_from_json(data)
        except RecordError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise RecordError(f"not a match record: {exc}") from None


# ----------------------------------------------------------------------------- cube
def cube_state(actions: Iterable[Action], strict: bool = False) -> CubeState:
    """Follow the cube through ``actions``; with ``strict``, raise :class:`RecordError` on a wrong one."""
    state = CubeState()
    for i, action in enumerate(actions, 1):
        if not isinstance(action, CubeAction):
            if strict and state.offered_by is not None:
                raise RecordError(f"action {i}: a turn was played while a double waited for an answer")
            continue
        problem = cube_problem(state, action)
        if problem and strict:
            raise RecordError(f"action {i}: {problem}")
        state = next_cube_state(state, action)
    return state


def cube_problem(state: CubeState, action: CubeAction) -> str | None:
    """Why ``action`` cannot follow ``state`` (None when it can)."""
    if action.kind == "double":
        if state.offered_by is not None:
            return f"{action.color} doubles while a double waits for an answer"
        if state.owner is not None and state.owner is not action.color:
            return f"{action.color} doubles but {state.owner} owns the cube"
        if action.cube != state.value * 2:
            return f"{action.color} doubles to {action.cube}, but the cube is at {state.value}"
        return None
    if state.offered_by is None:
        return f"{action.color} {action.kind}s but no double was offered"
    if state.offered_by is action.color:
        return f"{action.color} answers its own double"
    if action.cube != state.value * 2:
        return f"{action.color} {action.kind}s a double to {action.cube}, but {state.value * 2} was offered"
    return None


def next_cube_state(state: CubeState, action: CubeAction) -> CubeState:
    if action.kind == "double":
        return CubeState(state.value, state.owner, action.color)
    if action.kind == "take":
        return CubeState(action.cube, action.color, None)
    return CubeState(state.value, state.owner, None)  # a drop ends the game at the old value


# ----------------------------------------------------------------------------- building turns
def first_turns(actions: Iterable[Action]) -> dict[Color, bool]:
    """Which sides have not played a turn yet in a game of ``actions``."""
    out = {Color.WHITE: True, Color.BLACK: True}
    for action in actions:
        if isinstance(action, TurnRecord):
            out[action.color] = False
    return out


def judge_turn(
    variant: Variant,
    before: Position,
    roll: Roll,
    play: Play,
    first_turn: bool = False,
    **details: Any,
) -> TurnRecord:
    """A :class:`TurnRecord` of ``play``, flagged ``illegal`` (with the judge's reason) if it breaks a rule.

    ``details`` are the other fields (times, flags, note). Raises
    :class:`~nardy.rules.errors.IllegalPlayError` when the play cannot even be made on the board.
    """
    legal = variant.legal_plays(before, roll, first_turn)
    after = legal.result_of(play) if play else None
    if after is None and not play and not legal:
        after = before.with_turn(before.turn.other)  # nothing could be played: the turn passes
    if after is not None:
        return TurnRecord(roll, play, before, after, **details)
    moved = before.apply(play)
    verdict = variant.judge(before, moved, roll, first_turn)
    reason = verdict.reason or "not one of the legal plays"
    if verdict.legal:  # same result by another path the judge accepts: keep it as played
        return TurnRecord(roll, play, before, moved, **details)
    details = {**details, "illegal": True, "reason": details.get("reason") or reason}
    return TurnRecord(roll, play, before, moved, **details)


def die_steps(variant: Variant, turn: TurnRecord, first_turn: bool) -> tuple[Step, ...]:
    """The turn's play one die at a time (``24/18 18/13``, not ``24/13``), as analysis programs replay it.

    An illegal play is given as it was recorded.
    """
    steps = turn.play.steps
    if turn.illegal or not steps:
        return steps
    dice = (turn.roll.high, turn.roll.low)
    if all(s.distance in dice for s in steps):
        return steps
    found = variant.legal_plays(turn.before, turn.roll, first_turn).find(turn.after)
    return steps if found is None else found.steps


def steps_text(play: Play) -> str:
    """The play's steps one by one, in the order they were made: ``Play.from_text`` of it gives them back.

    (The canonical :meth:`Play.text` merges a checker's hops, which can attribute a hit to another
    checker's path when two checkers pass the same point; this form keeps each step as it was.)
    """
    return " ".join(step.text() for step in play.steps)


def iter_turns(record: MatchRecord) -> Iterator[tuple[GameRecord, TurnRecord]]:
    for game in record.games:
        for turn in game.turns:
            yield game, turn


# ----------------------------------------------------------------------------- JSON helpers
def _check_time(value: object, name: str) -> None:
    if value is None:
        return
    if not isinstance(value, datetime) or value.tzinfo is None:
        raise RecordError(f"{name} must be a timezone-aware datetime, not {value!r}")


def _time_text(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def parse_time(value: object, name: str = "time") -> datetime | None:
    """An ISO 8601 time with a timezone, or None."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise RecordError(f"{name} must be an ISO 8601 text, not {value!r}")
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise RecordError(f"{name} {value!r} is not an ISO 8601 time") from None
    if parsed.tzinfo is None:
        raise RecordError(f"{name} {value!r} has no timezone")
    return parsed


def result_json(result: GameResult | None, ending: str | None) -> dict[str, Any] | None:
    if result is None:
        return None
    return {**result.to_json(), "ending": ending}


def result_from_json(variant: str, data: Mapping[str, Any]) -> tuple[GameResult, Ending]:
    winner = Color.parse(str(data["winner"]))
    multiplier = int(data["multiplier"])
    cube = int(data["cube"])
    ending = str(data.get("ending") or "bear-off")
    if multiplier not in (1, 2, 3):
        raise RecordError(f"a game is won 1, 2 or 3 times the cube, not {multiplier}")
    if ending not in ENDINGS:
        raise RecordError(f"a game ends by bear-off, drop or resign, not {ending!r}")
    if "points" in data and int(data["points"]) != multiplier * cube:
        raise RecordError(f"{data['points']} points is not {multiplier} times the cube {cube}")
    return GameResult(winner, multiplier, cube, NAMES[variant][multiplier]), ending  # type: ignore[return-value]


def _turn_json(turn: TurnRecord) -> dict[str, Any]:
    return {
        "type": "turn",
        "color": turn.color.value,
        "roll": [turn.roll.high, turn.roll.low],
        "play": turn.play.text(),
        "steps": steps_text(turn.play),
        "before": turn.before.to_json(),
        "after": turn.after.to_json(),
        "rolled_at": _time_text(turn.rolled_at),
        "decided_at": _time_text(turn.decided_at),
        "flags": list(turn.flags),
        "reason": turn.reason,
        "note": turn.note,
    }


def _cube_json(action: CubeAction) -> dict[str, Any]:
    return {
        "type": action.kind,
        "color": action.color.value,
        "cube": action.cube,
        "at": _time_text(action.at),
    }


def _game_json(game: GameRecord, score: tuple[int, int], crawford: bool) -> dict[str, Any]:
    return {
        "number": game.number,
        "score_before": {"white": score[0], "black": score[1]},
        "crawford": crawford,
        "started_at": _time_text(game.started_at),
        "ended_at": _time_text(game.ended_at),
        "actions": [_turn_json(a) if isinstance(a, TurnRecord) else _cube_json(a) for a in game.actions],
        "result": result_json(game.result, game.ending),
    }


def _record_from_json(data: Mapping[str, Any]) -> MatchRecord:
    if data.get("format") != JSON_FORMAT:
        raise RecordError(f"not a match record: 'format' is {data.get('format')!r}, expected {JSON_FORMAT!r}")
    if data.get("version") != JSON_VERSION:
        raise RecordError(
            f"match record version {data.get('version')!r} is not supported (only {JSON_VERSION})"
        )
    variant = find_variant(str(data["variant"]), **dict(data.get("options") or {}))
    info = MatchInfo(
        white=data["white"],
        black=data["black"],
        variant=variant,
        length=data.get("length", 0),
        venue=data.get("venue") or "",
        event=data.get("event") or "",
        started_at=parse_time(data.get("started_at"), "started_at"),
    )
    games = []
    for g in data.get("games", []):
        number = int(g["number"])
        actions: list[Action] = []
        for i, a in enumerate(g.get("actions", []), 1):
            where = f"game {number}, action {i}"
            kind = a.get("type")
            try:
                if kind == "turn":
                    flags = set(a.get("flags", []))
                    unknown = flags - {"illegal", "accepted", "corrected", "manual"}
                    if unknown:
                        raise RecordError(f"unknown flag(s) {', '.join(sorted(unknown))}")
                    actions.append(
                        TurnRecord(
                            roll=Roll.from_any(a["roll"]),
                            play=Play.from_text(a["steps"] if "steps" in a else a["play"]),
                            before=Position.from_json(a["before"]),
                            after=Position.from_json(a["after"]),
                            rolled_at=parse_time(a.get("rolled_at"), "rolled_at"),
                            decided_at=parse_time(a.get("decided_at"), "decided_at"),
                            illegal="illegal" in flags,
                            accepted="accepted" in flags,
                            corrected="corrected" in flags,
                            manual="manual" in flags,
                            reason=a.get("reason") or "",
                            note=a.get("note") or "",
                        )
                    )
                elif kind in CUBE_KINDS:
                    actions.append(
                        CubeAction(
                            kind, Color.parse(a["color"]), int(a["cube"]), parse_time(a.get("at"), "at")
                        )
                    )
                else:
                    raise RecordError(f"unknown action type {kind!r}")
            except (RulesError, KeyError, TypeError, ValueError) as exc:
                raise RecordError(f"{where}: {exc}") from None
        result = ending = None
        if g.get("result") is not None:
            result, ending = result_from_json(variant.name, g["result"])
        games.append(
            GameRecord(
                number=number,
                actions=tuple(actions),
                result=result,
                ending=ending,
                started_at=parse_time(g.get("started_at"), "started_at"),
                ended_at=parse_time(g.get("ended_at"), "ended_at"),
            )
        )
    return MatchRecord(
        info=info,
        games=tuple(games),
        ended_at=parse_time(data.get("ended_at"), "ended_at"),
    )
