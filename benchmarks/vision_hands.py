"""Benchmark of "not settled, and where": frames with a hand over the board.

Every image is a new random scene with one hand and arm over it (``nardy.vision.cover.hand_set``:
fingertips on a stack's top checker or over a point, sometimes holding a checker, the arm from the
near or the far side, skin and sleeve colours varied, 0..50 degree tilt). The truth is which places
the hand hides or shadows (``covered_places``: a quarter of a point's column, or of its checkers'
discs with its first slot). Per frame:

* *named*: the share of the covered places the reading names unsettled (the referee ignores those);
* *with neighbours*: the same when a named point's neighbours count too (the referee's suspects);
* *confidently wrong, unnamed*: the reading of some covered place is wrong with confidence at least
  ``CONFIDENT`` and that place is not named -- what misleads the referee;
* *any place ...*: the same over every place, covered or not;
* *extra named*: places named that are not covered (over-caution costs the referee nothing while
  the hand is there, but it is reported).

With ``--stream D`` each frame is read as the second of a stream: the frame before it (the same
scene, dice and noise of its own) has the hand, and any checker it holds, ``D`` point widths further
back along the arm, as a hand at work moves between two frames; the recognizer compares the two
(``settle.moved_places``), as in a live session. Results go to ``vision_hands_stream.json``.

    python -m benchmarks.vision_hands [--n 300] [--seed 2] [--stream D]
"""

from __future__ import annotations

import argparse
import math
import time
from collections import defaultdict
from dataclasses import replace
from typing import Any

import numpy as np

from benchmarks._table import table, write
from nardy.vision.config import RecognizerConfig
from nardy.vision.cover import covered_places, hand_set
from nardy.vision.detect import Detector
from nardy.vision.layout import layout_errors
from nardy.vision.observation import Observation
from nardy.vision.recognizer import Recognizer
from nardy.vision.render import Hand
from nardy.vision.scene import Sample, Scene

SIZE = (1280, 720)
CONFIDENT = 0.5
"""A reading this confident (probability of its most likely stack) is taken at its word."""
TILT_BANDS = ((0.0, 15.0), (15.0, 30.0), (30.0, 50.01))


def _confidence(obs: Observation, place: str) -> float:
    if place == "bar":
        return obs.bar.confidence
    if place == "off":
        return obs.off.confidence if obs.off.measured else 0.0
    row, i = place.rstrip("]").split("[")
    return obs.row(row)[int(i)].confidence  # type: ignore[arg-type]


def _neighbours(places: tuple[str, ...]) -> set[str]:
    out = set(places)
    for p in places:
        if "[" in p:
            row, i = p.rstrip("]").split("[")
            out |= {f"{row}[{j}]" for j in (int(i) - 1, int(i) + 1) if 0 <= j < 12}
    return out


def _frame_before(scene: Scene, sample: Sample, hand: Hand, back: float, seed: int) -> Sample:
    """``sample`` drawn again with the hand (and the checker it holds) ``back`` point widths further
    back along its arm, with sensor noise of its own."""
    angle = math.radians(hand.from_deg)  # 0: the arm from beyond the bottom edge, 90: from the left
    dx, dy = (
        -math.sin(angle) * back * scene.geometry.point_width,
        math.cos(angle) * back * scene.geometry.point_width,
    )
    loose = tuple(replace(c, x=c.x + dx, y=c.y + dy) for c in sample.meta["loose"])
    return scene.render(
        sample.layout,
        dice=sample.meta["dice"],
        hands=(replace(hand, x=hand.x + dx, y=hand.y + dy),),
        loose=loose,
        rng=np.random.default_rng([seed, 8, sample.meta["index"]]),
    )


