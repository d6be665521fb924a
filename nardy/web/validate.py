"""Strict checks of what a request sends: every field known, every value of the right type and range.

Each helper raises :class:`~nardy.web.http.ApiError` (400, or 415 for a body that is not JSON)
with a message that names the field, so the page can show it as it is.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from flask import request

from nardy.rules import Color, Position
from nardy.web.http import ApiError
from nardy.web.services import Corners

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.-]{0,63}$")
"""Profile names: letters, digits, space, ``-_.``; no path separators, not starting with a dot."""
MATCH_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")
"""Match ids as the store makes them (and nothing like ``..``)."""
FORMAT = re.compile(r"^[a-z0-9][a-z0-9-]{0,15}$")


def json_body() -> dict[str, Any]:
    """The request's JSON object (an empty body counts as ``{}``)."""
    if not request.content_length and not request.data:
        return {}
    if not request.is_json:
        raise ApiError(415, "send JSON (Content-Type: application/json)")
    data = request.get_json(silent=True)
    if data is None:
        raise ApiError(400, "the body is not valid JSON")
    if not isinstance(data, dict):
        raise ApiError(400, "the body must be a JSON object")
    return data


def only(data: Mapping[str, Any], allowed: set[str], where: str) -> None:
    unknown = set(data) - allowed
    if unknown:
        known = ", ".join(sorted(allowed)) or "none"
        raise ApiError(400, f"{where}: unknown field(s) {', '.join(sorted(unknown))} (known: {known})")


def integer(value: Any, name: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ApiError(400, f"{name} must be a whole number, not {value!r}")
    if not low <= value <= high:
        raise ApiError(400, f"{name} must be {low} to {high}, not {value}")
    return value


def text(value: Any, name: str, longest: int) -> str:
    if not isinstance(value, str):
        raise ApiError(400, f"{name} must be text, not {value!r}")
    if len(value) > longest:
        raise ApiError(400, f"{name} is longer than {longest} characters")
    if any(ord(c) < 32 for c in value):
        raise ApiError(400, f"{name} must not contain control characters")
    return value


def choice(value: Any, name: str, choices: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in choices:
        raise ApiError(400, f"{name} must be one of {', '.join(choices)}, not {value!r}")
    return value


def side(value: Any, name: str) -> str:
    return Color.parse(choice(value, name, ("white", "black"))).value


def dice(value: Any) -> list[int]:
    if not isinstance(value, list) or len(value) != 2:
        raise ApiError(400, f"dice must be two numbers, e.g. [6, 5], not {value!r}")
    return [integer(v, "a die", 1, 6) for v in value]


def position(value: Any, variant: str) -> dict[str, Any]:
    """A position JSON for ``variant``, checked by the rules library."""
    if not isinstance(value, dict):
        raise ApiError(400, "position must be a position JSON object")
    try:
        parsed = Position.from_json(value, variant)
    except ValueError as exc:
        raise ApiError(400, f"position: {exc}") from None
    if parsed.variant != variant:
        raise ApiError(400, f"position: a {parsed.variant} position, but this game is {variant}")
    return parsed.to_json()


def options(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ApiError(400, "options must be an object")
    if len(value) > 16:
        raise ApiError(400, "options: too many fields")
    for key, v in value.items():
        text(key, "an option name", 40)
        if v is not None and not isinstance(v, (bool, int, float, str)):
            raise ApiError(400, f"option {key!r} must be a plain value")
        if isinstance(v, str):
            text(v, f"option {key!r}", 40)
    return dict(value)


def name(value: Any, what: str = "name") -> str:
    checked = text(value, what, 64)
    if not NAME.match(checked):
        raise ApiError(400, f"{what} may hold letters, digits, spaces and - _ . (not starting with them)")
    return checked


def match_id(value: str) -> str:
    if not MATCH_ID.match(value) or ".." in value:
        raise ApiError(400, f"{value[:40]!r} is not a match id")
    return value


def export_format(value: str) -> str:
    if not FORMAT.match(value):
        raise ApiError(400, f"{value[:20]!r} is not an export format")
    return value


def corners(value: Any, size: tuple[int, int] | None) -> Corners:
    """Four (x, y) image points going round a convex area clockwise, on (or just off) the image."""
    if size is None:
        raise ApiError(409, "take a snapshot first")
    if not isinstance(value, list) or len(value) != 4:
        raise ApiError(
            400, "corners must be four [x, y] points: top-left, top-right, bottom-right, bottom-left"
        )
    width, height = size
    points: list[tuple[float, float]] = []
    for i, p in enumerate(value):
        if not isinstance(p, list) or len(p) != 2:
            raise ApiError(400, f"corner {i + 1} must be [x, y]")
        x, y = p
        for v in (x, y):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise ApiError(400, f"corner {i + 1} must be two finite numbers")
        if not (-0.25 * width <= x <= 1.25 * width and -0.25 * height <= y <= 1.25 * height):
            raise ApiError(
                400, f"corner {i + 1} ({x:.0f}, {y:.0f}) is far outside the {width}x{height} picture"
            )
        points.append((float(x), float(y)))
    if not _convex_clockwise(points):
        raise ApiError(
            400,
            "the corners must go round the board clockwise (top-left, top-right, bottom-right, bottom-left)",
        )
    return (points[0], points[1], points[2], points[3])


def _convex_clockwise(points: list[tuple[float, float]]) -> bool:
    """Clockwise on screen (y down): every turn has a positive cross product, and a real area."""
    area = 0.0
    for i in range(4):
        (x0, y0), (x1, y1), (x2, y2) = points[i], points[(i + 1) % 4], points[(i + 2) % 4]
        cross = (x1 - x0) * (y2 - y1) - (y1 - y0) * (x2 - x1)
        if cross <= 0:
            return False
        area += x0 * y1 - x1 * y0
    return area / 2 > 100.0
