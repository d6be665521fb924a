"""Legal play generation on mover boards (see :mod:`nardy.rules.board`).

A step is a tuple ``(src, dst, hit)`` in the mover's numbering. The generator returns, for each
distinct resulting board, one sequence of steps that reaches it (the first found, in a fixed
order), after applying the rules that bind a whole turn:

- as many dice as possible are played (four steps for a double);
- if only one die of a non-double can be played, the larger one when it can be;
- long nardy: at most ``head_limit`` checkers leave the head (point 24) in a turn;
- long nardy: no six consecutive points held (along the opponent's path) with no opposing
  checker ahead of them -- after any single step (strict) or only at the end of the turn.

It is written for speed: plain tuples and lists, no objects per node.
"""

from __future__ import annotations

from dataclasses import dataclass

RawStep = tuple[int, int, bool]
Board = tuple[int, ...]
Results = dict[Board, tuple[RawStep, ...]]

# Long nardy: the opponent's path in the mover's numbering is 12, 11, ..., 1, 24, 23, ..., 13.
OPP_PATH: tuple[int, ...] = tuple([*range(12, 0, -1), *range(24, 12, -1)])
"""``OPP_PATH[t]`` is the mover's point at step ``t`` of the opponent's path (0 = its head)."""
OPP_INDEX: tuple[int, ...] = tuple([0] + [OPP_PATH.index(q) for q in range(1, 25)])
"""``OPP_INDEX[q]``: how far along the opponent's path the mover's point ``q`` is."""

NO_LIMIT = 1 << 30


@dataclass(frozen=True, slots=True)
class GenRules:
    """What the generator needs to know of a variant and its options."""

    long: bool
    """Long nardy (no hitting, any opposing checker closes a point, head and block rules)."""
    max_per_point: int = NO_LIMIT
    """Short nardy folk option: at most this many checkers of one side on a point."""
    block_strict: bool = True
    """Long nardy: a 6-block may not exist even in passing (after any single step)."""


def block_run(b: Board | list[int], q: int) -> tuple[int, int]:
    """The run of consecutive mover-held points through ``q`` along the opponent's path.

    Returns ``(first, last)`` path indices (``OPP_INDEX``) of the run.
    """
    t = OPP_INDEX[q]
    lo = t
    while lo > 0 and b[OPP_PATH[lo - 1]] > 0:
        lo -= 1
    hi = t
    while hi < 23 and b[OPP_PATH[hi + 1]] > 0:
        hi += 1
    return lo, hi


def illegal_block_at(b: Board | list[int], q: int) -> tuple[int, int] | None:
    """If point ``q`` is in a run of six or more with no opposing checker ahead, that run."""
    lo, hi = block_run(b, q)
    if hi - lo < 5:
        return None
    for t in range(hi + 1, 24):
        if b[OPP_PATH[t]] < 0:
            return None
    return lo, hi


def illegal_block(b: Board | list[int]) -> tuple[int, int] | None:
    """The first run of six or more mover-held points with no opposing checker ahead, if any."""
    t = 0
    while t < 24:
        if b[OPP_PATH[t]] > 0:
            start = t
            while t < 24 and b[OPP_PATH[t]] > 0:
                t += 1
            if t - start >= 6 and not any(b[OPP_PATH[u]] < 0 for u in range(t, 24)):
                return start, t - 1
        else:
            t += 1
    return None


def short_successors(b: Board, d: int, maxpp: int, top: int = 25) -> list[tuple[Board, RawStep]]:
    """Every board one die ``d`` can make in short nardy, with its step (sources up to ``top``)."""
    out: list[tuple[Board, RawStep]] = []
    if b[25] > 0:
        if top < 25:
            return out
        dst = 25 - d
        v = b[dst]
        if v >= -1 and v < maxpp:
            nb = list(b)
            nb[25] -= 1
            if v == -1:
                nb[dst] = 1
                nb[26] += 1
                out.append((tuple(nb), (25, dst, True)))
            else:
                nb[dst] = v + 1
                out.append((tuple(nb), (25, dst, False)))
        return out
    highest = 24
    while highest > 0 and b[highest] <= 0:
        highest -= 1
    can_bear = highest <= 6
    for s in range(min(highest, top), 0, -1):
        if b[s] <= 0:
            continue
        dst = s - d
        if dst >= 1:
            v = b[dst]
            if v < -1 or v >= maxpp:
                continue
            nb = list(b)
            nb[s] -= 1
            if v == -1:
                nb[dst] = 1
                nb[26] += 1
                out.append((tuple(nb), (s, dst, True)))
            else:
                nb[dst] = v + 1
                out.append((tuple(nb), (s, dst, False)))
        elif can_bear and (dst == 0 or s == highest):
            nb = list(b)
            nb[s] -= 1
            nb[0] += 1
            out.append((tuple(nb), (s, 0, False)))
    return out


