"""Stage 5 -- colour: which of the two checker colours each stack is.

The two classes come from the frame itself: the colours of all stacks (and bar checkers) are split
in two along their main axis of variation (each group holding a fair share of the checkers, so a
stray detection cannot be a group of its own) -- or along one of the three Lab axes, when that
parts the two groups further in their own spreads (under a lamp the main axis is mostly lightness,
and a lit-up gold stack goes with the whites; the yellow axis keeps it gold); "light" is the paler
group -- the one nearer white, so a translucent white beats gold where the light evens out their
lightness, and red beats blue.
Only the points' stacks define the groups when there are enough of them; bar candidates are judged
against them. When calibration knows the two colours (``prototypes``) they are used instead. A frame
whose checkers make no two colours of their own (one side has borne all its checkers off) can be
read against the two a recognizer remembers from earlier still frames (``remembered``). Each
stack gets the probability that it is light, from its distances to the two groups relative to their
spread along each axis (uneven light spreads lightness much more than hue), with a little always
kept for the other colour. Which of the two groups found in the frame is *light* is itself only as
sure as their paleness differs (``label_confidence``): for a pair of saturated colours of about the
same lightness each stack keeps an honest share for the swapped reading.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from nardy.vision.config import ColourConfig
from nardy.vision.stats import median

F64 = NDArray[np.float64]


def _mean_rows(x: F64, weights: F64) -> F64:
    """``np.average(x, axis=0, weights=weights)`` of rows ``x`` (N, k) with ``weights`` (N,): the same
    arithmetic, without its overhead."""
    w = weights.reshape(-1, 1)
    total = w.sum(axis=0)
    if float(total[0]) == 0.0:
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    return np.asarray((x * w).sum(axis=0) / total, dtype=np.float64)


def _cut(x: F64, weights: F64, min_share: float) -> tuple[NDArray[np.bool_], bool]:
    """The best cut of values ``x`` (N,) with ``weights`` (N,) in two (least within-group sum of
    squares, from running sums): (the upper group, whether each group keeps at least ``min_share``
    of the weight -- when no cut can, the best cut of all)."""
    n = len(x)
    order = np.argsort(x)
    xs, ws = x[order], weights[order]
    cw, c1, c2 = np.cumsum(ws), np.cumsum(ws * xs), np.cumsum(ws * xs * xs)
    total = float(cw[-1])
    k = np.arange(n - 1)
    wl, wr = cw[k], total - cw[k]
    cost = (c2[k] - c1[k] ** 2 / wl) + ((c2[-1] - c2[k]) - (c1[-1] - c1[k]) ** 2 / np.maximum(wr, 1e-9))
    fair = (wl >= min_share * total) & (wr >= min_share * total)
    if fair.any():
        cost = np.where(fair, cost, np.inf)
    group = np.zeros(n, bool)
    group[order[int(np.argmin(cost)) + 1 :]] = True
    return group, bool(fair.any())


def _two_means(x: F64, weights: F64, min_share: float) -> tuple[F64, F64, NDArray[np.bool_]]:
    """Split rows of ``x`` (N, 3) with ``weights`` (N,) in two along their principal axis (the best 1-D
    cut, refined by 2-means in full colour); each group keeps at least ``min_share`` of the weight, so
    one stray stack cannot be a group of its own."""
    n = len(x)
    centre = _mean_rows(x, weights)
    if n < 2:
        return centre, centre, np.zeros(n, bool)
    _, _, vt = np.linalg.svd((x - centre) * np.sqrt(weights)[:, None], full_matrices=False)
    group, _ = _cut((x - centre) @ vt[0], weights, min_share)
    group, a, b, _ = _regroup(x, weights, group, min_share, 5)  # plain 2-means in full colour
    return a, b, group


def _spread(config: ColourConfig, x: F64, a: F64, b: F64, in_b: NDArray[np.bool_]) -> F64:
    """The spread of each axis (3,) within two groups of rows ``x`` (N, 3): ``b`` the mean of the rows
    ``in_b``, ``a`` of the others (uneven light spreads lightness, seldom hue)."""
    deviation = np.abs(x - np.where(in_b[:, None], b, a))
    return np.asarray(
        config.spread_scale
        * np.maximum(config.spread_floor / np.sqrt(3.0), 1.4826 * median(deviation, axis=0)),
        dtype=np.float64,
    )


def _nearer_second(x: F64, a: F64, b: F64, scale: F64 | float) -> NDArray[np.bool_]:
    """Which rows of ``x`` (N, 3) lie nearer ``b`` than ``a`` (3,), distances measured in ``scale``
    (a spread per axis, or 1.0 for plain distance)."""
    return np.asarray(np.sum(((x - b) / scale) ** 2, axis=1) < np.sum(((x - a) / scale) ** 2, axis=1))


def _regroup(
    x: F64,
    weights: F64,
    group: NDArray[np.bool_],
    min_share: float,
    rounds: int,
    spreads: ColourConfig | None = None,
) -> tuple[NDArray[np.bool_], F64, F64, F64 | float]:
    """``group`` (N,) of rows ``x`` (N, 3) with ``weights`` (N,) refined: each row moved to the group
    whose mean it is nearer -- in plain distance, or in the groups' own spreads (``_spread`` with
    ``spreads``) -- until none moves, ``rounds`` at most, as long as each group keeps ``min_share``
    of the weight. Returns the group, the means of the other rows and of it, and their spread (1.0
    for plain distance)."""

    def described(g: NDArray[np.bool_]) -> tuple[F64, F64, F64 | float]:
        a, b = _mean_rows(x[~g], weights[~g]), _mean_rows(x[g], weights[g])
        return a, b, 1.0 if spreads is None else _spread(spreads, x, a, b, g)

    total = float(weights.sum())
    a, b, scale = described(group)
    for _ in range(rounds):
        new = _nearer_second(x, a, b, scale)
        if (new == group).all() or min(
            float(weights[new].sum()), float(weights[~new].sum())
        ) < min_share * total:
            break
        group = new
        a, b, scale = described(group)
    return group, a, b, scale


def _axis_split(config: ColourConfig, x: F64, weights: F64, axis: int) -> tuple[F64, F64, F64] | None:
    """Rows ``x`` (N, 3) with ``weights`` (N,) split in two by a cut along one ``axis``, then each row
    moved to the group it is nearer in the groups' own spreads until none moves: (the two groups'
    means, the spread) -- or None when no cut leaves each group ``min_share`` of the weight."""
    group, fair = _cut(x[:, axis], weights, config.min_share)
    if not fair:
        return None
    _, a, b, spread = _regroup(x, weights, group, config.min_share, config.refine_rounds, config)
    return a, b, np.asarray(spread, dtype=np.float64)


def paleness(config: ColourConfig, lab: F64) -> F64:
    """How near white (..., 3) Lab colours (8-bit scaling) are: minus their distance from it. Far
    from white the lightness decides (red against blue), near it the chroma (ivory against gold)."""
    return -np.asarray(
        np.sqrt((255.0 - lab[..., 0]) ** 2 + (lab[..., 1] - 128.0) ** 2 + (lab[..., 2] - 128.0) ** 2)
    )


def colour_groups(
    config: ColourConfig,
    colours: F64,
    weights: F64,
    prototypes: tuple[F64, F64] | None = None,
    reference: NDArray[np.bool_] | None = None,
) -> tuple[F64, F64, F64] | None:
    """The two checker colours (light, dark; Lab scaled by the axis weights) and the spread of each
    axis within them, from ``colours`` (N, 3) of stacks weighing ``weights`` (N,) checkers -- or None
    when only one colour is seen. See ``light_probabilities``."""
    found = _split(config, colours, weights, prototypes, reference)
    if found is None or found[1] < config.min_separation:
        return None
    return found[0]


def _split(
    config: ColourConfig,
    colours: F64,
    weights: F64,
    prototypes: tuple[F64, F64] | None = None,
    reference: NDArray[np.bool_] | None = None,
) -> tuple[tuple[F64, F64, F64], float] | None:
    """``colour_groups``'s answer however close the two groups are, and how far apart they are
    (Lab units; inf for ``prototypes``); None when there are no colours."""
    n = len(colours)
    if n == 0:
        return None
    w = np.array([config.lightness_weight, 1.0, 1.0])
    x = colours * w
    ref = np.ones(n, bool) if reference is None else np.asarray(reference, bool)
    xr, wr = x[ref], np.maximum(np.asarray(weights, np.float64)[ref], 1e-3)
    separation = float("inf")
    if prototypes is not None:
        light, dark = prototypes[0] * w, prototypes[1] * w
    else:
        a, b, _ = _two_means(xr, wr, config.min_share)
        separation = float(np.linalg.norm(a - b))
        light, dark = (a, b) if paleness(config, a / w) > paleness(config, b / w) else (b, a)
    nearer = np.linalg.norm(xr - light, axis=1) < np.linalg.norm(xr - dark, axis=1)
    spread = _spread(config, xr, dark, light, nearer)
    if prototypes is None and len(xr) >= 2:
        # where the light is uneven, the principal axis is mostly lightness and can cut a lit-up
        # colour from its shaded stacks; a cut along one axis (the hue that tells gold from a
        # translucent white) may part the two much better in their own spreads -- of the splits
        # that leave neither colour more checkers than a side has, when any does
        apart = float(np.sum(((light - dark) / spread) ** 2))
        fits = _fits_sides(config, wr, nearer)
        for axis in range(3):
            found = _axis_split(config, xr, wr, axis)
            if found is None:
                continue
            a, b, sp = found
            parted = float(np.sum(((a - b) / sp) ** 2))
            fit = _fits_sides(config, wr, _nearer_second(xr, a, b, sp))
            if (fit and not fits) or (fit == fits and parted > apart):
                apart, fits = parted, fit
                b_light = bool(paleness(config, b / w) > paleness(config, a / w))
                light, dark = (b, a) if b_light else (a, b)
                spread, separation = sp, float(np.linalg.norm(a - b))
    return (light, dark, spread), separation


def _fits_sides(config: ColourConfig, weights: F64, group: NDArray[np.bool_]) -> bool:
    """Whether a split of stacks weighing ``weights`` (N,) checkers into ``group`` (N,) and the rest
    leaves neither more than a side's checkers (``side_checkers`` plus ``side_slack``)."""
    if config.side_checkers <= 0:
        return True
    most = config.side_checkers + config.side_slack
    return max(float(weights[group].sum()), float(weights[~group].sum())) <= most


