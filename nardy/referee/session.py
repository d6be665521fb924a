"""The referee: a turn state machine fed by dice events, camera readings and user commands.

It knows whose turn it is, decodes each play from settled readings under the rules, ends a turn
when the opponent throws, scores games and the match, and raises alerts. Everything it decides is
an event on its :class:`~nardy.referee.events.EventBus`; :meth:`Referee.state` is the snapshot the
dashboard draws. All methods are thread-safe: the camera loop, the dice reader and web requests
call them from their own threads.
"""

from __future__ import annotations

import math
import statistics
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from nardy.referee import events as ev
from nardy.referee.config import RefereeConfig
from nardy.referee.decode import (
    Bias,
    Decision,
    Finished,
    alarm_margin,
    best_chain,
    best_finished,
    candidates,
    decode,
    most_borne,
)
from nardy.referee.events import Alert, EventBus, Severity
from nardy.referee.match import Cube, CubeError, MatchInfo, MatchScore
from nardy.referee.reading import BoardReading
from nardy.referee.resume import ResumePoint
from nardy.referee.settle import Settler
from nardy.rules import Color, Play, Position, Roll, Variant, find_variant
from nardy.rules.board import mover_point
from nardy.rules.judge import Verdict
from nardy.rules.scoring import GameResult

Phase = Literal["opening", "playing", "game-over", "match-over"]
Status = Literal["waiting", "partial", "played", "illegal", "unsure"]


_ALARMS = ("illegal", "count", "unreadable", "unsure")
"""Decisions that raise an alert."""
_OFFENCES = ("illegal", "count", "unreadable")
"""Decisions that say something is wrong on the board: they must hold ``alarm_settle_seconds``."""


_CLEARED_AT_TURN_END = (
    ev.ILLEGAL_PLAY,
    ev.UNFINISHED_PLAY,
    ev.LOOK,
    ev.COUNT_CHANGED,
    ev.CHECK,
    ev.CAMERA_MOVED,
)
"""Alerts about the turn that ended (a camera move is in the record; the board was found again)."""


class CommandError(ValueError):
    """A command that cannot be carried out now (the message says why)."""


@dataclass
class Turn:
    """The turn in progress."""

    mover: Color
    roll: Roll
    before: Position
    first_turn: bool
    source: str
    status: Status = "waiting"
    after: Position | None = None
    play: Play | None = None
    verdict: Verdict | None = None
    queued: tuple[Roll, str] | None = None
    """The opponent's throw, made before this play was finished."""
    late: str | None = None
    """The "not finished" alert held back because the board was moving when the opponent threw
    (the mover's hand may have been finishing the play): raised if the board settles unfinished."""
    flags: set[str] = field(default_factory=set)

    def to_json(self) -> dict[str, Any]:
        return {
            "mover": self.mover.value,
            "roll": [self.roll.high, self.roll.low],
            "source": self.source,
            "status": self.status,
            "first_turn": self.first_turn,
            "play": None if self.play is None else self.play.text(),
            "after": None if self.after is None else self.after.to_json(),
            "reason": None if self.verdict is None else self.verdict.reason,
        }


@dataclass(frozen=True, slots=True)
class TurnRecord:
    """A finished turn, as the game record keeps it."""

    number: int
    mover: Color
    roll: Roll
    play: Play
    before: Position
    after: Position
    source: str
    flags: frozenset[str]
    t: float

    def to_json(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "mover": self.mover.value,
            "roll": [self.roll.high, self.roll.low],
            "play": self.play.text(),
            "before": self.before.to_json(),
            "after": self.after.to_json(),
            "source": self.source,
            "flags": sorted(self.flags),
        }


