"""The match store as the dashboard's history: :class:`StoreArchive` adapts
:class:`~nardy.referee.store.MatchStore` and :mod:`nardy.referee.export` to
:class:`~nardy.web.services.MatchArchive`.

The store's ids are integers; the dashboard's are their decimal text. A game's turns come out in
the referee's own turn JSON (the ``turn-ended`` event's), so the history page draws them with the
same code as the live page.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from nardy.referee.export import FORMATS, SUFFIXES, export_match
from nardy.referee.store import MatchStore
from nardy.rules.record import GameRecord, MatchRecord
from nardy.web.services import Download

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


class StoreArchive:
    """Recorded matches, newest first, with every export the store makes."""

    def __init__(self, store: MatchStore) -> None:
        self.store = store

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
        try:
            data = export_match(self.store, _store_id(match_id), fmt)
        except LookupError:
            raise KeyError(match_id) from None
        return Download(f"match-{match_id}{SUFFIXES[fmt]}", MEDIA_TYPES[fmt], data)


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
