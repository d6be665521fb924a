"""Decoding a settled reading under the rules.

The candidates are every position the mover can have made with the roll: the board unchanged,
every partial play on the way to a legal one (players move one checker at a time), and every
legal result. Each is scored by the reading's likelihood; the best is taken when it is clearly
best. The play is called illegal only when the board is confidently none of them, and the
rules' judge names the reason. When unsure, the decision says so rather than guess.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Literal

from nardy.referee.config import RefereeConfig
from nardy.referee.reading import BoardReading
from nardy.rules import Color, Play, Position, Roll, Variant
from nardy.rules.judge import Verdict

Kind = Literal["unchanged", "partial", "complete", "illegal", "unsure", "unreadable", "count"]


@dataclass(frozen=True, slots=True)
class Decision:
    """What a settled reading shows about the mover's play."""

    kind: Kind
    """``unchanged``: nothing moved yet; ``partial``: on the way to a legal play; ``complete``: a
    legal play; ``illegal``: confidently none of them; ``count``: checkers are missing or extra;
    ``unsure``: two candidates explain the board about equally; ``unreadable``: nothing does."""
    position: Position | None = None
    """The position the board shows (for ``unchanged``, ``partial``, ``complete``, and the free
    reading for ``illegal``)."""
    play: Play | None = None
    """The legal play, for ``complete``."""
    verdict: Verdict | None = None
    """The judge's verdict, for ``illegal`` and ``count``."""
    margin: float = 0.0
    """How much better (natural log) the chosen explanation is than the next one."""
    alternatives: tuple[str, ...] = ()
    """For ``unsure``: the plays or states that compete."""


@dataclass(frozen=True, slots=True)
class Bias:
    """How far (natural log) this camera usually reads from the position that stands: over the
    whole board (``total``) and place by place (``usual``). A pile it always reads one short
    costs every board that holds the pile that much, frame after frame. A board is forgiven the
    usual gap only at the places where it departs from the free reading, and never more than the
    usual gap over the whole board: a departure at a place the camera usually reads right (a
    checker set one point from where the dice allow) counts in full."""

    usual: tuple[float, ...] = ()
    """Per place, as :meth:`BoardReading.place_gaps` orders them; empty when nothing is learned."""
    total: float = 0.0
    """The usual gap over the whole board (places the free reading fills in cost it less than the
    sum of their own gaps)."""
    lean: tuple[float, ...] = ()
    """Per point (1..24), how much likelier the camera usually finds some other count there than the
    count that stood (:meth:`BoardReading.deficits`): a pile it reads two too tall. Empty when
    nothing is learned."""
    stood: tuple[int, ...] = ()
    """The counts (white's numbering, as ``Position.points``) ``lean`` is measured from."""

    def forgive(self, reading: BoardReading, position: Position, free: Position | None) -> float:
        """What of ``position``'s gap from the free reading ``free`` is this camera's usual one."""
        if not self.usual or free is None:
            return 0.0
        return self._forgiven(reading.place_gaps(position, free))

    def _forgiven(self, gaps: tuple[float, ...]) -> float:
        if not self.usual:
            return 0.0
        return min(sum(min(u, g) for u, g in zip(self.usual, gaps, strict=True) if g > 0), self.total)

    def leaning(self, reading: BoardReading, position: Position, free: Position | None) -> float:
        """What ``position`` gains over the free reading ``free`` at points where it departs from
        what stood and the camera usually reads away from what stood: a board that puts one more
        checker on a pile the camera always reads too tall is no likelier for it, since the camera
        said the same of the pile as it stood."""
        if not self.lean or free is None:
            return 0.0
        return self._leant(reading.place_gaps(position, free), position)

    def _leant(self, gaps: tuple[float, ...], position: Position) -> float:
        if not self.lean:
            return 0.0
        points = zip(self.lean, gaps[: len(self.lean)], position.points, self.stood, strict=True)
        return sum(min(u, -g) for u, g, mine, stood in points if g < 0 and mine != stood)

    def gap(self, reading: BoardReading, position: Position, free: tuple[float, Position | None]) -> float:
        """How much less likely (log) ``position`` is than the free reading ``free`` (the answer of
        :meth:`BoardReading.best_keeping_count`), less what of that is the usual gap, and without
        what it gains where the camera usually leans (``leaning``)."""
        free_ll, kept = free
        gap = free_ll - reading.log_likelihood(position)
        if kept is None or not (self.usual or self.lean):
            return gap
        gaps = reading.place_gaps(position, kept)  # (once, for both)
        return gap - self._forgiven(gaps) + self._leant(gaps, position)


NO_BIAS = Bias()


