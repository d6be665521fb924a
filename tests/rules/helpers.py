"""Small helpers to write positions in tests."""

from __future__ import annotations

from nardy.rules import Color, Position


def pos(
    variant: str,
    white: dict[int, int],
    black: dict[int, int],
    turn: Color = Color.WHITE,
    bar: tuple[int, int] = (0, 0),
    off: tuple[int, int] | None = None,
) -> Position:
    """A position from ``{point: count}`` maps in white's numbering; the rest of each side is off."""
    points = [0] * 24
    for p, n in white.items():
        points[p - 1] += n
    for p, n in black.items():
        assert points[p - 1] == 0, "both sides on one point"
        points[p - 1] -= n
    w_on = sum(white.values()) + bar[0]
    b_on = sum(black.values()) + bar[1]
    if off is None:
        off = (15 - w_on, 15 - b_on)
    return Position(variant, tuple(points), bar[0], bar[1], off[0], off[1], turn)


def texts(plays: object) -> set[str]:
    return {p.text() for p in plays}  # type: ignore[attr-defined]
