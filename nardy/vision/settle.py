"""Stage 6 -- settle: is anything over the board that is not a resting checker, and where?

Whatever the counted checkers do not explain is examined. A large connected patch that differs
from the empty board (a hand, an arm, a sleeve) or a checker-like disc away from every line (a
checker being moved) makes the frame *not settled*; dice and the doubling cube are smaller than
either and are ignored, and so is a lamp's reflection (``is_glare``: the board's own look made
lighter and paler, fading out rather than ending at an edge).

Where: a hand is found by its clear part (the skin, a sleeve unlike the board), but an arm often
crosses parts of the board it hardly differs from, and a counted "checker" that looks like neither
checker colour (the recognizer leaves those out of ``discs``) explains nothing. So from a patch
large enough to be surely a hand (``grow_area``) the search reaches on through weaker differences
(``reach``, on a smoothed difference) and across the narrow gaps the counted checkers leave, and
every point, the bar and the tray that enough of it lies on is named.

In a stream of frames, what changed since the frame before (``moved_places``) is not settled
either: a hand over a board of nearly its own colour still moves.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import cv2
import numpy as np
from numpy.typing import NDArray

from nardy.vision.config import SettleConfig
from nardy.vision.evidence import WHITE, Evidence
from nardy.vision.geometry import POINTS_PER_ROW, ROWS, BoardGeometry
from nardy.vision.masks import BAR_PLACE, EDGE, OUTSIDE, BoardMasks
from nardy.vision.stats import median

F32 = NDArray[np.float32]
U8 = NDArray[np.uint8]


@dataclass(frozen=True)
class Unsettled:
    """What the settle stage found."""

    places: tuple[str, ...]
    """Places that are not settled: ``top[i]``, ``bottom[i]``, ``bar``, ``off``, ``board`` (empty when
    the board is settled)."""
    surely: tuple[str, ...]
    """The same when something found is large enough to be surely a hand or an arm (``grow_area``),
    else none."""
    found: NDArray[np.bool_]
    """(h, w) the pixels found to be something else."""
    glare: tuple[str, ...] = ()
    """Places a lamp's reflection lies on: settled, but what is read there may be washed out."""


def place_name(index: int) -> str:
    """Name of a place index of ``BoardMasks.place``: ``top[i]``, ``bottom[i]``, ``bar``."""
    if index == BAR_PLACE:
        return "bar"
    return f"top[{index}]" if index < POINTS_PER_ROW else f"bottom[{index - POINTS_PER_ROW}]"


def _place(masks: BoardMasks, x: float, y: float) -> str:
    """Name of the place at rectified pixel (x, y): ``top[i]``, ``bottom[i]``, ``bar``."""
    h, w = masks.place.shape
    k = int(masks.place[min(max(int(y), 0), h - 1), min(max(int(x), 0), w - 1)])
    if k >= 0:
        return place_name(k)
    i = int(np.argmin(np.abs(masks.column_x - x)))
    return place_name(i if y < h / 2 else POINTS_PER_ROW + i)


def _named(place: NDArray[np.integer], found: NDArray[np.bool_], least: float) -> tuple[str, ...]:
    """The places (``top[i]``, ``bottom[i]``, ``bar``) at least ``least`` pixels of ``found`` lie on;
    ``place`` is ``BoardMasks.place`` (or a subsampling of it, of ``found``'s shape)."""
    counts = np.bincount(place[found].astype(np.intp) + 1, minlength=BAR_PLACE + 2)[1:]
    return tuple(place_name(int(i)) for i in np.flatnonzero(counts >= least))


def _disc(size: float) -> U8:
    n = max(1, int(round(size))) | 1
    return np.asarray(cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (n, n)), dtype=np.uint8)


@lru_cache(maxsize=8)
def _disc_rectangles(size: float) -> tuple[U8, ...]:
    """``_disc(size)`` as a union of rectangles centred on it, each an all-ones (height, width)
    kernel: for each width a row of it has, a rectangle that wide and as tall as the rows at least
    that wide (the disc's rows are centred, the same above and below its middle row, and widen
    towards it). Kept per size: the settle stage asks for the same disc on every frame."""
    disc = _disc(size)
    c = disc.shape[0] // 2
    tallest: dict[int, int] = {}
    for dy in range(c + 1):
        xs = np.flatnonzero(disc[c - dy])
        if xs.size:
            half = c - int(xs[0])
            tallest[half] = max(tallest.get(half, 0), dy)
    kernels = tuple(np.ones((2 * dy + 1, 2 * half + 1), np.uint8) for half, dy in sorted(tallest.items()))
    for kernel in kernels:
        kernel.flags.writeable = False  # shared by every caller through the cache
    return kernels