def decode(
    variant: Variant,
    before: Position,
    roll: Roll,
    first_turn: bool,
    reading: BoardReading,
    config: RefereeConfig,
    bias: Bias = NO_BIAS,
) -> Decision:
    """Decide what ``reading`` shows after the side to move in ``before`` threw ``roll``.

    ``bias``: how far this camera's free reading usually is from the position that stands, on
    this board (a stack it always reads one short, say); departures beyond it are what count.
    """
    if reading.best_log_likelihood() < config.unreadable_log_likelihood:
        # the camera is unsure of every place: nothing it could tell apart is worth a decision
        return Decision("unreadable")
    scored: list[tuple[float, Kind, Position, Play | None]] = [
        (reading.log_likelihood(position), kind, position, play)
        for kind, position, play in candidates(variant, before, roll, first_turn)
    ]
    scored.sort(key=lambda s: -s[0])
    best_ll, kind, position, play = scored[0]
    second_ll = scored[1][0] if len(scored) > 1 else float("-inf")
    # the candidates are measured against the most likely board with the same checkers (the
    # mover may have borne some off): a pile the camera reads short is as tall as the count of
    # checkers says, on every candidate and on this board alike
    free_ll, free = reading.best_keeping_count(
        before.with_turn(before.turn.other),
        bearing=before.turn,
        most_borne=most_borne(variant, before, roll, first_turn),
    )
    if free is None or reading.best_log_likelihood() - free_ll - bias.total > config.count_margin:
        # not even checkers that keep their count explain the board: some are missing or extra
        gap = reading.best_log_likelihood() - best_ll - bias.total
        return _not_a_candidate(variant, before, roll, first_turn, reading, config, gap, None)
    gap = bias.gap(reading, position, (free_ll, free))
    if gap > min(config.illegal_margin, config.own_margin):
        found = _not_a_candidate(variant, before, roll, first_turn, reading, config, gap, free)
        if gap > config.illegal_margin or (
            found.kind == "illegal" and gap > alarm_margin(config, found.verdict)
        ):
            return found
    if gap > config.doubt_margin:
        # the board looks like none of the candidates, but not clearly enough to call it
        seen: Position | None = free
        names: tuple[str, ...] = ("the position on the board", _name(kind, play))
        verdict = None if seen is None else variant.judge(before, seen, roll, first_turn)
        return Decision("unsure", seen, None, verdict, margin=-gap, alternatives=names)
    margin = best_ll - second_ll
    # a close call matters only when a finished play is one of the two
    if margin < config.accept_margin and "complete" in (kind, scored[1][1]):
        names = tuple(_name(s[1], s[3]) for s in scored[:2])
        return Decision("unsure", position, play, margin=margin, alternatives=names)
    return Decision(kind, position, play, margin=margin)


@functools.lru_cache(maxsize=32)
def candidates(
    variant: Variant, before: Position, roll: Roll, first_turn: bool
) -> tuple[tuple[Kind, Position, Play | None], ...]:
    """What the mover can have made of ``roll``: the board unchanged, every partial play and every
    legal result. Cached, since every still frame of a turn asks for the same ones."""
    legal = variant.legal_plays(before, roll, first_turn)
    out: list[tuple[Kind, Position, Play | None]] = [("unchanged", before, None)]
    out.extend(("complete", after, play) for play, after in legal.items())
    out.extend(("partial", partial, None) for partial in legal.partial_positions())
    return tuple(out)


def most_borne(variant: Variant, before: Position, roll: Roll, first_turn: bool) -> int:
    """The most checkers the mover can bear off with ``roll`` (0 when it cannot bear off)."""
    mover = before.turn
    return max(
        position.off(mover) - before.off(mover)
        for _, position, _ in candidates(variant, before, roll, first_turn)
    )


@dataclass(frozen=True, slots=True)
class Finished:
    """The most likely finished play once the opponent has thrown, and how clearly it is that."""

    play: Play
    after: Position
    over_unfinished: float
    """How much more likely (log) it is than the most likely unfinished state (the board
    unchanged or a partial play); negative when one of those is likelier."""
    over_other: float
    """How much more likely (log) it is than the next finished play (inf when there is none)."""

    @property
    def behind_top(self) -> float:
        """How far (log) it trails the most likely state of all (0 when it is the most likely)."""
        return max(-self.over_unfinished, 0.0)


def best_finished(
    variant: Variant, before: Position, roll: Roll, first_turn: bool, reading: BoardReading
) -> Finished | None:
    """The most likely finished play of ``roll`` and how it compares with the unfinished states
    and with the other finished plays; None when the roll cannot be played."""
    lls: list[tuple[float, Kind, Position, Play | None]] = [
        (reading.log_likelihood(position), kind, position, play)
        for kind, position, play in candidates(variant, before, roll, first_turn)
    ]
    finished = sorted((s for s in lls if s[1] == "complete"), key=lambda s: -s[0])
    if not finished:
        return None
    ll, _, after, play = finished[0]
    assert play is not None  # every finished candidate has its play
    unfinished = max((s[0] for s in lls if s[1] != "complete"), default=float("-inf"))
    second = finished[1][0] if len(finished) > 1 else float("-inf")
    return Finished(play, after, ll - unfinished, ll - second)


