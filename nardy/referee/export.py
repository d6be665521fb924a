"""A recorded match in the formats players and directors use.

- ``mat``: the Jellyfish match text GNU Backgammon and eXtreme Gammon import (long nardy in the
  same layout, with its variant in the header) -- :mod:`nardy.rules.matfile`;
- ``sgf``: SGF for backgammon, short nardy only -- :mod:`nardy.rules.sgf`;
- ``json``: the whole record, every turn with both positions in the position JSON of
  ``docs/rules.md``, plus the alerts and the gaps in the recording;
- ``sheet`` / ``pdf``: a printable score sheet with each game's plays, the cube, each result
  and the final score, with lines for signatures.

The JSON and the score sheets can carry a post-match analysis (:func:`analyse_record`): each
play's equity loss against the best play and its mark -- ``?!`` doubtful, ``?`` error, ``??``
blunder -- and each player's totals. The analysis runs a hint engine over every turn, so it is
asked for (``analyse=True``); when it fails the export is written without it and says why.
"""

from __future__ import annotations

import html
import json
import logging
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nardy.referee.pdf import text_pdf
from nardy.referee.store import Alert, MatchStore
from nardy.rules.color import Color
from nardy.rules.matfile import write_mat
from nardy.rules.record import CubeAction, GameRecord, MatchRecord
from nardy.rules.sgf import write_sgf
from nardy.rules.variants import Variant

if TYPE_CHECKING:
    from nardy.hints.analysis import MatchReview, PlayReview
    from nardy.hints.engine import HintEngine

log = logging.getLogger(__name__)

FORMATS = ("mat", "sgf", "json", "sheet", "pdf")
"""What :func:`export_match` writes."""
SUFFIXES = {"mat": ".mat", "sgf": ".sgf", "json": ".json", "sheet": ".html", "pdf": ".pdf"}
ANALYSED = ("json", "sheet", "pdf")
"""The formats that carry the analysis; ``mat`` and ``sgf`` stay as analysis programs read them."""
SYMBOLS = {"doubtful": "?!", "error": "?", "blunder": "??"}
"""How the score sheet marks a play, as GNU Backgammon and chess annotators do."""