def closed_by_disc(mask: U8, size: float) -> U8:
    """``cv2.morphologyEx(mask, cv2.MORPH_CLOSE, _disc(size))`` of a (h, w) uint8 mask, the same
    pixels, in about two thirds of the time: a dilation by a union of shapes is the largest of the
    dilations by each, an erosion the least of the erosions, and OpenCV dilates and erodes by a
    rectangle far faster than by a disc of its size."""
    boxes = _disc_rectangles(size)
    grown = np.asarray(cv2.dilate(mask, boxes[0]), np.uint8)
    for box in boxes[1:]:
        np.maximum(grown, cv2.dilate(mask, box), out=grown)
    closed = np.asarray(cv2.erode(grown, boxes[0]), np.uint8)
    for box in boxes[1:]:
        np.minimum(closed, cv2.erode(grown, box), out=closed)
    return closed


def _whiter(
    config: SettleConfig, ev: Evidence, region: NDArray[np.int8], lab: F32, lift: F32
) -> NDArray[np.bool_]:
    """(n,) whether each of n board pixels (``region`` (n,), ``lab`` (n, 3), ``lift`` (n,): its
    lightness above what the board's fitted light expects) shows its region's look made lighter
    and paler, as a lamp's reflection makes it."""
    # paler: the colour's chroma shrinks along its own hue towards grey
    look_a = ev.looks[region, 1] - 128.0
    look_b = ev.looks[region, 2] - 128.0
    seen_a = lab[:, 1] - 128.0
    seen_b = lab[:, 2] - 128.0
    k = (seen_a * look_a + seen_b * look_b) / np.maximum(look_a * look_a + look_b * look_b, 1.0)
    off_hue = np.hypot(seen_a - k * look_a, seen_b - k * look_b)
    return np.asarray(
        (lift >= config.glare_lift)
        & (((off_hue <= config.glare_hue) & (k <= config.glare_chroma)) | (lab[:, 0] >= config.glare_white)),
        dtype=np.bool_,
    )


def under_reflection(
    config: SettleConfig,
    masks: BoardMasks,
    ev: Evidence,
    stack: Sequence[tuple[float, float]],
    discs: Sequence[tuple[float, float]],
    radius: float,
) -> bool:
    """Whether the stack with rectified disc centres ``stack`` lies in a lamp's reflection: the
    bare board round it (``glare_ring`` point widths and a checker's radius beyond its discs, off
    every counted disc of ``discs``) shows its own look made lighter almost everywhere
    (``glare_share``): paler along its own hue, or with a channel clipped and the others raised
    alike. A stack there may look unlike both checker colours -- a dark checker made
    light, a light one made whiter -- and is not a hand for it; a hand round a stack is not the
    board's look."""
    h, w = masks.region.shape
    point_px = float(masks.column_x[1] - masks.column_x[0])
    c = np.asarray(stack, dtype=np.float64).reshape(-1, 2)
    reach = radius * 2.0 + config.glare_ring * point_px
    x0, x1 = max(int(c[:, 0].min() - reach), 0), min(int(c[:, 0].max() + reach) + 1, w)
    y0, y1 = max(int(c[:, 1].min() - reach), 0), min(int(c[:, 1].max() + reach) + 1, h)
    if x1 <= x0 or y1 <= y0:
        return False
    covered = np.zeros((y1 - y0, x1 - x0), np.uint8)
    for x, y in discs:
        cv2.circle(covered, (int(round(x)) - x0, int(round(y)) - y0), int(round(radius * 1.25)), 1, -1)
    region = masks.region[y0:y1, x0:x1]
    ring = (covered == 0) & (region != EDGE) & (region != OUTSIDE)
    if int(ring.sum()) < config.place_area * point_px**2:
        return False
    lab = ev.lab[y0:y1, x0:x1][ring]
    # lighter than the look under the fitted light, or than the look itself where the fit is
    # brighter than average (the fit is smooth; a lamp's hot spot rises past it, often to white)
    look = ev.looks[region[ring], 0]
    lift = lab[:, 0] - np.minimum(ev.expected_lightness(region[ring], ev.gain[y0:y1, x0:x1][ring]), look)
    whiter = _whiter(config, ev, region[ring], lab, lift)
    # a channel driven to the camera's top clips, and a bright colour's hue turns (orange to yellow);
    # the channels that do not clip are still the look's own, each raised by the same factor
    seen = _bgr(lab)
    own = _bgr(ev.looks)[region[ring]]
    clipped = seen >= config.glare_clip
    ratio = seen / np.maximum(own, 1.0)
    top = np.where(clipped, 0.0, ratio).max(axis=1)
    low = np.where(clipped, np.inf, ratio).min(axis=1)
    alike = np.where(clipped.all(axis=1), True, (low >= 1.0) & (top <= low * (1.0 + config.glare_ratio)))
    whiter |= clipped.any(axis=1) & alike & (lift >= config.glare_lift)
    return float(whiter.mean()) >= config.glare_share


