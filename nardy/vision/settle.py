"""Stage 6 -- settle: is anything over the board that is not a resting checker?

Whatever the counted checkers do not explain is examined. A large connected patch that differs
from the empty board (a hand, an arm, a sleeve) or a checker-like disc away from every line (a
checker being moved) makes the frame *not settled*; dice and the doubling cube are smaller than
either and are ignored.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from nardy.vision.config import SettleConfig
from nardy.vision.masks import BoardMasks

F32 = NDArray[np.float32]


def _place(masks: BoardMasks, x: float, y: float) -> str:
    """Name of the place at rectified pixel (x, y): ``top[i]``, ``bottom[i]``, ``bar``."""
    if abs(x - masks.bar_x) < 0.5 * (
        masks.column_x[6] - masks.column_x[5] - (masks.column_x[1] - masks.column_x[0])
    ):
        return "bar"
    i = int(np.argmin(np.abs(masks.column_x - x)))
    return f"top[{i}]" if y < masks.size[1] / 2 else f"bottom[{i}]"


def unsettled_places(
    config: SettleConfig,
    masks: BoardMasks,
    difference: F32,
    score: F32,
    discs: list[tuple[float, float]],
    radius: float,
    piles: Sequence[tuple[tuple[float, float], tuple[float, float]]] = (),
) -> tuple[str, ...]:
    """Places where something other than a resting checker is; empty when the board is settled.

    ``difference`` and ``score`` are (h, w) float32 (evidence and detector log-odds), ``discs`` the
    rectified centres of every checker counted, ``radius`` their radius in pixels, ``piles`` the first
    and last centre of every line that may carry a second layer.
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
    other = ((difference > config.unexplained) & (explained == 0)).astype(np.uint8)
    # the strip along the playing area's edge shows the frame's bevel and shadow from oblique views
    margin = int(round(config.edge_margin * float(masks.column_x[1] - masks.column_x[0])))
    if margin > 0:
        other[:margin] = 0
        other[-margin:] = 0
        other[:, :margin] = 0
        other[:, -margin:] = 0
    other = cv2.morphologyEx(other, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    point_area = float(masks.column_x[1] - masks.column_x[0]) ** 2
    places: list[str] = []
    n, labels, stats, centroids = cv2.connectedComponentsWithStats(other, connectivity=8)
    for k in range(1, n):
        if stats[k, cv2.CC_STAT_AREA] > config.blob_area * point_area:
            x0, y0 = stats[k, cv2.CC_STAT_LEFT], stats[k, cv2.CC_STAT_TOP]
            bw, bh = stats[k, cv2.CC_STAT_WIDTH], stats[k, cv2.CC_STAT_HEIGHT]
            ys, xs = np.nonzero(labels[y0 : y0 + bh, x0 : x0 + bw] == k)
            step = max(1, len(xs) // 40)
            picks = zip(xs[::step] + x0, ys[::step] + y0, strict=True)
            names = sorted({_place(masks, float(x), float(y)) for x, y in picks})
            places.extend(names or ["board"])
    # a checker-like disc that no line explains: a checker in motion
    loose = (score > config.loose_score) & (explained == 0)
    if loose.any():
        ys, xs = np.nonzero(loose)
        k = int(np.argmax(score[ys, xs]))
        places.append(_place(masks, float(xs[k]), float(ys[k])))
    return tuple(dict.fromkeys(places))
