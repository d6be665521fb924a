"""Stage 5 -- colour: which of the two checker colours each stack is.

The two classes come from the frame itself: the colours of all stacks (and bar checkers) are split
in two along their main axis of variation; "light" is the group with the higher lightness. When
calibration knows the two colours (``prototypes``) they are used instead. Each stack gets the
probability that it is light, from its distances to the two groups relative to their spread.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from nardy.vision.config import ColourConfig

F64 = NDArray[np.float64]


def _two_means(x: F64) -> tuple[F64, F64, NDArray[np.bool_]]:
    """Split rows of ``x`` (N, 3) into two groups along the principal axis (best 1-D split)."""
    centre = x.mean(axis=0)
    if len(x) < 2:
        return centre, centre, np.zeros(len(x), bool)
    _, _, vt = np.linalg.svd(x - centre, full_matrices=False)
    proj = (x - centre) @ vt[0]
    order = np.argsort(proj)
    xs = proj[order]
    # within-group sum of squares for every cut, from running sums
    n = len(xs)
    k = np.arange(1, n)
    c1, c2 = np.cumsum(xs), np.cumsum(xs * xs)
    left = c2[k - 1] - c1[k - 1] ** 2 / k
    right = (c2[-1] - c2[k - 1]) - (c1[-1] - c1[k - 1]) ** 2 / (n - k)
    cut = int(k[np.argmin(left + right)])
    group = np.zeros(len(x), bool)
    group[order[cut:]] = True
    for _ in range(5):  # refine with plain 2-means in full colour
        if group.all() or not group.any():
            break
        ca, cb = x[~group].mean(axis=0), x[group].mean(axis=0)
        group = np.linalg.norm(x - cb, axis=1) < np.linalg.norm(x - ca, axis=1)
    if group.all() or not group.any():
        return centre, centre, group
    return x[~group].mean(axis=0), x[group].mean(axis=0), group


def light_probabilities(
    config: ColourConfig, colours: F64, weights: F64, prototypes: tuple[F64, F64] | None = None
) -> F64:
    """P(light) for each of ``colours`` (N, 3) Lab (8-bit scaling) of stacks; ``weights`` (N,) how many
    checkers each stands for. ``prototypes`` are (light, dark) Lab colours if known."""
    n = len(colours)
    if n == 0:
        return np.zeros(0)
    w = np.array([config.lightness_weight, 1.0, 1.0])
    x = colours * w
    if prototypes is not None:
        light, dark = prototypes[0] * w, prototypes[1] * w
        spread = config.spread_floor * 2
    else:
        expanded = np.repeat(x, np.maximum(1, np.round(weights).astype(int)), axis=0)
        a, b, _ = _two_means(expanded) if n > 1 else (x[0], x[0], np.zeros(1, bool))
        if np.linalg.norm(a - b) < config.min_separation:
            # one colour only: call it by its lightness against mid-grey
            lum = float(np.average(colours[:, 0], weights=np.maximum(weights, 1e-6)))
            p = 1.0 / (1.0 + np.exp(-(lum - 128.0) / 12.0))
            return np.full(n, p)
        light, dark = (a, b) if a[0] > b[0] else (b, a)
        spread = max(
            config.spread_floor,
            float(np.median(np.minimum(np.linalg.norm(x - light, axis=1), np.linalg.norm(x - dark, axis=1))))
            * 1.5,
        )
    dl = np.linalg.norm(x - light, axis=1)
    dd = np.linalg.norm(x - dark, axis=1)
    z = np.clip((dd**2 - dl**2) / (2 * spread**2), -30, 30)
    return np.asarray(1.0 / (1.0 + np.exp(-z)), dtype=np.float64)