def export_match(
    store: MatchStore,
    match_id: int,
    fmt: str,
    *,
    analyse: bool = False,
    analysis: MatchAnalysis | None = None,
) -> bytes:
    """Match ``match_id`` of ``store`` in format ``fmt`` (one of :data:`FORMATS`), as bytes (UTF-8 text).

    ``analyse``: mark every play of the JSON and the score sheets with the equity it gave up
    (:func:`analyse_record`; it evaluates every turn, which takes a while for a long match), or
    pass an ``analysis`` made already. A failed analysis is reported in the export, not raised.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}: expected one of {', '.join(FORMATS)}")
    record = store.load_match(match_id)
    if fmt == "mat":
        return write_mat(record).encode("utf-8")
    if fmt == "sgf":
        return write_sgf(record).encode("utf-8")
    if analysis is None and analyse:
        analysis = analyse_record(record)
    if fmt == "json":
        data = match_json(store, match_id, record, analysis)
        return (json.dumps(data, indent=1, ensure_ascii=False) + "\n").encode()
    alerts = store.alerts(match_id)
    if fmt == "sheet":
        return score_sheet_html(record, match_id, alerts, analysis).encode("utf-8")
    title = f"{record.info.white} - {record.info.black}"
    return text_pdf([score_sheet_lines(record, match_id, alerts, analysis)], title=title)


def match_json(
    store: MatchStore,
    match_id: int,
    record: MatchRecord | None = None,
    analysis: MatchAnalysis | None = None,
) -> dict[str, Any]:
    """The record's JSON (:meth:`MatchRecord.to_json`) with the store's id, alerts and gaps.

    With an ``analysis``, every turn gets an ``analysis`` object (``loss``, ``mark``, ``best``,
    ``best_equity``, ``rank``, ``choices``) and the match one with the engine, the thresholds
    and each side's totals -- or ``{"error": ...}`` when the analysis failed. Readers of the
    record (:meth:`MatchRecord.from_json`, ``nardy matches import``) pass over them.
    """
    record = record or store.load_match(match_id)
    data = record.to_json()
    data["id"] = match_id
    if analysis is not None:
        data["analysis"] = analysis.header_json()
        for game, marks in zip(data["games"], analysis.by_game(record), strict=True):
            turns = (a for a in game["actions"] if a["type"] == "turn")
            for action, review in zip(turns, marks, strict=True):
                action["analysis"] = None if review is None else turn_analysis_json(review)
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


# ----------------------------------------------------------------------------- the analysis
@dataclass(frozen=True, slots=True)
class MatchAnalysis:
    """A match's analysis as the exports and the dashboard use it, or why there is none."""

    review: MatchReview | None
    """Every turn's verdict, in the record's order (None when the analysis failed)."""
    problem: str = ""
    """Why there is no analysis, in words a person can read."""

    @property
    def ok(self) -> bool:
        return self.review is not None

    @property
    def engine(self) -> str:
        """The engines that ranked the plays (several when one stood in for another)."""
        if self.review is None:
            return ""
        return ", ".join(sorted({p.engine for p in self.review.plays}))

    def by_game(self, record: MatchRecord) -> list[list[PlayReview | None]]:
        """Each game's turns' verdicts, game by game: None for a turn the analysis did not see
        (it failed, or was made before the turn was recorded or corrected)."""
        made: dict[tuple[int | None, int], PlayReview] = {}
        counts: dict[int | None, int] = {}
        for verdict in self.review.plays if self.review is not None else ():
            n = counts[verdict.game] = counts.get(verdict.game, 0) + 1
            made[verdict.game, n] = verdict
        out: list[list[PlayReview | None]] = []
        for game in record.games:
            verdicts: list[PlayReview | None] = []
            for n, turn in enumerate(game.turns, 1):
                play = made.get((game.number, n))
                same = play is not None and play.position == turn.before and play.roll == turn.roll
                verdicts.append(play if same else None)
            out.append(verdicts)
        return out

    def header_json(self) -> dict[str, Any]:
        """The engine, the thresholds and each side's totals; ``{"error": ...}`` when it failed."""
        if self.review is None:
            return {"error": self.problem}
        data = self.review.to_json()
        return {"engine": self.engine, "thresholds": data["thresholds"], "summary": data["summary"]}

    def to_json(self, record: MatchRecord) -> dict[str, Any]:
        """:meth:`header_json` and, per game, each turn's verdict numbered as the game's turns are."""
        games = []
        for game, marks in zip(record.games, self.by_game(record), strict=True):
            turns = []
            for number, (turn, review) in enumerate(zip(game.turns, marks, strict=True), 1):
                row = {"number": number, "mover": turn.color.value}
                turns.append(row | (turn_analysis_json(review) if review is not None else {}))
            games.append({"number": game.number, "turns": turns})
        return {**self.header_json(), "games": games}


def turn_analysis_json(review: PlayReview) -> dict[str, Any]:
    """One turn's verdict: equity lost, mark, the best play and where the play ranked."""
    return {
        "loss": None if review.loss is None else round(review.loss, 4),
        "mark": review.mark,
        "best": None if review.best is None else review.best.play.text(),
        "best_equity": None if review.best is None else round(review.best.equity, 4),
        "rank": review.rank,
        "choices": review.choices,
    }


