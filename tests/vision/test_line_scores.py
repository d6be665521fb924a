"""The count stage's dynamic programme against the recurrence it stands for, written out plainly."""

from __future__ import annotations

import math

import numpy as np
import pytest

from nardy.vision.config import CountConfig
from nardy.vision.count import NEG, _lines, _steps

SHAPES = [(9.0, 60), (14.0, 120), (18.8, 210), (30.0, 90), (19.0, 30)]
"""(diameter, column length) pairs; the last: a few discs fill the column, the longer lines never start."""


def _plain(config: CountConfig, s: np.ndarray, diameter: float, max_line: int) -> np.ndarray:
    """best[k, q, y]: the best sum of k + 1 discs of sequence q, the first within the base's reach
    and each next one ``lo``..``hi`` after the last, the last at y (NEG where there is none)."""
    n_seq, length = s.shape
    lo, hi = _steps(config, diameter)
    first_lo = math.floor(diameter / 2 * (1 - config.overlap))
    first_hi = min(length, math.ceil(diameter / 2 + config.base_gap * diameter) + 1)
    best = np.full((max_line, n_seq, length), NEG)
    for q in range(n_seq):
        for y in range(first_lo, first_hi):
            best[0, q, y] = s[q, y]
        for k in range(1, max_line):
            for y in range(length):
                before = [best[k - 1, q, p] for p in range(max(0, y - hi), y - lo + 1)]
                if before and max(before) > NEG / 2:
                    best[k, q, y] = max(before) + s[q, y]
    return best


@pytest.mark.parametrize(("diameter", "length"), SHAPES)
def test_best_lines_follow_the_recurrence(diameter: float, length: int) -> None:
    rng = np.random.default_rng([3, int(diameter * 10), length])
    s = rng.normal(size=(4, length)) - 1.0
    config = CountConfig()
    assert np.array_equal(_lines(config, s, diameter, 12), _plain(config, s, diameter, 12))