class Referee:
    """Follows one match: ``on_roll``, ``on_reading`` and the commands drive it."""

    info: MatchInfo
    variant: Variant
    score: MatchScore
    game_number: int
    position: Position
    phase: Phase
    to_move: Color | None
    turn: Turn | None
    played: set[Color]
    moves: list[TurnRecord]
    cube: Cube
    result: GameResult | None

    def __init__(
        self,
        info: MatchInfo | None = None,
        config: RefereeConfig | None = None,
        bus: EventBus | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.config = config or RefereeConfig()
        self.clock = clock
        self.bus = bus or EventBus(clock)
        self._lock = threading.RLock()
        self._settler = Settler(self.config)
        self.alerts: dict[str, Alert] = {}
        self.dice: dict[str, Any] = {"connected": None, "device": None, "battery": None, "state": "idle"}
        self.camera: dict[str, Any] = {"ok": None, "message": ""}
        self.last_reading: BoardReading | None = None
        self._gaps: deque[tuple[float, ...]] = deque(maxlen=self.config.bias_window)
        """Recent gaps, place by place, between the free reading and the position that stood."""
        self._leans: deque[tuple[tuple[int, ...], tuple[float, ...]]] = deque(maxlen=self.config.bias_window)
        """Recent positions that stood (their points) and the reading's deficits, point by point,
        from them (``BoardReading.deficits``)."""
        self.usual_gap = Bias()
        """How far this camera's free reading usually is from the position that stands: the
        median over ``_gaps``, of the whole and of each place (none until three are learned), and
        how it leans away from the counts on record, point by point (over ``_leans``)."""
        self.misread: frozenset[int] = frozenset()
        """Points the camera has long read unlike the position that stands (see ``misread_seconds``)."""
        self._deficits: list[deque[tuple[float, float, int]]] = [deque() for _ in range(24)]
        """Per point, (time, how far the reading there was from the position that stood, the
        count it read likeliest)."""
        self._now = 0.0
        self._patch: frozenset[str] = frozenset()
        """The places called unsettled since the board last read settled (see ``_patch_stands``)."""
        self._patch_since = 0.0
        self._obscured_since: float | None = None
        """Since when a standing patch has lain over ``obscured_points`` points or more."""
        self._unobscured_since: float | None = None
        """Since when the readings have named fewer points than that."""
        self._named_since: dict[str, float] = {}
        """Each place called unsettled in every reading since the time it holds."""
        self._resync_at: tuple[int, int] | None = None
        """(game, records) when the records were last weighed again (see ``_resync``)."""
        self._run: list[Decision] = []
        """The decisions of the frames behind the wrong board now settling (see ``_offence``)."""
        self._run_since: float | None = None
        self._setup_ok = True
        self._unseen: tuple[tuple[Color, tuple[int, ...]], ...] = ()
        """The sides, with their starting points, that the camera did not see on the last board
        read at setup (see ``unseen_share``)."""
        self._unconfirmed: tuple[int, Position, dict[int, int]] | None = None
        """For the last play recorded unconfirmed on the opponent's throw (see ``_finish_on_throw``):
        its number, the position it left, and the points where the board then read otherwise, with
        the count read there (see ``_doubted``)."""
        self.start_match(info or MatchInfo())

    # ================================================================== match and game
    def start_match(self, info: MatchInfo) -> None:
        """Begin a new match (the current one, if any, is left as it is)."""
        with self._lock:
            self.info = info
            self.variant = find_variant(info.variant, **info.options)
            self.score = MatchScore()
            self.game_number = 0
            self.bus.emit("match-started", match=info.to_json())
            self._new_game()

    def resume(self, point: ResumePoint) -> None:
        """Continue an unfinished match from the store (``nardy serve --resume``).

        The score, the game in progress, its turns, the cube and the side to move come from the
        record; the next throw goes on from there. A ``resumed`` event says how long the gap was.
        """
        record = point.record
        with self._lock:
            variant = record.info.variant
            default = type(variant)().options_dict()
            options = {k: v for k, v in variant.options_dict().items() if default.get(k) != v}
            self.info = MatchInfo(
                variant=variant.name,
                length=record.info.length,
                white=record.info.white,
                black=record.info.black,
                options=options,
                venue=record.info.venue,
            )
            self.variant = variant
            score = MatchScore()
            finished = [g for g in record.games if g.result is not None]
            for game in finished:
                assert game.result is not None
                score = score.after(game.result, self.info.length, variant.options.crawford)
            self.score = score
            self.game_number = len(record.games)
            self.turn = None
            self.result = None
            self.cube = Cube(point.cube.value, point.cube.owner, point.cube.offered_by)
            self.moves = []
            self.played = set()
            self._settler.reset()
            if point.game_id is not None and point.position is not None:
                game = record.games[-1]
                for number, turn in enumerate(game.turns, 1):
                    flags = frozenset(turn.flags)
                    self.moves.append(
                        TurnRecord(
                            number,
                            turn.color,
                            turn.roll,
                            turn.play,
                            turn.before,
                            turn.after,
                            "manual" if turn.manual else "e-dice",
                            flags,
                            self.clock(),
                        )
                    )
                    self.played.add(turn.color)
                self.position = point.position
                self._relean()
                self.to_move = point.position.turn
                self.phase = "playing" if self.moves or game.cube_actions else "opening"
                if self.phase == "opening":
                    self.to_move = None
            else:
                self.position = Position.initial(variant.name)
                self._relean()
                self.to_move = None
                self.phase = "match-over" if score.winner(self.info.length) else "game-over"
            gap = point.gap
            self.bus.emit(
                "resumed",
                match=self.info.to_json(),
                score=self.score.to_json(),
                game=self.game_number,
                position=self.position.to_json(),
                to_move=None if self.to_move is None else self.to_move.value,
                gap_seconds=None if gap is None else round(gap.total_seconds(), 1),
                text=point.describe(),
            )

    def _new_game(self) -> None:
        self.game_number += 1
        self.position = Position.initial(self.variant.name)
        self._relean()
        self.phase = "opening"
        self.to_move = None
        self.turn = None
        self.played = set()
        self.moves = []
        self.cube = Cube()
        self.result = None
        self._settler.reset()
        self.bus.emit(
            "game-started",
            game=self.game_number,
            crawford=self.score.crawford_game,
            score=self.score.to_json(),
            position=self.position.to_json(),
        )

    # ================================================================== dice
    def on_roll(self, dice: tuple[int, int], source: str = "e-dice") -> None:
        """A throw of both dice settled (from a hub, manual entry or a replay)."""
        with self._lock:
            roll = Roll(*dice)
            self.dice["state"] = "settled"
            self.dice["last"] = [dice[0], dice[1]]
            self.dice["source"] = source
            if self.phase == "match-over":
                self._alert(ev.OUT_OF_TURN, "warning", "the match is over: start a new match to go on")
                return
            turn = self.turn
            if self.phase == "playing" and turn is not None and turn.queued is not None:
                # a second throw while a play is still open: both plays are over
                note = self._resolve_stuck(turn)
                self._throw(roll, dice, source)
                self._alert(ev.CHECK, "warning", note)  # after the turn the throw ended
                return
            self._throw(roll, dice, source)

    def _throw(self, roll: Roll, dice: tuple[int, int], source: str) -> None:
        if self.phase == "game-over":
            self._new_game()
        if self.phase == "opening":
            self._opening(dice, source)
            return
        self._roll_in_play(roll, source)

    def _opening(self, dice: tuple[int, int], source: str) -> None:
        a, b = dice
        if self._unseen:
            # each side's points in its own numbering, as the plays and the reasons give them
            said = "; ".join(
                f"{side}'s on {'its points' if len(points) > 1 else 'its point'} "
                + ", ".join(
                    str(q)
                    for q in sorted((mover_point(self.variant.name, side, p) for p in points), reverse=True)
                )
                for side, points in self._unseen
            )
            self._alert(
                ev.UNSEEN_SIDE,
                "warning",
                f"the camera does not see the starting position's checkers ({said}): they need "
                "more light, or to stand out from the board more; until then what it reads of "
                "those checkers cannot be trusted",
                tuple(p for _, points in self._unseen for p in points),
            )
        else:
            self._clear(ev.UNSEEN_SIDE)
        if not self._setup_ok:
            self._alert(ev.BOARD_CHANGED, "warning", "set up the starting position before the opening throw")
        if a == b:
            self.bus.emit("opening-tie", dice=[a, b], source=source)
            return
        winner = Color.WHITE if a > b else Color.BLACK
        self.phase = "playing"
        self.bus.emit("opening", dice=[a, b], first=winner.value, source=source)
        if self.variant.options.opening == "sports":
            self._start_turn(winner, Roll(a, b), source)
        else:
            self.to_move = winner

    def _roll_in_play(self, roll: Roll, source: str) -> None:
        if self.cube.offered_by is not None:
            self._alert(ev.OUT_OF_TURN, "warning", f"{self.cube.offered_by} has doubled: take or drop first")
            self.bus.emit("roll-ignored", dice=[roll.high, roll.low], source=source, reason="double offered")
            return
        turn = self.turn
        if turn is None:
            assert self.to_move is not None
            self._start_turn(self.to_move, roll, source)
            return
        if turn.status == "played":
            if self._doubtful_since_played(turn) and self._finish_on_throw(turn):
                # the play was recorded from an earlier board, and the board it was left at
                # says less plainly which play it was: recorded from the board as it stands
                if self.phase == "playing":
                    self._start_turn(turn.mover.other, roll, source)
                return
            self._commit()
            self._start_turn(turn.mover.other, roll, source)
            return
        if turn.status == "illegal" and self.variant.options.illegal_play == "accept":
            turn.flags.add("accepted")
            self.bus.emit("illegal-accepted", mover=turn.mover.value, play=_text(turn.play))
            self._commit(after=turn.after)
            self._start_turn(turn.mover.other, roll, source)
            return
        if turn.status == "waiting":
            reading = self.last_reading
            still = self._settler.stable is not None and self._settler.disturbed_since is None
            if reading is None or (still and self._shows_unchanged(turn, reading)):
                # the board is still and shows nothing played (or there is no camera to wait
                # for): the throw is out of turn
                self._out_of_turn(turn, roll, source)
                return
            if (still or self._calm()) and self._finish_on_throw(turn):
                # the board stood changed but never clearly enough to decide on (something lay
                # over a point the play touched, or the camera's reading of a point flickered
                # between two meanings): the throw says the play is over
                if self.phase == "playing":
                    self._start_turn(turn.mover.other, roll, source)
                return
            # the board is moving (a hand, a checker still sliding): decide once it settles
            turn.queued = (roll, source)
            self._settler.reset()
            return
        if turn.status in ("partial", "unsure") and self._finish_on_throw(turn):
            if self.phase == "playing":
                self._start_turn(turn.mover.other, roll, source)
            return
        if turn.status == "illegal" and self._put_right(turn) and self._finish_on_throw(turn):
            # the illegal play was taken back and played again, and the board shows a legal
            # play about as well as anything (a checker of it the camera cannot see, say): the
            # throw says that play is over
            if self.phase == "playing":
                self._start_turn(turn.mover.other, roll, source)
            return
        turn.queued = (roll, source)
        if turn.status == "illegal":
            text = f"{turn.mover.other} threw before {turn.mover}'s illegal play was put right"
        else:
            text = f"{turn.mover}'s play of {turn.roll} was not finished before {turn.mover.other} threw"
        if self.last_reading is not None and self._settler.disturbed_since is not None:
            # a hand is over the board: the last still board may be from before the play was
            # finished or put right. Say so only if the board settles the same
            turn.late = text
            self._settler.reset()
            return
        self._alert(ev.UNFINISHED_PLAY, "warning", text)

    def _doubtful_since_played(self, turn: Turn) -> bool:
        """Whether the board, still when the opponent throws, no longer shows ``turn``'s recorded
        play plainly: it changed after the play was recorded (the mover's hand came back to bear a
        checker off, say) and now reads as one of two or more states of the turn, which had not
        stood long enough for the question to be asked."""
        reading = self.last_reading
        if reading is None or self._settler.disturbed_since is not None:
            return False
        return self._decode(turn, reading, self.config).kind == "unsure"

    def _put_right(self, turn: Turn) -> bool:
        """Whether the board, still, no longer shows ``turn``'s illegal play: the last reading
        decodes to something other than an offence on the board that was called illegal."""
        reading = self.last_reading
        if reading is None or turn.after is None or self._settler.disturbed_since is not None:
            return False
        shown = self._decode(turn, reading, self.config)
        return not (
            shown.kind in _OFFENCES and shown.position is not None and shown.position.same_board(turn.after)
        )

    def _calm(self) -> bool:
        """Whether nothing has moved over the board for ``settle_seconds``, though what it
        means may not have held that long."""
        since = self._settler.calm_since
        return (
            self._settler.disturbed_since is None
            and since is not None
            and self.clock() - since >= self.config.settle_seconds
        )

    def _shows_unchanged(self, turn: Turn, reading: BoardReading) -> bool:
        """Whether ``reading`` shows the board as it was before ``turn``'s throw."""
        shown = self._decode(turn, reading, self.config)
        return shown.kind == "unchanged"

    def _finish_on_throw(self, turn: Turn) -> bool:
        """The opponent threw while the board looked unfinished or unclear: the throw says the
        play is over. If a finished legal play explains the board about as well as anything, it
        is recorded and True is returned. When the camera could not tell only whether the play
        was finished, and the throw settles that (see ``finished_prior``), it is recorded as any
        clear play; otherwise it is flagged uncertain, with a note to check."""
        reading = self.last_reading
        if reading is None:
            return False
        found = best_finished(self.variant, turn.before, turn.roll, turn.first_turn, reading)
        cfg = self.config
        # the throw says the mover had finished (``finished_prior``): the board must show an
        # unfinished play that much more clearly before the throw is taken for an offence
        if found is None or found.behind_top - cfg.finished_prior > cfg.doubt_margin:
            # ... and show it on the points: a checker borne off and not seen in the tray (a lone
            # one standing at the frame's edge is the camera's least sure reading) is no offence
            if found is None or reading.off is None:
                return False
            trayless = reading.without_trays()
            board = best_finished(self.variant, turn.before, turn.roll, turn.first_turn, trayless)
            if board is None or board.behind_top - cfg.finished_prior > cfg.doubt_margin:
                return False
        settled_by_throw = self._clearly_finished(turn, reading, found, cfg.finished_prior)
        play, after = found.play, found.after
        turn.status = "played"
        turn.play = play
        turn.after = after
        if not settled_by_throw:
            turn.flags.add("uncertain")
            shown = reading.most_likely()[0]
            unlike = {i + 1: n for i, n in enumerate(shown) if n != after.points[i]}
            self._unconfirmed = (len(self.moves) + 1, after, unlike)
        margin = min(found.over_other, found.over_unfinished + cfg.finished_prior)
        # the board now stands as recorded: how far the camera reads from it is the camera's
        # usual gap too. Without this a camera that came to read worse mid-game (a lamp's
        # reflection over checkers that moved under it) can leave no board that decodes
        # plainly, the only other readings the gap is learned from, and the bias never catches up
        self._learn_gap(reading, after)
        self._emit_play(turn, play, after, margin if settled_by_throw else None)
        result = self.variant.result(after, self.cube.value)
        self._commit()
        if not settled_by_throw:
            who = f"{turn.mover}'s {turn.roll}"
            note = f"recorded {who} as {play.text()} when {turn.mover.other} threw: please check"
            self._alert(ev.CHECK, "info", note)
        if result is not None:
            self._end_game(result)
        return True

    def _free(self, turn: Turn, reading: BoardReading) -> tuple[float, Position | None]:
        """The most likely board with the checkers ``turn`` started from (the mover may have borne
        some off), and its log-likelihood: what every reading of the turn is measured against."""
        return reading.best_keeping_count(
            turn.before,
            bearing=turn.mover,
            most_borne=most_borne(self.variant, turn.before, turn.roll, turn.first_turn),
        )

    def _clearly_finished(self, turn: Turn, reading: BoardReading, found: Finished, prior: float) -> bool:
        """Whether ``found`` is the play once something says the mover has finished (the
        opponent's throw, or a long stillness after a game-ending play, worth ``prior``): it beats
        every other finished play by ``accept_margin``, the unfinished states by that less
        ``prior``, and no board explains the reading much better."""
        cfg = self.config
        return (
            found.over_other >= cfg.accept_margin
            and found.over_unfinished >= cfg.accept_margin - prior
            and self.usual_gap.gap(reading, found.after, self._free(turn, reading)) <= cfg.doubt_margin
        )

    def _ending(self, turn: Turn, reading: BoardReading) -> tuple[Hashable, Callable[[], None]] | None:
        """The board may show the play that ends the game, and the camera cannot tell only
        whether it is finished (the last checker off, or still on its point). No throw will
        come to say so: a board that stays the same for ``ending_settle_seconds`` does."""
        found = best_finished(self.variant, turn.before, turn.roll, turn.first_turn, reading)
        if found is None or self.variant.result(found.after, self.cube.value) is None:
            return None
        if not self._clearly_finished(turn, reading, found, self.config.ending_prior):
            return None
        margin = min(found.over_other, found.over_unfinished + self.config.ending_prior)

        def act() -> None:
            if self.turn is not turn:
                return
            result = self.variant.result(found.after, self.cube.value)
            assert result is not None
            self._clear(ev.LOOK)
            turn.status = "played"
            turn.play = found.play
            turn.after = found.after
            self._emit_play(turn, found.play, found.after, margin)
            self._commit()
            self._end_game(result)

        return _Ending((turn.mover, turn.roll, _board_key(found.after)), clear=False), act

    def _resolve_stuck(self, turn: Turn) -> str:
        """Another throw came while ``turn`` was still open (illegal, unsure, unfinished, or
        never read) and the opponent's throw waited behind it: the players have played on. The
        referee must not stall for the rest of the game, so it records the two plays that best
        explain the last board it saw — the open play (any legal one, or what it saw of an
        illegal one) and the opponent's finished play — both flagged uncertain, and says so."""
        assert turn.queued is not None
        reading = self.last_reading
        roll, source = turn.queued
        nxt = turn.mover.other
        legal = self.variant.legal_plays(turn.before, turn.roll, turn.first_turn)
        starts: list[tuple[Play | None, Position]] = list(legal.items()) or [(Play(), turn.before)]
        if turn.status == "illegal" and turn.after is not None:
            starts.append((turn.play, turn.after))
        if reading is None:
            # no camera: the open play stands as last seen, or as the first legal play
            best = (turn.play, turn.after) if turn.after is not None else starts[0]
            plays: tuple[Play | None, ...] = (best[0],)
            boards: tuple[Position, ...] = (best[1],)
        else:
            plays, boards, _ = best_chain(
                self.variant, ((nxt, roll, nxt not in self.played),), tuple(starts), reading
            )
        first, after = plays[0], boards[0]
        illegal = turn.status == "illegal" and turn.after is not None and after is turn.after
        turn.queued = None
        turn.status = "played"
        turn.play = first if first is not None else Play()
        turn.after = after
        turn.flags.add("uncertain")
        if not illegal:
            turn.flags.discard("illegal")
        self._emit_play(turn, turn.play, after, None)
        result = self.variant.result(after, self.cube.value)
        self._commit()
        said = [f"{turn.mover}'s {turn.roll} as {turn.play.text() or '(no play)'}"]
        if result is not None:
            self._end_game(result)
        else:
            self._start_turn(nxt, roll, source, assess=False)
            second = self.turn
            if second is not None and second.mover is nxt and len(plays) > 1:
                second.status = "played"
                second.play = plays[1] if plays[1] is not None else Play()
                second.after = boards[1]
                second.flags.add("uncertain")
                self._emit_play(second, second.play, boards[1], None)
                said.append(f"{nxt}'s {roll} as {second.play.text() or '(no play)'}")
                result = self.variant.result(boards[1], self.cube.value)
                if result is not None:
                    self._commit()
                    self._end_game(result)
        said_all = " and ".join(said)
        return f"the board was not clear before the next throw: recorded {said_all} — please check"

    def _emit_play(self, turn: Turn, play: Play, after: Position, margin: float | None) -> None:
        self.bus.emit(
            "play",
            mover=turn.mover.value,
            dice=[turn.roll.high, turn.roll.low],
            play=play.text(),
            margin=None if margin is None or not math.isfinite(margin) else round(margin, 2),
            position=after.to_json(),
            flags=sorted(turn.flags),
        )

    def _out_of_turn(self, turn: Turn, roll: Roll, source: str) -> None:
        self._alert(
            ev.OUT_OF_TURN, "warning", f"dice thrown out of turn: {turn.mover} has not played {turn.roll} yet"
        )
        self.bus.emit("roll-ignored", dice=[roll.high, roll.low], source=source, reason="out of turn")

    def _start_turn(self, mover: Color, roll: Roll, source: str, assess: bool = True) -> None:
        before = self.position.with_turn(mover)
        self.position = before
        self.to_move = mover
        self.turn = Turn(mover, roll, before, mover not in self.played, source)
        legal = self.variant.legal_plays(before, roll, self.turn.first_turn)
        self.bus.emit(
            "roll",
            mover=mover.value,
            dice=[roll.high, roll.low],
            source=source,
            first_turn=self.turn.first_turn,
            legal=len(legal),
        )
        self._clear(ev.OUT_OF_TURN)
        if not legal:
            self.bus.emit("no-play", mover=mover.value, dice=[roll.high, roll.low])
            self.turn.status = "played"
            self.turn.after = before
            self.turn.play = Play()
            self._commit()
            return
        self._settler.reset()
        if assess and self.last_reading is not None and self._settler.disturbed_since is None:
            # the board is still: what it shows counts at once for the new throw, unless it says
            # something is wrong, which must hold ``alarm_settle_seconds`` as ever, asks which
            # legal state it is, which must hold ``question_settle_seconds``, or may show the
            # game ended, which must hold ``ending_settle_seconds``
            key, action = self._assess(self.last_reading)
            unclear_end = isinstance(key, _Ending) and not key.clear
            if not _is_alarm(key) and not _is_question(key) and not unclear_end:
                self._settler.mark(key)
                action()

    def _commit(self, after: Position | None = None) -> None:
        turn = self.turn
        assert turn is not None
        final = after or turn.after or turn.before
        record = TurnRecord(
            len(self.moves) + 1,
            turn.mover,
            turn.roll,
            turn.play if turn.play is not None else Play(),
            turn.before,
            final.with_turn(turn.mover.other),
            turn.source,
            frozenset(turn.flags),
            self.clock(),
        )
        self.moves.append(record)
        self.played.add(turn.mover)
        self.position = record.after
        self._relean()
        self.to_move = turn.mover.other
        self.turn = None
        for code in _CLEARED_AT_TURN_END:
            self._clear(code)
        self.bus.emit("turn-ended", turn=record.to_json(), game=self.game_number)
        if turn.queued is not None:
            roll, source = turn.queued
            self._start_turn(self.to_move, roll, source)

    # ================================================================== camera
    def on_reading(self, reading: BoardReading, t: float | None = None) -> None:
        """A camera reading (every frame); acted on once what it shows has settled."""
        with self._lock:
            now = self.clock() if t is None else t
            was_settled = self._settler.disturbed_since is None
            places = [w for w in reading.unsettled if w != "board"]
            disturbed = not reading.settled and (
                not places  # somewhere unknown, or the whole board
                or len(places) != len(reading.unsettled)
                or len(places) > self.config.tolerated_unsettled
            )
            stands = self._patch_stands(reading, now)  # (every reading: a settled one ends the patch)
            self._watch_obscured(reading, stands, now)
            standing = self._standing(reading, now)
            if len(places) <= self.config.tolerated_unsettled:
                # a place or two called unsettled frame after frame, whatever came and went, is
                # no hand reaching over (a pile the camera cannot make out): its neighbours are
                # read. A larger patch that stays (a hand at rest) keeps them suspect
                reading = reading.narrowed(standing)
            if disturbed and stands:
                # a patch that stays where it is is no hand at work (a lamp's reflection over
                # checkers): the reading counts, its places suspect
                disturbed = False
            if disturbed:
                self._settler.feed(None, now, reading.unsettled)
            else:
                self._now = now
                self.last_reading = reading
                key, action = self._assess(reading)
                hold = None
                if _is_alarm(key):
                    hold = self.config.alarm_settle_seconds
                elif isinstance(key, _Ending) and not key.clear:
                    hold = self.config.ending_settle_seconds
                elif _is_question(key) and self.turn is not None and self.turn.queued is None:
                    hold = self.config.question_settle_seconds
                settled = self._settler.feed(key, now, hold=hold)
                self._follow_run(key)
                if settled:
                    action()
            if was_settled != (self._settler.disturbed_since is None):
                self.bus.emit("board", settled=was_settled is False, where=list(self._settler.where))

    def _patch_stands(self, reading: BoardReading, now: float) -> bool:
        """Whether the places ``reading`` calls unsettled have stayed inside one patch, named
        place by place, for ``patch_seconds``: a hand at work moves on to other places; a
        reflection, or a hand at rest, stays. A settled reading, or one unsettled somewhere
        unnamed, starts the patch afresh."""
        places = frozenset(reading.unsettled)
        if reading.settled or not places or "board" in places:
            self._patch, self._patch_since = frozenset(), now
            return False
        if not places <= self._patch:
            self._patch, self._patch_since = self._patch | places, now
        return now - self._patch_since >= self.config.patch_seconds

    def _watch_obscured(self, reading: BoardReading, stands: bool, now: float) -> None:
        """Warn (``not-settled``) once a patch has stood over ``obscured_points`` points or more
        for ``obscured_seconds``: every point under it is suspect, so the referee can call no play
        illegal while it stays. Hands at work in between neither start nor end it (the time runs
        on); readings that name fewer points, or none, for as long end it (a frame or two that
        reads clear does not: the camera may waver over such a patch)."""
        points = sum(1 for w in reading.unsettled if w.startswith(("top[", "bottom[")))
        if points >= self.config.obscured_points:
            self._unobscured_since = None
        elif self._unobscured_since is None:
            self._unobscured_since = now
        unobscured = self._unobscured_since
        if unobscured is not None and now - unobscured >= self.config.obscured_seconds:
            self._obscured_since = None
            self._clear(ev.NOT_SETTLED)
            return
        if not stands or points < self.config.obscured_points:
            return
        if self._obscured_since is None:
            self._obscured_since = now
        if now - self._obscured_since >= self.config.obscured_seconds:
            self._alert(
                ev.NOT_SETTLED,
                "warning",
                "the camera sees something lying still over most of the board (a cloth, a reflection, "
                "or a decoration of the board it takes for one): plays are followed, but none can be "
                "called illegal until it reads clear",
            )

    def _standing(self, reading: BoardReading, now: float) -> frozenset[str]:
        """The places ``reading`` calls unsettled that every reading has called so for
        ``patch_seconds``, whatever else came and went (a hand reaching past a pile the camera
        cannot make out)."""
        places = () if reading.settled else reading.unsettled
        self._named_since = {p: self._named_since.get(p, now) for p in places}
        long = self.config.patch_seconds
        return frozenset(p for p, since in self._named_since.items() if now - since >= long)

    @property
    def bias(self) -> float:
        """How far this camera's free reading usually is from the position that stands (log)."""
        return self.usual_gap.total

    def _learn_gap(self, reading: BoardReading, standing: Position) -> None:
        _, free = reading.best_keeping_count(standing)
        if free is not None:
            self._gaps.append(reading.place_gaps(standing, free))
            if standing.same_board(self.position):
                # (only what is on record: a play read as made may be the very misreading)
                self._leans.append((standing.points, reading.deficits(standing)))
            if len(self._gaps) >= 3:
                total = statistics.median(max(sum(gaps), 0.0) for gaps in self._gaps)
                usual = tuple(max(statistics.median(place), 0.0) for place in zip(*self._gaps, strict=True))
                self.usual_gap = Bias(usual, min(total, self.config.max_bias), *self._lean(self.position))
        self._learn_misread(reading, standing)

    def _relean(self) -> None:
        """Measure the camera's lean from the position on record, which has just changed."""
        if self.usual_gap.lean:
            lean, stood = self._lean(self.position)
            self.usual_gap = replace(self.usual_gap, lean=lean, stood=stood)

    def _lean(self, standing: Position) -> tuple[tuple[float, ...], tuple[int, ...]]:
        """Per point, the median deficit of the count that stands there now, over the recent
        frames in which that count stood (none, 0, until three have)."""
        lean = []
        for i, count in enumerate(standing.points):
            seen = [deficits[i] for points, deficits in self._leans if points[i] == count]
            lean.append(statistics.median(seen) if len(seen) >= 3 else 0.0)
        return tuple(lean), standing.points

    def _learn_misread(self, reading: BoardReading, standing: Position) -> None:
        """Note how far the camera read each point from the position that stands, and take as
        misread the point (``max_misread``) it has read wrong over the last ``misread_seconds``
        (a point taken as misread stays so until its median falls below half the margin)."""
        cfg = self.config
        now = self._now
        found: list[tuple[float, int]] = []
        shown = reading.most_likely()[0]
        for i, deficit in enumerate(reading.deficits(standing)):
            seen = self._deficits[i]
            seen.append((now, deficit, shown[i]))
            while len(seen) > 1 and seen[1][0] <= now - cfg.misread_seconds:
                seen.popleft()
            if now - seen[0][0] >= cfg.misread_seconds:
                median = statistics.median(d for _, d, _ in seen)
                margin = cfg.misread_margin / 2 if i + 1 in self.misread else cfg.misread_margin
                if median > margin:
                    found.append((median, i + 1))
        misread = frozenset(p for _, p in sorted(found, reverse=True)[: cfg.max_misread])
        if misread == self.misread:
            if misread and self._resync_at != (self.game_number, len(self.moves)):
                self._resync(reading, standing)
            return
        self.misread = misread
        if not misread:
            self._clear(ev.POINT_MISREAD)
            return
        if self._resync(reading, standing):
            return
        # what each point has mostly read over those seconds: this frame alone may read it right
        said = ", ".join(
            f"point {p} (read {_count_text(self._mostly_read(p, standing))}, "
            f"recorded {_count_text(standing.points[p - 1])})"
            for p in sorted(misread)
        )
        self._alert(
            ev.POINT_MISREAD,
            "warning",
            f"the camera has read {said} for {cfg.misread_seconds:g} s: glare, or a play recorded "
            "wrongly? An alarm's reason leaves it out until it reads right",
            points=tuple(sorted(misread)),
        )

    def _mostly_read(self, point: int, standing: Position) -> int:
        """The count ``point`` (1..24) has most often been read as, of those unlike ``standing``'s,
        over the frames kept for it (the recorded count if none was unlike it)."""
        recorded = standing.points[point - 1]
        unlike = Counter(n for _, _, n in self._deficits[point - 1] if n != recorded)
        return unlike.most_common(1)[0][0] if unlike else recorded

    def _resync(self, reading: BoardReading, standing: Position) -> bool:
        """A point has been read unlike the record for ``misread_seconds``, with nothing moving:
        a doubtful record (recorded uncertain) up to ``resync_reach`` turns back may be wrong,
        and the records after it, right in themselves, carried its error on (a checker borne off
        from a pile the camera could not count). If another legal play of one such record, with
        every later play replayed as recorded, explains the board by ``misread_margin`` more
        than the record does, as well as the free reading give or take ``doubt_margin``, and
        clearly better than any other such change, the records are re-read with a note to
        check. Returns whether they were."""
        turn = self.turn
        if not standing.same_board(self.position) or (turn is not None and turn.status != "waiting"):
            return False
        # weighed again while the point stays misread only once a play is added to the records
        self._resync_at = (self.game_number, len(self.moves))
        cfg = self.config
        first = max(len(self.moves) - cfg.resync_reach, 0)
        free = reading.best_keeping_count(standing)
        found: list[tuple[float, int, list[TurnRecord]]] = []
        for k in range(first, len(self.moves)):
            record = self.moves[k]
            if "uncertain" not in record.flags:
                continue
            legal = self.variant.legal_plays(record.before, record.roll, self._first_turn_of(k))
            for play, after in legal.items():
                if after.same_board(record.after):
                    continue
                chain = self._replayed(k, play, after)
                if chain is not None:
                    found.append((reading.log_likelihood(chain[-1].after), k, chain))
        if not found:
            return False
        found.sort(key=lambda f: -f[0])
        ll, k, chain = found[0]
        if (
            ll - reading.log_likelihood(standing) < cfg.misread_margin
            or self.usual_gap.gap(reading, chain[-1].after, free) > cfg.doubt_margin
            or (len(found) > 1 and ll - found[1][0] < cfg.accept_margin)
        ):
            return False
        was = self.moves[k]
        for j, record in enumerate(chain, k):
            old, self.moves[j] = self.moves[j], record
            last = j == len(self.moves) - 1
            self.bus.emit("turn-revised", turn=record.to_json(), was=old.play.text(), last=last)
        self.position = chain[-1].after
        if turn is not None:
            turn.before = self.position.with_turn(turn.mover)
        self.misread = frozenset()
        for seen in self._deficits:
            seen.clear()
        self._clear(ev.POINT_MISREAD)
        later = len(chain) - 1
        self._alert(
            ev.CHECK,
            "info",
            f"{was.mover}'s {was.roll} re-read as {chain[0].play.text() or '(no play)'} "
            f"(was {was.play.text() or '(no play)'}): the board has shown it for "
            f"{cfg.misread_seconds:g} s"
            + (f", and the {later} turns after it carried it" if later else "")
            + ": please check",
        )
        return True

    def _replayed(self, k: int, play: Play, after: Position) -> list[TurnRecord] | None:
        """Record ``k`` (0-based) re-read as ``play`` (leaving ``after``) and every record after
        it replayed as recorded from there; None when one of those plays is then not legal or
        the game would have ended before the last of them."""
        was = self.moves[k]
        chain = [
            replace(was, play=play, after=after.with_turn(was.mover.other), flags=was.flags | {"revised"})
        ]
        for j in range(k + 1, len(self.moves)):
            if self.variant.result(chain[-1].after, self.cube.value) is not None:
                return None  # the game would have ended here
            record = self.moves[j]
            before = chain[-1].after.with_turn(record.mover)
            legal = self.variant.legal_plays(before, record.roll, self._first_turn_of(j))
            then = legal.result_of(record.play) if record.play.steps else (None if legal else before)
            if then is None:
                return None
            chain.append(replace(record, before=before, after=then.with_turn(record.mover.other)))
        return None if self.variant.result(chain[-1].after, self.cube.value) is not None else chain

    def _first_turn_of(self, k: int) -> bool:
        """Whether record ``k`` (0-based) was its mover's first turn of the game."""
        return not any(m.mover is self.moves[k].mover for m in self.moves[:k])

    def _assess(self, reading: BoardReading) -> tuple[Hashable, Callable[[], None]]:
        """What a still board means now (a key that stays the same while the meaning does), and
        what to do once it has settled."""
        if self.phase in ("opening", "game-over", "match-over"):
            start = Position.initial(self.variant.name)
            free, _ = reading.best_keeping_count(start)
            ok = free - reading.log_likelihood(start) < self.config.illegal_margin
            # (the count of fifteen can make the start the likeliest board even so: it puts the
            # checkers where the camera sees none, as likely there as anywhere)
            unseen = _unseen_sides(reading, start, self.config.unseen_share)
            if unseen:
                # ... only when the board is the start but for them (not a game's last board)
                clear = reading.unread(frozenset(p for _, points in unseen for p in points))
                kept, _ = clear.best_keeping_count(start)
                if kept - clear.log_likelihood(start) >= self.config.illegal_margin:
                    unseen = ()

            if ok:
                self._learn_gap(reading, start)

            def setup() -> None:
                self._setup_ok = ok
                self._unseen = unseen
                if ok:
                    self._clear(ev.BOARD_CHANGED)

            return ("setup", ok, unseen), setup
        turn = self.turn
        if turn is None:
            usual = self.usual_gap
            gap = usual.gap(reading, self.position, reading.best_keeping_count(self.position))
            changed = gap > self.config.illegal_margin
            if changed and reading.suspect:
                # only an alarm that holds without the points something lay over is raised
                clear = reading.without_suspects()
                if (
                    usual.gap(clear, self.position, clear.best_keeping_count(self.position))
                    <= self.config.illegal_margin
                ):
                    return ("suspect", reading.most_likely()[0]), lambda: None
            if not changed:
                self._learn_gap(reading, self.position)
            seen = reading.most_likely()[0] if changed else None
            still: Hashable = ("alarm", ("still", seen)) if changed else ("still", None)
            return still, lambda: self._check_unchanged(reading, changed)
        judging = self._judging(turn)
        decision = self._decode(turn, reading, judging)
        opener: Decision | None = None
        if turn.first_turn and not self.moves and decision.kind in ("illegal", "unreadable", "count"):
            other = turn.before.with_turn(turn.mover.other)
            alt = decode(self.variant, other, turn.roll, True, reading, self.config, self.usual_gap)
            if alt.kind in ("complete", "partial"):
                opener = alt
        chosen = opener or decision
        if chosen.kind in _ALARMS and reading.suspect:
            # something lay over some points (a hand, a die): raise the alarm only if it holds
            # without them; otherwise wait for a clear view
            clear_view = self._decode(turn, reading.without_suspects(), judging)
            if clear_view.kind not in _ALARMS:
                return ("suspect", turn.mover, turn.roll, reading.most_likely()[0]), lambda: None
            if chosen.kind == "illegal" and clear_view.kind == "unsure":
                # the offence is plain only with what the covered points show: without them the
                # board is doubtful, or may be a legal play, so ask for a look rather than call it
                chosen = clear_view
            if (
                clear_view.verdict is not None
                and not clear_view.verdict.legal
                and _names_any(chosen.verdict, reading.suspect)
                and not _names_any(clear_view.verdict, reading.suspect)
            ):
                # the alarm holds, but its reason came from the points something lay over (a
                # die read as a checker): give the reason the points in plain view give
                chosen = replace(chosen, verdict=clear_view.verdict)
        if chosen.kind in _ALARMS and _names_any(chosen.verdict, self.misread):
            # the reason came from a point the camera has long read wrong (glare): give the
            # reason the other points give, when they too say the play is illegal
            others = self._fault_in(turn, reading.unread(self.misread | reading.suspect), judging)
            if others is not None and not _names_any(others, self.misread):
                chosen = replace(chosen, verdict=others)
        if chosen.kind in _ALARMS and chosen.verdict is not None and chosen.verdict.codes == ("opponent",):
            # "the opponent's checkers moved" is also how stacks read in the swapped colour look,
            # or a pile read short: when the board with the opponent's checkers left where they
            # stood shows an offence of the mover's own, say that (the alarm still needs the
            # margin a picture of the opponent's checkers moved needs). Those points are taken
            # as they stood rather than unread: an unread point would soak up any checkers the
            # count leaves over, and the reason would name it again
            theirs = frozenset(chosen.verdict.points)
            own = self._fault_in(turn, reading.pinned(theirs, turn.before), judging)
            if own is not None and "opponent" not in own.codes:
                chosen = replace(chosen, verdict=replace(own, codes=(*own.codes, "opponent")))
        if chosen.kind in ("unchanged", "complete") and chosen.position is not None:
            self._learn_gap(reading, chosen.position)
        if turn.queued is not None and chosen.kind in ("illegal", "unsure", "unreadable", "count"):
            both = self._two_plays(turn, reading)
            if both is not None:
                return both
            if chosen.kind == "illegal" and self._maybe_two_plays(turn, reading):
                # the opponent has thrown and may be moving: checkers of theirs that moved are
                # no offence, and the board is not clearly unlike the two plays
                options = f"{turn.mover}'s {turn.roll} and {turn.mover.other}'s {turn.queued[0]}"
                text = f"please look: the board does not clearly show {options}"
                # what must hold is where the board differs, not how each frame reads it there
                places = _changed_places(turn.before, chosen.position)
                return _Wrong((turn.mover, "two-plays?"), places), lambda: self._alert(ev.LOOK, "info", text)
        if chosen.kind in ("unsure", "partial") and turn.queued is None:
            ending = self._ending(turn, reading)
            if ending is not None:
                return ending
        if chosen.kind in ("illegal", "count") or (chosen.kind == "unsure" and chosen.margin < 0):
            revised = self._revise_last(turn, reading)
            if revised is not None:
                return revised
            chosen = self._past_doubt(turn, reading, chosen, judging)
        board = None if chosen.position is None else _board_key(chosen.position)
        key: Hashable = (turn.mover, turn.roll, chosen.kind, board, chosen.alternatives)
        if (
            chosen.kind == "complete"
            and chosen.position is not None
            and self.variant.result(chosen.position, self.cube.value) is not None
        ):
            key = _Ending((turn.mover, turn.roll, board), clear=True)
        doubt = chosen.kind == "unsure" and chosen.margin < 0 and chosen.verdict is not None
        if chosen.kind in _OFFENCES or doubt:
            # what settles is that the board is wrong at the same places, not exactly how it is
            # read there: a tall pile the checker went to, read 7 in one frame and 8 in the
            # next, or a pile nobody touched that now and then reads one short beside the
            # places that did change, must not keep the alarm from holding (see _Wrong). A
            # board confidently illegal in one frame and only doubtfully so in the next is one
            # wrong board too: the frames together say which it is (see _offence)
            what = "wrong" if chosen.kind == "illegal" or doubt else chosen.kind
            places = _changed_places(turn.before, chosen.position)
            vague = (
                reading.vague_places(chosen.position, judging.vague_log_probability)
                if doubt and chosen.position is not None
                else frozenset()
            )
            key = ("alarm", _Wrong((turn.mover, turn.roll, what), places, chosen, vague))
        elif chosen.kind == "unsure":
            key = ("question", key)  # which legal state is it: asked once it has stood (see on_reading)

        def act() -> None:
            if self.turn is not turn:
                return
            if opener is not None:
                self._switch_opener(turn)
            wrong = _is_alarm(key)
            self._apply(turn, self._offence(chosen) if wrong else chosen)

        return key, act

    def _fault_in(self, turn: Turn, reading: BoardReading, judging: RefereeConfig) -> Verdict | None:
        """The judge's reason when ``reading`` (a frame's reading with some points unread or
        pinned) shows ``turn``'s play illegal (None when it is legal or no reason is found)."""
        verdict = self._decode(turn, reading, judging).verdict
        return verdict if verdict is not None and not verdict.legal else None

    def _follow_run(self, key: Hashable) -> None:
        """Keep the decisions of the frames behind a wrong board while it settles."""
        wrong = key[1] if isinstance(key, tuple) and len(key) == 2 and isinstance(key[1], _Wrong) else None
        if wrong is None or wrong.decision is None:
            self._run, self._run_since = [], None
            return
        if self._settler.since != self._run_since:
            self._run, self._run_since = [], self._settler.since
        self._run.append(wrong.decision)

    def _judging(self, turn: Turn) -> RefereeConfig:
        """The settings ``turn``'s board is judged with: a play judged against a record the
        referee itself doubts (the play before it was recorded uncertain) is called illegal
        only past ``illegal_margin``, whatever the fault."""
        prev = self.moves[-1] if self.moves else None
        if prev is None or "uncertain" not in prev.flags or not prev.after.same_board(turn.before):
            return self.config
        return replace(self.config, own_margin=max(self.config.own_margin, self.config.illegal_margin))

    def _offence(self, chosen: Decision) -> Decision:
        """What a wrong board that has settled is: illegal when it was read confidently illegal
        in most of the frames it stood (its median gap from every legal candidate is over
        ``alarm_margin``: ``illegal_margin``, or ``own_margin`` for a fault of the mover's own
        checkers), else only doubtful (a request to look). A gap close to the margin makes single
        frames fall on either side of it: neither the alarm nor the request would ever settle if
        each frame alone said which it is."""
        run = [d for d in self._run if d.kind in ("illegal", "unsure")]
        if chosen.kind not in ("illegal", "unsure") or not run:
            return chosen
        judging = self.config if self.turn is None else self._judging(self.turn)
        illegal = statistics.median(abs(d.margin) - alarm_margin(judging, d.verdict) for d in run) > 0.0
        same = [d for d in run if (d.kind == "illegal") == illegal]
        return same[-1] if same else chosen

    def _two_plays(self, turn: Turn, reading: BoardReading) -> tuple[Hashable, Callable[[], None]] | None:
        """The opponent threw before the board settled and has started moving too: read the board
        as the mover's legal play followed by the opponent's play (or part of it) of the throw."""
        assert turn.queued is not None
        roll, source = turn.queued
        nxt = turn.mover.other
        nxt_first = nxt not in self.played
        free = self._free(turn, reading)
        usual = self.usual_gap
        best: tuple[float, Play, Position, Decision, Position] | None = None
        for play, after in self.variant.legal_plays(turn.before, turn.roll, turn.first_turn).items():
            second = decode(self.variant, after.with_turn(nxt), roll, nxt_first, reading, self.config, usual)
            if second.kind not in ("complete", "partial", "unchanged") or second.position is None:
                continue
            ll = reading.log_likelihood(second.position)
            if usual.gap(reading, second.position, free) < self.config.doubt_margin and (
                best is None or ll > best[0]
            ):
                best = (ll, play, after, second, second.position)
        if best is None:
            return None
        _, play, after, second, seen = best
        key = ("two-plays", turn.mover, _board_key(after), second.kind, _board_key(seen))

        def act() -> None:
            if self.turn is not turn:
                return
            turn.status = "played"
            turn.play = play
            turn.after = after
            turn.flags.add("uncertain")
            self._emit_play(turn, play, after, None)
            self._commit()  # starts the opponent's turn with the throw that was waiting
            self._alert(
                ev.CHECK,
                "info",
                f"{turn.mover}'s {turn.roll} was seen only with {nxt}'s next move: recorded as {play.text()}",
            )
            if self.turn is not None and self.turn.mover is nxt:
                self._apply(self.turn, second)

        return key, act

    def _maybe_two_plays(self, turn: Turn, reading: BoardReading) -> bool:
        """Whether the board is within ``illegal_margin`` of some legal play of ``turn`` followed
        by the unchanged board, part of, or all of the opponent's play of the throw that waits
        (the mover's plays nearest the board, ``revise_beam`` of them, are tried)."""
        assert turn.queued is not None
        roll, _ = turn.queued
        nxt = turn.mover.other
        nxt_first = nxt not in self.played
        free = self._free(turn, reading)
        legal = self.variant.legal_plays(turn.before, turn.roll, turn.first_turn)
        mine = sorted((after for _, after in legal.items()), key=reading.log_likelihood, reverse=True)
        mine = mine[: self.config.revise_beam]
        mine = mine or [turn.before]
        theirs = (
            position
            for after in mine
            for _, position, _ in candidates(self.variant, after.with_turn(nxt), roll, nxt_first)
        )
        best = max(theirs, key=reading.log_likelihood)
        return self.usual_gap.gap(reading, best, free) <= self.config.illegal_margin

    def _revise_last(self, turn: Turn, reading: BoardReading) -> tuple[Hashable, Callable[[], None]] | None:
        """The board is none of what ``turn`` can have made of the position recorded before it,
        and that record was a doubtful one (the camera could not tell two plays apart when the
        opponent threw): if another legal play of that turn, followed by what ``turn`` can have
        made, explains the board clearly better than any other, the record was wrong. It is
        re-read, with a note to check, and ``turn`` goes on from the corrected position."""
        prev = self.moves[-1] if self.moves else None
        if (
            prev is None
            or "uncertain" not in prev.flags
            or prev.mover is not turn.mover.other
            or not prev.after.same_board(turn.before)
        ):
            return None
        prev_first = self._first_turn_of(len(self.moves) - 1)
        legal = self.variant.legal_plays(prev.before, prev.roll, prev_first)
        # the alternatives nearest the board now (it differs from theirs only by the checkers
        # ``turn`` moved since); the decoding below is the costly part
        rivals = sorted(
            ((reading.log_likelihood(after), play, after) for play, after in legal.items()),
            key=lambda r: -r[0],
        )[: self.config.revise_beam]
        found: list[tuple[float, Play, Position, Decision]] = []
        for _, play, after in rivals:
            if after.same_board(prev.after) or self.variant.result(after, self.cube.value) is not None:
                continue  # the record itself, or a play that would have ended the game
            then = decode(
                self.variant,
                after.with_turn(turn.mover),
                turn.roll,
                turn.first_turn,
                reading,
                self.config,
                self.usual_gap,
            )
            if then.kind in ("unchanged", "partial", "complete") and then.position is not None:
                found.append((reading.log_likelihood(then.position), play, after, then))
        if not found:
            return None
        found.sort(key=lambda f: -f[0])
        if len(found) > 1 and found[0][0] - found[1][0] < self.config.accept_margin:
            return None
        _, play, after, then = found[0]
        assert then.position is not None
        key = ("revise", prev.number, _board_key(after), then.kind, _board_key(then.position))

        def act() -> None:
            if self.turn is not turn or not self.moves or self.moves[-1] is not prev:
                return
            record = replace(
                prev, play=play, after=after.with_turn(prev.mover.other), flags=prev.flags | {"revised"}
            )
            self.moves[-1] = record
            turn.before = record.after.with_turn(turn.mover)
            self.position = turn.before
            self.bus.emit("turn-revised", turn=record.to_json(), was=prev.play.text(), last=True)
            self._alert(
                ev.CHECK,
                "info",
                f"{prev.mover}'s {prev.roll} re-read as {play.text() or '(no play)'} "
                f"(was {prev.play.text() or '(no play)'}) once {turn.mover}'s move showed the board: "
                "please check",
            )
            self._apply(turn, then)

        return key, act

    def _decode(self, turn: Turn, reading: BoardReading, config: RefereeConfig) -> Decision:
        """What ``reading`` means for ``turn`` (see ``decode``), judged with ``config``."""
        return decode(self.variant, turn.before, turn.roll, turn.first_turn, reading, config, self.usual_gap)

    def _doubted(self, turn: Turn, reading: BoardReading) -> frozenset[int]:
        """The points where the board already read otherwise when the play before ``turn`` was
        recorded unconfirmed (on ``turn``'s throw), and still reads the same: ``turn``'s mover
        did not make them so."""
        if self._unconfirmed is None or not self.moves:
            return frozenset()
        number, after, unlike = self._unconfirmed
        prev = self.moves[-1]
        if (
            prev.number != number
            or "uncertain" not in prev.flags
            or not prev.after.same_board(after)
            or not after.same_board(turn.before)
        ):
            return frozenset()
        shown = reading.most_likely()[0]
        return frozenset(p for p, n in unlike.items() if shown[p - 1] == n)

    def _past_doubt(
        self, turn: Turn, reading: BoardReading, chosen: Decision, judging: RefereeConfig
    ) -> Decision:
        """A board wrong for ``turn`` only at points that read the same way when the play before
        was recorded unconfirmed: the board was like that before this mover threw, so it is no
        offence of theirs. The play is judged by the other points (an offence they show still
        stands); the note to check the play before was given when it was recorded."""
        doubted = self._doubted(turn, reading)
        if not _names_any(chosen.verdict, doubted):
            return chosen
        others = self._decode(turn, reading.unread(doubted | reading.suspect), judging)
        return chosen if others.kind in _ALARMS else others

    def _switch_opener(self, turn: Turn) -> None:
        """The opening throw's dice were the other way round: the other side moved first."""
        other = turn.before.with_turn(turn.mover.other)
        self.bus.emit("opening", dice=[turn.roll.high, turn.roll.low], first=other.turn.value, corrected=True)
        turn.mover = other.turn
        turn.before = other
        self.position = other
        self.to_move = other.turn

    def _check_unchanged(self, reading: BoardReading, changed: bool) -> None:
        """No throw pending: the board should stay as it is."""
        if changed:
            _, seen = reading.best_keeping_count(self.position)
            if seen is None:
                seen = reading.as_position(self.variant.name, self.position.turn, self.position)
            points: tuple[int, ...] = ()
            if seen is not None:
                points = tuple(i + 1 for i in range(24) if seen.points[i] != self.position.points[i])
            who = self.to_move.value if self.to_move else "nobody"
            self._alert(
                ev.BOARD_CHANGED, "warning", f"the board changed with no throw ({who} to throw)", points
            )
        else:
            self._clear(ev.BOARD_CHANGED)

    def _apply(self, turn: Turn, decision: Decision) -> None:
        late, turn.late = turn.late, None
        self._decide(turn, decision)
        if late is not None and self.turn is turn and turn.queued is not None:
            self._alert(ev.UNFINISHED_PLAY, "warning", late)

    def _decide(self, turn: Turn, decision: Decision) -> None:
        kind = decision.kind
        if kind in ("unreadable", "count"):
            if kind == "count" and decision.verdict is not None:
                self._alert(ev.COUNT_CHANGED, "warning", decision.verdict.reason or "checker count changed")
            else:
                self._alert(ev.UNREADABLE, "warning", "the position cannot be read: please check the board")
            return
        self._clear(ev.UNREADABLE)
        self._clear(ev.COUNT_CHANGED)
        if kind in ("unsure", "partial") and turn.queued is not None and self._finish_on_throw(turn):
            return  # the queued throw has started the opponent's turn
        if kind == "unsure":
            if decision.verdict is not None and not decision.verdict.legal:
                text = f"please look: the board may show an illegal play ({decision.verdict.reason})"
                self._alert(ev.LOOK, "warning", text, decision.verdict.points)
            else:
                options = " or ".join(decision.alternatives)
                self._alert(ev.LOOK, "info", f"please look: is it {options}?")
            turn.status = "unsure"
            return
        self._clear(ev.LOOK)
        previous = turn.status
        if kind == "illegal":
            verdict = decision.verdict
            assert verdict is not None
            if previous == "illegal" and turn.queued is not None:
                # the opponent has thrown and may be moving: the illegal play stays as it was seen
                return
            if previous != "illegal" or turn.after != decision.position:
                turn.status = "illegal"
                turn.after = decision.position
                turn.play = verdict.play
                turn.verdict = verdict
                turn.flags.add("illegal")
                self.bus.emit(
                    "illegal",
                    mover=turn.mover.value,
                    dice=[turn.roll.high, turn.roll.low],
                    play=_text(verdict.play),
                    reason=verdict.reason,
                    codes=list(verdict.codes),
                    points=list(verdict.points),
                    position=None if decision.position is None else decision.position.to_json(),
                )
                policy = self.variant.options.illegal_play
                tail = (
                    "put it back and play the same dice again"
                    if policy == "enforce"
                    else "the opponent may accept it"
                )
                self._alert(
                    ev.ILLEGAL_PLAY,
                    "error",
                    f"illegal play by {turn.mover}: {verdict.reason} — {tail}",
                    verdict.points,
                )
            return
        self._clear(ev.ILLEGAL_PLAY)
        turn.verdict = None
        if kind == "unchanged":
            if previous in ("played", "partial", "illegal"):
                self.bus.emit("take-back", mover=turn.mover.value)
            if turn.queued is not None and previous == "waiting":
                roll, source = turn.queued
                turn.queued = None
                self._out_of_turn(turn, roll, source)
            turn.status = "waiting"
            turn.after = None
            turn.play = None
            return
        if kind == "partial":
            turn.status = "partial"
            return
        # a complete legal play
        assert decision.position is not None and decision.play is not None
        changed = previous != "played" or turn.after is None or not turn.after.same_board(decision.position)
        turn.flags.discard("illegal")  # put right: the play that stands is legal
        turn.status = "played"
        turn.after = decision.position
        turn.play = decision.play
        if changed:
            self._emit_play(turn, decision.play, decision.position, decision.margin)
        result = self.variant.result(decision.position, self.cube.value)
        if result is not None:
            self._commit()
            self._end_game(result)
            return
        if turn.queued is not None:
            self._clear(ev.UNFINISHED_PLAY)
            self._commit()

    # ================================================================== game end
    def _end_game(self, result: GameResult) -> None:
        self.result = result
        self.score = self.score.after(result, self.info.length, self.variant.options.crawford)
        self.phase = "game-over"
        self.turn = None
        self.bus.emit("game-over", game=self.game_number, result=result.to_json(), score=self.score.to_json())
        match_winner = self.score.winner(self.info.length)
        if match_winner is not None:
            self.phase = "match-over"
            self.bus.emit("match-over", winner=match_winner.value, score=self.score.to_json())

    # ================================================================== alerts from outside
    def report_alert(self, code: str, severity: Severity, text: str) -> None:
        """An alert from another part (camera moved, dice disconnected, storage full ...)."""
        with self._lock:
            self._alert(code, severity, text)

    def clear_alert(self, code: str) -> None:
        with self._lock:
            self._clear(code)

    def _alert(self, code: str, severity: Severity, text: str, points: tuple[int, ...] = ()) -> None:
        alert = Alert(code, severity, text, points)
        if self.alerts.get(code) == alert:
            return
        self.alerts[code] = alert
        self.bus.emit("alert", **alert.to_json())

    def _clear(self, code: str) -> None:
        if self.alerts.pop(code, None) is not None:
            self.bus.emit("alert-cleared", code=code)

    # ================================================================== dice device events
    def on_dice_event(self, event: Any) -> None:
        """A dice-source event (``nardy.device`` events, or their JSON form)."""
        data = event.to_json() if hasattr(event, "to_json") else dict(event)
        kind = data.get("type")
        with self._lock:
            if kind == "roll":
                dice = data.get("dice") or []
                source = str(data.get("source") or "e-dice")
                self.dice["seq"] = data.get("seq")
                self.on_roll((int(dice[0]), int(dice[1])), source)
                return
            if kind == "rolling":
                self.dice["state"] = "rolling"
            elif kind == "tilt":
                self.dice["state"] = "tilt"
                self._alert("dice-tilt", "info", "a die is cocked: throw again")
                return
            elif kind == "connected":
                self.dice.update(connected=True, device=data.get("device"))
                self._clear(ev.DICE_DISCONNECTED)
            elif kind == "disconnected":
                self.dice["connected"] = False
                self._alert(ev.DICE_DISCONNECTED, "warning", "the dice are disconnected")
            elif kind == "battery":
                self.dice["battery"] = data.get("pct")
            elif kind == "error":
                self.dice["last_error"] = data.get("message")
                return
            else:
                return
            self._clear("dice-tilt")
            self.bus.emit("dice", **{k: v for k, v in self.dice.items() if k != "last"})

    # ================================================================== commands
    def command(self, name: str, **args: Any) -> dict[str, Any]:
        """Run a user command by name (what the dashboard and the terminal send)."""
        handlers: dict[str, Callable[..., dict[str, Any]]] = {
            "roll": self.cmd_roll,
            "new-game": self.cmd_new_game,
            "new-match": self.cmd_new_match,
            "undo": self.cmd_undo,
            "accept": self.cmd_accept,
            "reject": self.cmd_reject,
            "correct": self.cmd_correct,
            "double": self.cmd_double,
            "take": self.cmd_take,
            "drop": self.cmd_drop,
            "resign": self.cmd_resign,
        }
        handler = handlers.get(name)
        if handler is None:
            raise CommandError(f"unknown command {name!r} (known: {', '.join(sorted(handlers))})")
        with self._lock:
            try:
                return handler(**args)
            except TypeError as exc:
                raise CommandError(f"{name}: {exc}") from None

    def cmd_roll(self, dice: list[int] | tuple[int, int]) -> dict[str, Any]:
        """Manual dice entry."""
        if not isinstance(dice, (list, tuple)) or len(dice) != 2:
            raise CommandError("roll needs two dice, e.g. [6, 5]")
        d = Roll(int(dice[0]), int(dice[1]))
        # keep the order as entered: it matters for the opening throw
        self.on_roll((int(dice[0]), int(dice[1])), "manual")
        return {"ok": True, "roll": d.text()}

    def cmd_new_game(self) -> dict[str, Any]:
        if self.phase == "match-over":
            raise CommandError("the match is over: start a new match")
        self._new_game()
        return {"ok": True, "game": self.game_number}

    def cmd_new_match(self, **info: Any) -> dict[str, Any]:
        allowed = {"variant", "length", "white", "black", "options", "venue"}
        unknown = set(info) - allowed
        if unknown:
            raise CommandError(f"new-match: unknown field(s) {', '.join(sorted(unknown))}")
        length = info.get("length", 0)
        if not isinstance(length, int) or not 0 <= length <= 99:
            raise CommandError("new-match: length must be 0 (unlimited) to 99")
        options = info.get("options") or {}
        if not isinstance(options, dict):
            raise CommandError("new-match: options must be an object")
        variant = str(info.get("variant", self.info.variant))
        find_variant(variant, **options)  # validates
        self.start_match(
            MatchInfo(
                variant=find_variant(variant).name,
                length=length,
                white=str(info.get("white", "White"))[:60],
                black=str(info.get("black", "Black"))[:60],
                options=options,
                venue=str(info.get("venue", ""))[:120],
            )
        )
        return {"ok": True}

    def cmd_undo(self) -> dict[str, Any]:
        """Take back the last finished turn: its mover plays the same dice again."""
        if self.turn is not None and self.turn.status != "waiting":
            raise CommandError("finish or take back the play on the board first")
        if not self.moves:
            raise CommandError("nothing to undo in this game")
        if self.phase == "match-over" or (self.phase == "game-over" and self.result is not None):
            if self.result is not None:
                self.score = _unscore(self.score, self.result)
                self.result = None
            self.phase = "playing"
        last = self.moves.pop()
        if self.turn is not None:  # the opponent's throw is dropped with the undo
            self.turn = None
        self.position = last.before
        self.played = {m.mover for m in self.moves}
        self.to_move = last.mover
        self.turn = Turn(last.mover, last.roll, last.before, last.mover not in self.played, last.source)
        self._settler.reset()
        self.bus.emit("undo", turn=last.to_json())
        return {"ok": True}

    def cmd_accept(self) -> dict[str, Any]:
        """The opponent lets an illegal play stand (only with the 'accept' policy)."""
        turn = self.turn
        if turn is None or turn.status != "illegal":
            raise CommandError("there is no illegal play to accept")
        if self.variant.options.illegal_play != "accept":
            raise CommandError("illegal plays must be put right under these rules (illegal_play=enforce)")
        turn.flags.add("accepted")
        self.bus.emit("illegal-accepted", mover=turn.mover.value, play=_text(turn.play))
        self._commit(after=turn.after)
        return {"ok": True}

    def cmd_reject(self) -> dict[str, Any]:
        """The play on the board does not stand: it is to be taken back and played again.

        The referee expects the position before the roll again; a camera that still sees the
        play reports it afresh (and an illegal one is flagged again).
        """
        turn = self.turn
        if turn is None or turn.status == "waiting":
            raise CommandError("there is no play on the board to reject")
        self.bus.emit("rejected", mover=turn.mover.value, play=_text(turn.play), status=turn.status)
        turn.status = "waiting"
        turn.after = None
        turn.play = None
        turn.verdict = None
        turn.flags.add("corrected")
        self._clear(ev.ILLEGAL_PLAY)
        self._clear(ev.LOOK)
        self._settler.reset()
        return {"ok": True, "rejected": True}

    def cmd_correct(self, position: dict[str, Any]) -> dict[str, Any]:
        """A person says what the board really shows (a misread): it is judged as if seen."""
        try:
            seen = Position.from_json(position, self.variant.name)
        except ValueError as exc:
            raise CommandError(f"correct: {exc}") from None
        if seen.variant != self.variant.name:
            raise CommandError(f"correct: a {seen.variant} position in a {self.variant.title} game")
        turn = self.turn
        if turn is None:
            self.position = seen.with_turn(self.position.turn)
            self._relean()
            self.bus.emit("position-corrected", position=self.position.to_json())
            self._clear(ev.BOARD_CHANGED)
            return {"ok": True}
        turn.flags.add("corrected")
        verdict = self.variant.judge(turn.before, seen, turn.roll, turn.first_turn)
        if seen.same_board(turn.before):
            decision = Decision("unchanged", turn.before)
        elif verdict.legal:
            decision = Decision("complete", seen, verdict.play, margin=float("inf"))
        else:
            decision = Decision("illegal", seen, verdict.play, verdict)
        self._apply(turn, decision)
        return {"ok": True, "legal": verdict.legal, "reason": verdict.reason}

    def _cube_allowed(self) -> None:
        if not self.variant.options.cube:
            raise CubeError("the doubling cube is not used in this match")
        if self.score.crawford_game:
            raise CubeError("no doubling in the Crawford game")
        if self.phase != "playing":
            raise CubeError("doubling happens during a game")

    def cmd_double(self, by: str | None = None) -> dict[str, Any]:
        self._cube_allowed()
        turn = self.turn
        next_to_throw = self.to_move if turn is None else turn.mover.other
        doubler = Color.parse(by) if by else next_to_throw
        if turn is not None and turn.status != "played":
            raise CubeError("a player doubles on their own turn, before throwing")
        if doubler is None or doubler is not next_to_throw:
            raise CubeError("a player doubles on their own turn, before throwing")
        if self.cube.owner not in (None, doubler):
            raise CubeError(f"{doubler} does not own the cube")
        if self.cube.offered_by is not None:
            raise CubeError("a double is already offered")
        if turn is not None:
            self._commit()  # doubling ends the opponent's turn, as a throw would
        self.cube = Cube(self.cube.value, self.cube.owner, doubler)
        self.bus.emit("cube", action="double", by=doubler.value, value=self.cube.value * 2)
        return {"ok": True}

    def cmd_take(self) -> dict[str, Any]:
        doubler = self.cube.offered_by
        if doubler is None or self.phase != "playing":
            raise CubeError("no double to take")
        self.cube = Cube(self.cube.value * 2, doubler.other, None)
        self.bus.emit("cube", action="take", by=doubler.other.value, value=self.cube.value)
        return {"ok": True}

    def cmd_drop(self) -> dict[str, Any]:
        doubler = self.cube.offered_by
        if doubler is None or self.phase != "playing":
            raise CubeError("no double to drop")
        self.cube = Cube(self.cube.value, self.cube.owner, None)
        self.bus.emit("cube", action="drop", by=doubler.other.value, value=self.cube.value * 2)
        self.turn = None
        self._end_game(GameResult(doubler, 1, self.cube.value, "double dropped"))
        return {"ok": True}

    def cmd_resign(self, by: str, multiplier: int = 1) -> dict[str, Any]:
        if self.phase != "playing":
            raise CommandError("resign during a game")
        if multiplier not in (1, 2, 3):
            raise CommandError("resign for 1, 2 or 3 times the cube")
        loser = Color.parse(by)
        self.turn = None
        self._end_game(GameResult(loser.other, multiplier, self.cube.value, "resigned"))
        return {"ok": True}

    # ================================================================== snapshot
    def state(self) -> dict[str, Any]:
        """Everything the dashboard shows, as JSON-ready data, with the event version."""
        with self._lock:
            turn = self.turn
            legal: list[dict[str, Any]] = []
            if turn is not None:
                for play, after in self.variant.legal_plays(turn.before, turn.roll, turn.first_turn).items():
                    legal.append({"play": play.text(), "position": after.to_json()})
            return {
                "version": self.bus.seq,
                "match": {
                    **self.info.to_json(),
                    "score": self.score.to_json(),
                    "game": self.game_number,
                },
                "phase": self.phase,
                "position": self.position.to_json(),
                "to_move": None if self.to_move is None else self.to_move.value,
                "turn": None if turn is None else turn.to_json(),
                "legal": legal,
                "cube": self.cube.to_json(),
                "moves": [m.to_json() for m in self.moves],
                "result": None if self.result is None else self.result.to_json(),
                "alerts": [a.to_json() for a in self.alerts.values()],
                "dice": dict(self.dice),
                "camera": dict(self.camera),
                "board": {
                    "settled": self._settler.disturbed_since is None,
                    "where": list(self._settler.where),
                },
            }


def _changed_places(before: Position, seen: Position | None) -> tuple[object, ...]:
    """Where ``seen`` differs from ``before``: the points (1..24), then "bar" and "off"."""
    if seen is None:
        return ()
    places: list[object] = [i + 1 for i in range(24) if seen.points[i] != before.points[i]]
    if (seen.bar_white, seen.bar_black) != (before.bar_white, before.bar_black):
        places.append("bar")
    if (seen.off_white, seen.off_black) != (before.off_white, before.off_black):
        places.append("off")
    return tuple(places)


def _unseen_sides(
    reading: BoardReading, start: Position, share: float
) -> tuple[tuple[Color, tuple[int, ...]], ...]:
    """The sides whose checkers ``reading`` does not see on ``share`` or more of their points in
    ``start`` (a point is seen when the reading gives any of that side's checkers there at least
    even odds), each with those points."""
    out: list[tuple[Color, tuple[int, ...]]] = []
    for side, sign in ((Color.WHITE, 1), (Color.BLACK, -1)):
        held = [i for i, n in enumerate(start.points) if n * sign > 0]
        unseen = tuple(
            i + 1
            for i in held
            if sum(math.exp(lp) for n, lp in reading.points[i].items() if n * sign > 0) < 0.5
        )
        if unseen and len(unseen) >= share * len(held):
            out.append((side, unseen))
    return tuple(out)


def _is_alarm(key: Hashable) -> bool:
    """Whether a settling key says something is wrong (see ``_Wrong``): it must hold
    ``alarm_settle_seconds``."""
    return isinstance(key, tuple) and bool(key) and key[0] == "alarm"


def _is_question(key: Hashable) -> bool:
    """Whether a settling key says the board is one of two or more legal states of the turn and
    the camera cannot tell which (the ``please-look`` question): it must hold
    ``question_settle_seconds``."""
    return isinstance(key, tuple) and bool(key) and key[0] == "question"


def _names_any(verdict: Verdict | None, points: frozenset[int]) -> bool:
    """Whether the judge's reason in ``verdict`` involves any of ``points`` (1..24)."""
    return verdict is not None and not verdict.legal and not points.isdisjoint(verdict.points)


@dataclass(frozen=True, eq=False)
class _Wrong:
    """An alarm's settling key: what is wrong (who, the throw, the kind) and where the board
    differs from the position before the throw. Two keys are the same alarm when what is wrong
    is the same and they share a place: the places that really changed are in every frame's
    reading, while a misread elsewhere comes and goes. An alarm with no places (the board is
    unreadable) matches only another without places.

    A board only doubtfully illegal (the referee would ask for a look) is the same alarm as a
    confidently illegal one only when both frames read the very same board: a camera unsure of
    a still board reads it the same way each frame, while the frames of a checker still being
    moved, read now confidently and now doubtfully wrong, each read it differently. Two doubtful
    frames need only read the same board wherever neither is unsure of it (``vague``): a tall
    pile may read now one way and now the other. A run of doubtful frames settles as a request
    to look, never as an alarm (see ``Referee._offence``), so this lets no more alarms through."""

    what: tuple[object, ...]
    places: tuple[object, ...]
    decision: Decision | None = None
    """What this frame alone says (not part of what the key means, but for its board)."""
    vague: frozenset[object] = frozenset()
    """For a doubtful board: the places where this frame's reading is unsure of it."""

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _Wrong) or self.what != other.what:
            return False
        if not self.places or not other.places:
            return not self.places and not other.places
        if self._doubtful() and other._doubtful():
            return self._alike(other)
        if self._doubtful() or other._doubtful():
            return self._board() == other._board()
        return not set(self.places).isdisjoint(other.places)

    def _alike(self, other: _Wrong) -> bool:
        """The two doubtful frames read the same board wherever neither is unsure of it."""
        mine, theirs = self.decision, other.decision
        if mine is None or theirs is None or mine.position is None or theirs.position is None:
            return self._board() == other._board()
        return set(_changed_places(mine.position, theirs.position)) <= self.vague | other.vague

    def _doubtful(self) -> bool:
        return self.decision is not None and self.decision.kind == "unsure"

    def _board(self) -> tuple[object, ...] | None:
        d = self.decision
        return None if d is None or d.position is None else _board_key(d.position)

    def __hash__(self) -> int:
        return hash(self.what)


@dataclass(frozen=True, eq=False)
class _Ending:
    """The settling key of a board that shows the play that ends the game: the same whether a
    frame shows it clearly (recorded once settled, as any play) or only as the likeliest, not
    surely finished (recorded once it has stood ``ending_settle_seconds``), so that a frame of
    one kind does not start the other's wait again."""

    what: tuple[object, ...]
    clear: bool

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Ending) and self.what == other.what

    def __hash__(self) -> int:
        return hash(self.what)


def _count_text(n: int) -> str:
    """A signed count as words: 'empty', '3 white', '2 black'."""
    if n == 0:
        return "empty"
    return f"{abs(n)} {'white' if n > 0 else 'black'}"


def _board_key(position: Position) -> tuple[object, ...]:
    return (position.points, position.bar_white, position.bar_black, position.off_white, position.off_black)


def _text(play: Play | None) -> str | None:
    return None if play is None else play.text()


def _unscore(score: MatchScore, result: GameResult) -> MatchScore:
    white = score.white - (result.points if result.winner is Color.WHITE else 0)
    black = score.black - (result.points if result.winner is Color.BLACK else 0)
    return MatchScore(white, black, score.crawford_game, score.crawford_done)