def _bgr(lab: F32) -> NDArray[np.float64]:
    """(n, 3) 8-bit BGR of (n, 3) OpenCV Lab colours."""
    pixels = np.clip(np.rint(lab), 0, 255).astype(np.uint8).reshape(-1, 1, 3)
    return np.asarray(cv2.cvtColor(pixels, cv2.COLOR_Lab2BGR).reshape(-1, 3), dtype=np.float64)


def is_glare(
    config: SettleConfig,
    masks: BoardMasks,
    ev: Evidence,
    patch: NDArray[np.bool_],
    free: U8,
    point_px: float,
) -> bool:
    """Whether ``patch`` ((h, w) bool, one connected patch of something else) is a lamp's
    reflection rather than a hand or a sleeve: the board's own look made lighter and paler over
    most of it, fading out beyond its rim rather than ending there. ``free`` (h, w) marks the
    pixels no counted checker explains."""
    h, w = patch.shape
    difference = ev.settle_difference
    r = max(2, int(round(config.glare_ring * point_px)))
    ys, xs = np.nonzero(patch)
    y0, y1 = max(int(ys.min()) - r - 1, 0), min(int(ys.max()) + r + 2, h)
    x0, x1 = max(int(xs.min()) - r - 1, 0), min(int(xs.max()) + r + 2, w)
    box = np.asarray(patch[y0:y1, x0:x1], dtype=np.uint8)
    region = masks.region[y0:y1, x0:x1]
    plain = (region != EDGE) & (region != OUTSIDE)  # a point's outline may show either look
    lab = ev.lab[y0:y1, x0:x1]
    expected = ev.expected_lightness(region, ev.gain[y0:y1, x0:x1])
    lift = lab[:, :, 0] - expected
    inside = (box > 0) & plain
    if not inside.any():
        return False
    whiter = _whiter(config, ev, region[inside], lab[inside], lift[inside])
    if float(whiter.mean()) < config.glare_share:
        return False
    kernel = np.ones((2 * r + 1, 2 * r + 1), np.uint8)
    beyond = (cv2.dilate(box, kernel) > 0) & (box == 0) & plain & (free[y0:y1, x0:x1] > 0)
    # a white point the fitted light already takes to white, seen white, cannot show a lift: it
    # tells neither way (a reflection fading out across white points left too few lighter pixels)
    beyond &= ~((expected >= WHITE - config.glare_lift) & (lab[:, :, 0] >= config.glare_white))
    if not beyond.any():
        return False
    if float((lift[beyond] > config.glare_lift).mean()) < config.glare_tail:
        return False
    near = difference[y0:y1, x0:x1][beyond]
    return float(median(near)) >= config.glare_soft * config.unexplained


