"""Stage 4 -- count: the number of checkers on each point, as a probability for every count.

Checkers on a point form a line from its base: disc after disc, each about one diameter after the
last. For each column the best line of ``n`` discs from the top edge and of ``m`` discs from the
bottom edge are found together by dynamic programming over the detector's log-odds (the two lines
may not overlap, which settles a long-nardy head that runs past its point's tip into the opposite
half). The scores of every ``(n, m)`` give, through a softmax, a probability for each count -- not a
single guess.

Checkers on a second layer (a pyramid on a long stack, or a head piled up) sit in the gaps of the
line below them; ``layer_counts`` weighs what the detector's features show in each gap (the
detector's second-layer head) against a prior over how many are piled.

The bar is read the same way, without the line constraint: any number of discs anywhere along it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from nardy.vision.config import CountConfig
from nardy.vision.detect import LayerHead
from nardy.vision.stats import clamp, median

F32 = NDArray[np.float32]
F64 = NDArray[np.float64]
NEG = -1e9


@dataclass(frozen=True)
class Line:
    """The most likely line of discs on one point and the probability of each line length."""

    probabilities: F64
    """(max_line + 1,) probability of 0, 1, ... discs in the line."""
    centres: tuple[tuple[float, float], ...]
    """Rectified (x, y) pixel centres of the discs of the most likely line, from the base."""
    scores: tuple[float, ...]
    """Detector log-odds at those centres."""
    full: Line | None = None
    """When the most likely line is shorter than a full one but a full line is not unlikely: the best
    full line (same probabilities; a pile may hide its line's far end)."""


def column_profiles(
    config: CountConfig, score: F32, column_x: NDArray[np.float64], point_px: float
) -> tuple[F32, NDArray[np.int32]]:
    """Best score along each column, allowing a sideways slip: ((C, h) float32, (C, h) x of it)."""
    h, w = score.shape
    slip = max(1, int(round(config.slip * point_px)))
    xs = clamp(np.rint(column_x).astype(int)[:, None] + np.arange(-slip, slip + 1)[None, :], 0, w - 1)
    vals = score[:, xs]  # (h, C, 2*slip+1)
    # prefer the centre line a little, so flat responses do not wander
    penalty = config.slip_penalty * (np.arange(-slip, slip + 1) / slip) ** 2
    vals = vals - penalty[None, None, :].astype(np.float32)
    arg = np.argmax(vals, axis=2)
    # the best value itself, and the x it is at: xs[c, arg[y, c]]
    at = xs[np.arange(len(xs))[:, None], arg.T]
    return np.ascontiguousarray(vals.max(axis=2).T), np.ascontiguousarray(at)


def column_cover(config: CountConfig, difference: F32, column_x: NDArray[np.float64], point_px: float) -> F32:
    """How covered each column looks, row by row: the difference from the empty board (capped at
    ``cover_cap``) averaged across the middle of the column ((C, h) float32, in units of the cap)."""
    h, w = difference.shape
    half = max(1, int(round(config.cover_width * point_px)))
    capped = np.minimum(difference, np.float32(config.cover_cap))
    smooth = cv2.boxFilter(capped, cv2.CV_32F, (2 * half + 1, 1))
    xs = clamp(np.rint(column_x).astype(int), 0, w - 1)
    return np.ascontiguousarray(smooth[:, xs].T * np.float32(1.0 / config.cover_cap))


def _steps(config: CountConfig, diameter: float) -> tuple[int, int]:
    """Least and most pixels from one disc's centre to the next in a line."""
    lo = max(1, int(np.floor(diameter * (1 - config.overlap))))
    return lo, max(lo, int(np.ceil(diameter * (1 + config.max_gap))))


def _lines(config: CountConfig, s: F64, diameter: float, max_line: int) -> F64:
    """Best line scores for sequences ``s`` (S, L) running from their base at index 0.

    Returns ``best`` (max_line, S, L): best total of k+1 discs whose last centre is at index y (the
    previous centre is found again by ``_trace``).
    """
    n_seq, length = s.shape
    lo, hi = _steps(config, diameter)
    best = np.full((max_line, n_seq, length), NEG)
    first_lo = int(np.floor(diameter / 2 * (1 - config.overlap)))
    first_hi = min(length, int(np.ceil(diameter / 2 + config.base_gap * diameter)) + 1)
    best[0, :, first_lo:first_hi] = s[:, first_lo:first_hi]
    # the best previous disc for a centre at y lies in y - hi .. y - lo: a running maximum over a
    # window of the previous level, shifted by ``hi`` (NEG before the start)
    padded = np.full((n_seq, hi + length), NEG)
    window = np.ones((1, hi - lo + 1), np.uint8)
    start = first_lo  # no line of k + 1 discs ends before index first_lo + k * lo: NEG there
    for k in range(1, max_line):
        start += lo
        if start >= length:
            break
        padded[:, hi:] = best[k - 1]
        cand = cv2.dilate(
            padded[:, start:], window, anchor=(0, 0), borderType=cv2.BORDER_CONSTANT, borderValue=NEG
        )
        cand = cand[:, : length - start]
        best[k, :, start:] = np.where(cand > NEG / 2, cand + s[:, start:], NEG)
    return best


def _running_max(a: F32) -> F32:
    """``a`` (..., L) float32, C-contiguous, made its running maximum along the last axis in place:
    a[..., e] = max(a[..., : e + 1]) (in log2(L) steps of OpenCV's elementwise maximum, much quicker
    than np.maximum.accumulate along short rows)."""
    rows = a.reshape(-1, a.shape[-1])
    step = 1
    while step < rows.shape[1]:
        rows[:, step:] = cv2.max(rows[:, step:], rows[:, :-step])
        step *= 2
    return a


def _trace(
    best: F64, seq: int, n: int, end_max: int, steps: tuple[int, int], reach: F64 | None = None
) -> list[int]:
    """Indices of the best line of ``n`` discs of sequence ``seq`` ending at or before ``end_max``
    (``reach`` (S, L): what ending at each index adds to a line's score)."""
    if n == 0:
        return []
    ends = best[n - 1, seq, : max(end_max + 1, 0)]
    if reach is not None:
        ends = ends + reach[seq, : len(ends)]
    if ends.size == 0:
        return []
    lo, hi = steps
    y = int(np.argmax(ends))
    out = [y]
    for k in range(n - 1, 0, -1):
        start = max(0, y - hi)
        window = best[k - 1, seq, start : max(start, y - lo + 1)]
        if window.size == 0:
            break
        y = start + len(window) - 1 - int(np.argmax(window[::-1]))  # the shortest step on ties
        out.append(y)
    return out[::-1]


def _line(p: F64, ys: list[int], full_ys: list[int], xs: list[int], scores: list[float]) -> Line:
    """The ``Line`` through the column's indices ``ys`` (and its full line through ``full_ys``)."""
    full = _line(p, full_ys, [], xs, scores) if full_ys else None
    return Line(p, tuple((float(xs[y]), float(y)) for y in ys), tuple(scores[y] for y in ys), full)


def count_lines(
    config: CountConfig,
    profiles: F32,
    slips: NDArray[np.int32],
    diameter: float,
    max_line: int,
    cover: F32 | None = None,
    full: int = 0,
    fixed: NDArray[np.intp] | None = None,
) -> tuple[list[Line], list[Line]]:
    """Lines on the top and the bottom points of every column.

    ``profiles`` (C, h): detector log-odds along each column (top edge at index 0); ``slips`` (C, h)
    the x of each value; ``cover`` (C, h) how covered each column looks (``column_cover``): a line is
    credited ``cover_gain`` per diameter of the column it spans, less ``cover_level``, so a line that
    stops short of what covers its point (a pile whose tops the detector hardly answers) or runs on
    over bare board pays for it. When ``full`` (the point's line capacity) is given, a line shorter
    than that which is full with probability ``full_floor`` or more also gets the centres of its best
    full line (``Line.full``). ``fixed`` (2, C), when given: the number of discs of the top and the
    bottom line of each column where it is known already (-1 where not), so the other line is the
    best one beside it. Returns (top lines, bottom lines), C each.
    """
    n_col, h = profiles.shape
    seqs = np.concatenate([profiles, profiles[:, ::-1]], axis=0).astype(np.float64) - config.disc_cost
    best = _lines(config, seqs, diameter, max_line)
    steps = _steps(config, diameter)
    reach: F64 | None = None
    ended = best
    if cover is not None and config.cover_gain > 0:
        # what a line spans, from its base to its last disc's far edge, and what that earns
        both = np.concatenate([cover, cover[:, ::-1]], axis=0).astype(np.float64)
        earned = np.cumsum((both - config.cover_level) * (config.cover_gain / diameter), axis=1)
        radius = min(h, int(round(diameter / 2)))
        reach = np.concatenate([earned[:, radius:], np.repeat(earned[:, -1:], radius, axis=1)], axis=1)
        ended = best + reach[None]
    # prefix maxima over where the line ends: A[k, s, e] = best line of k discs ending at or before e;
    # in single precision, where they are used (taking the start cost off and rounding keep the
    # order of numbers, so the maxima are the same either way round)
    prefix = _running_max((ended - config.start_cost).astype(np.float32))
    k1 = len(prefix) + 1  # index k of what follows: k discs
    gap = int(np.ceil(diameter))
    # bottom line ending at index e' (from the bottom) leaves the top line room up to h - 1 - gap - e'
    # joint[n, m, c] = max_e top[n, c, e] + bottom[m, c, h - 1 - gap - e]
    e = np.arange(h)
    partner = h - 1 - gap - e
    valid = partner >= 0
    # in single precision: the sum is the count stage's biggest array, and scores are small numbers
    top = np.zeros((k1, n_col, h), np.float32)
    top[1:] = prefix[:, :n_col]
    bottom_at = np.full((k1, n_col, h), NEG, np.float32)
    bottom_at[0] = 0.0  # no bottom line: the top may use the whole column
    bottom_at[1:, :, valid] = prefix[:, n_col:, partner[valid]]
    if fixed is not None:
        known = np.asarray(fixed).reshape(2, n_col)[:, None, :]
        other = (known >= 0) & (np.arange(k1)[:, None] != known)  # (2, K+1, C)
        top[other[0]] = NEG
        bottom_at[other[1]] = NEG
    joint = np.max(top[:, None, :, :] + bottom_at[None, :, :, :], axis=3).astype(np.float64)  # (K+1, K+1, C)
    joint = np.maximum(joint, NEG)
    z = joint / config.temperature
    z -= z.max(axis=(0, 1), keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=(0, 1), keepdims=True)
    tops: list[Line] = []
    bottoms: list[Line] = []
    best_n, best_m = np.divmod(np.argmax(joint.reshape(k1 * k1, n_col), axis=0), k1)
    p_top, p_bottom = p.sum(axis=1), p.sum(axis=0)  # (K+1, C) each
    # (as lists, once: the loop below reads a few numbers of each column)
    all_xs, all_scores = slips.tolist(), profiles.tolist()
    for c in range(n_col):
        n, m = int(best_n[c]), int(best_m[c])
        # where may the top line end given the bottom one?
        if m > 0:
            bottom_end = int(np.argmax(ended[m - 1, n_col + c]))
            top_limit = h - 1 - gap - bottom_end
        else:
            top_limit = h - 1
        ys_top = _trace(best, c, n, top_limit, steps, reach)
        if n > 0:
            top_end = ys_top[-1] if ys_top else 0
            bottom_limit = h - 1 - gap - top_end
        else:
            bottom_limit = h - 1
        ys_bot = [h - 1 - y for y in _trace(best, n_col + c, m, bottom_limit, steps, reach)]
        xs, scores = all_xs[c], all_scores[c]
        full_top: list[int] = []
        full_bot: list[int] = []
        if 0 < full <= len(prefix):
            if n < full and p_top[full:, c].sum() >= config.full_floor:
                full_top = _trace(best, c, full, top_limit, steps, reach)
            if m < full and p_bottom[full:, c].sum() >= config.full_floor:
                full_bot = [h - 1 - y for y in _trace(best, n_col + c, full, bottom_limit, steps, reach)]
        tops.append(_line(p_top[:, c].copy(), ys_top, full_top, xs, scores))
        bottoms.append(_line(p_bottom[:, c].copy(), ys_bot, full_bot, xs, scores))
    return tops, bottoms


def bar_discs(
    config: CountConfig, profile: F32, slips: NDArray[np.int32], diameter: float, limit: int
) -> tuple[list[tuple[float, float]], list[float]]:
    """Disc centres along the bar: local maxima of ``profile`` (h,) at least a diameter apart with
    positive log-odds, strongest first -> (centres, log-odds)."""
    h = profile.shape[0]
    order = np.argsort(-profile)
    taken: list[int] = []
    min_sep = diameter * (1 - config.overlap)
    profile = profile - config.bar_cost
    for y in order:
        if profile[y] <= config.bar_floor or len(taken) >= limit:
            break
        if all(abs(int(y) - t) >= min_sep for t in taken):
            taken.append(int(y))
    taken.sort()
    return [(float(slips[y]), float(y)) for y in taken], [float(profile[y]) for y in taken] if h else []


def count_distribution(log_odds: list[float], limit: int) -> F64:
    """Probability of each total (0..limit) for independent detections with these log-odds."""
    p = [1.0] + [0.0] * limit
    # a few numbers: plain floats are quicker than arrays here, and the arithmetic is the same
    for q in (1.0 / (1.0 + np.exp(-np.asarray(log_odds, dtype=np.float64)))).tolist():
        keep = 1 - q
        p = [p[0] * keep] + [a * keep + b * q for a, b in zip(p[1:], p[:-1], strict=True)]
    return np.array(p, dtype=np.float64)


def with_misses(p: F64, miss: float) -> F64:
    """P(n) of the checkers found (k,) -> P(n) of the checkers there (same length): each count of
    the found ones with ``m`` more missed, with probability (1 - ``miss``) ``miss``^m (``m`` >= 0),
    cut at the last count and renormalised. A product of detections (``count_distribution``) gives
    no probability at all to more checkers than there are candidates."""
    p = np.asarray(p, dtype=np.float64)
    if miss <= 0 or len(p) == 0:
        return p
    more = (1.0 - miss) * miss ** np.arange(len(p), dtype=np.float64)
    out = np.convolve(p, more)[: len(p)]
    total = float(out.sum())
    return np.asarray(out / total if total > 0 else p, dtype=np.float64)


def _middles(centres: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    """The middles of neighbouring ``centres``."""
    return [((x0 + x1) / 2, (y0 + y1) / 2) for (x0, y0), (x1, y1) in zip(centres, centres[1:], strict=False)]


def gap_features(
    maps: list[F32],
    score: F32,
    line: Line,
    diameter: float,
    middles: Sequence[tuple[float, float]] | None = None,
) -> F64:
    """What the gaps of ``line`` look like, one row per gap: the mean of each detector feature map in a
    window round the gap's middle, the line's typical checker log-odds, and the best log-odds in that
    window less it (a checker on top shows its own rim across the two below, hiding their seam).
    ``middles``: other places to look at the same way, instead of the line's gaps."""
    h, w = score.shape
    reach = max(1, int(round(0.3 * diameter)))
    typical = float(median(np.asarray(line.scores, dtype=np.float64))) if line.scores else 0.0
    places = _middles(line.centres) if middles is None else middles
    n_maps = len(maps)
    out = np.zeros((len(places), n_maps + 2))
    if not places:
        return out
    centre = np.array([(int(round(mx)), int(round(my))) for mx, my in places], dtype=np.intp).reshape(-1, 2)
    cx, cy = centre[:, 0], centre[:, 1]
    inner = (cx >= reach) & (cx + reach < w) & (cy >= reach) & (cy + reach < h)
    # the windows wholly inside the view, all at once (each map's window is averaged as a block of
    # its own, as one window alone would be)
    k = np.flatnonzero(inner)
    if len(k):
        span = np.arange(-reach, reach + 1)
        at = (cy[k, None, None] + span[None, :, None]) * w + (cx[k, None, None] + span[None, None, :])
        out[k, n_maps] = np.take(score, at).max(axis=(1, 2))
        if maps:
            windows = np.empty((len(k), n_maps, 2 * reach + 1, 2 * reach + 1), np.float32)
            for j, m in enumerate(maps):
                np.take(m, at, out=windows[:, j])
            out[k, :n_maps] = windows.mean(axis=(2, 3))
    # those cut by the view's edge, one at a time
    for i in np.flatnonzero(~inner):
        ys_cut = slice(max(0, int(cy[i]) - reach), min(h, int(cy[i]) + reach + 1))
        xs_cut = slice(max(0, int(cx[i]) - reach), min(w, int(cx[i]) + reach + 1))
        win = score[ys_cut, xs_cut]
        out[i, n_maps] = float(win.max()) if win.size else -10.0
        if maps and win.size:
            out[i, :n_maps] = np.stack([m[ys_cut, xs_cut] for m in maps]).mean(axis=(1, 2))
    out[:, n_maps + 1] = out[:, n_maps] - typical
    out[:, n_maps] = typical
    return out


def layer_counts(
    config: CountConfig,
    score: F32,
    line: Line,
    diameter: float,
    max_count: int,
    capacity: int,
    head: LayerHead | None = None,
    maps: list[F32] | None = None,
    upper: LayerHead | None = None,
) -> F64:
    """Probability of 0, 1, ... checkers on top of ``line`` (second and higher layers).

    Only a full line (``capacity`` or more) gets a layer on top. Each gap between two neighbours of the
    line may hold a checker; the detector's ``head`` over ``gap_features`` gives a likelihood ratio for
    it (without a head the gaps say nothing and the prior alone spreads the pile). Which gaps are
    taken is left open (every choice of ``k`` gaps alike), a prior over the number piled
    (``pile_prior``, ``pile_decay``) weighs the counts, and above a full second layer the ``upper`` head
    judges each higher layer the same way, over the middles of the neighbours of the layer under it
    (a pyramid's third layer lies over the line's inner discs); above the top of a pyramid -- where a
    camera cannot count -- the last layer's evidence holds for every larger count. Whatever the
    evidence, ``pile_doubt`` is kept spread over every larger count.
    """
    n = len(line.centres)
    if n < capacity or n < 2:
        return np.ones(1)
    limit = max(0, max_count - n)
    if limit == 0:
        return np.ones(1)
    if head is not None and maps is not None:
        ratio = head.log_ratio(gap_features(maps, score, line, diameter))
    else:  # no head fitted: the gaps say nothing, the prior alone spreads the pile
        ratio = np.zeros(n - 1)
    odds = config.layer_weight * ratio + config.layer_bias
    gaps = len(odds)
    # likelihood of k taken gaps, any k of them: the Poisson-binomial of the odds over C(gaps, k)
    binom = np.array([math.comb(gaps, i) for i in range(gaps + 1)], dtype=np.float64)
    lik = count_distribution([float(o) for o in odds], gaps) / binom
    counts = np.arange(limit + 1)
    likelihood = lik[np.minimum(counts, gaps)]
    prior = np.where(counts == 0, 1.0 - config.pile_prior, 0.0)
    tail = config.pile_decay ** (counts[1:] - 1.0)
    prior[1:] = config.pile_prior * tail / tail.sum()
    post = prior * likelihood
    # each layer above lies in the gaps of the one under it: over the middles of its neighbours (looked
    # at only when a full second layer is at all likely)
    layers: list[list[tuple[float, float]]] = []
    below, full = _middles(line.centres), gaps  # the second layer's places
    unlikely = post[gaps:].sum() < config.upper_floor * post.sum()
    while upper is not None and maps is not None and len(below) >= 2 and full < limit and not unlikely:
        layers.append(_middles(below))
        below, full = layers[-1], full + len(layers[-1])
    if layers and upper is not None and maps is not None:
        places = [p for layer in layers for p in layer]
        seen = config.upper_weight * upper.log_ratio(gap_features(maps, score, line, diameter, places))
        full = gaps
        for odds_up in np.split(seen, np.cumsum([len(layer) for layer in layers])[:-1]):
            n_up = len(odds_up)
            ways = np.array([math.comb(n_up, i) for i in range(n_up + 1)], dtype=np.float64)
            on_top = count_distribution([float(o) for o in odds_up], n_up) / ways
            # relative to an empty layer, which every count up to a full layer under it implies
            likelihood = likelihood * (on_top / on_top[0])[np.clip(counts - full, 0, n_up)]
            full += n_up
        post = prior * likelihood
    post /= post.sum()
    if config.pile_doubt > 0:
        unseen = np.zeros(limit + 1)
        unseen[1:] = 1.0 / limit
        post = (1 - config.pile_doubt) * post + config.pile_doubt * unseen
    return np.asarray(post, dtype=np.float64)
