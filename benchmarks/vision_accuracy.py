"""Benchmark of the checker reader's accuracy on a seeded synthetic set.

Every image is a new random scene from ``nardy.vision.scene.synthetic_set``: board family and checker
set cycle evenly, the camera tilt is uniform in 0..50 degrees with random azimuth, roll, lens, light,
glare, blur, noise and JPEG, and the position is a start of either variant or a random mid-game one,
with dice and the cube on free parts of the board. The reader gets the true corners (finding the
board is the calibration benchmark's job). A point is right when its colour and count are; a board is
exact when all 24 points, the bar and the trays are.

The trays get a table of their own: how often the reader says it saw them (``measured``) and, when it
did, how often the borne-off counts are exactly right, per colour, split by whether any checker is off
-- and the mean log-probability it gave the true counts (the referee multiplies these); "off right
(all)" is how often the off counts the reader reports (``layout()``: the trays read, or inferred from
the board when they were not) are right, on every image.

Families and checker sets the detector was not fitted on (see ``nardy/vision/detector.json``) are
marked "held out": they measure how the reader carries to boards it has never seen.

    python -m benchmarks.vision_accuracy [--n 500] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from importlib import resources
from typing import Any

import numpy as np

from benchmarks._table import table, write
from nardy.vision.config import RecognizerConfig
from nardy.vision.detect import Detector
from nardy.vision.layout import layout_errors
from nardy.vision.recognizer import Recognizer
from nardy.vision.scene import synthetic_set

SIZE = (1280, 720)
TILT_BANDS = ((0.0, 15.0), (15.0, 30.0), (30.0, 50.01))


def _trained_on() -> tuple[set[str], set[str]]:
    data = json.loads(resources.files("nardy.vision").joinpath("detector.json").read_text("utf-8"))
    return set(data.get("families", [])), set(data.get("checker_sets", []))


def run(n: int, seed: int) -> dict[str, Any]:
    config = RecognizerConfig()
    detector = Detector.load()
    records = []
    for sample in synthetic_set(n, seed, size=SIZE):
        rec = Recognizer(config, sample.corners, detector=detector)
        t0 = time.perf_counter()
        obs = rec.read(sample.image)
        ms = (time.perf_counter() - t0) * 1000.0
        layout = obs.layout()
        errors = layout_errors(sample.layout, layout)
        point_errors = [e for e in errors if e not in ("bar", "off")]
        # how honest are the probabilities: the probability given to the true layout's points
        truth_p = [
            obs.row(row)[i].probability(stack.colour, stack.count) for row, i, stack in sample.layout.stacks()
        ]
        off_truth = sample.layout.off
        off_seen = obs.off.most_likely()
        off_log_p = float(
            np.log(max(obs.off.light[off_truth.light], 1e-12))
            + np.log(max(obs.off.dark[off_truth.dark], 1e-12))
        )
        records.append(
            {
                "index": sample.meta["index"],
                "family": sample.meta["family"],
                "checker_set": sample.meta["checker_set"],
                "tilt": sample.meta["tilt"],
                "points_right": 24 - len(point_errors),
                "exact": not errors,
                "errors": errors,
                "settled": obs.settled,
                "confidence": obs.confidence,
                "truth_log_p": float(np.sum(np.log(np.maximum(truth_p, 1e-12)))),
                "ms": ms,
                "off_truth": [off_truth.light, off_truth.dark],
                "off_seen": [off_seen.light, off_seen.dark],
                "off_layout": [layout.off.light, layout.off.dark],
                "off_measured": obs.off.measured,
                "off_log_p": off_log_p,
            }
        )
    return {"records": records}


def summarise(records: list[dict[str, Any]], families: set[str], sets: set[str]) -> list[list[Any]]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        groups["all"].append(r)
        held = r["family"] not in families or r["checker_set"] not in sets
        groups["held-out styles" if held else "trained styles"].append(r)
        groups[f"family {r['family']}" + ("" if r["family"] in families else " (held out)")].append(r)
        groups[f"checkers {r['checker_set']}" + ("" if r["checker_set"] in sets else " (held out)")].append(r)
        for lo, hi in TILT_BANDS:
            if lo <= r["tilt"] < hi:
                groups[f"tilt {lo:.0f}-{min(hi, 50):.0f} deg"].append(r)
    rows = []
    for name, rs in groups.items():
        points = sum(r["points_right"] for r in rs) / (24 * len(rs))
        exact = sum(r["exact"] for r in rs) / len(rs)
        unsettled = sum(not r["settled"] for r in rs) / len(rs)
        conf_exact = [r["confidence"] for r in rs if r["exact"]]
        conf_wrong = [r["confidence"] for r in rs if not r["exact"]]
        rows.append(
            [
                name,
                len(rs),
                f"{100 * points:.2f}%",
                f"{100 * exact:.1f}%",
                f"{100 * unsettled:.1f}%",
                f"{np.median(conf_exact):.2f}" if conf_exact else "-",
                f"{np.median(conf_wrong):.2f}" if conf_wrong else "-",
            ]
        )
    return rows


def summarise_trays(records: list[dict[str, Any]]) -> list[list[Any]]:
    """Tray rows: images with / without checkers off; how often the reported off counts are right
    (measured or, when not, inferred from the board); of the measured ones, exact per colour."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        off = sum(r["off_truth"])
        groups["all"].append(r)
        groups["some off" if off else "none off"].append(r)
        if off:
            groups[f"some off, tilt {'< 30' if r['tilt'] < 30 else '>= 30'} deg"].append(r)
    rows = []
    for name, rs in groups.items():
        seen = [r for r in rs if r["off_measured"]]
        both = sum(r["off_seen"] == r["off_truth"] for r in seen)
        light = sum(r["off_seen"][0] == r["off_truth"][0] for r in seen)
        dark = sum(r["off_seen"][1] == r["off_truth"][1] for r in seen)
        k = max(1, len(seen))
        # the off counts the reader reports (``layout()``): the trays read, or inferred from the board
        reported = sum(r["off_layout"] == r["off_truth"] for r in rs)
        rows.append(
            [
                name,
                len(rs),
                f"{100 * len(seen) / len(rs):.1f}%",
                f"{100 * reported / len(rs):.1f}%",
                f"{100 * both / k:.1f}%" if seen else "-",
                f"{100 * light / k:.1f}%" if seen else "-",
                f"{100 * dark / k:.1f}%" if seen else "-",
                f"{np.mean([r['off_log_p'] for r in seen]):.2f}" if seen else "-",
            ]
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=500, help="images (default 500)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the set (default 1)")
    args = parser.parse_args()
    result = run(args.n, args.seed)
    families, sets = _trained_on()
    headers = [
        "group",
        "images",
        "points right",
        "boards exact",
        "called unsettled",
        "conf. exact",
        "conf. wrong",
    ]
    rows = summarise(result["records"], families, sets)
    print(f"vision accuracy: {args.n} synthetic {SIZE[0]}x{SIZE[1]} images, seed {args.seed}, true corners")
    print(table(headers, rows))
    kinds: dict[str, int] = defaultdict(int)
    for r in result["records"]:
        for e in r["errors"]:
            kinds[e.split("[")[0]] += 1
    print("errors by place:", dict(kinds))
    tray_headers = [
        "trays",
        "images",
        "measured",
        "off right (all)",
        "off exact",
        "light exact",
        "dark exact",
        "mean log P(true)",
    ]
    tray_rows = summarise_trays(result["records"])
    print(table(tray_headers, tray_rows))
    path = write(
        "vision_accuracy",
        {
            "n": args.n,
            "seed": args.seed,
            "size": list(SIZE),
            "table": {"headers": headers, "rows": rows},
            "trays": {"headers": tray_headers, "rows": tray_rows},
            **result,
        },
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