def label_confidence(config: ColourConfig, groups: tuple[F64, F64, F64]) -> float:
    """Probability that the paler of the two colours found in the frame (``colour_groups``'s
    answer) is the light one: a logistic in the difference of their paleness (``label_scale``).
    Black and white, or ivory and red, differ by a hundred and more; two saturated colours of about
    the same lightness (red and blue under a colour cast) may come out either way."""
    w = np.array([config.lightness_weight, 1.0, 1.0])
    margin = float(paleness(config, groups[0] / w) - paleness(config, groups[1] / w))
    return float(1.0 / (1.0 + np.exp(-np.clip(margin / config.label_scale, -30.0, 30.0))))


def group_distance(config: ColourConfig, groups: tuple[F64, F64, F64], colours: F64) -> F64:
    """Distance of each of ``colours`` (N, 3) from the nearer checker colour, in within-group spreads."""
    light, dark, spread = groups
    x = colours * np.array([config.lightness_weight, 1.0, 1.0])
    dl = np.sqrt(np.sum(((x - light) / spread) ** 2, axis=1))
    dd = np.sqrt(np.sum(((x - dark) / spread) ** 2, axis=1))
    return np.asarray(np.minimum(dl, dd), dtype=np.float64)


def agrees(config: ColourConfig, memory: tuple[F64, F64, F64], groups: tuple[F64, F64, F64]) -> bool:
    """Whether a frame's two colours ``groups`` are the two remembered (``memory``; both in
    ``colour_groups``'s form): each within ``agree_share`` of the remembered two's distance apart
    from its own remembered colour. Two groups that are both one remembered colour (a side's
    checkers split in lit and shaded, with the other side's all borne off), or the two swapped,
    do not agree."""
    reach = config.agree_share * float(np.linalg.norm(memory[0] - memory[1]))
    return bool(
        np.linalg.norm(groups[0] - memory[0]) < reach and np.linalg.norm(groups[1] - memory[1]) < reach
    )