def analyse_record(
    record: MatchRecord, engines: Callable[[Variant], HintEngine] | None = None
) -> MatchAnalysis:
    """Analyse ``record`` (:func:`nardy.hints.analyse_match`) with ``engines(variant)`` (default:
    :func:`nardy.hints.engine_for`). Never raises for a failing engine: the exports go on without
    marks, so the failure comes back as :attr:`MatchAnalysis.problem`."""
    from nardy.hints.analysis import analyse_match

    try:
        engine = engines(record.variant) if engines is not None else None
        review = analyse_match(record, engine)
        if len(review.plays) != sum(len(g.turns) for g in record.games):
            raise RuntimeError("the analysis does not have one verdict per turn")
    except Exception as exc:  # whatever failed in the engine, the export goes on without the marks
        log.warning("the analysis of the match failed", exc_info=True)
        return MatchAnalysis(None, f"the analysis failed: {exc}")
    return MatchAnalysis(review)


# ----------------------------------------------------------------------------- the score sheet
@dataclass(frozen=True, slots=True)
class _Cell:
    text: str
    flags: tuple[str, ...] = ()
    review: PlayReview | None = None

    @property
    def symbol(self) -> str:
        return "" if self.review is None else SYMBOLS.get(self.review.mark, "")

    def plain(self) -> str:
        text = self.text + (f" {self.symbol}" if self.symbol else "")
        return text + (f" [{', '.join(self.flags)}]" if self.flags else "")


_CUBE_WORDS = {"double": "doubles to {}", "take": "takes", "drop": "drops"}


def _cells(
    game: GameRecord, marks: Sequence[PlayReview | None] = ()
) -> list[tuple[_Cell | None, _Cell | None]]:
    rows: list[list[_Cell | None]] = []
    last: Color | None = None
    turn_reviews = iter(marks)
    for action in game.actions:
        if isinstance(action, CubeAction):
            cell = _Cell(_CUBE_WORDS[action.kind].format(action.cube))
        else:
            review = next(turn_reviews, None)
            cell = _Cell(f"{action.roll}: {action.play.text() or '(no play)'}", action.flags, review)
        if action.color is Color.BLACK and rows and last is Color.WHITE:
            rows[-1][1] = cell
        else:
            rows.append([cell, None] if action.color is Color.WHITE else [None, cell])
        last = action.color
    return [(w, b) for w, b in rows]


def game_rows(game: GameRecord, marks: Sequence[PlayReview | None] = ()) -> list[tuple[str, str]]:
    """The game as rows of (white's cell, black's cell), in the order they were played.

    ``marks``: the game's turns' verdicts (:meth:`MatchAnalysis.by_game`), shown as ``?!``,
    ``?`` or ``??`` after the play.
    """
    return [("" if w is None else w.plain(), "" if b is None else b.plain()) for w, b in _cells(game, marks)]


def _legend(analysis: MatchAnalysis) -> str:
    assert analysis.review is not None
    t = analysis.review.config
    return (
        f"Marks: ?! doubtful (gave up {t.doubtful:g} to {t.error:g} of a point per game against the best "
        f"play), ? error ({t.error:g} to {t.blunder:g}), ?? blunder ({t.blunder:g} or more); "
        f"cubeless equity, by {analysis.engine}."
    )


def _side_totals(record: MatchRecord, analysis: MatchAnalysis) -> list[str]:
    assert analysis.review is not None

    def count(n: int, word: str) -> str:
        return f"{n} {word}{'' if n == 1 or word == 'doubtful' else 's'}"

    out = []
    for color, side in analysis.review.summary().items():
        marks = ", ".join(count(side.marks.get(m, 0), m) for m in ("blunder", "error", "doubtful"))
        out.append(
            f"{record.info.player(color)} ({color.value}): {marks}; {side.total_loss:.3f} equity lost "
            f"in {count(side.decisions, 'decision')} ({side.mean_loss:.3f} each)"
        )
    return out


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


