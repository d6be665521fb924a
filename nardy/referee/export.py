"""A recorded match in the formats players and directors use.

- ``mat``: the Jellyfish match text GNU Backgammon and eXtreme Gammon import (long nardy in the
  same layout, with its variant in the header) -- :mod:`nardy.rules.matfile`;
- ``sgf``: SGF for backgammon, short nardy only -- :mod:`nardy.rules.sgf`;
- ``json``: the whole record, every turn with both positions in the position JSON of
  ``docs/rules.md``, plus the alerts and the gaps in the recording;
- ``sheet`` / ``pdf``: a printable score sheet with each game's plays, the cube, each result
  and the final score, with lines for signatures.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from nardy.referee.pdf import text_pdf
from nardy.referee.store import Alert, MatchStore
from nardy.rules.color import Color
from nardy.rules.matfile import write_mat
from nardy.rules.record import CubeAction, GameRecord, MatchRecord, TurnRecord
from nardy.rules.sgf import write_sgf

FORMATS = ("mat", "sgf", "json", "sheet", "pdf")
"""What :func:`export_match` writes."""
SUFFIXES = {"mat": ".mat", "sgf": ".sgf", "json": ".json", "sheet": ".html", "pdf": ".pdf"}


def export_match(store: MatchStore, match_id: int, fmt: str) -> bytes:
    """Match ``match_id`` of ``store`` in format ``fmt`` (one of :data:`FORMATS`), as bytes (UTF-8 text)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}: expected one of {', '.join(FORMATS)}")
    record = store.load_match(match_id)
    if fmt == "mat":
        return write_mat(record).encode("utf-8")
    if fmt == "sgf":
        return write_sgf(record).encode("utf-8")
    if fmt == "json":
        return (json.dumps(match_json(store, match_id, record), indent=1, ensure_ascii=False) + "\n").encode()
    alerts = store.alerts(match_id)
    if fmt == "sheet":
        return score_sheet_html(record, match_id, alerts).encode("utf-8")
    title = f"{record.info.white} - {record.info.black}"
    return text_pdf([score_sheet_lines(record, match_id, alerts)], title=title)


def match_json(store: MatchStore, match_id: int, record: MatchRecord | None = None) -> dict[str, Any]:
    """The record's JSON (:meth:`MatchRecord.to_json`) with the store's id, alerts and gaps."""
    record = record or store.load_match(match_id)
    data = record.to_json()
    data["id"] = match_id
    data["alerts"] = [
        {"at": a.at.isoformat(), "code": a.code, "text": a.text, "game_id": a.game_id, "turn_id": a.turn_id}
        for a in store.alerts(match_id)
    ]
    data["gaps"] = [
        {
            "stopped_at": None if g.stopped_at is None else g.stopped_at.isoformat(),
            "resumed_at": g.resumed_at.isoformat(),
        }
        for g in store.gaps(match_id)
    ]
    return data


