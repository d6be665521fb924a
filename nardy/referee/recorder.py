"""The recorder: writes what the referee decides into the match store, as it is decided.

It listens to the referee's event stream. Each turn is committed when the turn ends; a write
that fails (a full disk, a broken file) becomes a ``storage`` alert, and what could not be
written is kept and written again on the next event, so nothing decided is lost while the
session goes on.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from nardy.referee.events import STORAGE, Event
from nardy.referee.session import Referee
from nardy.referee.store import MatchStore
from nardy.referee.store_errors import StoreError, StoreFullError
from nardy.rules import Color, Play, Position, Roll, find_variant
from nardy.rules.record import CubeAction
from nardy.rules.record import MatchInfo as RecordInfo
from nardy.rules.record import TurnRecord as RecordTurn
from nardy.rules.scoring import GameResult

log = logging.getLogger(__name__)

Snapshot = Callable[[], bytes | None]


class Recorder:
    """Keeps the store in step with one referee. ``close()`` stops listening."""

    def __init__(
        self,
        store: MatchStore,
        referee: Referee,
        snapshot: Snapshot | None = None,
        *,
        match_id: int | None = None,
        game_id: int | None = None,
        last_turn_id: int | None = None,
    ) -> None:
        self.store = store
        self.referee = referee
        self.snapshot = snapshot or (lambda: None)
        self.match_id = match_id
        self.game_id = game_id
        self.last_turn_id = last_turn_id
        self.game_turns: dict[int, int] = {}
        """The current game's turns recorded here: store id by turn number."""
        self.pending: list[Event] = []
        """Events whose writing failed, to be written again in order."""
        self.failures = 0
        self.pictures_dropped = False
        """Set once the disk filled up: turns are then recorded without their pictures."""
        if match_id is not None:
            self._safely(lambda: self.store.begin_session(match_id))
        # a new recorder catches up with what the referee decided before it was attached
        self._unsubscribe = referee.bus.subscribe(self.on_event, replay=match_id is None)

    def close(self) -> None:
        self._unsubscribe()

    # ------------------------------------------------------------------ events
    def on_event(self, event: Event) -> None:
        if event.kind not in _HANDLED:
            return
        if event.kind == "alert" and event.data.get("code") == STORAGE:
            return  # our own alert: the store is what failed
        self.pending.append(event)
        self.flush()

    def flush(self) -> bool:
        """Write what is pending, in order; True when nothing is left."""
        while self.pending:
            event = self.pending[0]
            try:
                self._write(event)
            except StoreError as exc:
                self.failures += 1
                log.warning("could not record %s: %s", event.kind, exc)
                self.referee.report_alert(
                    STORAGE,
                    "error",
                    f"the match record cannot be written ({exc}); play goes on and it will be written "
                    "when there is room",
                )
                return False
            self.pending.pop(0)
        if not self.pictures_dropped:
            self.referee.clear_alert(STORAGE)
        return True

    def _write(self, event: Event) -> None:
        data = event.data
        kind = event.kind
        if kind == "match-started":
            info = data["match"]
            variant = find_variant(info["variant"], **info.get("options", {}))
            match_record = RecordInfo(
                white=info["white"] or "White",
                black=info["black"] or "Black",
                variant=variant,
                length=info["length"],
                venue=info.get("venue", ""),
                started_at=datetime.now(UTC),
            )
            self.match_id = self.store.create_match(match_record)
            self.store.begin_session(self.match_id)
            self.game_id = None
            return
        if self.match_id is None:
            return
        if kind == "game-started":
            self.game_id = self.store.start_game(self.match_id, jpeg=self.snapshot())
            self.game_turns = {}
        elif kind == "turn-ended" and self.game_id is not None:
            turn = data["turn"]
            flags = set(turn["flags"])
            record = RecordTurn(
                roll=Roll(*turn["roll"]),
                play=Play.from_text(turn["play"]),
                before=Position.from_json(turn["before"]),
                after=Position.from_json(turn["after"]),
                decided_at=datetime.now(UTC),
                illegal="illegal" in flags,
                accepted="accepted" in flags,
                corrected="corrected" in flags,
                manual=turn["source"] == "manual",
                note="the camera was unsure; recorded as the likeliest play when the opponent threw"
                if "uncertain" in flags
                else "",
            )
            jpeg = None if self.pictures_dropped else self.snapshot()
            try:
                self.last_turn_id = self.store.add_turn(self.game_id, record, jpeg=jpeg)
            except StoreFullError:
                if jpeg is None:
                    raise
                # the turn matters more than its picture: keep recording without pictures
                self.pictures_dropped = True
                self.referee.report_alert(
                    STORAGE, "warning", "the disk is nearly full: board pictures are no longer saved"
                )
                self.last_turn_id = self.store.add_turn(self.game_id, record)
            self.game_turns[turn["number"]] = self.last_turn_id
        elif kind == "cube" and self.game_id is not None:
            self.store.add_cube_action(
                self.game_id, CubeAction(data["action"], Color.parse(data["by"]), data["value"])
            )
        elif kind == "game-over" and self.game_id is not None:
            res = data["result"]
            result = GameResult(Color.parse(res["winner"]), res["multiplier"], res["cube"], res["name"])
            ending = {"double dropped": "drop", "resigned": "resign"}.get(res["name"], "bear-off")
            self.store.end_game(self.game_id, result, ending)
        elif kind == "match-over":
            self.store.end_match(self.match_id)
        elif kind == "alert":
            self.store.add_alert(self.match_id, data["text"], code=data["code"], game_id=self.game_id)
        elif kind == "turn-revised":
            turn = data["turn"]
            # a record further back than the last (a doubtful play re-read once the boards after
            # it showed it, and the turns that carried its error): found by its number
            turn_id = self.game_turns.get(turn["number"])
            if turn_id is None and data.get("last"):
                turn_id = self.last_turn_id
            if turn_id is None:
                self.referee.report_alert(
                    STORAGE,
                    "warning",
                    f"turn {turn['number']} was re-read, but it was recorded before this session: "
                    "the record keeps it as first recorded",
                )
                return
            if turn["play"] == data["was"]:
                note = "the position before it was put right (a turn before it was re-read)"
            else:
                note = (
                    f"re-read as {turn['play'] or '(no play)'} "
                    f"(first recorded as {data['was'] or '(no play)'}) once the boards after it showed it"
                )
            self.store.revise_turn(
                turn_id,
                Play.from_text(turn["play"]),
                Position.from_json(turn["after"]),
                note=note,
                before=Position.from_json(turn["before"]),
            )
        elif kind == "undo" and self.last_turn_id is not None:
            self.store.mark_turn(self.last_turn_id, note="taken back with undo; replayed below")

    def _safely(self, fn: Callable[[], Any]) -> None:
        try:
            fn()
        except StoreError as exc:
            self.referee.report_alert(STORAGE, "error", f"the match record cannot be written ({exc})")


_HANDLED = {
    "match-started",
    "game-started",
    "turn-ended",
    "cube",
    "game-over",
    "match-over",
    "alert",
    "undo",
    "turn-revised",
}