def unsettled_places(
    config: SettleConfig,
    masks: BoardMasks,
    difference: F32,
    score: F32,
    discs: list[tuple[float, float]],
    radius: float,
    piles: Sequence[tuple[tuple[float, float], tuple[float, float]]] = (),
    tray_side: Literal["left", "right"] | None = None,
    ev: Evidence | None = None,
) -> Unsettled:
    """Places where something other than a resting checker is (none when the board is settled).

    ``difference`` and ``score`` are (h, w) float32 (evidence and detector log-odds), ``discs`` the
    rectified centres of the checkers counted that look like checkers, ``radius`` their radius in
    pixels, ``piles`` the first and last centre of every line that may carry a second layer,
    ``tray_side`` the side of the playing area the tray is on (named ``off`` when a hand reaches
    across that edge), ``ev`` the evidence ``difference`` came from (with it, glare is told from a
    hand: ``is_glare``).
    """
    h, w = difference.shape
    explained = np.zeros((h, w), np.uint8)
    for x, y in discs:
        cv2.circle(explained, (int(round(x)), int(round(y))), int(round(radius * 1.25)), 1, -1)
    # a full line may carry a pile: its whole length is taken as explained
    for (x0, y0), (x1, y1) in piles:
        cv2.line(
            explained,
            (int(round(x0)), int(round(y0))),
            (int(round(x1)), int(round(y1))),
            1,
            int(round(radius * 2.5)),
        )
    point_px = float(masks.column_x[1] - masks.column_x[0])
    # the strip along the playing area's edge shows the frame's bevel and shadow from oblique views
    margin = int(round(config.edge_margin * point_px))
    x0, x1 = masks.area_x
    inner = np.zeros((h, w), np.uint8)
    inner[margin : h - margin, x0 + margin : x1 - margin] = 1
    free = inner & (explained == 0)
    other = (difference > config.unexplained).astype(np.uint8) & free
    other = cv2.morphologyEx(other, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    point_area = point_px**2
    places: list[str] = []
    glare: tuple[str, ...] = ()
    grown = np.zeros((h, w), bool)
    surely: list[str] = []
    big: list[int] = []
    if cv2.countNonZero(other) > config.blob_area * point_area:  # else no patch can be large enough
        # the patches and their areas (counting the labels is much quicker than OpenCV's statistics)
        n, labels = cv2.connectedComponents(other, connectivity=8)
        area = np.bincount(labels.reshape(-1), minlength=n)
        big = [k for k in range(1, n) if area[k] > config.blob_area * point_area]
        if ev is not None:
            shines = [k for k in big if is_glare(config, masks, ev, labels == k, free, point_px)]
            if shines:
                big = [k for k in big if k not in shines]
                glare = _named(masks.place, np.isin(labels, shines), config.place_area * point_area)
    if big:
        seeds = np.isin(labels, big).astype(np.uint8)
        grown = seeds > 0
        grow = [k for k in big if area[k] > config.grow_area * point_area]
        if grow:  # surely a hand: follow it on through weaker differences
            k = max(3, int(round(config.reach_blur * point_px)) | 1)
            smooth = cv2.blur(difference, (k, k))
            near = ((smooth > config.reach).astype(np.uint8) & free) | seeds
            near = np.asarray(cv2.morphologyEx(near, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)), np.uint8)
            near |= seeds
            # join the pieces the counted checkers (and small gaps) cut a hand or an arm into
            joined = closed_by_disc(near, config.bridge * point_px)
            _, parts = cv2.connectedComponents(joined, connectivity=8)
            keep = np.unique(parts[np.isin(labels, grow)])
            grown |= np.isin(parts, keep[keep > 0]) & (near > 0)
        places.extend(_named(masks.place, grown, config.place_area * point_area))
        if tray_side is not None and grow:  # only a sure hand: a small patch there is the frame's bevel
            edge = (
                grown[:, x1 - margin - 2 : x1 - margin]
                if tray_side == "right"
                else grown[:, x0 + margin : x0 + margin + 2]
            )
            if edge.any(axis=1).sum() >= config.tray_reach * point_px:
                places.append("off")
        if not places:
            places.append("board")
        if grow:  # a hand is surely there: so is whatever else was found with it
            surely = list(places)
    # a checker-like disc that no line explains: a checker in motion
    loose = (score > config.loose_score) & (explained == 0)
    loose[:, :x0] = False
    loose[:, x1:] = False
    if loose.any():
        ys, xs = np.nonzero(loose)
        j = int(np.argmax(score[ys, xs]))
        places.append(_place(masks, float(xs[j]), float(ys[j])))
    return Unsettled(tuple(dict.fromkeys(places)), tuple(surely), grown, glare)


_DECILES = np.arange(0.1, 0.95, 0.1)


