"""The Jellyfish ``.mat`` match text that GNU Backgammon, eXtreme Gammon and their kin read.

:func:`write_mat` writes a :class:`~nardy.rules.record.MatchRecord` the way GNU Backgammon's own
``export match mat`` does; :func:`read_mat` reads it back (and the files of other programs),
replaying every play with the rules engine: a play that breaks a rule is kept and flagged.

Layout (white in the left column, black in the right; each side's plays in its own numbering,
bar ``25``, off ``0``, one step per die)::

    ; [Player 1 "Anna"]
    ; [Variation "Backgammon"]
     5 point match

     Game 1
     Anna : 0                        Boris : 0
      1)                             31: 8/5 6/5
      2) 62: 24/18 13/11             42: 8/4 6/4
      3)  Doubles => 2                Takes
      4) 66:                         ...
                                      Wins 1 point

A cell is one action of that column's player: a throw and its play (``66:`` alone when nothing
could be played), `` Doubles => N``, `` Takes``, `` Drops``, or `` Wins N points`` (needed only when
the loser resigned). Long nardy uses the same layout with ``[Variation "Long Nardy"]``.
Header comments carry what the match text has no place for: venue, event, start time, and the
rule options (``[Rules "..."]``). Time stamps and turn flags are not part of the format.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from nardy.rules.color import Color
from nardy.rules.dice import Roll
from nardy.rules.errors import RulesError
from nardy.rules.play import BAR, Play, Step
from nardy.rules.position import Position
from nardy.rules.record import (
    Action,
    CubeAction,
    CubeState,
    GameRecord,
    MatchInfo,
    MatchRecord,
    RecordError,
    TurnRecord,
    cube_problem,
    die_steps,
    judge_turn,
    next_cube_state,
    parse_time,
)
from nardy.rules.scoring import NAMES, GameResult
from nardy.rules.variants import Variant, find_variant

RIGHT_COLUMN = 33
"""Where the right-hand (black) cells start, as in GNU Backgammon's export."""
VARIATIONS = {"short": "Backgammon", "long": "Long Nardy"}
_VARIATION_NAMES = {
    "backgammon": "short",
    "short nardy": "short",
    "long nardy": "long",
    "long": "long",
    "narde": "long",
    "nardy": "long",
}

_LENGTH_RE = re.compile(r"^\s*(\d+)\s+point\s+match\b", re.IGNORECASE)
_GAME_RE = re.compile(r"^\s*Game\s+(\d+)\s*$")
_TAG_RE = re.compile(r'^\s*[;#]\s*\[\s*([A-Za-z][A-Za-z0-9 ]*?)\s+"(.*)"\s*\]\s*$')
_ROLL_CELL_RE = re.compile(r"^([1-6])([1-6]):(.*)$")
_DOUBLE_RE = re.compile(r"^doubles?(?:\s*=>\s*(\d+))?$", re.IGNORECASE)
_WINS_RE = re.compile(r"^wins\s+(\d+)\s+points?$", re.IGNORECASE)
_SCORE_RE = re.compile(r"^\s*(?P<w>[^:]+?)\s*:\s*(?P<ws>\d+)(?P<rest>.*?):\s*(?P<bs>\d+)")


class MatFormatError(RecordError):
    """A ``.mat`` text that cannot be read; ``line`` is the 1-based line number (0: the whole file)."""

    def __init__(self, message: str, line: int = 0) -> None:
        super().__init__(f"line {line}: {message}" if line else message)
        self.line = line


# ============================================================================ writing
def write_mat(record: MatchRecord) -> str:
    """The match as ``.mat`` text (``\\n`` line ends, a final newline)."""
    info = record.info
    lines = [f'; [{key} "{_tag_value(value)}"]' for key, value in _header_tags(record)]
    lines += ["", f" {info.length} point match", ""]
    scores = record.scores()
    for index, game in enumerate(record.games):
        lines += _write_game(record, game, scores[index])
    return "\n".join(lines) + "\n"


def _header_tags(record: MatchRecord) -> list[tuple[str, str]]:
    info = record.info
    options = info.variant.options
    tags: list[tuple[str, str]] = []
    if info.venue:
        tags.append(("Site", info.venue))
    if info.event:
        tags.append(("Event", info.event))
    tags += [("Player 1", info.white), ("Player 2", info.black)]
    if info.started_at is not None:
        local = info.started_at
        tags += [("EventDate", local.strftime("%Y.%m.%d")), ("EventTime", local.strftime("%H.%M"))]
        tags.append(("Started", local.isoformat()))
    tags += [
        ("Variation", VARIATIONS[info.variant.name]),
        ("Crawford", "On" if options.crawford else "Off"),
        ("Jacoby", "Off"),
        ("CubeLimit", "1024" if options.cube else "1"),
        ("Rules", " ".join(f"{k}={_option_text(v)}" for k, v in info.variant.options_dict().items())),
    ]
    return tags


