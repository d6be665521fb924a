"""Option values the commands share."""

from __future__ import annotations


def parse_size(
    text: str, option: str = "--size", form: str = "WIDTHxHEIGHT", example: str = "1280x720"
) -> tuple[int, int]:
    """``"1280x720"`` -> (1280, 720); a ValueError naming ``option`` and its ``form`` otherwise
    (two positive whole numbers around an x)."""
    try:
        a, b = (int(v) for v in str(text).lower().split("x"))
    except ValueError:
        raise ValueError(f"{option} must be {form}, like {example}, not {text!r}") from None
    if a <= 0 or b <= 0:
        raise ValueError(f"{option} must be positive, not {text!r}")
    return a, b