def _deciles(image: U8) -> NDArray[np.float64]:
    """(3, 9) the nine deciles of each channel of a uint8 image (from its histograms)."""
    hist = np.stack([cv2.calcHist([image], [c], None, [256], [0, 256]).reshape(-1) for c in range(3)])
    cdf = np.cumsum(hist, axis=1, dtype=np.float64)
    cdf = cdf / np.maximum(cdf[:, -1:], 1.0)
    return np.asarray((cdf[:, :, None] < _DECILES).sum(axis=1), np.float64)


def _exposure_fit(q_now: NDArray[np.float64], q_before: NDArray[np.float64]) -> NDArray[np.float32]:
    """(3, 4) the affine map taking the colours of a frame whose deciles are ``q_before`` to the
    light of one whose deciles are ``q_now`` ((3, 9) each), a gain and an offset per channel: the
    line through the two frames' deciles. A hand moving over the board changes where colours are,
    hardly how many of each there are; the camera's exposure moves every decile."""
    d_now = q_now - q_now.mean(axis=1, keepdims=True)
    d_before = q_before - q_before.mean(axis=1, keepdims=True)
    spread = (d_before * d_before).mean(axis=1)
    flat = spread < 1.0  # one colour all over: only an offset tells
    gain = np.where(flat, 1.0, (d_before * d_now).mean(axis=1) / np.maximum(spread, 1.0))
    offset = np.where(
        flat, median(q_now - q_before, axis=1), q_now.mean(axis=1) - gain * q_before.mean(axis=1)
    )
    affine = np.zeros((3, 4), np.float32)
    affine[[0, 1, 2], [0, 1, 2]] = gain
    affine[:, 3] = offset
    return affine


@dataclass(frozen=True)
class MotionFrame:
    """A rectified view as the motion watch compares it (``motion_frame``), kept for the next."""

    small: U8
    """(h // 2, w // 2, 3) uint8 BGR: the view at half resolution (each pixel the mean of four: a
    quarter of the work, half the noise)."""
    deciles: NDArray[np.float64]
    """(3, 9) the deciles of each channel of ``small``."""


def motion_frame(rectified: U8) -> MotionFrame:
    """rectified (h, w, 3) uint8 BGR -> what ``moved_places`` compares."""
    h, w = rectified.shape[0] // 2, rectified.shape[1] // 2
    small = np.asarray(cv2.resize(rectified, (w, h), interpolation=cv2.INTER_AREA), np.uint8)
    return MotionFrame(small, _deciles(small))


def moved_places(
    config: SettleConfig, masks: BoardMasks, now: MotionFrame, before: MotionFrame, point_px: float
) -> tuple[str, ...]:
    """The places (``top[i]``, ``bottom[i]``, ``bar``) where the view changed since the frame before.

    ``now`` and ``before``: two frames in a row, rectified alike (``motion_frame``). A hand over a
    board of nearly its own colour hardly differs from the board, but it moves. The light changing
    as a whole (a camera's exposure and white balance) is taken out first, each channel fitted as a
    gain and an offset on the frame before's (clipped values compared as clipped); then a pixel
    has moved when its change is ``motion_spreads`` of the view's own frame-to-frame noise (1.4826
    median changes) and at least ``motion_floor``, in a patch of at least ``motion_area``: sensor
    noise, JPEG blocks and a die thrown are smaller.
    """
    if now.small.shape != before.small.shape:
        raise ValueError(f"views of two shapes: {now.small.shape} and {before.small.shape}")
    h, w = now.small.shape[:2]
    # the frame before as this one's light would show it: each channel's gain and offset
    affine = _exposure_fit(now.deciles, before.deciles)
    lo, hi = config.motion_clip
    expected = cv2.transform(before.small.astype(np.float32), affine)
    np.clip(expected, lo, hi, out=expected)
    seen = now.small.astype(np.float32)
    change = cv2.subtract(np.clip(seen, lo, hi, out=seen), expected)
    squared = np.asarray(cv2.transform(cv2.multiply(change, change), np.ones((1, 3), np.float32)), np.float32)
    np.sqrt(squared, out=squared)  # (numpy's root: OpenCV's is now and then a bit off, by memory layout)
    size = cv2.blur(squared, (3, 3))
    every = (slice(None, None, 2), slice(None, None, 2))
    spread = 1.4826 * float(median(np.asarray(size[every], dtype=np.float32)))
    moved = (size > max(config.motion_floor, config.motion_spreads * spread)).astype(np.uint8)
    area_px = (point_px / 2) ** 2  # a point width squared, in half-resolution pixels (a patch of
    # ``motion_area`` is still 200 of them)
    least = config.motion_area * area_px
    if cv2.countNonZero(moved) < least:
        return ()
    moved = np.asarray(cv2.morphologyEx(moved, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)), np.uint8)
    n, labels = cv2.connectedComponents(moved, connectivity=8)
    area = np.bincount(labels.reshape(-1), minlength=n)
    big = [k for k in range(1, n) if area[k] >= least]
    if not big:
        return ()
    place = masks.place[: 2 * h : 2, : 2 * w : 2]  # the half-resolution view's places
    return _named(place, np.isin(labels, big), config.place_area * area_px)