def each_holds(config: ColourConfig, groups: tuple[F64, F64, F64], colours: F64, weights: F64) -> bool:
    """Whether each of the two colours ``groups`` (``colour_groups``'s answer) is the nearer of the
    two to stacks holding ``remember_checkers`` checkers or more in all, of the stacks of colours
    ``colours`` (N, 3) weighing ``weights`` (N,) checkers."""
    light, dark, spread = groups
    x = colours * np.array([config.lightness_weight, 1.0, 1.0])
    nearer = _nearer_second(x, dark, light, spread)
    w = np.asarray(weights, np.float64)
    return min(float(w[nearer].sum()), float(w[~nearer].sum())) >= config.remember_checkers


def remembered(
    config: ColourConfig,
    memory: tuple[F64, F64, F64] | None,
    groups: tuple[F64, F64, F64],
    colours: F64,
    weights: F64,
) -> tuple[F64, F64, F64] | None:
    """The colour memory after a still frame whose two colours are ``groups`` (``colour_groups``'s
    answer), found from ``colours`` (N, 3) of stacks weighing ``weights`` (N,) checkers: the frame's
    colours blended in (``remember_rate``) when each holds ``remember_checkers`` or more, the
    light one is told at ``remember_confidence`` (by default any: the memory's own paleness keeps
    the doubt) and the two agree with the memory (``agrees``) -- or, with nothing
    remembered yet, when the frame holds ``remember_first`` checkers or more; else ``memory`` as
    it was."""
    if config.remember_checkers <= 0 or len(colours) == 0:
        return memory
    if label_confidence(config, groups) < config.remember_confidence:
        return memory
    if not each_holds(config, groups, colours, weights):
        return memory
    light, dark, spread = groups
    if memory is None:
        # the first two must be both sides': a frame of more checkers than one side has
        if float(np.sum(weights)) < config.remember_first:
            return None
        return (light.copy(), dark.copy(), spread.copy())
    # each colour must be the one remembered: a frame with a side's last few checkers splits the
    # other side's in two (lit and shaded), and that must not become the memory
    if not agrees(config, memory, groups):
        return memory
    r = config.remember_rate
    return (
        (1 - r) * memory[0] + r * light,
        (1 - r) * memory[1] + r * dark,
        (1 - r) * memory[2] + r * spread,
    )