def score_sheet_lines(
    record: MatchRecord,
    match_id: int,
    alerts: Sequence[Alert] = (),
    analysis: MatchAnalysis | None = None,
    width: int = 93,
) -> list[str]:
    """The score sheet as plain text lines (the PDF's content); long notes are wrapped at ``width``."""
    lines = [f"SCORE SHEET - {record.info.white} v {record.info.black}", ""]
    lines += [f"{k + ':':9} {v}" for k, v in _header(record, match_id)]
    scores = record.scores()
    crawford = record.crawford_games()
    marks = analysis.by_game(record) if analysis is not None else [[] for _ in record.games]
    for i, game in enumerate(record.games):
        white, black = scores[i]
        tag = " (Crawford)" if game.number in crawford else ""
        lines += ["", f"Game {game.number}{tag} - score {white}-{black}", f"{'':4} {'White':42} Black"]
        for n, (w, b) in enumerate(game_rows(game, marks[i]), 1):
            lines.append(f"{n:3d}) {w:42} {b}")
        lines.append(f"     {_result_text(record, game)}")
    lines += ["", _final(record)]
    if analysis is not None:
        lines += ["", "Analysis:"]
        if analysis.review is None:
            notes = [f"None: {analysis.problem}. The plays are not marked."]
        else:
            notes = [*_side_totals(record, analysis), _legend(analysis)]
        for note in notes:
            lines += textwrap.wrap(note, width, initial_indent="  ", subsequent_indent="    ")
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
.mark { font-weight: bold; }
.mark.doubtful { color: #8a6d00; }
.mark.error { color: #c05600; }
.mark.blunder { color: #b00000; }
.mark small { font-weight: normal; }
.result { font-weight: bold; }
.signatures td { border: none; padding: 2em 2em 0 0; }
@media print { body { margin: 0; } section.game { break-inside: avoid; } }
"""


def score_sheet_html(
    record: MatchRecord, match_id: int, alerts: Sequence[Alert] = (), analysis: MatchAnalysis | None = None
) -> str:
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
    marks = analysis.by_game(record) if analysis is not None else [[] for _ in record.games]
    for i, game in enumerate(record.games):
        white, black = scores[i]
        tag = " (Crawford)" if game.number in crawford else ""
        out.append(f"<section class='game'><h2>Game {game.number}{tag}, score {white}-{black}</h2>")
        out.append(
            f"<table><tr><th>#</th><th>{e(info.white)} (white)</th><th>{e(info.black)} (black)</th></tr>"
        )
        for n, (w, b) in enumerate(_cells(game, marks[i]), 1):
            cells = f"<td class='play'>{_html_cell(w)}</td><td class='play'>{_html_cell(b)}</td>"
            out.append(f"<tr><td>{n}</td>{cells}</tr>")
        out.append(f"<tr><td></td><td colspan='2' class='result'>{e(_result_text(record, game))}</td></tr>")
        out.append("</table></section>")
    out.append(f"<p class='result' id='final'>{e(_final(record))}</p>")
    if analysis is not None:
        out.append("<section id='analysis'><h2>Analysis</h2>")
        if analysis.review is None:
            out.append(f"<p class='flag'>None: {e(analysis.problem)}. The plays are not marked.</p>")
        else:
            out.append("<ul>" + "".join(f"<li>{e(t)}</li>" for t in _side_totals(record, analysis)) + "</ul>")
            out.append(f"<p class='legend'>{e(_legend(analysis))}</p>")
        out.append("</section>")
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


def _html_cell(cell: _Cell | None) -> str:
    if cell is None:
        return ""
    out = html.escape(cell.text)
    review = cell.review
    if cell.symbol and review is not None and review.loss is not None:
        best = "" if review.best is None else f"; best {review.best.play.text()}"
        title = f"{review.mark}: gave up {review.loss:.3f}{best}"
        out += (
            f" <span class='mark {review.mark}' title='{html.escape(title)}'>{cell.symbol} "
            f"<small>-{review.loss:.3f}</small></span>"
        )
    if cell.flags:
        out += f" <span class='flag'>[{html.escape(', '.join(cell.flags))}]</span>"
    return out