@dataclass(frozen=True)
class FrameSide:
    """Where one side's frame is sampled in a camera's frames (``frame_sides``)."""

    side: str
    """``top``, ``bottom``, ``left`` or ``right``."""
    map_x: NDArray[np.float32]
    """(rows * m, 1) image x of the samples, row after row (``frame_depths``)."""
    map_y: NDArray[np.float32]
    """(rows * m, 1) image y of the same."""
    basis: NDArray[np.float64]
    """(m, 3) 1, s, s^2 of each sample's place s in (0, 1) along the side."""
    fit: NDArray[np.float64]
    """(3, m) the least-squares fit to all m samples of a row (``basis``'s pseudo-inverse)."""
    places: tuple[str, ...]
    """(m,) the place of the playing area beside each sample."""
    stands: tuple[tuple[int, str, int], ...] = ()
    """(sample, place, n): the sample (an index into ``map_x``) lies under a checker of a stack of
    n or more on the place, as the camera sees it (``stacks_over``)."""


def stacks_over(
    geometry: BoardGeometry,
    samples: NDArray[np.float64],
    camera_at: NDArray[np.float64] | None,
    margin: float,
    max_count: int,
) -> tuple[tuple[int, str, int], ...]:
    """Which of the frame's ``samples`` (N, 2) board points a stack on a point can hide from a camera
    at ``camera_at`` (board (x, y, z), z < 0 above the board; None: straight above each sample):
    (sample, place, n) for the fewest checkers n on the place that put one there -- a line from the
    base (running on past the tip for a long head, up to the board's middle) or a pile on a full
    line (each layer over the gaps of the one under it, one checker higher). A disc hides a sample
    when the ray from the camera to the sample passes within its radius (times 1 + ``margin``) at
    a height the stack reaches."""
    cap = geometry.line_capacity
    r, t = geometry.checker_radius * (1.0 + margin), geometry.checker_height
    # a line from the base, as far as the middle of the board at most
    reach = int(geometry.height / (4.0 * geometry.checker_radius) - 0.5) + 1
    discs: list[tuple[float, int, int]] = [(float(k), 1, k + 1) for k in range(min(max_count, reach))]
    below, layer = cap, 2
    while below < max_count and cap - layer + 1 > 0:  # a pile: layer L over the gaps of layer L - 1
        size = cap - layer + 1
        discs += [(j + (layer - 1) / 2.0, layer, below + j + 1) for j in range(size) if below + j < max_count]
        below, layer = below + size, layer + 1
    slot = np.array([d[0] for d in discs])
    height = np.array([d[1] * t for d in discs])
    need = np.array([d[2] for d in discs])
    a = np.asarray(samples, np.float64).reshape(-1, 2)
    if camera_at is None or float(camera_at[2]) >= 0.0:
        lean = np.zeros((len(a), len(height), 2))
    else:  # where the ray to each sample runs at each disc's height (N, D, 2), less the sample
        c = np.asarray(camera_at, np.float64)
        lean = (c[None, :2] - a)[:, None, :] * (height / -float(c[2]))[None, :, None]
    span = np.maximum(np.sum(lean * lean, axis=2), 1e-18)
    out: list[tuple[int, str, int]] = []
    for row in ROWS:
        for i in range(POINTS_PER_ROW):
            centre = np.array([geometry.slot(row, i, float(k)) for k in slot])
            # distance from each disc's centre to the ray's stretch from the board up to its height
            to_centre = centre[None, :, :] - a[:, None, :]
            along = np.clip(np.sum(to_centre * lean, axis=2) / span, 0.0, 1.0)
            gap = to_centre - along[:, :, None] * lean
            hidden = np.sum(gap * gap, axis=2) <= r * r
            for k in np.flatnonzero(hidden.any(axis=1)):
                out.append((int(k), f"{row}[{i}]", int(need[hidden[k]].min())))
    return tuple(out)