def light_probabilities(
    config: ColourConfig,
    colours: F64,
    weights: F64,
    prototypes: tuple[F64, F64] | None = None,
    reference: NDArray[np.bool_] | None = None,
    groups: tuple[F64, F64, F64] | None = None,
) -> F64:
    """P(light) for each of ``colours`` (N, 3) Lab (8-bit scaling) of stacks; ``weights`` (N,) how many
    checkers each stands for. ``prototypes`` are (light, dark) Lab colours if known; otherwise the two
    groups are found among the ``reference`` rows (all if None) and the others judged against them --
    or taken from ``groups`` (``colour_groups``'s answer) when already known."""
    n = len(colours)
    if n == 0:
        return np.zeros(0)
    split = None
    if groups is None:
        split = _split(config, colours, weights, prototypes, reference)
        if split is not None and split[1] >= config.min_separation:
            groups = split[0]
    if groups is None:
        # one colour only: call it by its paleness against mid-grey's ...
        ref = np.ones(n, bool) if reference is None else np.asarray(reference, bool)
        wr = np.maximum(np.asarray(weights, np.float64)[ref], 1e-3)
        pale = float(np.average(paleness(config, colours[ref]), weights=wr))
        grey = float(paleness(config, np.full(3, 128.0)))
        one = np.full(n, 1.0 / (1.0 + np.exp(-(pale - grey) / 12.0)))
        # ... unless two close colours are all there is (two pale sets under a strong light):
        # the split they make keeps a share that fades as the groups come closer
        if split is None or config.separation_scale <= 0:
            return one
        share = float(np.exp(-max(config.min_separation - split[1], 0.0) / config.separation_scale))
        return share * _by_groups(config, colours, split[0], prototypes) + (1.0 - share) * one
    return _by_groups(config, colours, groups, prototypes)


def _by_groups(
    config: ColourConfig, colours: F64, groups: tuple[F64, F64, F64], prototypes: tuple[F64, F64] | None
) -> F64:
    """P(light) of ``colours`` (N, 3) from their distances to the two ``groups``."""
    light, dark, spread = groups
    x = colours * np.array([config.lightness_weight, 1.0, 1.0])
    z = np.sum(((x - dark) ** 2 - (x - light) ** 2) / (2 * spread**2), axis=1)
    p = 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))
    if prototypes is None:
        # which group is the light one is only as sure as their paleness differs
        sure = label_confidence(config, groups)
        p = sure * p + (1.0 - sure) * (1.0 - p)
    # whatever the distances say, keep a little for the other colour (glare, a mis-placed disc)
    return np.asarray(config.doubt + (1 - 2 * config.doubt) * p, dtype=np.float64)
