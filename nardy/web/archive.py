"""The match store as the dashboard's history: :class:`StoreArchive` adapts
:class:`~nardy.referee.store.MatchStore` and :mod:`nardy.referee.export` to
:class:`~nardy.web.services.MatchArchive`.

The store's ids are integers; the dashboard's are their decimal text. A game's turns come out in
the referee's own turn JSON (the ``turn-ended`` event's), so the history page draws them with the
same code as the live page.

:class:`MatchAnalyses` keeps each match's post-match analysis (``analyse``, and the marks in the
JSON and score-sheet downloads): it is made once per match as recorded, since ranking every turn
takes seconds, and made again only when the record has changed (a match still being played).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from nardy.referee.export import ANALYSED, FORMATS, SUFFIXES, MatchAnalysis, analyse_record, export_match
from nardy.referee.store import MatchStore
from nardy.rules.record import GameRecord, MatchRecord
from nardy.rules.variants import Variant
from nardy.web.services import Download

if TYPE_CHECKING:
    from nardy.hints.engine import HintEngine

EngineFactory = Callable[[Variant], "HintEngine"]
"""A match's variant -> the engine that analyses it (default: ``nardy.hints.engine_for``)."""

MEDIA_TYPES = {
    "mat": "text/plain; charset=utf-8",
    "sgf": "application/x-go-sgf",
    "json": "application/json",
    "sheet": "text/html; charset=utf-8",
    "pdf": "application/pdf",
}


def _store_id(match_id: str) -> int:
    if not match_id.isdigit() or len(match_id) > 12:
        raise KeyError(match_id)
    return int(match_id)


class MatchAnalyses:
    """The analyses of a store's matches, each made once per version of its record.

    Thread-safe: requests for the same match wait for the one analysis being made; the most
    recent ``keep`` analyses are kept. A failed analysis is kept too (the engine would fail the
    same way; GNU Backgammon crashing is already covered by its fallback to our own engine).
    """

    def __init__(self, store: MatchStore, engines: EngineFactory | None = None, keep: int = 16) -> None:
        self.store = store
        self.engines = engines
        self.keep = keep
        self._guard = threading.Lock()
        self._making: dict[int, threading.Lock] = {}
        self._done: OrderedDict[int, tuple[MatchRecord, MatchAnalysis]] = OrderedDict()

    def get(self, match_id: int) -> tuple[MatchRecord, MatchAnalysis]:
        """The match's record and its analysis (``LookupError`` for an unknown match)."""
        with self._guard:
            making = self._making.setdefault(match_id, threading.Lock())
        with making:
            try:
                record = self.store.load_match(match_id)
            except LookupError:
                with self._guard:  # keep nothing for ids that are not matches
                    self._making.pop(match_id, None)
                raise
            with self._guard:
                done = self._done.get(match_id)
            if done is not None and done[0] == record:
                with self._guard:
                    self._done.move_to_end(match_id)
                return done
            analysis = analyse_record(record, self.engines)
            with self._guard:
                self._done[match_id] = (record, analysis)
                self._done.move_to_end(match_id)
                while len(self._done) > self.keep:
                    self._done.popitem(last=False)
            return record, analysis


def analysis_json(match_id: str, analyses: MatchAnalyses) -> dict[str, Any]:
    """The answer of ``analyse`` (:class:`nardy.web.services.MatchAnalyser`) from ``analyses``."""
    try:
        record, analysis = analyses.get(_store_id(match_id))
    except LookupError:
        raise KeyError(match_id) from None
    if not analysis.ok:
        raise RuntimeError(analysis.problem)
    return {"id": match_id, **analysis.to_json(record)}


def export_download(
    store: MatchStore, analyses: MatchAnalyses, match_id: str, fmt: str, media_type: str
) -> Download:
    """An export as a download, with the (kept) analysis in the formats that carry it."""
    store_id = _store_id(match_id)
    try:
        analysis = analyses.get(store_id)[1] if fmt in ANALYSED else None
        data = export_match(store, store_id, fmt, analysis=analysis)
    except LookupError:
        raise KeyError(match_id) from None
    return Download(f"match-{match_id}{SUFFIXES[fmt]}", media_type, data)


class StoreArchive:
    """Recorded matches, newest first, with every export the store makes and their analysis.

    ``engines``: a variant -> the hint engine that analyses its matches (default:
    ``nardy.hints.engine_for``, GNU Backgammon for short nardy when it is installed).
    """

    def __init__(self, store: MatchStore, engines: EngineFactory | None = None) -> None:
        self.store = store
        self.analyses = MatchAnalyses(store, engines)

    @property
    def formats(self) -> Sequence[str]:
        return FORMATS

    def list_matches(self) -> Sequence[Mapping[str, Any]]:
        rows = []
        for s in reversed(self.store.list_matches()):
            rows.append(
                {
                    "id": str(s.id),
                    "white": s.white,
                    "black": s.black,
                    "variant": s.variant,
                    "length": s.length,
                    "score": {"white": s.score[0], "black": s.score[1]},
                    "started": None if s.started_at is None else s.started_at.strftime("%Y-%m-%d %H:%M"),
                    "games": s.games,
                    "turns": s.turns,
                    "venue": s.venue,
                    "finished": s.ended_at is not None,
                }
            )
        return rows

    def load_match(self, match_id: str) -> Mapping[str, Any]:
        try:
            record = self.store.load_match(_store_id(match_id))
        except LookupError:
            raise KeyError(match_id) from None
        return _match_json(match_id, record)

    def export(self, match_id: str, fmt: str) -> Download:
        if fmt not in FORMATS:
            raise ValueError(f"unknown format {fmt!r}")
        return export_download(self.store, self.analyses, match_id, fmt, MEDIA_TYPES[fmt])

    def analyse(self, match_id: str) -> Mapping[str, Any]:
        return analysis_json(match_id, self.analyses)


def _match_json(match_id: str, record: MatchRecord) -> dict[str, Any]:
    info = record.info
    white, black = record.score
    return {
        "id": match_id,
        "match": {
            "variant": info.variant.name,
            "length": info.length,
            "white": info.white,
            "black": info.black,
            "options": info.variant.options_dict(),
            "venue": info.venue,
        },
        "score": {"white": white, "black": black},
        "games": [_game_json(game) for game in record.games],
    }


def _game_json(game: GameRecord) -> dict[str, Any]:
    moves = []
    for number, turn in enumerate(game.turns, 1):
        moves.append(
            {
                "number": number,
                "mover": turn.color.value,
                "roll": [turn.roll.high, turn.roll.low],
                "play": turn.play.text(),
                "before": turn.before.to_json(),
                "after": turn.after.to_json(),
                "source": "manual" if turn.manual else "e-dice",
                "flags": sorted(turn.flags),
                "reason": turn.reason,
            }
        )
    return {
        "number": game.number,
        "moves": moves,
        "cube": [{"kind": a.kind, "by": a.color.value, "value": a.cube} for a in game.cube_actions],
        "result": None if game.result is None else game.result.to_json(),
        "ending": game.ending,
    }