def _tag_value(value: str) -> str:
    return " ".join(value.replace('"', "'").split())


def _option_text(value: object) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def mat_name(name: str) -> str:
    """A player's name as the score line can hold it: one line, no colon (it ends the name)."""
    return " ".join(name.replace(":", ".").split())


def _write_game(record: MatchRecord, game: GameRecord, score: tuple[int, int]) -> list[str]:
    info = record.info
    left = f" {mat_name(info.white)} : {score[0]}"
    gap = " " * max(RIGHT_COLUMN - 1 - len(left), 2)
    lines = [f" Game {game.number}", left + gap + f"{mat_name(info.black)} : {score[1]}"]
    cells = [(a.color, _cell(record.variant, game, a)) for a in game.actions]
    rows: list[list[str]] = []
    last: Color | None = None
    for color, text in cells:
        if color is Color.BLACK and rows and last is Color.WHITE:
            rows[-1][1] = text
        else:  # white opens a row; so does black when it opens the game or acts twice running
            rows.append([text, ""] if color is Color.WHITE else ["", text])
        last = color
    for number, (l_cell, r_cell) in enumerate(rows, 1):
        body = f"{number:3d}) {l_cell}"
        lines.append(body + " " * max(RIGHT_COLUMN - len(body), 2) + r_cell if r_cell else body.rstrip())
    if game.result is not None:
        points = game.result.points
        wins = f" Wins {points} point{'' if points == 1 else 's'}"
        if game.result.winner is Color.BLACK and last is Color.WHITE:
            lines[-1] = lines[-1] + " " * max(RIGHT_COLUMN - len(lines[-1]), 2) + wins
        else:  # on a line of its own, in the winner's column
            lines.append((" " * 5 if game.result.winner is Color.WHITE else " " * RIGHT_COLUMN) + wins)
    lines.append("")
    return lines


def _cell(variant: Variant, game: GameRecord, action: Action) -> str:
    if isinstance(action, CubeAction):
        if action.kind == "double":
            return f" Doubles => {action.cube}"
        return " Takes" if action.kind == "take" else " Drops"
    steps = die_steps(variant, action, game.first_turn(action))
    text = " ".join(_step_text(s) for s in steps)
    return f"{action.roll.high}{action.roll.low}: {text}".rstrip()


def _step_text(step: Step) -> str:
    src = "25" if step.src == BAR else str(step.src)
    return f"{src}/{step.dst}{'*' if step.hit else ''}"


# ============================================================================ reading
@dataclass
class _GameState:
    number: int
    position: Position
    cube: CubeState = field(default_factory=CubeState)
    actions: list[Action] = field(default_factory=list)
    first: dict[Color, bool] = field(default_factory=lambda: {Color.WHITE: True, Color.BLACK: True})
    result: GameResult | None = None
    ending: str | None = None


