"""Short-nardy matches as SGF for backgammon (``GM[6]``), the format GNU Backgammon saves.

One game tree per game, as GNU Backgammon writes a match::

    (;FF[4]GM[6]CA[UTF-8]AP[nardy:0.1.0]MI[length:5][game:0][ws:0][bs:0]PW[Anna]PB[Boris]RU[Crawford]RE[W+2]
    ;B[31pstt];W[62xrmk];B[double];W[take];B[42...]...)

Points are letters in white's numbering: ``a`` is white's 1-point ... ``x`` white's 24-point, ``y``
the bar and ``z`` off, for both sides; a move is the dice then one from-to letter pair per step
(``;B[52mgig]``). White is ``W`` (the first player of the ``.mat`` file), black ``B``.
``RE[W+2]`` gives the winner and points, ``R`` added for a resignation.
"""

from __future__ import annotations

from nardy import __version__
from nardy.rules.board import white_point
from nardy.rules.color import Color
from nardy.rules.play import BAR, OFF
from nardy.rules.record import CubeAction, GameRecord, MatchRecord, RecordError, TurnRecord, die_steps

_LETTERS = "abcdefghijklmnopqrstuvwx"


def write_sgf(record: MatchRecord) -> str:
    """The match as SGF text (short nardy only)."""
    if record.variant.name != "short":
        raise RecordError("SGF (GM[6]) holds backgammon, i.e. short nardy; export long nardy as .mat or JSON")
    scores = record.scores()
    crawford = record.crawford_games()
    trees = [
        _game_tree(record, game, scores[i], game.number in crawford) for i, game in enumerate(record.games)
    ]
    return "\n".join(trees) + "\n"


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def _game_tree(record: MatchRecord, game: GameRecord, score: tuple[int, int], crawford_game: bool) -> str:
    info = record.info
    options = info.variant.options
    props = [
        "FF[4]GM[6]CA[UTF-8]",
        f"AP[nardy:{__version__}]",
        f"MI[length:{info.length}][game:{game.number - 1}][ws:{score[0]}][bs:{score[1]}]",
        f"PW[{_escape(info.white)}]PB[{_escape(info.black)}]",
    ]
    if info.started_at is not None and game.number == 1:
        props.append(f"DT[{info.started_at.strftime('%Y-%m-%d')}]")
    if info.venue:
        props.append(f"PC[{_escape(info.venue)}]")
    if info.event:
        props.append(f"EV[{_escape(info.event)}]")
    rules = [] if options.cube else ["NoCube"]
    if info.length and options.crawford:
        rules.append("Crawford:CrawfordGame" if crawford_game else "Crawford")
    if rules:
        props.append(f"RU[{':'.join(rules)}]")
    if game.result is not None:
        resign = "R" if game.ending == "resign" else ""
        props.append(f"RE[{'W' if game.result.winner is Color.WHITE else 'B'}+{game.result.points}{resign}]")
    nodes = ["(;" + "".join(props)]
    for action in game.actions:
        side = "W" if action.color is Color.WHITE else "B"
        if isinstance(action, CubeAction):
            nodes.append(f";{side}[{action.kind}]")
        else:
            nodes.append(f";{side}[{_move(record, game, action)}]")
    return "\n".join(nodes) + ")"


def _move(record: MatchRecord, game: GameRecord, turn: TurnRecord) -> str:
    steps = die_steps(record.variant, turn, game.first_turn(turn))
    letters = "".join(_letter(turn.color, s.src) + _letter(turn.color, s.dst) for s in steps)
    return f"{turn.roll.high}{turn.roll.low}{letters}"


def _letter(color: Color, point: int) -> str:
    if point == BAR:
        return "y"
    if point == OFF:
        return "z"
    return _LETTERS[white_point("short", color, point) - 1]
