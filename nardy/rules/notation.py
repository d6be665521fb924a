"""Position texts of players' tools, for short nardy: XGID and the GNU Backgammon position ID.

White is the bottom player "X" of these tools: white's numbering is theirs.
:func:`parse_position` reads any of our position texts (the JSON, an XGID, a gnubg position ID
with an optional match ID).
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass

from nardy.rules.board import to_mover
from nardy.rules.color import Color
from nardy.rules.dice import Roll
from nardy.rules.errors import NotationError, PositionError
from nardy.rules.position import CHECKERS, Position

_XGID_RE = re.compile(r"^\s*(?:XGID=)?([-a-oA-O]{26})((?::[^:]*){0,9})\s*$")
_GNUBG_RE = re.compile(r"^\s*([A-Za-z0-9+/]{14})(?::([A-Za-z0-9+/]{12}))?\s*$")


@dataclass(frozen=True, slots=True)
class XgidInfo:
    """What an XGID says beyond the checkers."""

    roll: Roll | None = None
    cube: int = 1
    cube_owner: Color | None = None
    score_white: int = 0
    score_black: int = 0
    crawford: bool = False
    match_length: int = 0


# ----------------------------------------------------------------------------- XGID
def to_xgid(position: Position, info: XgidInfo | None = None) -> str:
    """The XGID of a short-nardy position (white = X, the bottom player)."""
    _require_short(position)
    info = info or XgidInfo()
    chars = ["-"] * 26
    chars[0] = _xg_char(-position.bar_black)
    chars[25] = _xg_char(position.bar_white)
    for i, n in enumerate(position.points):
        chars[i + 1] = _xg_char(n)
    exp = info.cube.bit_length() - 1
    owner = 0 if info.cube_owner is None else 1 if info.cube_owner is Color.WHITE else -1
    turn = 1 if position.turn is Color.WHITE else -1
    dice = "00" if info.roll is None else f"{info.roll.high}{info.roll.low}"
    fields = [
        "".join(chars),
        str(exp),
        str(owner),
        str(turn),
        dice,
        str(info.score_white),
        str(info.score_black),
        "1" if info.crawford else "0",
        str(info.match_length),
        "10",
    ]
    return "XGID=" + ":".join(fields)


def _xg_char(n: int) -> str:
    if n == 0:
        return "-"
    if n > 0:
        return chr(ord("A") + n - 1)
    return chr(ord("a") - n - 1)


def from_xgid(text: str) -> tuple[Position, XgidInfo]:
    """Read an XGID (``XGID=`` optional; fields after the position optional)."""
    match = _XGID_RE.match(text)
    if match is None:
        raise NotationError(f"not an XGID: {text!r}")
    chars = match.group(1)
    fields = [f for f in match.group(2).split(":")[1:]]

    def count(c: str) -> int:
        if c == "-":
            return 0
        if c.isupper():
            return ord(c) - ord("A") + 1
        return -(ord(c) - ord("a") + 1)

    values = [count(c) for c in chars]
    if values[0] > 0 or values[25] < 0:
        raise NotationError(f"XGID {text!r}: a bar holds checkers of the wrong side")
    points = tuple(values[1:25])
    bar_black, bar_white = -values[0], values[25]
    on_white = sum(n for n in points if n > 0) + bar_white
    on_black = -sum(n for n in points if n < 0) + bar_black
    if on_white > CHECKERS or on_black > CHECKERS:
        raise NotationError(f"XGID {text!r}: more than {CHECKERS} checkers of one side")

    def field(i: int, default: str) -> str:
        return fields[i] if i < len(fields) and fields[i] != "" else default

    try:
        exp = int(field(0, "0"))
        owner = int(field(1, "0"))
        turn = int(field(2, "1"))
        dice = field(3, "00")
        score_w, score_b = int(field(4, "0")), int(field(5, "0"))
        crawford = field(6, "0") == "1"
        length = int(field(7, "0"))
    except ValueError:
        raise NotationError(f"XGID {text!r}: a field is not a number") from None
    if turn not in (1, -1) or owner not in (-1, 0, 1) or not 0 <= exp <= 12:
        raise NotationError(f"XGID {text!r}: turn, cube owner or cube value out of range")
    roll = None
    if re.fullmatch(r"[1-6]{2}", dice):
        roll = Roll(int(dice[0]), int(dice[1]))
    elif dice not in ("00", "D", "B", "R"):
        raise NotationError(f"XGID {text!r}: dice field {dice!r}")
    try:
        position = Position(
            "short",
            points,
            bar_white,
            bar_black,
            CHECKERS - on_white,
            CHECKERS - on_black,
            Color.WHITE if turn == 1 else Color.BLACK,
        )
    except PositionError as exc:
        raise NotationError(f"XGID {text!r}: {exc}") from None
    info = XgidInfo(
        roll=roll,
        cube=1 << exp,
        cube_owner=None if owner == 0 else Color.WHITE if owner == 1 else Color.BLACK,
        score_white=score_w,
        score_black=score_b,
        crawford=crawford,
        match_length=length,
    )
    return position, info


# ----------------------------------------------------------------------------- gnubg position ID
def gnubg_board(board: tuple[int, ...] | list[int]) -> tuple[list[int], list[int]]:
    """A mover board (:mod:`nardy.rules.board`) as GNU Backgammon's pair of 25 counts:
    ``(player not on roll, player on roll)``, each in its own numbering, index 24 the bar."""
    mover = [0] * 25
    opp = [0] * 25
    for q in range(1, 25):
        n = board[q]
        if n > 0:
            mover[q - 1] = n
        elif n < 0:
            opp[24 - q] = -n
    mover[24] = board[25]
    opp[24] = board[26]
    return opp, mover


def to_gnubg_id(position: Position) -> str:
    """GNU Backgammon's 14-character position ID, from the side to move's point of view."""
    _require_short(position)
    opp, mover = gnubg_board(to_mover(position))
    bits: list[int] = []
    for side in (opp, mover):
        for n in side:
            bits.extend([1] * n)
            bits.append(0)
    key = bytearray(10)
    for i, bit in enumerate(bits[:80]):
        if bit:
            key[i // 8] |= 1 << (i % 8)
    return base64.b64encode(bytes(key)).decode("ascii")[:14]


def from_gnubg_id(text: str, turn: Color = Color.WHITE) -> Position:
    """Read a gnubg position ID (seen from the side to move, ``turn``), or ``POSITIONID:MATCHID``.

    A position ID is relative to the side on roll and names no colour, so ``turn`` says which
    side that is. A match ID after it is checked for form and otherwise not used: its players
    0 and 1 are not colours either (gnubg renumbers them as it likes).
    """
    match = _GNUBG_RE.match(text)
    if match is None:
        raise NotationError(f"not a GNU Backgammon position ID: {text!r}")
    try:
        key = base64.b64decode(match.group(1) + "==", validate=True)
    except (binascii.Error, ValueError):
        raise NotationError(f"not a GNU Backgammon position ID: {text!r}") from None
    if match.group(2):
        _check_match_id(match.group(2))
    bits = [(key[i // 8] >> (i % 8)) & 1 for i in range(80)]
    sides: list[list[int]] = [[], []]
    idx = 0
    for side in sides:
        while len(side) < 25:
            if idx >= 80:
                raise NotationError(f"GNU Backgammon position ID {text!r} is too short")
            n = 0
            while idx < 80 and bits[idx]:
                n += 1
                idx += 1
            idx += 1
            side.append(n)
    opp, mover = sides
    if sum(opp) > CHECKERS or sum(mover) > CHECKERS:
        raise NotationError(f"GNU Backgammon position ID {text!r} has more than {CHECKERS} checkers a side")
    b = [0] * 27
    b[0] = CHECKERS - sum(mover)
    for q in range(1, 25):
        if mover[q - 1] and opp[24 - q]:
            raise NotationError(f"GNU Backgammon position ID {text!r} puts both sides on one point")
        b[q] = mover[q - 1] - opp[24 - q]
    b[25] = mover[24]
    b[26] = opp[24]
    from nardy.rules.board import from_mover

    template = Position("short", (0,) * 24, turn=turn, off_white=CHECKERS, off_black=CHECKERS)
    template = _with_opponent_off(template, CHECKERS - sum(opp))
    try:
        return from_mover(tuple(b), template)
    except PositionError as exc:
        raise NotationError(f"GNU Backgammon position ID {text!r}: {exc}") from None


def _with_opponent_off(template: Position, off: int) -> Position:
    if template.turn is Color.WHITE:
        return Position("short", template.points, turn=Color.WHITE, off_white=0, off_black=off)
    return Position("short", template.points, turn=Color.BLACK, off_white=off, off_black=0)


def _check_match_id(match_id: str) -> None:
    try:
        base64.b64decode(match_id, validate=True)
    except (binascii.Error, ValueError):
        raise NotationError(f"not a GNU Backgammon match ID: {match_id!r}") from None


def _require_short(position: Position) -> None:
    if position.variant != "short":
        raise NotationError("XGID and GNU Backgammon IDs describe short nardy (backgammon) positions only")


# ----------------------------------------------------------------------------- any
def parse_position(text: str, variant: str | None = None, turn: Color | None = None) -> Position:
    """Read a position JSON, an XGID or a gnubg position ID; ``turn`` overrides the side to move."""
    stripped = text.strip()
    if stripped.startswith("{"):
        position = Position.from_json(stripped, variant)
    elif _XGID_RE.match(stripped):
        position = from_xgid(stripped)[0]
    elif _GNUBG_RE.match(stripped):
        position = from_gnubg_id(stripped, turn or Color.WHITE)
    else:
        raise NotationError(
            f"cannot read position {text[:60]!r}: expected the position JSON, an XGID or a GNU Backgammon ID"
        )
    if variant is not None and not stripped.startswith("{"):
        from nardy.rules.variants import find_variant

        if find_variant(variant).name != "short":
            raise NotationError("XGID and GNU Backgammon IDs describe short nardy positions only")
    return position if turn is None else position.with_turn(turn)