def read_mat(text: str, variant: Variant | str | None = None) -> MatchRecord:
    """Read a ``.mat`` text into a match record, replaying it with the rules engine.

    ``variant`` gives the game and options when the file does not (a file without a
    ``Variation`` comment is short nardy). Plays that break a rule are kept, flagged ``illegal``
    with the judge's reason. Raises :class:`MatFormatError` (with the line) for text that is not a
    match: no header, an unreadable cell, a play that cannot be made on the board, a score that
    does not add up.
    """
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines and lines[0].startswith("\ufeff"):
        lines[0] = lines[0][1:]
    tags: dict[str, str] = {}
    length: int | None = None
    start = 0
    for i, line in enumerate(lines):
        tag = _TAG_RE.match(line)
        if tag:
            tags.setdefault(tag.group(1).strip(), tag.group(2))
            continue
        m = _LENGTH_RE.match(line)
        if m:
            length, start = int(m.group(1)), i + 1
            break
    if length is None:
        raise MatFormatError('no "N point match" line: not a .mat match file')
    var = _variant_from_tags(tags, variant)
    games: list[tuple[int, int, list[tuple[int, str]]]] = []  # (game number, line of "Game", body)
    for i in range(start, len(lines)):
        line = lines[i]
        m = _GAME_RE.match(line)
        if m:
            games.append((int(m.group(1)), i + 1, []))
        elif games and line.strip():
            games[-1][2].append((i + 1, line))
        elif line.strip() and not line.lstrip().startswith((";", "#")):
            raise MatFormatError(f"text before the first game: {line.strip()!r}", i + 1)
    names: tuple[str, str] | None = None
    records: list[GameRecord] = []
    white_score = black_score = 0
    for number, line_no, body in games:
        if not body:
            raise MatFormatError(f"game {number} has no score line", line_no)
        score_line, score_text = body[0]
        sm = _SCORE_RE.match(score_text)
        if sm is None:
            raise MatFormatError(f"cannot read the score line {score_text.strip()!r}", score_line)
        # the second name follows the first score and anything some programs add to it, after 2+ spaces
        second = re.split(r"\s{2,}", sm.group("rest").strip())[-1].strip()
        if not second:
            raise MatFormatError(f"no second player in the score line {score_text.strip()!r}", score_line)
        game_names = (sm.group("w").strip(), second)
        if names is None:
            names = game_names
        elif game_names != names:
            raise MatFormatError(
                f"game {number} is between {game_names[0]} and {game_names[1]}, "
                f"but the match is between {names[0]} and {names[1]}",
                score_line,
            )
        if (int(sm.group("ws")), int(sm.group("bs"))) != (white_score, black_score):
            raise MatFormatError(
                f"game {number} starts at {sm.group('ws')}-{sm.group('bs')}, but the games before it "
                f"add up to {white_score}-{black_score}",
                score_line,
            )
        if length and max(white_score, black_score) >= length:
            raise MatFormatError(f"game {number} starts after the {length}-point match was won", line_no)
        game = _read_game(var, number, body[1:])
        if game.result is not None:
            if game.result.winner is Color.WHITE:
                white_score += game.result.points
            else:
                black_score += game.result.points
        records.append(game)
    if names is None:
        names = (tags.get("Player 1", "White"), tags.get("Player 2", "Black"))
    white = tags.get("Player 1") if mat_name(tags.get("Player 1", "")) == names[0] else names[0]
    black = tags.get("Player 2") if mat_name(tags.get("Player 2", "")) == names[1] else names[1]
    try:
        info = MatchInfo(
            white=white or names[0],
            black=black or names[1],
            variant=var,
            length=length,
            venue=tags.get("Site", ""),
            event=tags.get("Event", ""),
            started_at=_start_time(tags),
        )
    except RecordError as exc:
        raise MatFormatError(str(exc)) from None
    return MatchRecord(info, tuple(records))


def _variant_from_tags(tags: dict[str, str], variant: Variant | str | None) -> Variant:
    given = None if variant is None else find_variant(variant)
    name = None
    if "Variation" in tags:
        name = _VARIATION_NAMES.get(tags["Variation"].strip().lower())
        if name is None:
            raise MatFormatError(f"variation {tags['Variation']!r} is not short or long nardy")
    if given is not None and name is not None and given.name != name:
        raise MatFormatError(f"the file is a {tags['Variation']} match, not {given.title}")
    if "Rules" in tags:
        options = _parse_rules(tags["Rules"])
        try:
            return find_variant(name or (given.name if given else "short"), **options)
        except ValueError as exc:
            raise MatFormatError(f"rule options {tags['Rules']!r}: {exc}") from None
    if given is not None:
        return given
    options = {}
    if tags.get("Crawford", "").strip().lower() == "off":
        options["crawford"] = False
    if tags.get("CubeLimit", "").strip() == "1":
        options["cube"] = False
    return find_variant(name or "short", **options)


