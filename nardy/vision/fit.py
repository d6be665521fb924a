"""Fit the checker detector's weights on rendered boards: ``python -m nardy.vision.fit``.

Positives are the exact centres of single-layer checker tops (known from the renderer's labels);
negatives are empty places anywhere along every point, the half-way positions between neighbours of
a stack (the commonest confusion when counting), near misses a third of a diameter off, dice and the
cube, and random spots of the board. Places where a checker of a higher layer lies are left out: a
second layer's top is what the layer reader looks for. A small perceptron (``mlp``: one hidden layer,
Adam on the weighted logistic loss) gives the log-odds, written as the detector model.

``--camouflage N`` adds N boards on which one colour of checkers takes one colour of points
(``camouflage_set``); ``--hard-bases`` weighs every bare point's base as a hard negative, and
``--camouflage-bases`` only those on camouflaged boards whose point has the checkers' colour. All
are off by default (docs/vision.md, camouflaged training boards).

Board families and checker sets can be held out (``--hold-out-family oak --hold-out-set
pearl_grey``) so the accuracy benchmark measures how the weights carry to kinds never trained on.
The training seed must differ from the benchmark's.

A second, linear head is then fitted on the gaps of the full lines the new detector finds: is a
checker of a higher layer lying over the gap? It is stored with the detector (``"layer"``). A third,
``"upper"``, judges the layers above the second the same way (each over the middles of the neighbours
of the layer under it); it is fitted on boards where every other one is a long-nardy start, so that
piles of every height are common (``--upper-only DETECTOR`` refits just this head onto a detector).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Collection, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from nardy.vision.config import RecognizerConfig
from nardy.vision.count import Line, column_cover, column_profiles, count_lines, gap_features
from nardy.vision.detect import N_FEATURES, Detector, feature_maps, features, score_map
from nardy.vision.evidence import evidence
from nardy.vision.geometry import ROWS
from nardy.vision.layout import BoardLayout
from nardy.vision.recognizer import Recognizer
from nardy.vision.rectify import RectifyMaps, rectify
from nardy.vision.scene import Sample, Scene, random_layout, synthetic_set
from nardy.vision.style import BOARD_FAMILIES, CHECKER_SETS, BoardStyle
from nardy.vision.texture import point_parity

F32 = NDArray[np.float32]
F64 = NDArray[np.float64]
_PLACEHOLDER = Detector(
    *(np.zeros(N_FEATURES, np.float32),) * 2,
    np.zeros((N_FEATURES, 1), np.float32),
    np.zeros(1, np.float32),
    np.zeros(1, np.float32),
    0.0,
)
HARD_WEIGHT = 4.0
"""How much more a hard negative (half-way between stacked checkers, just past a stack) counts."""
UPPER_CLEAR = 0.6
"""Places closer than this (checker diameters) to a checker of a higher layer are left out of the
negatives: its top is seen there, shifted by its height, and the layer reader looks for it."""


def sample_points(
    sample: Sample,
    config: RecognizerConfig,
    rng: np.random.Generator,
    hard_bases: Collection[int] = (),
) -> tuple[F64, F64]:
    """Features (N, F) and labels (N,) of one rendered sample: 1 a checker's centre, 2 on checkers
    but off any centre, 3 empty but next to a checker (or at the base of a bare point whose colour,
    ``point_parity``, is in ``hard_bases``: there its triangle's sides and the frame's edge ring a
    disc of the point's own colour), 0 elsewhere."""
    rec = Recognizer(config, sample.corners, detector=_PLACEHOLDER)
    maps = rec.prepare((sample.image.shape[1], sample.image.shape[0]))
    masks = rec._masks
    assert masks is not None
    ev = evidence(config.evidence, masks, rectify(maps, sample.image))
    d = rec.diameter_px
    feats = features(config.detect, ev, d)
    h, w = feats.shape[:2]
    s = maps.px_per_unit
    at = maps.from_board
    g = config.geometry
    singles = np.array([at(c.x, c.y) for c in sample.checkers if c.level == 0]).reshape(-1, 2)
    upper = np.array([at(c.x, c.y) for c in sample.checkers if c.level > 0]).reshape(-1, 2)
    pos: list[tuple[float, float]] = [tuple(p) for p in singles]
    neg: list[tuple[float, float]] = []
    off: list[tuple[float, float]] = []
    pw = g.point_width * s
    bases: set[tuple[float, float]] = set()
    for row in ROWS:
        for i in range(12):
            if point_parity(row, i) in hard_bases and sample.layout.row(row)[i].count == 0:
                bases.add(at(*g.slot(row, i, 0.0)))
            for k in np.arange(0, 12, 0.5):
                x, y = g.slot(row, i, float(k))
                neg.append(at(x, y))
                # and anywhere between the slots: a line may start a little way from the base
                _, y = g.slot(row, i, float(k) + rng.uniform(0.1, 0.4))
                vx, vy = at(x, y)
                neg.append((vx, vy))
                # a little to the side: what a sideways search along the point also looks at
                side = rng.choice([-1.0, 1.0]) * rng.uniform(0.08, 0.2) * pw
                neg.append((vx + side, vy))
    for p in singles:
        for dy in (-0.5, 0.5, -0.3, 0.3):
            q = (p[0], p[1] + dy * d)
            if len(singles) and np.min(np.hypot(singles[:, 0] - q[0], singles[:, 1] - q[1])) < 0.25 * d:
                continue
            # a checker of a higher layer may lie there: neither a single's centre nor empty
            if len(upper) and np.min(np.hypot(upper[:, 0] - q[0], upper[:, 1] - q[1])) < UPPER_CLEAR * d:
                continue
            # half-way to a neighbour: still on checkers, but not a centre
            near = np.min(np.hypot(singles[:, 0] - q[0], singles[:, 1] - q[1]))
            (off if near < 0.55 * d else neg).append(q)
    for _ in range(60):
        neg.append((rng.uniform(maps.left, w - maps.left), rng.uniform(0, h)))
    # dice and the cube are not checkers: their centres and round them (counted as hard)
    props: list[tuple[float, float]] = []
    for x, y in sample.meta.get("dice_and_cube", []):
        for dx, dy in ((0, 0), (0.2, 0), (-0.2, 0), (0, 0.2), (0, -0.2)):
            props.append(at(x + dx * g.point_width, y + dy * g.point_width))
    keep = []
    allc = np.vstack([singles, upper]) if len(upper) else singles
    for x, y in neg:
        if len(allc) and np.min(np.hypot(allc[:, 0] - x, allc[:, 1] - y)) < 0.45 * d:
            continue
        if len(upper) and np.min(np.hypot(upper[:, 0] - x, upper[:, 1] - y)) < UPPER_CLEAR * d:
            continue
        keep.append((x, y))

    # empty places next to a checker (just past a stack's end, beside it) are the hard ones
    def is_hard(q: tuple[float, float]) -> bool:
        if q in bases:
            return True
        return bool(len(allc) and np.min(np.hypot(allc[:, 0] - q[0], allc[:, 1] - q[1])) < 1.3 * d)

    flags = [is_hard(q) for q in keep]
    hard = props + [q for q, f in zip(keep, flags, strict=True) if f]
    easy = [q for q, f in zip(keep, flags, strict=True) if not f]
    pts = np.array(pos + off + hard + easy).reshape(-1, 2)
    labels = np.array([1.0] * len(pos) + [2.0] * len(off) + [3.0] * len(hard) + [0.0] * len(easy))
    xi = np.clip(np.round(pts[:, 0]).astype(int), 0, w - 1)
    yi = np.clip(np.round(pts[:, 1]).astype(int), 0, h - 1)
    return feats[yi, xi].astype(np.float64), labels


def _full_lines(
    sample: Sample, config: RecognizerConfig, detector: Detector
) -> tuple[list[Line], list[F32], F32, float, RectifyMaps]:
    """The full lines the count stage finds on one sample, with the feature maps, the score map, the
    checker diameter (px) and the view's lookup maps."""
    rec = Recognizer(config, sample.corners, detector=detector)
    maps = rec.prepare((sample.image.shape[1], sample.image.shape[0]))
    masks = rec._masks
    assert masks is not None
    ev = evidence(config.evidence, masks, rectify(maps, sample.image))
    d = rec.diameter_px
    fmaps = feature_maps(config.detect, ev, d)
    score = score_map(detector, fmaps, rec._where)
    profiles, slips = column_profiles(config.count, score, masks.column_x, rec.point_px)
    cover = column_cover(config.count, ev.difference, masks.column_x, rec.point_px)
    tops, bottoms = count_lines(config.count, profiles, slips, d, config.count.max_line, cover)
    full = [line for line in tops + bottoms if len(line.centres) >= config.geometry.line_capacity]
    return full, fmaps, score, d, maps


def layer_points(sample: Sample, config: RecognizerConfig, detector: Detector) -> tuple[F64, F64]:
    """Gap features (N, F) and labels (N,) of the full lines the count stage finds on one sample: 1 when
    a checker of a higher layer lies over the gap."""
    lines, fmaps, score, d, maps = _full_lines(sample, config, detector)
    upper = np.array([maps.from_board(c.x, c.y) for c in sample.checkers if c.level > 0]).reshape(-1, 2)
    xs, ys = [], []
    for line in lines:
        xs.append(gap_features(fmaps, score, line, d))
        for (x0, y0), (x1, y1) in zip(line.centres, line.centres[1:], strict=False):
            cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
            near = len(upper) > 0 and np.min(np.hypot(upper[:, 0] - cx, upper[:, 1] - cy)) < 0.5 * d
            ys.append(float(near))
    width = N_FEATURES + 2
    return (np.vstack(xs) if xs else np.zeros((0, width))), np.asarray(ys, dtype=np.float64)


def upper_points(sample: Sample, config: RecognizerConfig, detector: Detector) -> tuple[F64, F64]:
    """Features (N, F) and labels (N,) of the places of the layers above the second on the full lines
    the count stage finds on one sample (as ``nardy.vision.count.layer_counts`` looks at them: the
    middles of the neighbours of the layer under each): 1 when a checker of that layer or higher lies
    there."""
    lines, fmaps, score, d, maps = _full_lines(sample, config, detector)
    xs, ys = [], []
    for line in lines:
        below = line.centres
        level = 2
        while len(below) >= 3:
            below = tuple(
                ((x0 + x1) / 2, (y0 + y1) / 2) for (x0, y0), (x1, y1) in zip(below, below[1:], strict=False)
            )
            xs.append(gap_features(fmaps, score, Line(line.probabilities, below, line.scores), d))
            high = np.array([maps.from_board(c.x, c.y) for c in sample.checkers if c.level >= level])
            high = high.reshape(-1, 2)
            for (x0, y0), (x1, y1) in zip(below, below[1:], strict=False):
                cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
                ys.append(
                    float(len(high) > 0 and np.min(np.hypot(high[:, 0] - cx, high[:, 1] - cy)) < 0.5 * d)
                )
            level += 1
    width = N_FEATURES + 2
    return (np.vstack(xs) if xs else np.zeros((0, width))), np.asarray(ys, dtype=np.float64)


def _scene(rng: np.random.Generator, i: int, families: Sequence[str], checker_sets: Sequence[str]) -> Scene:
    """Board ``i`` of a training set: families cycle, and checker sets cycle once per round of them."""
    return Scene.random(
        rng,
        family=families[i % len(families)],
        checker_set=checker_sets[(i // len(families)) % len(checker_sets)],
    )


def tall_set(n: int, seed: int, families: Sequence[str], checker_sets: Sequence[str]) -> list[Sample]:
    """``n`` rendered boards, every other one a long-nardy start (two heads of fifteen, piled or run
    past the tip as the scene's habit has it), the others random positions."""
    out = []
    for i in range(n):
        rng = np.random.default_rng([seed, i])
        scene = _scene(rng, i, families, checker_sets)
        layout = BoardLayout.long_start() if i % 2 == 0 else BoardLayout.random(rng)
        out.append(scene.render(layout, rng=rng))
    return out


def camouflage_set(n: int, seed: int, families: Sequence[str], checker_sets: Sequence[str]) -> list[Sample]:
    """``n`` rendered boards on which one colour of checkers takes the colour of one colour of
    points (jittered): a gold checker on a gold point, a white one on a white point. The accuracy
    set meets such boards only when two random colours happen to meet, so the detector would
    otherwise learn a checker as mostly its difference from the board, and miss a checker on a
    point of its own colour, which shows only its rim and its plain top."""
    out = []
    for i in range(n):
        rng = np.random.default_rng([seed, i, 1])
        scene = _scene(rng, i, families, checker_sets)
        scene.style, changed = camouflaged(scene.style, rng)
        layout = random_layout(rng)
        sample = scene.render(layout, rng=rng)
        sample.meta["camouflage"] = changed
        out.append(sample)
    return out


def camouflaged(style: BoardStyle, rng: np.random.Generator) -> tuple[BoardStyle, dict[str, Any]]:
    """``style`` with the tops of one colour of checkers (``side``) in one colour of its points
    (``point``, of index ``parity`` in ``style.points``), jittered (``top``); and those four."""
    parity = int(rng.integers(2))
    point = style.points[parity]
    top = tuple(float(np.clip(c + rng.normal(0.0, 6.0), 0, 255)) for c in point)
    side = "light" if rng.random() < 0.5 else "dark"
    return replace(style, **{side: replace(getattr(style, side), top=top)}), {
        "side": side,
        "top": top,
        "point": point,
        "parity": parity,
    }


def upper_head(
    config: RecognizerConfig,
    detector: Detector,
    n: int,
    seed: int,
    families: Sequence[str],
    sets: Sequence[str],
) -> dict[str, Any]:
    """The head for the layers above the second, fitted on ``tall_set``."""
    found = [upper_points(sample, config, detector) for sample in tall_set(n, seed, families, sets)]
    x = np.vstack([f[0] for f in found])
    y = np.concatenate([f[1] for f in found])
    print(f"upper head fitted on {len(y)} places ({int(y.sum())} covered)", file=sys.stderr)
    return layer_head(x, y)


def layer_head(x: F64, y: F64, ridge: float = 1.0) -> dict[str, Any]:
    """The second-layer head (``nardy.vision.detect.LayerHead``) as a dict: a ridge logistic regression
    on standardised gap features, classes weighed alike."""
    mean, std = x.mean(axis=0), x.std(axis=0) + 1e-6
    w, b = logistic((x - mean) / std, y, ridge=ridge)
    return {"mean": mean.tolist(), "std": std.tolist(), "w": w.tolist(), "b": b}


def logistic(
    x: F64, y: F64, ridge: float = 1e-2, iterations: int = 30, sample_weight: F64 | None = None
) -> tuple[F64, float]:
    """Weights and bias of a ridge-regularised logistic regression (Newton's method)."""
    a = np.column_stack([x, np.ones(len(x))])
    beta = np.zeros(a.shape[1])
    sw = np.ones(len(y)) if sample_weight is None else sample_weight
    # balance the classes
    pos_w, neg_w = (sw * (y > 0.5)).sum(), (sw * (y <= 0.5)).sum()
    wts = sw * np.where(y > 0.5, 0.5 / max(pos_w, 1e-9), 0.5 / max(neg_w, 1e-9)) * len(y)
    for _ in range(iterations):
        z = a @ beta
        p = 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))
        grad = a.T @ (wts * (p - y)) + ridge * np.r_[beta[:-1], 0.0]
        hess = (a * (wts * p * (1 - p))[:, None]).T @ a + ridge * np.eye(a.shape[1])
        step = np.linalg.solve(hess, grad)
        beta -= step
        if np.abs(step).max() < 1e-6:
            break
    return beta[:-1], float(beta[-1])


def mlp(
    x: F64,
    y: F64,
    sample_weight: F64,
    hidden: int,
    rng: np.random.Generator,
    steps: int = 4000,
    batch: int = 4096,
    rate: float = 0.01,
) -> dict[str, list[float] | list[list[float]]]:
    """A one-hidden-layer perceptron (ReLU) trained with Adam on the weighted logistic loss; returns the
    detector model in the form ``nardy.vision.detect.Detector`` reads."""
    mean, std = x.mean(axis=0), x.std(axis=0) + 1e-6
    xn = (x - mean) / std
    pos_w, neg_w = (sample_weight * (y > 0.5)).sum(), (sample_weight * (y <= 0.5)).sum()
    wts = sample_weight * np.where(y > 0.5, 0.5 / pos_w, 0.5 / neg_w) * len(y)
    params = [
        rng.normal(0, 1 / np.sqrt(x.shape[1]), (x.shape[1], hidden)),
        np.zeros(hidden),
        rng.normal(0, 1 / np.sqrt(hidden), hidden),
        np.zeros(1),
    ]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    for t in range(1, steps + 1):
        idx = rng.integers(0, len(y), batch)
        xb, yb, wb = xn[idx], y[idx], wts[idx]
        hid = np.maximum(xb @ params[0] + params[1], 0)
        z = hid @ params[2] + params[3][0]
        g = (1 / (1 + np.exp(-np.clip(z, -30, 30))) - yb) * wb / batch
        gh = np.outer(g, params[2]) * (hid > 0)
        grads = [xb.T @ gh, gh.sum(axis=0), hid.T @ g, np.array([g.sum()])]
        for k, gr in enumerate(grads):
            m[k] = 0.9 * m[k] + 0.1 * gr
            v[k] = 0.999 * v[k] + 0.001 * gr * gr
            step = rate * (m[k] / (1 - 0.9**t)) / (np.sqrt(v[k] / (1 - 0.999**t)) + 1e-8)
            params[k] = params[k] - step
    return {
        "mean": mean.tolist(),
        "std": std.tolist(),
        "w1": params[0].tolist(),
        "b1": params[1].tolist(),
        "w2": params[2].tolist(),
        "b2": [float(params[3][0])],
    }


def hard_base_colours(sample: Sample, every: bool, camouflaged: bool) -> tuple[int, ...]:
    """The point colours (``point_parity``) whose bare bases count as hard negatives on ``sample``:
    both with ``every``; with ``camouflaged``, on a camouflaged board, its checkers' point colour."""
    if every:
        return (0, 1)
    if camouflaged and "camouflage" in sample.meta:
        return (int(sample.meta["camouflage"]["parity"]),)
    return ()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m nardy.vision.fit", description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=240, help="rendered boards to fit on")
    parser.add_argument("--seed", type=int, default=1000, help="seed of the training boards")
    parser.add_argument("--hold-out-family", action="append", default=[], choices=BOARD_FAMILIES)
    parser.add_argument("--hold-out-set", action="append", default=[], choices=CHECKER_SETS)
    parser.add_argument("--hidden", type=int, default=16, help="hidden units of the detector")
    parser.add_argument(
        "--hard-bases", action="store_true", help="count bare points' bases as hard negatives"
    )
    parser.add_argument(
        "--camouflage", type=int, default=0, help="boards added with checkers of a point's colour"
    )
    parser.add_argument(
        "--camouflage-bases",
        action="store_true",
        help="on camouflaged boards, count bare bases of the checkers' point colour as hard negatives",
    )
    parser.add_argument("--out", default=None, help="write the detector model here (JSON)")
    parser.add_argument("--upper-n", type=int, default=240, help="rendered boards to fit the upper head on")
    parser.add_argument("--upper-seed", type=int, default=2000, help="seed of the upper head's boards")
    parser.add_argument(
        "--upper-only",
        default=None,
        metavar="DETECTOR",
        help="refit only the upper head of this detector file",
    )
    args = parser.parse_args(argv)
    config = RecognizerConfig()
    families = [f for f in BOARD_FAMILIES if f not in args.hold_out_family]
    sets = [c for c in CHECKER_SETS if c not in args.hold_out_set]
    if args.upper_only:
        with open(args.upper_only, encoding="utf-8") as fh:
            record = json.load(fh)
        detector = Detector.load(args.upper_only)
        fams, kinds = record.get("families", families), record.get("checker_sets", sets)
        record["upper"] = upper_head(config, detector, args.upper_n, args.upper_seed, fams, kinds)
        record["upper_seed"], record["upper_n"] = args.upper_seed, args.upper_n
        _write(record, args.out)
        return 0
    rng = np.random.default_rng(args.seed)
    xs, ys = [], []
    samples = []
    boards = list(synthetic_set(args.n, args.seed, families=families, checker_sets=sets))
    boards += camouflage_set(args.camouflage, args.seed, families, sets)
    for sample in boards:
        x, y = sample_points(
            sample, config, rng, hard_base_colours(sample, args.hard_bases, args.camouflage_bases)
        )
        xs.append(x)
        ys.append(y)
        samples.append(sample)
    x, y = np.vstack(xs), np.concatenate(ys)
    centre = (y == 1).astype(float)
    model = mlp(x, centre, np.where(y >= 2, HARD_WEIGHT, 1.0), args.hidden, np.random.default_rng(args.seed))
    z = Detector.from_dict(model).log_odds(x.astype(np.float32))
    acc = float(np.mean((z > 0) == (centre > 0.5)))
    print(
        f"fitted on {len(y)} positions ({int(centre.sum())} checkers) of {args.n} boards; "
        f"training accuracy {acc:.4f}",
        file=sys.stderr,
    )
    # the second-layer head, on the lines the fitted detector finds
    detector = Detector.from_dict(model)
    gaps = [layer_points(sample, config, detector) for sample in samples]
    gx = np.vstack([g[0] for g in gaps])
    gy = np.concatenate([g[1] for g in gaps])
    layer = layer_head(gx, gy)
    print(f"layer head fitted on {len(gy)} gaps ({int(gy.sum())} covered)", file=sys.stderr)
    detector = Detector.from_dict(model, layer)
    upper = upper_head(config, detector, args.upper_n, args.upper_seed, families, sets)
    record = {
        "model": model,
        "layer": layer,
        "upper": upper,
        "families": families,
        "checker_sets": sets,
        "seed": args.seed,
        "n": args.n,
        "camouflage": args.camouflage,
        "hard_bases": args.hard_bases,
        "camouflage_bases": args.camouflage_bases,
        "upper_seed": args.upper_seed,
        "upper_n": args.upper_n,
        "features": N_FEATURES,
        "side_margin": config.rectify.side_margin,
    }
    _write(record, args.out)
    return 0


def _write(record: dict[str, Any], out: str | None) -> None:
    text = json.dumps(record)
    if out:
        with open(out, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
    else:
        print(text)


if __name__ == "__main__":
    raise SystemExit(main())