def frame_sides(
    config: SettleConfig,
    geometry: BoardGeometry,
    frame_size: tuple[int, int],
    to_frame: Callable[[NDArray[np.float64]], NDArray[np.float64]],
    camera_at: NDArray[np.float64] | None = None,
    max_count: int = 15,
) -> tuple[FrameSide, ...]:
    """The sides of the board's frame watched for an arm (``frame_crossings``) in frames of
    ``frame_size`` (width, height), ``to_frame`` taking board (N, 2) points on the board's plane to
    frame (N, 2) pixels: each side but the tray's, in rows (``frame_depths``) of samples every
    ``frame_step`` point widths. A side the frame shows only in part is not watched. ``camera_at``:
    the camera's centre (board (x, y, z), see ``stacks_over``), for which samples a stack of up to
    ``max_count`` checkers can stand over."""
    w_img, h_img = frame_size
    sides: list[tuple[str, tuple[float, float], tuple[float, float], tuple[float, float]]] = [
        ("top", (0.0, 0.0), (1.0, 0.0), (0.0, -1.0)),
        ("bottom", (0.0, geometry.height), (1.0, geometry.height), (0.0, 1.0)),
    ]
    if geometry.tray_side != "left":
        sides.append(("left", (0.0, 0.0), (0.0, geometry.height), (-1.0, 0.0)))
    if geometry.tray_side != "right":
        sides.append(("right", (1.0, 0.0), (1.0, geometry.height), (1.0, 0.0)))
    watched: list[FrameSide] = []
    for side, a, b, out in sides:
        length = float(np.hypot(b[0] - a[0], b[1] - a[1]))
        m = max(8, int(length / (config.frame_step * geometry.point_width)))
        s = (np.arange(m) + 0.5) / m
        along = np.asarray(a)[None, :] + (np.asarray(b) - np.asarray(a))[None, :] * s[:, None]
        pts = np.concatenate(
            [along + np.asarray(out)[None, :] * d * geometry.frame_width for d in config.frame_depths]
        )
        xy = to_frame(pts)
        if (xy < 0).any() or (xy[:, 0] > w_img - 1).any() or (xy[:, 1] > h_img - 1).any():
            continue
        basis = np.stack([np.ones_like(s), s, s * s], axis=1)
        watched.append(
            FrameSide(
                side,
                xy[:, 0].astype(np.float32).reshape(-1, 1),
                xy[:, 1].astype(np.float32).reshape(-1, 1),
                basis,
                np.asarray(np.linalg.pinv(basis), dtype=np.float64),
                tuple(_side_place(geometry, side, float(x), float(y)) for x, y in along),
                stacks_over(geometry, pts, camera_at, config.frame_stand_margin, max_count),
            )
        )
    return tuple(watched)