def _name(kind: str, play: Play | None) -> str:
    return play.text() if play is not None else kind


def alarm_margin(config: RefereeConfig, verdict: Verdict | None) -> float:
    """The gap from every legal candidate a board judged ``verdict`` needs to be called illegal:
    ``own_margin`` when the fault lies in the mover's own checkers alone, else ``illegal_margin``."""
    if verdict is None or verdict.legal or "opponent" in verdict.codes or "count" in verdict.codes:
        return config.illegal_margin
    return config.own_margin


def _not_a_candidate(
    variant: Variant,
    before: Position,
    roll: Roll,
    first_turn: bool,
    reading: BoardReading,
    config: RefereeConfig,
    margin: float,
    seen: Position | None,
) -> Decision:
    """``seen``: the board read keeping the checkers' count; None to take the free reading."""
    if reading.best_log_likelihood() < config.unreadable_log_likelihood:
        return Decision("unreadable", margin=margin)
    if seen is None:
        counted = _count_change(before, most_borne(variant, before, roll, first_turn), reading)
        if counted is not None:
            return Decision("count", None, None, counted, margin=margin)
        seen = reading.as_position(variant.name, before.turn.other, before)
    if seen is None:
        return Decision("unreadable", margin=margin)
    verdict = variant.judge(before, seen, roll, first_turn)
    if verdict.legal:  # the free reading is a candidate after all (it cannot be far better than it)
        return Decision("unsure", seen, verdict.play, margin=0.0)
    kind: Kind = "count" if "count" in verdict.codes else "illegal"
    return Decision(kind, seen, verdict.play, verdict, margin=margin)


def best_chain(
    variant: Variant,
    steps: tuple[tuple[Color, Roll, bool], ...],
    starts: tuple[tuple[Play | None, Position], ...],
    reading: BoardReading,
    beam: int = 40,
) -> tuple[tuple[Play | None, ...], tuple[Position, ...], float]:
    """The most likely run of finished plays that ends on the board ``reading`` shows.

    ``starts``: what the first mover's turn may have left (each legal result, or a board seen
    earlier); ``steps``: the throws that followed, in order: who threw, the throw, and whether
    it was that side's first turn. After each step only the ``beam`` boards nearest the reading
    are kept (a board on the way differs from the final one only by the checkers moved later).
    Returns the plays, the board after each, and the log-likelihood of the last.
    """
    Path = tuple[tuple[Play | None, ...], tuple[Position, ...], float]
    paths: list[Path] = [((play,), (after,), reading.log_likelihood(after)) for play, after in starts]
    for mover, roll, first_turn in steps:
        paths.sort(key=lambda p: -p[2])
        nxt: dict[tuple[object, ...], Path] = {}
        for plays, boards, _ in paths[:beam]:
            before = boards[-1].with_turn(mover)
            legal = variant.legal_plays(before, roll, first_turn)
            results: list[tuple[Play | None, Position]] = list(legal.items()) or [(Play(), before)]
            for play, after in results:
                ll = reading.log_likelihood(after)
                key = (after.points, after.bar_white, after.bar_black, after.off_white, after.off_black)
                if key not in nxt or ll > nxt[key][2]:
                    nxt[key] = (plays + (play,), boards + (after,), ll)
        paths = list(nxt.values())
    return max(paths, key=lambda p: p[2])


def _count_change(before: Position, most_borne: int, reading: BoardReading) -> Verdict | None:
    """The board has checkers missing or extra: a count the trays cannot explain (only the mover
    can have borne off, at most ``most_borne``), said per side; None when the counts add up."""
    points, bar, _ = reading.most_likely()
    bar_white, bar_black = bar if bar is not None else (0, 0)
    on_board = {
        Color.WHITE: sum(n for n in points if n > 0) + bar_white,
        Color.BLACK: -sum(n for n in points if n < 0) + bar_black,
    }
    said = []
    for colour, n in on_board.items():
        was = before.total(colour) - before.off(colour)
        least = was - (most_borne if colour is before.turn else 0)
        if n > was:
            said.append(f"{colour} has {n} checkers on the board, {n - was} more than before")
        elif n < least:
            said.append(f"{colour} has {n} checkers on the board, {least - n} missing")
    if not said:
        return None
    where = tuple(i + 1 for i in range(24) if points[i] != before.points[i])
    return Verdict(False, None, "checker count changed: " + "; ".join(said), ("count",), where)
