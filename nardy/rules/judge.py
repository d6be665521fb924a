"""The diff: did a play of this roll turn position A into position B, and if not, why?

:func:`judge` answers with a :class:`Verdict`: legal or not, which play it was (plays that
differ only in step order are the same play), and for an illegal one a reason in words a
referee can say aloud ("moved 2 checkers from the head", "point 19 is closed", ...). Point
numbers in reasons are in the mover's own numbering, like the play notation.

To explain an illegal result, the judge searches the step sequences of the roll with each
rule allowed to be broken, and reports the path that breaks the fewest rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from nardy.rules.board import WHITE_POINT, to_mover
from nardy.rules.color import Color
from nardy.rules.dice import Roll
from nardy.rules.errors import PositionError, RulesError
from nardy.rules.movegen import OPP_PATH, Board, illegal_block, illegal_block_at
from nardy.rules.play import Play, Step
from nardy.rules.position import Position

if TYPE_CHECKING:
    from nardy.rules.variants import Variant

_DIE_WORDS = {1: "1", 2: "2", 3: "3", 4: "4", 5: "5", 6: "6"}
_PLURAL = {1: "ones", 2: "twos", 3: "threes", 4: "fours", 5: "fives", 6: "sixes"}


@dataclass(frozen=True, slots=True)
class Verdict:
    """The judge's answer."""

    legal: bool
    """True when a legal play of the roll gives the observed position (or nothing moved and
    nothing could be played)."""
    play: Play | None = None
    """The play that was made: the legal one, or for an illegal result the closest explanation
    the judge found (None when it found none)."""
    reason: str | None = None
    """Why it is illegal, in words a referee can say aloud; None when legal."""
    codes: tuple[str, ...] = ()
    """Machine-readable kinds of the broken rules: ``count``, ``opponent``, ``no-move``, ``head``,
    ``block``, ``closed``, ``bar-first``, ``bear-off-home``, ``bear-off-order``, ``max-dice``,
    ``larger-die``, ``per-point``, ``backwards``, ``pips``, ``unreachable``."""
    points: tuple[int, ...] = field(default=())
    """Points involved (white's numbering, 1..24), for highlighting on a board."""

    def to_json(self) -> dict[str, Any]:
        return {
            "legal": self.legal,
            "play": None if self.play is None else self.play.text(),
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class _Violation:
    code: str
    text: str
    points: tuple[int, ...] = ()


def judge(
    variant: Variant, before: Position, after: Position, roll: object, first_turn: bool = False
) -> Verdict:
    """Judge ``after`` as the result of the side to move in ``before`` playing ``roll``.

    ``after.turn`` is ignored. Raises :class:`RulesError` only for inputs of the wrong variant.
    """
    if before.variant != variant.name or after.variant != variant.name:
        raise RulesError(
            f"judge for {variant.title} given {before.variant} and {after.variant} nardy positions"
        )
    roll = Roll.from_any(roll)
    mover = before.turn
    opp = mover.other
    to_white: tuple[int, ...] = WHITE_POINT[variant.name][mover]

    for color in (mover, opp):
        if before.total(color) != after.total(color):
            return Verdict(
                False,
                reason=(
                    f"checker count changed: {color} has {after.total(color)} checkers, "
                    f"had {before.total(color)}"
                ),
                codes=("count",),
            )

    legal = variant.legal_plays(before, roll, first_turn)
    found = legal.find(after)
    if found is not None:
        return Verdict(True, found)
    if after.same_board(before):
        if not legal:
            return Verdict(True, Play())
        return Verdict(False, reason=f"nothing moved although {roll} can be played", codes=("no-move",))

    b0 = to_mover(before)
    b1 = to_mover(after, mover)
    moved_opp = _opponent_moved(b0, b1, variant.name == "long", before.off(opp), after.off(opp))
    if moved_opp:
        pts = tuple(sorted(to_white[q] for q in moved_opp))
        verdict = Verdict(
            False, reason=f"{opp}'s checkers moved on {mover}'s turn", codes=("opponent",), points=pts
        )
        own = _own_part(before, after)
        if (
            own is None
            or own.same_board(before)
            or legal.find(own) is not None
            or any(own.same_board(p) for p in legal.partial_positions())
        ):
            return verdict
        # the mover's own checkers break the rules too (or the camera misread the opponent's):
        # say both, the mover's part in its own words
        inner = judge(variant, before, own, roll, first_turn)
        return Verdict(
            False,
            play=inner.play,
            reason=f"{verdict.reason}; {mover}'s own play: {inner.reason}",
            codes=("opponent", *(c for c in inner.codes if c != "opponent")),
            points=tuple(sorted(set(pts) | set(inner.points))),
        )

    backwards = _moved_backwards(b0, b1)
    if backwards is not None:
        if backwards == 25:
            return Verdict(False, reason=f"a {mover} checker went back to the bar", codes=("backwards",))
        return Verdict(
            False,
            reason=f"a checker moved backwards, to point {backwards}",
            codes=("backwards",),
            points=(to_white[backwards],),
        )

    best = _explain(variant, b0, b1, roll, first_turn, mover)
    if best is None:
        pips0, pips1 = _pips(b0), _pips(b1)
        moved = pips0 - pips1
        if moved > roll.pips:
            reason = f"checkers moved {moved} pips, more than {roll} allows ({roll.pips})"
            code = "pips"
        else:
            reason = f"no play of {roll} gives this position (checkers moved {moved} pips)"
            code = "unreachable"
        return Verdict(False, reason=reason, codes=(code,), points=_changed_points(b0, b1, to_white))

    steps, violations = best
    play = Play(Step(*s) for s in steps)
    if not violations:
        violations = _count_rule(legal.depth(), len(steps), steps, roll)
    if not violations:  # pragma: no cover - the search and the generator disagree: report, don't hide
        violations = [_Violation("unreachable", f"no legal play of {roll} gives this position")]
    seen: dict[str, None] = {}
    for v in violations:
        seen.setdefault(v.text, None)
    involved = sorted({to_white[q] for v in violations for q in v.points if 1 <= q <= 24})
    return Verdict(
        False,
        play=play,
        reason="; ".join(seen),
        codes=tuple(dict.fromkeys(v.code for v in violations)),
        points=tuple(involved),
    )


# ---------------------------------------------------------------------------- checks
def _own_part(before: Position, after: Position) -> Position | None:
    """``after`` with the opponent's checkers as they were in ``before`` (a blot the mover
    landed on in short nardy goes to the bar): what the mover's own checkers did. None when that
    cannot be laid out (the mover's checkers stand where the opponent's stood)."""
    sign = 1 if before.turn is Color.WHITE else -1
    hit = 0
    points = []
    for n0, n1 in zip(before.points, after.points, strict=True):
        mine = n1 if n1 * sign > 0 else 0
        theirs = n0 if n0 * sign < 0 else 0
        if mine and theirs:
            if before.variant != "short" or abs(theirs) != 1:
                return None
            hit += 1
            theirs = 0
        points.append(mine + theirs)
    bar = {Color.WHITE: after.bar_white, Color.BLACK: after.bar_black}
    off = {Color.WHITE: after.off_white, Color.BLACK: after.off_black}
    opp = before.turn.other
    bar[opp] = (before.bar_white if opp is Color.WHITE else before.bar_black) + hit
    off[opp] = before.off_white if opp is Color.WHITE else before.off_black
    try:
        return Position(
            before.variant,
            tuple(points),
            bar_white=bar[Color.WHITE],
            bar_black=bar[Color.BLACK],
            off_white=off[Color.WHITE],
            off_black=off[Color.BLACK],
            turn=before.turn,
        )
    except PositionError:
        return None


def _opponent_moved(b0: Board, b1: Board, long: bool, off0: int, off1: int) -> list[int]:
    """Points where the opponent's checkers changed other than by being hit."""
    if off0 != off1:
        return [q for q in range(1, 25) if min(b0[q], 0) != min(b1[q], 0)] or [0]
    changed = []
    hits = 0
    for q in range(1, 25):
        o0, o1 = max(-b0[q], 0), max(-b1[q], 0)
        if o0 == o1:
            continue
        if not long and o0 == 1 and o1 == 0:
            hits += 1
            continue
        changed.append(q)
    if b1[26] - b0[26] != hits:
        changed.extend(q for q in range(1, 25) if not long and max(-b0[q], 0) == 1 and max(-b1[q], 0) == 0)
        if not changed:
            changed.append(0)
    return changed


def _moved_backwards(b0: Board, b1: Board) -> int | None:
    """A point that ends with more of the mover's checkers at or behind it than before."""
    c0 = c1 = 0
    for q in range(25, 0, -1):
        c0 += max(b0[q], 0)
        c1 += max(b1[q], 0)
        if c1 > c0:
            return q
    return None


def _pips(b: Board) -> int:
    return sum(q * b[q] for q in range(1, 25) if b[q] > 0) + 25 * b[25]


def _changed_points(b0: Board, b1: Board, to_white: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(sorted(to_white[q] for q in range(1, 25) if max(b0[q], 0) != max(b1[q], 0)))


# ---------------------------------------------------------------------------- the relaxed search
_State = tuple[Board, tuple[int, ...], int]


def _explain(
    variant: Variant, b0: Board, target: Board, roll: Roll, first_turn: bool, mover: Color
) -> tuple[tuple[tuple[int, int, bool], ...], list[_Violation]] | None:
    """The step sequence of ``roll`` that reaches ``target`` breaking the fewest rules."""
    long = variant.name == "long"
    rules = variant.gen_rules()
    head_limit = variant.head_limit(roll.high if roll.is_double else None, first_turn)
    opp = mover.other
    cum_target = _cumulative(target)

    start: _State = (b0, tuple(roll.steps), 0)
    frontier: dict[_State, tuple[tuple[tuple[int, int, bool], ...], list[_Violation]]] = {start: ((), [])}
    best: tuple[tuple[tuple[int, int, bool], ...], list[_Violation]] | None = None
    for _depth in range(len(roll.steps)):
        nxt: dict[_State, tuple[tuple[tuple[int, int, bool], ...], list[_Violation]]] = {}
        for (board, dice, head_used), (steps, viol) in frontier.items():
            for nb, used, step, new_viol, head_step in _relaxed_steps(
                board, dice, long, rules.max_per_point, opp
            ):
                vios = viol + new_viol
                h = head_used + head_step
                if long and head_step and h > head_limit:
                    vios = [*vios, _Violation("head", f"moved {h} checkers from the head", (24,))]
                if long and rules.block_strict and nb[step[1]] == 1 and 1 <= step[1] <= 24:
                    run = illegal_block_at(nb, step[1])
                    if run is not None:
                        vios = [*vios, _block_violation(run, opp)]
                if not _can_reach(nb, cum_target):
                    continue
                rest = list(dice)
                for d in used:
                    rest.remove(d)
                key: _State = (nb, tuple(rest), h)
                old = nxt.get(key)
                if old is None or len(vios) < len(old[1]):
                    nxt[key] = ((*steps, step), vios)
        frontier = nxt
        for (board, _dice, _h), (steps, vios) in frontier.items():
            if board == target:
                final = list(vios)
                if long and not rules.block_strict:
                    run_end = illegal_block(board)
                    if run_end is not None:
                        final.append(_block_violation(run_end, opp))
                if (
                    best is None
                    or len(final) < len(best[1])
                    or (len(final) == len(best[1]) and len(steps) > len(best[0]))
                ):
                    best = (steps, final)
        if not frontier:
            break
    if best is not None:
        unique: dict[str, _Violation] = {}
        for v in best[1]:
            unique.setdefault(v.code + v.text, v)
        best = (best[0], list(unique.values()))
    return best


def _block_violation(run: tuple[int, int], opp: Color) -> _Violation:
    pts = tuple(OPP_PATH[t] for t in range(run[0], run[1] + 1))
    return _Violation("block", f"a 6-block with no {opp} checker ahead of it", pts)


def _cumulative(b: Board) -> list[int]:
    out = [0] * 26
    c = 0
    for q in range(25, 0, -1):
        c += max(b[q], 0)
        out[q] = c
    return out


def _can_reach(b: Board, cum_target: list[int]) -> bool:
    c = 0
    for q in range(25, 0, -1):
        c += max(b[q], 0)
        if c < cum_target[q]:
            return False
    return True


def _relaxed_steps(
    b: Board, dice: tuple[int, ...], long: bool, maxpp: int, opp: Color
) -> list[tuple[Board, tuple[int, ...], tuple[int, int, bool], list[_Violation], int]]:
    """Every way to move one checker by one die (or through closed points by several), with the
    rules each breaks. Returns ``(board, dice used, step, violations, head checkers moved)``."""
    out: list[tuple[Board, tuple[int, ...], tuple[int, int, bool], list[_Violation], int]] = []
    highest = 25 if b[25] > 0 else 24
    while highest > 0 and b[highest] <= 0:
        highest -= 1
    home = highest <= 6
    for s in range(25, 0, -1):
        if b[s] <= 0:
            continue
        base: list[_Violation] = []
        if s != 25 and b[25] > 0:
            base.append(_Violation("bar-first", "a checker on the bar must enter first", (s,)))
        for d in sorted(set(dice), reverse=True):
            _hop(b, s, s, d, (d,), dice, base, long, maxpp, highest, home, out)
    return out


def _hop(
    b: Board,
    src: int,
    here: int,
    d: int,
    used: tuple[int, ...],
    dice: tuple[int, ...],
    viol: list[_Violation],
    long: bool,
    maxpp: int,
    highest: int,
    home: bool,
    out: list[tuple[Board, tuple[int, ...], tuple[int, int, bool], list[_Violation], int]],
) -> None:
    dst = here - d
    vios = list(viol)
    if dst <= 0:
        if not home:
            vios.append(_Violation("bear-off-home", "bore off while a checker is outside home", (src,)))
        elif dst < 0 and src != highest:
            vios.append(
                _Violation(
                    "bear-off-order",
                    f"bore off from {src} with a {used[-1]} while a checker stands on {highest}",
                    (src, highest),
                )
            )
        nb = list(b)
        nb[src] -= 1
        nb[0] += 1
        out.append((tuple(nb), used, (src, 0, False), vios, 1 if src == 24 else 0))
        return
    v = b[dst]
    closed = v < 0 if long else v < -1
    if closed:
        rest = list(dice)
        for x in used:
            rest.remove(x)
        vios.append(_Violation("closed", f"point {dst} is closed", (dst,)))
        for e in sorted(set(rest), reverse=True):
            _hop(b, src, dst, e, (*used, e), dice, vios, long, maxpp, highest, home, out)
        return
    if v >= maxpp:
        vios.append(_Violation("per-point", f"more than {maxpp} checkers on point {dst}", (dst,)))
    nb = list(b)
    nb[src] -= 1
    if v == -1 and not long:
        nb[dst] = 1
        nb[26] += 1
        out.append((tuple(nb), used, (src, dst, True), vios, 1 if src == 24 else 0))
    else:
        nb[dst] = v + 1
        out.append((tuple(nb), used, (src, dst, False), vios, 1 if src == 24 and long else 0))


def _count_rule(
    depth_max: int, depth: int, steps: tuple[tuple[int, int, bool], ...], roll: Roll
) -> list[_Violation]:
    """The play broke no rule step by step: did it use too few dice, or the wrong one?"""
    if roll.is_double:
        if depth < depth_max:
            return [
                _Violation(
                    "max-dice",
                    f"played {depth} of the {_PLURAL[roll.high]} although {depth_max} can be played",
                )
            ]
        return []
    if depth < depth_max:
        used = _die_of_single(steps, roll)
        other = roll.low if used == roll.high else roll.high
        return [
            _Violation(
                "max-dice", f"used the {_DIE_WORDS[used]} but the {_DIE_WORDS[other]} could also be played"
            )
        ]
    if depth == 1 and depth_max == 1 and _die_of_single(steps, roll) == roll.low:
        return [
            _Violation(
                "larger-die",
                f"used the {roll.low} but the {roll.high} could be played: when only one die can be "
                "played, it must be the larger",
            )
        ]
    return []


def _die_of_single(steps: tuple[tuple[int, int, bool], ...], roll: Roll) -> int:
    src, dst, _ = steps[0]
    dist = src - dst
    if dst == 0 and dist not in (roll.high, roll.low):
        return (
            roll.high
            if dist <= roll.high and dist > roll.low
            else roll.low
            if dist <= roll.low
            else roll.high
        )
    return roll.high if dist == roll.high else roll.low