def run(n: int, seed: int, stream: float | None = None) -> dict[str, Any]:
    config = RecognizerConfig()
    detector = Detector.load()
    records = []
    for scene, sample, hands in hand_set(n, seed, size=SIZE):
        covered = covered_places(scene, hands, sample.checkers)
        rec = Recognizer(config, sample.corners, detector=detector)
        if stream is not None:
            rec.read(_frame_before(scene, sample, hands[0], stream, seed).image)
        t0 = time.perf_counter()
        obs = rec.read(sample.image, consecutive=stream is not None)
        ms = (time.perf_counter() - t0) * 1000.0
        named = set(obs.unsettled)
        # each place read on its own, as the referee weighs it (not the layout with fifteen a side,
        # which a hand hiding checkers would push to find them elsewhere)
        wrong = [e for e in layout_errors(sample.layout, obs.point_layout()) if e != "off"]
        misleading = [e for e in wrong if e not in named and _confidence(obs, e) >= CONFIDENT]
        hand = hands[0]
        records.append(
            {
                "index": sample.meta["index"],
                "family": sample.meta["family"],
                "tilt": sample.meta["tilt"],
                "near": abs(((hand.from_deg + 180.0) % 360.0) - 180.0) < 90.0,
                "covered": list(covered),
                "named": list(obs.unsettled),
                "settled": obs.settled,
                "named_covered": sum(c in named for c in covered),
                "near_covered": sum(c in _neighbours(obs.unsettled) for c in covered),
                "misleading": misleading,
                "misleading_covered": [e for e in misleading if e in covered],
                "extra": len(named - set(covered) - {"board"}),
                "ms": ms,
            }
        )
    return {"records": records}


def summarise(records: list[dict[str, Any]]) -> list[list[Any]]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        groups["all"].append(r)
        groups["arm from the near side" if r["near"] else "arm from the far side"].append(r)
        for lo, hi in TILT_BANDS:
            if lo <= r["tilt"] < hi:
                groups[f"tilt {lo:.0f}-{min(hi, 50):.0f} deg"].append(r)
    rows = []
    for name, rs in groups.items():
        some = [r for r in rs if r["covered"]]
        named = [r["named_covered"] / len(r["covered"]) for r in some]
        near = [r["near_covered"] / len(r["covered"]) for r in some]
        rows.append(
            [
                name,
                len(rs),
                f"{100 * sum(not r['settled'] for r in rs) / len(rs):.1f}%",
                f"{100 * float(np.mean(named)):.1f}%" if named else "-",
                f"{100 * sum(r['named_covered'] == len(r['covered']) for r in some) / len(some):.1f}%"
                if some
                else "-",
                f"{100 * float(np.mean(near)):.1f}%" if near else "-",
                f"{100 * sum(bool(r['misleading_covered']) for r in rs) / len(rs):.1f}%",
                f"{100 * sum(bool(r['misleading']) for r in rs) / len(rs):.1f}%",
                f"{float(np.mean([r['extra'] for r in rs])):.2f}",
            ]
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=300, help="images (default 300)")
    parser.add_argument("--seed", type=int, default=2, help="seed of the set (default 2)")
    parser.add_argument(
        "--stream",
        type=float,
        metavar="D",
        help="read each frame after one with the hand D point widths further back along its arm",
    )
    args = parser.parse_args()
    result = run(args.n, args.seed, args.stream)
    headers = [
        "group",
        "frames",
        "called unsettled",
        "covered named",
        "all covered named",
        "with neighbours",
        "conf. wrong unnamed (covered)",
        "conf. wrong unnamed (any place)",
        "extra named",
    ]
    rows = summarise(result["records"])
    streamed = (
        "" if args.stream is None else f", each after a frame with the hand {args.stream:g} point widths back"
    )
    print(
        f"vision hands: {args.n} synthetic {SIZE[0]}x{SIZE[1]} frames with a hand, seed {args.seed}{streamed}"
    )
    print(table(headers, rows))
    path = write(
        "vision_hands" if args.stream is None else "vision_hands_stream",
        {
            "n": args.n,
            "seed": args.seed,
            "stream": args.stream,
            "size": list(SIZE),
            "confident": CONFIDENT,
            "table": {"headers": headers, "rows": rows},
            **result,
        },
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