def export_snapshots(store: MatchStore, match_id: int, directory: Path) -> list[Path]:
    """Write the board pictures as ``gG-tTTT.jpg`` (game G, turn TTT); return the files written."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for g, turn_ids in enumerate(store.turn_ids(match_id), 1):
        for t, turn_id in enumerate(turn_ids, 1):
            picture = store.snapshot(turn_id)
            if picture is not None:
                path = directory / f"g{g}-t{t:03d}.jpg"
                path.write_bytes(picture)
                written.append(path)
    return written


# ----------------------------------------------------------------------------- the score sheet
def _cell(action: TurnRecord | CubeAction) -> str:
    if isinstance(action, CubeAction):
        return {"double": f"doubles to {action.cube}", "take": "takes", "drop": "drops"}[action.kind]
    text = f"{action.roll}: {action.play.text() or '(no play)'}"
    if action.flags:
        text += f" [{', '.join(action.flags)}]"
    return text


def game_rows(game: GameRecord) -> list[tuple[str, str]]:
    """The game as rows of (white's cell, black's cell), in the order they were played."""
    rows: list[list[str]] = []
    last: Color | None = None
    for action in game.actions:
        text = _cell(action)
        if action.color is Color.BLACK and rows and last is Color.WHITE:
            rows[-1][1] = text
        else:
            rows.append([text, ""] if action.color is Color.WHITE else ["", text])
        last = action.color
    return [(w, b) for w, b in rows]


def _result_text(record: MatchRecord, game: GameRecord) -> str:
    if game.result is None:
        return "not finished"
    result = game.result
    how = {"bear-off": result.name, "drop": "the double was dropped", "resign": f"resigned, {result.name}"}
    points = f"{result.points} point{'' if result.points == 1 else 's'}"
    cube = f", cube {result.cube}" if result.cube > 1 else ""
    return f"{record.info.player(result.winner)} wins {points} ({how[game.ending or 'bear-off']}{cube})"


def _header(record: MatchRecord, match_id: int) -> list[tuple[str, str]]:
    info = record.info
    options = ", ".join(
        f"{k}={v}"
        for k, v in info.variant.options_dict().items()
        if getattr(type(info.variant.options)(), k) != v
    )
    started = "" if info.started_at is None else info.started_at.astimezone().strftime("%Y-%m-%d %H:%M")
    rows = [
        ("Event", info.event),
        ("Venue", info.venue),
        ("Started", started),
        ("Game", info.variant.title + (f" ({options})" if options else "")),
        ("Match", f"to {info.length} points" if info.length else "unlimited session"),
        ("White", info.white),
        ("Black", info.black),
        ("Record", f"match {match_id}" + ("" if record.ended_at else ", not finished")),
    ]
    return [(k, v) for k, v in rows if v]


def _final(record: MatchRecord) -> str:
    white, black = record.score
    text = f"Final score: {record.info.white} {white} - {black} {record.info.black}"
    if record.winner is not None:
        text += f". {record.info.player(record.winner)} wins the match."
    return text


def score_sheet_lines(record: MatchRecord, match_id: int, alerts: Sequence[Alert] = ()) -> list[str]:
    """The score sheet as plain text lines (the PDF's content)."""
    lines = [f"SCORE SHEET - {record.info.white} v {record.info.black}", ""]
    lines += [f"{k + ':':9} {v}" for k, v in _header(record, match_id)]
    scores = record.scores()
    crawford = record.crawford_games()
    for i, game in enumerate(record.games):
        white, black = scores[i]
        tag = " (Crawford)" if game.number in crawford else ""
        lines += ["", f"Game {game.number}{tag} - score {white}-{black}", f"{'':4} {'White':42} Black"]
        for n, (w, b) in enumerate(game_rows(game), 1):
            lines.append(f"{n:3d}) {w:42} {b}")
        lines.append(f"     {_result_text(record, game)}")
    lines += ["", _final(record)]
    if alerts:
        lines += ["", "Alerts:"] + [f"  {a.at.astimezone():%H:%M:%S} {a.text}" for a in alerts]
    lines += [
        "",
        "",
        "White ____________________   Black ____________________   Director ____________________",
    ]
    return lines


_CSS = """
body { font-family: sans-serif; margin: 2em; }
table { border-collapse: collapse; margin-bottom: 1em; }
td, th { border: 1px solid #999; padding: 2px 8px; text-align: left; vertical-align: top; }
td.play { font-family: monospace; white-space: nowrap; }
.flag { color: #a00; }
.result { font-weight: bold; }
.signatures td { border: none; padding: 2em 2em 0 0; }
@media print { body { margin: 0; } section.game { break-inside: avoid; } }
"""


def score_sheet_html(record: MatchRecord, match_id: int, alerts: Sequence[Alert] = ()) -> str:
    """The printable score sheet as one HTML page (every character kept; print it from a browser)."""
    e = html.escape
    info = record.info
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>Score sheet: {e(info.white)} v {e(info.black)}</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>{e(info.white)} v {e(info.black)}</h1>",
        "<table class='info'>",
    ]
    out += [f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in _header(record, match_id)]
    out.append("</table>")
    scores = record.scores()
    crawford = record.crawford_games()
    for i, game in enumerate(record.games):
        white, black = scores[i]
        tag = " (Crawford)" if game.number in crawford else ""
        out.append(f"<section class='game'><h2>Game {game.number}{tag}, score {white}-{black}</h2>")
        out.append(
            f"<table><tr><th>#</th><th>{e(info.white)} (white)</th><th>{e(info.black)} (black)</th></tr>"
        )
        for n, (w, b) in enumerate(game_rows(game), 1):
            cells = f"<td class='play'>{_html_cell(w)}</td><td class='play'>{_html_cell(b)}</td>"
            out.append(f"<tr><td>{n}</td>{cells}</tr>")
        out.append(f"<tr><td></td><td colspan='2' class='result'>{e(_result_text(record, game))}</td></tr>")
        out.append("</table></section>")
    out.append(f"<p class='result' id='final'>{e(_final(record))}</p>")
    if alerts:
        out.append("<h2>Alerts</h2><ul>")
        out += [f"<li>{a.at.astimezone():%H:%M:%S} {e(a.text)}</li>" for a in alerts]
        out.append("</ul>")
    out.append(
        "<table class='signatures'><tr><td>White ____________________</td><td>Black ____________________</td>"
        "<td>Director ____________________</td></tr></table>"
    )
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def _html_cell(text: str) -> str:
    if " [" in text and text.endswith("]"):
        play, flags = text.rsplit(" [", 1)
        return f"{html.escape(play)} <span class='flag'>[{html.escape(flags)}</span>"
    return html.escape(text)
