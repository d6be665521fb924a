"""Steps and plays, and their text form.

Points in a step are in the **mover's own numbering**, as in every backgammon and nardy notation:
each side counts its path from 24 (its start) down to 1 (the end of its home); ``25`` is the bar
and ``0`` is off. A :class:`Play` is what one player does with one roll: a sequence of steps.

Text forms round-trip: ``24/18 13/8``, ``bar/22*``, ``6/off``, ``13/7(2)``, ``24/18*/13``.
Two plays that differ only in the order of their steps, or in whether a checker's path through
an empty point is written as one hop or two, are the same play (``24/18 18/13 == 24/13``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from nardy.rules.errors import PlayParseError

BAR = 25
"""The bar as a step's source, in the mover's numbering."""
OFF = 0
"""Off the board as a step's destination."""

_TOKEN_RE = re.compile(r"^(?P<path>[^()]+?)(?:\((?P<count>\d+)\))?$")
_POINT_RE = re.compile(r"^(?P<point>bar|off|b|o|\d{1,2})(?P<hit>\*?)$", re.IGNORECASE)
_NO_PLAY = ("", "-", "pass", "(no play)", "no play", "cannot move", "can't move")


def _point_text(point: int) -> str:
    if point == BAR:
        return "bar"
    if point == OFF:
        return "off"
    return str(point)


@dataclass(frozen=True, slots=True)
class Step:
    """One checker moved from ``src`` to ``dst`` (mover's numbering); usually by one die."""

    src: int
    """Where the checker starts: 1..24, or 25 for the bar."""
    dst: int
    """Where it ends: 1..24, or 0 when it is borne off."""
    hit: bool = False
    """True when it lands on a single opposing checker and sends it to the bar (short nardy)."""

    def __post_init__(self) -> None:
        if not (1 <= self.src <= 25 and 0 <= self.dst <= 24 and self.dst < self.src):
            raise PlayParseError(
                f"not a step: {_point_text(self.src)}/{_point_text(self.dst)} "
                "(checkers move from a higher to a lower point in the mover's numbering)"
            )
        if self.hit and self.dst == OFF:
            raise PlayParseError("a checker borne off cannot hit")

    @property
    def distance(self) -> int:
        return self.src - self.dst

    def text(self) -> str:
        return f"{_point_text(self.src)}/{_point_text(self.dst)}{'*' if self.hit else ''}"

    def __str__(self) -> str:
        return self.text()


def _chains(steps: Iterable[Step]) -> list[tuple[list[int], set[int]]]:
    """Join steps of one checker into paths: ``24/18 18/13`` becomes ``24/13``.

    Returns ``(points, hits)`` per path; ``points`` keeps an intermediate point only where a hit
    happened on it, so each path reads as it is written in notation.
    """
    chains: list[tuple[list[int], set[int]]] = []
    # a fixed order (a plain arrival before a hitting one) so that any order of the same steps
    # gives the same paths
    for step in sorted(steps, key=lambda s: (-s.src, -s.dst, s.hit)):
        for points, hits in chains:
            if points[-1] == step.src and step.src != OFF:
                if step.src not in hits:
                    points.pop()
                points.append(step.dst)
                if step.hit:
                    hits.add(step.dst)
                break
        else:
            chains.append(([step.src, step.dst], {step.dst} if step.hit else set()))
    return chains


def _chain_text(points: list[int], hits: set[int]) -> str:
    return "/".join(_point_text(p) + ("*" if p in hits else "") for p in points)


class Play:
    """An immutable sequence of steps made with one roll (possibly none: a turn with no play).

    ``Play.from_text("24/18 13/8")``, ``play.text()``; equal and hashable by its canonical text,
    so step order does not matter.
    """

    __slots__ = ("_key", "_steps")

    def __init__(self, steps: Iterable[Step] = ()) -> None:
        self._steps: tuple[Step, ...] = tuple(steps)
        self._key: str = self._canonical()

    @property
    def steps(self) -> tuple[Step, ...]:
        """The steps, in the order they were made or written."""
        return self._steps

    def _canonical(self) -> str:
        paths = [(points[0], points[-1], _chain_text(points, hits)) for points, hits in _chains(self._steps)]
        parts = [text for _, _, text in sorted(paths, key=lambda p: (-p[0], -p[1], p[2]))]
        out: list[str] = []
        i = 0
        while i < len(parts):
            j = i
            while j < len(parts) and parts[j] == parts[i]:
                j += 1
            out.append(parts[i] if j - i == 1 else f"{parts[i]}({j - i})")
            i = j
        return " ".join(out)

    def text(self) -> str:
        """The canonical notation: paths sorted from the highest point, repeats as ``(n)``."""
        return self._key

    @property
    def pips(self) -> int:
        """Total distance moved (a checker borne off counts from its point to 0)."""
        return sum(s.distance for s in self._steps)

    @property
    def hits(self) -> int:
        return sum(1 for s in self._steps if s.hit)

    def __bool__(self) -> bool:
        return bool(self._steps)

    def __len__(self) -> int:
        return len(self._steps)

    def __iter__(self) -> Iterator[Step]:
        return iter(self._steps)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Play):
            return NotImplemented
        return self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    def __str__(self) -> str:
        return self._key or "(no play)"

    def __repr__(self) -> str:
        return f"Play.from_text({self._key!r})"

    @classmethod
    def from_text(cls, text: str) -> Play:
        """Read a play: whitespace-separated paths like ``24/18*/13``, ``bar/22``, ``6/off``, ``13/7(2)``.

        ``""``, ``"-"`` and ``"pass"`` are the empty play. A path may hop over several points
        (``24/13``): it is then one step of that length.
        """
        stripped = text.strip()
        if stripped.lower() in _NO_PLAY:
            return cls(())
        steps: list[Step] = []
        for token in stripped.replace(",", " ").split():
            match = _TOKEN_RE.match(token)
            if match is None:
                raise PlayParseError(f"cannot read {token!r} in play {text!r}")
            count = int(match.group("count") or 1)
            if not 1 <= count <= 4:
                raise PlayParseError(f"repeat count ({count}) out of range in play {text!r}")
            points: list[tuple[int, bool]] = []
            for part in match.group("path").split("/"):
                pm = _POINT_RE.match(part.strip())
                if pm is None:
                    raise PlayParseError(f"cannot read point {part!r} in play {text!r}")
                word = pm.group("point").lower()
                value = BAR if word in ("bar", "b") else OFF if word in ("off", "o") else int(word)
                points.append((value, bool(pm.group("hit"))))
            if len(points) < 2:
                raise PlayParseError(f"{token!r} in play {text!r} needs a source and a destination")
            if points[0][1]:
                raise PlayParseError(f"a hit is marked on the source point in {token!r}")
            path_steps = [Step(a, b, hit) for (a, _), (b, hit) in zip(points, points[1:], strict=False)]
            steps.extend(path_steps * count)
        if len(steps) > 8:
            raise PlayParseError(f"too many steps in play {text!r}")
        return cls(steps)
