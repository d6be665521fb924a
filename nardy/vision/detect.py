"""Stage 3b -- detect: how likely a checker's top is centred at each pixel of the rectified board.

A checker top on the rectified plane is a disc of known diameter. The score at a pixel is a linear
log-odds over a few board-relative features measured around a disc centred there:

0. ``inside``    -- mean difference from the empty board over the disc's core (board-relative units),
1. ``contrast``  -- the core's colour distance from the empty look, absolute (weighted Lab units / 32),
2. ``ends_min`` / 3. ``ends_max`` -- edge energy across the rim at the disc's two ends along the point
   (where it meets its neighbours in a stack, or the board), weaker and stronger, log scale,
4. ``sides_min`` -- the weaker of the two sides' edge energy across the rim,
5. ``diag_min`` / 6. ``diag_mean`` -- the same at the four diagonal places of the rim,
7. ``seam``      -- edge energy across the disc's middle (where two stacked checkers would meet),
8. ``busy``      -- edge energy inside the core (checker tops are plain),
9. ``votes``     -- radial-symmetry votes: how much edge round this centre points at it (log scale),
10. ``symmetry`` -- those votes as a share of the edge energy nearby (a point's straight edges vote
    along lines, a checker's rim into one spot).

The features feed a small perceptron (``Detector``, one hidden layer) fitted on rendered boards by
``nardy.vision.fit`` and shipped as ``detector.json``; the features are relative to the frame's own
board, so they carry to boards never seen. The same file holds ``LayerHead``, a linear model over the
same features in the gaps of a full line, which tells whether a checker of a higher layer lies there.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from functools import cached_property
from importlib import resources
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from nardy.vision.config import DetectConfig
from nardy.vision.evidence import Evidence

F32 = NDArray[np.float32]
F64 = NDArray[np.float64]
N_FEATURES = 11


def _odd(n: float) -> int:
    k = max(1, int(round(n)))
    return k if k % 2 else k + 1


def _shifts(a: F32, ry: int, rx: int, offsets: list[tuple[int, int]]) -> list[F32]:
    """For each (dy, dx) of ``offsets`` (|dy| <= ry, |dx| <= rx) the (h, w) view out[y, x] = a[y + dy,
    x + dx], edges replicated: windows of one copy of ``a`` padded by (ry, rx)."""
    h, w = a.shape
    padded = np.asarray(cv2.copyMakeBorder(a, ry, ry, rx, rx, cv2.BORDER_REPLICATE), dtype=np.float32)
    return [padded[ry + dy : ry + dy + h, rx + dx : rx + dx + w] for dy, dx in offsets]


def radial_votes(ev: Evidence, radius: float, spread: tuple[float, ...], floor: float) -> F32:
    """Circle-centre votes: every edge pixel votes, with its gradient strength, for the points one
    ``radius`` away along its gradient, both ways (a rim votes for its disc's centre whichever way its
    contrast goes). ``spread`` are radius factors to vote at; edges weaker than ``floor`` (in
    median-gradient units) do not vote. Returns (h, w) float32 votes."""
    root = ev.root_magnitude
    h, w = root.shape
    flat = np.flatnonzero(root > np.sqrt(floor))
    ys = flat // w
    xs = flat - ys * w
    weight = root.reshape(-1)[flat]
    m = weight * weight
    ux, uy = ev.gx.reshape(-1)[flat] / m, ev.gy.reshape(-1)[flat] / m
    # every radius, both ways, at once, into a grid padded so that no vote falls outside it
    reach = np.array([sign * f * radius for f in spread for sign in (1.0, -1.0)], np.float32)[:, None]
    pad = int(np.ceil(float(np.abs(reach).max()))) + 1
    wide = w + 2 * pad
    px = reach * ux
    px += (xs + pad).astype(np.float32)
    np.rint(px, out=px)
    py = reach * uy
    py += (ys + pad).astype(np.float32)
    np.rint(py, out=py)
    py *= np.float32(wide)
    py += px  # the padded grid has fewer than 2**24 cells: exact in single precision
    # (bincount sums in double precision over indices of the platform's width: handed those, it
    # makes no copies of its own -- the same sums in the same order)
    votes = np.tile(weight.astype(np.float64), len(reach))
    acc = np.bincount(py.reshape(-1).astype(np.intp), weights=votes, minlength=(h + 2 * pad) * wide)
    return np.asarray(acc.reshape(h + 2 * pad, wide)[pad : pad + h, pad : pad + w], dtype=np.float32)


def feature_maps(config: DetectConfig, ev: Evidence, diameter_px: float) -> list[F32]:
    """The N_FEATURES (h, w) float32 maps of a disc of ``diameter_px`` centred at each pixel."""
    r = diameter_px / 2.0
    core = _odd(config.core * diameter_px)
    arc = _odd(config.arc * diameter_px)
    box = cv2.boxFilter
    # (the arithmetic is done in place where it can be: fewer big arrays to fill)

    def log_box(a: F32, size: tuple[int, int]) -> F32:
        out = np.asarray(box(a, cv2.CV_32F, size), dtype=np.float32)
        return np.asarray(np.log1p(out, out=out), dtype=np.float32)

    inside = box(np.minimum(ev.difference, config.difference_cap), cv2.CV_32F, (core, core))
    along_x = log_box(ev.gx2, (3, arc))
    along_y = log_box(ev.gy2, (arc, 3))
    small = _odd(arc * 0.6)
    diag1 = log_box(ev.gd1, (small, small))
    diag2 = log_box(ev.gd2, (small, small))
    c = int(round(r * 0.7071))
    ri = int(round(r))
    end_a, end_b = _shifts(along_y, ri, 0, [(-ri, 0), (ri, 0)])
    side_a, side_b = _shifts(along_x, 0, ri, [(0, -ri), (0, ri)])
    d = _shifts(diag1, c, c, [(c, c), (-c, -c)]) + _shifts(diag2, c, c, [(c, -c), (-c, c)])
    diag_min = np.minimum(d[0], d[1])
    np.minimum(diag_min, np.minimum(d[2], d[3]), out=diag_min)
    diag_mean = d[0] + d[1]
    diag_mean += d[2]
    diag_mean += d[3]
    diag_mean *= 0.25
    busy = log_box(ev.gx2 + ev.gy2, (core, core))
    contrast = np.asarray(box(ev.contrast, cv2.CV_32F, (core, core)), dtype=np.float32)
    contrast *= 1 / 32.0
    np.minimum(contrast, config.contrast_cap, out=contrast)
    votes = radial_votes(ev, r, config.vote_radii, config.vote_floor)
    votes = np.asarray(cv2.GaussianBlur(votes, (0, 0), config.vote_blur * diameter_px), dtype=np.float32)
    # the votes a disc's rim would cast, if all its edge were one gradient unit strong
    full = 2 * np.pi * r * len(config.vote_radii)
    local = np.asarray(
        box(ev.root_magnitude, cv2.CV_32F, (_odd(2.4 * r), _odd(2.4 * r)), normalize=False), dtype=np.float32
    )
    local += full * 0.25
    symmetry = np.divide(votes, local, out=local)
    votes *= 1 / full
    maps = [
        inside,
        contrast,
        np.minimum(end_a, end_b),
        np.maximum(end_a, end_b),
        np.minimum(side_a, side_b),
        diag_min,
        diag_mean,
        along_y,
        busy,
        np.log1p(votes, out=votes),
        symmetry,
    ]
    return [np.asarray(m, dtype=np.float32) for m in maps]


def features(config: DetectConfig, ev: Evidence, diameter_px: float) -> F32:
    """(h, w, N_FEATURES) float32 stack of ``feature_maps`` (for fitting)."""
    return np.stack(feature_maps(config, ev, diameter_px), axis=2)


@dataclass(frozen=True)
class LayerHead:
    """A linear model telling whether a gap of a full line holds a checker of a higher layer: its
    inputs are ``nardy.vision.count.gap_features``; its output a log-likelihood ratio (the two classes
    weighed alike, so the count stage's prior decides how common piles are)."""

    mean: F64
    std: F64
    w: F64
    b: float

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> LayerHead:
        g = np.float64
        return cls(np.asarray(d["mean"], g), np.asarray(d["std"], g), np.asarray(d["w"], g), float(d["b"]))

    def log_ratio(self, x: F64) -> F64:
        """(N, F) gap features -> (N,) log-likelihood ratios."""
        return np.asarray(((x - self.mean) / self.std) @ self.w + self.b, dtype=np.float64)


@dataclass(frozen=True)
class Detector:
    """The fitted detector: features -> standardised -> one ReLU layer -> log-odds; and optionally the
    head that reads second layers."""

    mean: F32
    std: F32
    w1: F32
    b1: F32
    w2: F32
    b2: float
    layer: LayerHead | None = None
    upper: LayerHead | None = None
    """The same kind of head for the layers above the second, over the middles of the neighbours of the
    layer under them."""
    side_margin: float | None = None
    """The ``RectifyConfig.side_margin`` of the views it was fitted on (None: not recorded)."""

    @classmethod
    def from_dict(
        cls, d: dict[str, Any], layer: dict[str, Any] | None = None, upper: dict[str, Any] | None = None
    ) -> Detector:
        f = np.float32
        return cls(
            np.asarray(d["mean"], f),
            np.asarray(d["std"], f),
            np.asarray(d["w1"], f),
            np.asarray(d["b1"], f),
            np.asarray(d["w2"], f),
            float(d["b2"][0]),
            LayerHead.from_dict(layer) if layer is not None else None,
            LayerHead.from_dict(upper) if upper is not None else None,
        )

    @classmethod
    def load(cls, path: str | None = None) -> Detector:
        """Read a model written by ``nardy.vision.fit`` (default: the one shipped with nardy)."""
        if path:
            with open(path, encoding="utf-8") as fh:
                data = json.load(fh)
        else:
            data = json.loads(resources.files("nardy.vision").joinpath("detector.json").read_text("utf-8"))
        model = data.get("model", data)
        if len(model["mean"]) != N_FEATURES:
            raise ValueError(
                f"detector model has {len(model['mean'])} features, this code makes {N_FEATURES}"
            )
        margin = data.get("side_margin")
        detector = cls.from_dict(model, data.get("layer"), data.get("upper"))
        return replace(detector, side_margin=None if margin is None else float(margin))

    def log_odds(self, x: F32) -> F32:
        """(N, N_FEATURES) float32 -> (N,) float32 log-odds of a checker centre."""
        hid = np.maximum(((x - self.mean) / self.std) @ self.w1 + self.b1, 0)
        return np.asarray(hid @ self.w2 + np.float32(self.b2), dtype=np.float32)

    @cached_property
    def _folded(self) -> tuple[F32, F32]:
        """The first layer's (hidden, N_FEATURES) weights and (hidden,) biases with the standardisation
        folded in (worked out once, not per frame)."""
        w1 = np.asarray((self.w1 / self.std[:, None]).T, dtype=np.float32)
        b1 = np.asarray(self.b1 - (self.mean / self.std) @ self.w1, dtype=np.float32)
        return w1, b1

    def log_odds_columns(self, x: F32) -> F32:
        """``log_odds`` of (N_FEATURES, N) float32 features, one column per place (the faster layout)."""
        w1, b1 = self._folded
        hid = w1 @ x
        hid += b1[:, None]
        # the ReLU (as a threshold: a zero's sign cannot change the sum below, which adds b2)
        hid = np.asarray(cv2.threshold(hid, 0.0, 0.0, cv2.THRESH_TOZERO)[1], dtype=np.float32)
        return np.asarray(self.w2.reshape(-1) @ hid + np.float32(self.b2), dtype=np.float32)


def score_map(
    detector: Detector,
    maps: list[F32],
    where: NDArray[np.bool_] | None = None,
    places: NDArray[np.intp] | None = None,
) -> F32:
    """(h, w) float32 log-odds that a checker top is centred at each pixel (only at ``where`` if given;
    elsewhere -20). ``places``: ``np.flatnonzero(where)``, when already at hand."""
    if len(maps) != N_FEATURES:
        raise ValueError(f"{len(maps)} feature maps, the detector wants {N_FEATURES}")
    h, w = maps[0].shape
    out = np.full(h * w, -20.0, np.float32)
    if places is not None:
        flat = places
    else:
        flat = np.arange(h * w) if where is None else np.flatnonzero(where)
    x = np.empty((len(maps), len(flat)), np.float32)
    for row, m in zip(x, maps, strict=True):
        np.take(m.reshape(-1), flat, out=row)
    out[flat] = detector.log_odds_columns(x)
    return out.reshape(h, w)