def _parse_rules(text: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for pair in text.split():
        key, sep, value = pair.partition("=")
        if not sep:
            raise MatFormatError(f"rule option {pair!r} is not NAME=VALUE")
        low = value.lower()
        parsed: Any = value
        if low in ("true", "false"):
            parsed = low == "true"
        elif low == "none":
            parsed = None
        elif value.isdigit():
            parsed = int(value)
        out[key] = parsed
    return out


def _start_time(tags: dict[str, str]) -> datetime | None:
    if "Started" in tags:
        try:
            return parse_time(tags["Started"], "Started")
        except RecordError as exc:
            raise MatFormatError(str(exc)) from None
    date = tags.get("EventDate", "").strip()
    if not date:
        return None
    clock = tags.get("EventTime", "00.00").strip() or "00.00"
    try:
        return datetime.strptime(f"{date} {clock}", "%Y.%m.%d %H.%M").replace(tzinfo=UTC)
    except ValueError:
        return None  # a date some program wrote in its own way: not worth refusing the match for


def split_cells(line: str) -> tuple[str, str]:
    """The left and right cells of a move line, found as GNU Backgammon finds them.

    The right cell starts two characters before a second colon (its dice); failing that, at the
    first double space after column 15. The move number ``N)`` is dropped.
    """
    right = ""
    first = line.find(":")
    second = line.find(":", first + 1) if first >= 0 else -1
    if first >= 0 and second > 3:
        left, right = line[: second - 3], line[second - 2 :]
    elif len(line) > 15 and (gap := line.find("  ", 15)) >= 0:
        left, right = line[:gap], line[gap + 1 :]
    else:
        left = line
    paren = left.find(")")
    if paren >= 0:
        left = left[paren + 1 :]
    return left.strip(), right.strip()


def _read_game(variant: Variant, number: int, body: list[tuple[int, str]]) -> GameRecord:
    state: _GameState | None = None
    for line_no, line in body:
        if line.lstrip().startswith((";", "#")):
            continue
        for column, cell in enumerate(split_cells(line)):
            if not cell:
                continue
            color = Color.WHITE if column == 0 else Color.BLACK
            if state is None:
                state = _GameState(number, Position.initial(variant.name, color))
            try:
                _read_cell(variant, state, color, cell)
            except MatFormatError as exc:
                raise MatFormatError(str(exc), line_no) from None
            except RulesError as exc:
                raise MatFormatError(f"{color}: {cell!r}: {exc}", line_no) from None
    if state is None:
        return GameRecord(number)
    return GameRecord(
        number,
        tuple(state.actions),
        state.result,
        state.ending,  # type: ignore[arg-type]
    )


def _read_cell(variant: Variant, state: _GameState, color: Color, cell: str) -> None:
    wins = _WINS_RE.match(cell)
    if wins:
        _read_wins(variant, state, color, int(wins.group(1)))
        return
    if state.result is not None:
        raise MatFormatError(f"{cell!r} after the end of game {state.number}")
    roll_cell = _ROLL_CELL_RE.match(cell)
    if roll_cell:
        if state.cube.offered_by is not None:
            raise MatFormatError(f"{color} throws while a double waits for an answer")
        roll = Roll(int(roll_cell.group(1)), int(roll_cell.group(2)))
        text = roll_cell.group(3).strip()
        if text.strip("?") == "" and text:
            raise MatFormatError(f"the play of {color}'s {roll} was not recorded ({text})")
        if text.lower() in ("cannot move", "can't move"):
            text = ""
        if text.lower().startswith("illegal"):
            raise MatFormatError(f"{text!r}: illegal-play positions are not supported")
        play = Play.from_text(text)
        before = state.position
        out_of_turn = before.turn is not color
        if out_of_turn:
            before = before.with_turn(color)
        turn = judge_turn(variant, before, roll, play, state.first[color])
        if out_of_turn:
            turn = TurnRecord(
                turn.roll,
                turn.play,
                turn.before,
                turn.after,
                illegal=True,
                reason=f"played out of turn: it was {color.other}'s turn",
            )
        state.first[color] = False
        state.actions.append(turn)
        state.position = turn.after
        result = variant.result(turn.after, state.cube.value)
        if result is not None:
            state.result, state.ending = result, "bear-off"
        return
    double = _DOUBLE_RE.match(cell)
    low = cell.lower()
    if double:
        offered = state.cube.value * 2
        if double.group(1) is not None and int(double.group(1)) != offered:
            raise MatFormatError(
                f"{color} doubles to {double.group(1)}, but the cube is at {state.cube.value}"
            )
        _cube(state, CubeAction("double", color, offered))
    elif low.startswith(("take", "accept")):
        _cube(state, CubeAction("take", color, state.cube.value * 2))
    elif low.startswith(("drop", "pass", "reject")):
        _cube(state, CubeAction("drop", color, state.cube.value * 2))
        winner = color.other
        state.result = GameResult(winner, 1, state.cube.value, NAMES[variant.name][1])
        state.ending = "drop"
    elif low.startswith(("beaver", "raccoon")):
        raise MatFormatError(f"{cell!r}: beavers are not part of the nardy match rules")
    elif low.startswith("resign"):
        return  # some programs write the offer; the "Wins" line that follows settles the game
    else:
        raise MatFormatError(f"cannot read {cell!r}")


def _cube(state: _GameState, action: CubeAction) -> None:
    problem = cube_problem(state.cube, action)
    if problem:
        raise MatFormatError(problem)
    state.actions.append(action)
    state.cube = next_cube_state(state.cube, action)


def _read_wins(variant: Variant, state: _GameState, color: Color, points: int) -> None:
    if state.result is not None:
        if state.result.winner is not color or state.result.points != points:
            raise MatFormatError(
                f"the file says {color} wins {points} point(s), but the game gives "
                f"{state.result.winner} {state.result.points}"
            )
        return
    cube = state.cube.value
    if points % cube or not 1 <= points // cube <= 3:
        raise MatFormatError(
            f"{color} wins {points} point(s), which is not 1, 2 or 3 times the cube ({cube})"
        )
    multiplier = points // cube
    state.result = GameResult(color, multiplier, cube, NAMES[variant.name][multiplier])
    state.ending = "resign"