def long_successors(
    b: Board, d: int, head_ok: bool, strict: bool, top: int = 24, blocked: list[int] | None = None
) -> list[tuple[Board, RawStep]]:
    """Every board one die ``d`` can make in long nardy, with its step (sources up to ``top``).

    ``blocked`` collects the sources of steps refused for making a 6-block.
    """
    out: list[tuple[Board, RawStep]] = []
    highest = 24
    while highest > 0 and b[highest] <= 0:
        highest -= 1
    can_bear = highest <= 6
    for s in range(min(highest, top), 0, -1):
        if b[s] <= 0 or (s == 24 and not head_ok):
            continue
        dst = s - d
        if dst >= 1:
            v = b[dst]
            if v < 0:
                continue
            nb = list(b)
            nb[s] -= 1
            nb[dst] = v + 1
            if v == 0 and strict and illegal_block_at(nb, dst) is not None:
                if blocked is not None:
                    blocked.append(s)
                continue
            out.append((tuple(nb), (s, dst, False)))
        elif can_bear and (dst == 0 or s == highest):
            nb = list(b)
            nb[s] -= 1
            nb[0] += 1
            out.append((tuple(nb), (s, 0, False)))
    return out


class Generator:
    """Generates the legal results of one roll from one mover board."""

    __slots__ = ("rules", "head_floor", "exhaustive")

    def __init__(self, rules: GenRules, start: Board, head_limit: int, exhaustive: bool = False) -> None:
        self.rules = rules
        self.head_floor = start[24] - head_limit
        """Long nardy: the head must keep more than this many checkers."""
        self.exhaustive = exhaustive
        """Search every order of the steps (no shortcuts): the reference the shortcuts are tested against."""

    def successors(self, b: Board, d: int) -> list[tuple[Board, RawStep]]:
        rules = self.rules
        if rules.long:
            return long_successors(b, d, b[24] > self.head_floor, rules.block_strict)
        return short_successors(b, d, rules.max_per_point)

    def final_ok(self, b: Board) -> bool:
        rules = self.rules
        return not rules.long or rules.block_strict or illegal_block(b) is None

    def generate(self, start: Board, high: int, low: int) -> Results:
        """The legal results of the roll ``high``-``low``; empty when no play is possible."""
        plain = not self.rules.long and self.rules.max_per_point == NO_LIMIT
        if self.exhaustive:
            return self._doubles(start, high) if high == low else self._pairs(start, high, low)
        if high == low:
            if plain:
                return self._doubles_in_order(start, high)
            if self.rules.long:
                fast = self._long_doubles_in_order(start, high)
                if fast is not None:
                    return fast
            return self._doubles(start, high)
        if plain and start[25] == 0:
            return self._short_pair(start, high, low)
        if self.rules.long:
            fast = self._long_pair(start, high, low)
            if fast is not None:
                return fast
        return self._pairs(start, high, low)

    def _pairs(self, start: Board, high: int, low: int) -> Results:
        """Two different dice, both orders, every step: the plain search."""
        succ = self.successors
        ok = self.final_ok
        both: Results = {}
        for d1, d2 in ((high, low), (low, high)):
            for b1, s1 in succ(start, d1):
                for b2, s2 in succ(b1, d2):
                    if b2 not in both and ok(b2):
                        both[b2] = (s1, s2)
        if both:
            return both
        for d in (high, low):
            one: Results = {}
            for b1, s1 in succ(start, d):
                if b1 not in one and ok(b1):
                    one[b1] = (s1,)
            if one:
                return one
        return {}

    def _short_pair(self, start: Board, high: int, low: int) -> Results:
        """Short nardy, nothing on the bar, no per-point limit: both orders of two different dice.

        Playing the low die first matters only for the checker it moved (it may go on with the
        high die) or when it makes bearing off possible; any other high step was possible before
        the low one, so its result was already found with the high die first.
        """
        both: Results = {}
        for b1, s1 in short_successors(start, high, NO_LIMIT):
            for b2, s2 in short_successors(b1, low, NO_LIMIT):
                if b2 not in both:
                    both[b2] = (s1, s2)
        for b1, s1 in short_successors(start, low, NO_LIMIT):
            highest = 24
            while highest > 0 and b1[highest] <= 0:
                highest -= 1
            if highest <= 6:
                candidates = short_successors(b1, high, NO_LIMIT)
            elif s1[1] > high:
                # only the checker the low die moved may go on (bearing off is not possible here)
                src = s1[1]
                dst = src - high
                v = b1[dst]
                if v < -1:
                    continue
                nb = list(b1)
                nb[src] -= 1
                if v == -1:
                    nb[dst] = 1
                    nb[26] += 1
                    candidates = [(tuple(nb), (src, dst, True))]
                else:
                    nb[dst] = v + 1
                    candidates = [(tuple(nb), (src, dst, False))]
            else:
                candidates = []
            for b2, s2 in candidates:
                if b2 not in both:
                    both[b2] = (s1, s2)
        if both:
            return both
        for d in (high, low):
            one: Results = {}
            for b1, s1 in short_successors(start, d, NO_LIMIT):
                if b1 not in one:
                    one[b1] = (s1,)
            if one:
                return one
        return {}

    def _doubles_in_order(self, start: Board, d: int) -> Results:
        """Short nardy doubles, no per-point limit: steps taken from non-increasing points only.

        Any order of a double's steps can be rearranged so that no step starts above the one
        before it (the bar first, a checker's own hops in turn, outside checkers before bearing
        off), so this finds every result while visiting far fewer orders.
        """
        # one entry per board, with the highest point the last step came from: it allows every
        # continuation that a lower one does
        layer: dict[Board, tuple[int, tuple[RawStep, ...]]] = {start: (25, ())}
        depth = 0
        for _ in range(4):
            nxt: dict[Board, tuple[int, tuple[RawStep, ...]]] = {}
            for b, (top, steps) in layer.items():
                for nb, st in short_successors(b, d, NO_LIMIT, top):
                    old = nxt.get(nb)
                    if old is None or old[0] < st[0]:
                        nxt[nb] = (st[0], (*steps, st))
            if not nxt:
                break
            layer = nxt
            depth += 1
        if depth == 0:
            return {}
        return {b: steps for b, (_, steps) in layer.items()}

    def _long_pair(self, start: Board, high: int, low: int) -> Results | None:
        """Long nardy, two different dice, the way :meth:`_short_pair` does it.

        Valid only when no high step from the start was refused for making a 6-block (strict
        rule): then any step order that works low-first also works high-first, except for the
        checker the low die moved and for bearing off. Returns None when that does not hold.
        """
        strict = self.rules.block_strict
        floor = self.head_floor
        blocked: list[int] = []
        first = long_successors(start, high, start[24] > floor, strict, 24, blocked)
        if blocked:
            return None
        ok = self.final_ok
        both: Results = {}
        for b1, s1 in first:
            for b2, s2 in long_successors(b1, low, b1[24] > floor, strict):
                if b2 not in both and ok(b2):
                    both[b2] = (s1, s2)
        for b1, s1 in long_successors(start, low, start[24] > floor, strict):
            highest = 24
            while highest > 0 and b1[highest] <= 0:
                highest -= 1
            if highest <= 6:
                candidates = long_successors(b1, high, b1[24] > floor, strict)
            elif s1[1] > high:
                src = s1[1]
                candidates = [c for c in long_successors(b1, high, True, strict, src) if c[1][0] == src]
            else:
                candidates = []
            for b2, s2 in candidates:
                if b2 not in both and ok(b2):
                    both[b2] = (s1, s2)
        if both:
            return both
        for d in (high, low):
            one: Results = {}
            for b1, s1 in long_successors(start, d, start[24] > floor, strict):
                if b1 not in one and ok(b1):
                    one[b1] = (s1,)
            if one:
                return one
        return {}

    def _long_doubles_in_order(self, start: Board, d: int) -> Results | None:
        """Long nardy doubles with steps from non-increasing points (see :meth:`_doubles_in_order`).

        A 6-block made in passing depends on the order of the steps, so when any step was refused
        for a block this returns None and the caller searches every order.
        """
        strict = self.rules.block_strict
        floor = self.head_floor
        blocked: list[int] = []
        layers: list[dict[Board, tuple[int, tuple[RawStep, ...]]]] = [{start: (24, ())}]
        for _ in range(4):
            nxt: dict[Board, tuple[int, tuple[RawStep, ...]]] = {}
            for b, (top, steps) in layers[-1].items():
                for nb, st in long_successors(b, d, b[24] > floor, strict, top, blocked):
                    old = nxt.get(nb)
                    if old is None or old[0] < st[0]:
                        nxt[nb] = (st[0], (*steps, st))
            if not nxt:
                break
            layers.append(nxt)
        if blocked:
            return None
        for layer in reversed(layers[1:]):
            good = {b: steps for b, (_, steps) in layer.items() if self.final_ok(b)}
            if good:
                return good
        return {}

    def _doubles(self, start: Board, d: int) -> Results:
        succ = self.successors
        layers: list[Results] = [{start: ()}]
        for _ in range(4):
            nxt: Results = {}
            for b, steps in layers[-1].items():
                for nb, st in succ(b, d):
                    if nb not in nxt:
                        nxt[nb] = (*steps, st)
            if not nxt:
                break
            layers.append(nxt)
        for layer in reversed(layers[1:]):
            good = {b: s for b, s in layer.items() if self.final_ok(b)}
            if good:
                return good
        return {}

    def partials(self, start: Board, high: int, low: int, depth: int) -> set[Board]:
        """Boards on the way to a full play: after 1 .. ``depth - 1`` single steps of the roll.

        Players move one checker at a time; these are the positions a settled board may show
        while a play of ``depth`` steps is still being made.
        """
        out: set[Board] = set()
        if depth < 2:
            return out
        if high != low:
            for d in (high, low):
                out.update(b for b, _ in self.successors(start, d))
            return out
        layer = {start}
        for _ in range(depth - 1):
            layer = {nb for b in layer for nb, _ in self.successors(b, high)}
            out |= layer
        return out

    def any_step(self, start: Board, high: int, low: int) -> bool:
        """Whether any play at all is possible (cheaper than :meth:`generate`)."""
        if self.rules.long and not self.rules.block_strict:
            return bool(self.generate(start, high, low))
        return any(self.successors(start, d) for d in {high, low})