def frame_crossings(
    config: SettleConfig,
    frame: NDArray[np.uint8],
    sides: Sequence[FrameSide],
    occupied: Mapping[str, int] | None = None,
) -> tuple[str, ...]:
    """Places beside which something crosses the board's frame: an arm reaching in.

    ``frame`` (H, W, 3) uint8 BGR, ``sides`` where its frame is sampled (``frame_sides``). The
    frame is one wood or one paint, so an arm over it stands out from each row's smooth course
    (``_off_the_light``) by ``frame_spreads`` of the row's spread; where ``frame_run``
    neighbouring samples do so in ``frame_rows`` rows -- or ``frame_wide_run`` by
    ``frame_wide_spreads``, a wide arm or a hand whose colour is near the frame's -- the place
    beside them is named
    (``top[i]``/``bottom[i]`` on the long sides, the nearest end point on the short ones).
    ``occupied``: how many checkers each point holds, its line starting at the base; the samples
    such a stack can stand over as the camera sees it (``FrameSide.stands``: the far side's base
    checkers from a low camera, a head piled on a corner point) are not read.
    """
    named: list[str] = []
    rows = len(config.frame_depths)
    for side in sides:
        m = len(side.places)
        bgr = cv2.remap(frame, side.map_x, side.map_y, cv2.INTER_LINEAR)
        lab = cv2.cvtColor(bgr, cv2.COLOR_BGR2Lab).reshape(rows, m, 3).astype(np.float64)
        off = _off_the_light(config, lab, side)
        if occupied:
            hidden = [k for k, place, n in side.stands if occupied.get(place, 0) >= n]
            off.reshape(-1)[hidden] = 0.0
        found = [(off > config.frame_spreads).sum(axis=0) >= config.frame_rows]
        if config.frame_wide_run > 0:
            found.append((off > config.frame_wide_spreads).sum(axis=0) >= config.frame_rows)
        runs = (config.frame_run, config.frame_wide_run)
        for unlike, least in zip(found, runs, strict=False):
            run = 0
            for k in np.flatnonzero(unlike):
                run = run + 1 if k > 0 and unlike[k - 1] else 1
                if run >= least:
                    named.extend(side.places[k - run + 1 : k + 1])
    return tuple(dict.fromkeys(named))


def _off_the_light(config: SettleConfig, lab: NDArray[np.float64], side: FrameSide) -> NDArray[np.float64]:
    """(rows, m) how far each of each row's m samples (``lab`` (rows, m, 3)) stands out from the
    frame, in the row's spreads: a lamp lights a side unevenly, so each channel's smooth course
    along it (a quadratic, fitted again without the samples far off the first fit) is taken away
    first, and the spread is that of the rest about it. With ``frame_trim`` that first course is
    fitted again to the samples nearest a fit to all of them: an arm across a fifth of a side drags
    a fit to all towards itself."""
    course = side.basis @ (side.fit @ lab)
    off = np.linalg.norm(lab - course, axis=2)
    if config.frame_trim > 0:
        # an arm across much of a side drags the course towards itself: it is fitted again to the
        # samples nearest it, most of them the frame's
        m = off.shape[1]
        k = int((1.0 - config.frame_trim) * (m - 1))  # frame_trim in (0, 0.5]: k in [(m - 1) / 2, m - 1)
        off = _off_course(side, lab, off <= np.partition(off, k, axis=1)[:, k : k + 1])
    spread = np.maximum(1.4826 * median(off, axis=1), config.frame_floor)
    keep = off < config.frame_keep * spread[:, None]
    again = ~keep.all(axis=1) & (keep.sum(axis=1) >= side.basis.shape[1] + 2)
    if again.any():
        off[again] = _off_course(side, lab[again], keep[again])
        for r in np.flatnonzero(again):
            spread[r] = max(1.4826 * float(median(off[r][keep[r]])), config.frame_floor)
    return np.asarray(off / spread[:, None], dtype=np.float64)


def _off_course(side: FrameSide, lab: NDArray[np.float64], use: NDArray[np.bool_]) -> NDArray[np.float64]:
    """(rows, m) how far each sample of ``lab`` (rows, m, 3) lies from its row's quadratic course
    fitted to the samples ``use`` (rows, m) marks: every row's least squares at once, by its normal
    equations (each row uses far more samples than the three terms)."""
    weighed = side.basis.T[None, :, :] * use[:, None, :]  # (rows, 3, m)
    coef = np.linalg.solve(weighed @ side.basis, weighed @ lab)  # (rows, 3, 3)
    return np.asarray(np.linalg.norm(lab - side.basis @ coef, axis=2), dtype=np.float64)


def _side_place(geometry: BoardGeometry, side: str, x: float, y: float) -> str:
    """The place of the playing area beside board point (x, y) on ``side`` of the frame."""
    if side in ("left", "right"):
        index = 0 if side == "left" else POINTS_PER_ROW - 1
        return f"top[{index}]" if y < geometry.height / 2 else f"bottom[{index}]"
    if geometry.half_width <= x <= geometry.half_width + geometry.bar_width:
        return "bar"
    index = int(np.argmin([abs(geometry.point_x(i) - x) for i in range(POINTS_PER_ROW)]))
    return f"{side}[{index}]"
